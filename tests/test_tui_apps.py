"""The tool detail in the TUI names a tool's MCP App (its ui:// resource and
visibility) and reads nothing: the app is previewed only on request, outside
the terminal (`inspector app TOOL`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Static

from inspector.core import ServerSpec
from inspector.tui.app import InspectorApp

from .peers import PYTHON, SERVERS
from .tui_helpers import wait_connected, wait_for


@pytest.fixture(autouse=True)
def _own_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("INSPECTOR_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("INSPECTOR_TOKEN_STORE", "file")
    yield


def header(app: InspectorApp) -> str:
    return str(app.query_one("#tool-header-text", Static).render())


async def test_tool_detail_shows_the_app_without_reading_it(tmp_path: Path) -> None:
    log = tmp_path / "asked.jsonl"
    app = InspectorApp(ServerSpec(command=PYTHON, args=[str(SERVERS / "apps_server.py"), str(log)], timeout=30))
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_connected(pilot, app)
        await wait_for(pilot, lambda: "tools" in app.lists, "the tools listed")
        app.select_item("tools", "refresh")
        await wait_for(pilot, lambda: "app: ui://apps/weather (visibility: app)" in header(app), "the app line")
        assert "inspector app TOOL" in header(app)
        app.select_item("tools", "plain")
        await wait_for(pilot, lambda: "No UI" in header(app), "the plain tool")
        assert "app:" not in header(app)
        app.select_item("tools", "hostile_ui")
        await wait_for(pilot, lambda: "unknown visibility" in header(app), "the hostile tool's app problem")
        assert "\x1b" not in header(app) and "\x07" not in header(app)
    asked = [json.loads(line) for line in log.read_text().splitlines()]
    assert not any(m["method"] == "resources/read" and "ui://" in str(m["params"]) for m in asked)


async def test_preview_from_the_tool_detail_serves_on_loopback_and_logs_app_messages(tmp_path: Path) -> None:
    import aiohttp

    from inspector.tui.panes.tools import ToolsPane

    from .servers.apps_server import WEATHER_HTML

    log = tmp_path / "asked.jsonl"
    app = InspectorApp(ServerSpec(command=PYTHON, args=[str(SERVERS / "apps_server.py"), str(log)], timeout=30))
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_connected(pilot, app)
        app.select_item("tools", "weather")
        await wait_for(pilot, lambda: "app: ui://apps/weather (visibility: model, app)" in header(app), "weather")
        pane = app.query_one(ToolsPane)
        app.query_one("#tool-list #options").focus()
        await pilot.press("alt+a")
        await wait_for(pilot, lambda: pane.app_url is not None, "the preview's URL")
        url = pane.app_url
        assert url is not None and url.startswith("http://127.0.0.1:")
        async with aiohttp.ClientSession() as session:
            async with session.get(url + "view") as response:
                assert response.status == 200 and await response.text() == WEATHER_HTML
            async with session.get(url.rsplit("/", 2)[0] + "/view") as response:
                assert response.status == 403
            message = {"jsonrpc": "2.0", "id": 3, "method": "ui/initialize", "params": {}}
            async with session.post(url + "messages", json=message) as response:
                assert (await response.json())["reply"]["id"] == 3
        frames = [f for f in app.client.traffic if f.kind == "app"]
        assert [f.note for f in frames] == ["app → host: ui/initialize", "host → app"]
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.ClientConnectionError):
            await session.get(url + "view")
