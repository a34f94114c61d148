"""The tool detail in the TUI names a tool's MCP App (its ui:// resource and
visibility) and reads nothing: the app is previewed only on request (alt+a),
outside the terminal.  The preview plays the app's host: the person's calls
of the tool reach the view as its input and result, and the app's own
tools/call waits for the confirmation every call gets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from inspector.core.servers.spec import ServerSpec
from inspector.tui.app import InspectorApp

from .app_view import ViewClient
from .peers import PYTHON, SERVERS
from .tui_helpers import wait_connected, wait_for


@pytest.fixture(autouse=True)
def _own_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("INSPECTOR_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("INSPECTOR_TOKEN_STORE", "file")
    yield


def apps_inspector(log: Path) -> InspectorApp:
    """The TUI on tests/servers/apps_server.py, which logs what it is asked to `log`."""
    return InspectorApp(ServerSpec(command=PYTHON, args=[str(SERVERS / "apps_server.py"), str(log)], timeout=30))


def header(app: InspectorApp) -> str:
    return str(app.query_one("#tool-header-text", Static).render())


def asked(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


async def preview_weather(pilot: Pilot[int], app: InspectorApp) -> str:
    """Once connected, select the weather tool and start its app's preview
    from the tool list (alt+a); the preview's URL."""
    from inspector.tui.panes.tools import ToolsPane

    await wait_connected(pilot, app)
    app.select_item("tools", "weather")
    await wait_for(pilot, lambda: "app: ui://apps/weather (visibility: model, app)" in header(app), "weather")
    pane = app.query_one(ToolsPane)
    app.query_one("#tool-list #options").focus()
    await pilot.press("alt+a")
    await wait_for(pilot, lambda: pane.app_url is not None, "the preview's URL")
    assert pane.app_url is not None
    return pane.app_url


async def test_tool_detail_shows_the_app_without_reading_it(tmp_path: Path) -> None:
    log = tmp_path / "asked.jsonl"
    app = apps_inspector(log)
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
    assert not any(m["method"] == "resources/read" and "ui://" in str(m["params"]) for m in asked(log))


async def test_preview_from_the_tool_detail_serves_on_loopback_and_logs_app_messages(tmp_path: Path) -> None:
    import aiohttp

    from .servers.apps_server import WEATHER_HTML

    log = tmp_path / "asked.jsonl"
    app = apps_inspector(log)
    async with app.run_test(size=(140, 45)) as pilot:
        url = await preview_weather(pilot, app)
        assert url.startswith("http://127.0.0.1:")
        async with aiohttp.ClientSession() as session:
            async with session.get(url + "view") as response:
                assert response.status == 200 and await response.text() == WEATHER_HTML
            async with session.get(url.rsplit("/", 2)[0] + "/view") as response:
                assert response.status == 403
        async with ViewClient.open(url) as view:
            answer = await view.request(3, "ui/initialize", {})
            assert answer["result"]["hostContext"]["toolInfo"]["tool"]["name"] == "weather"
        frames = [f for f in app.client.traffic if f.kind == "app"]
        assert [f.note for f in frames] == ["app → host: ui/initialize", "host → app"]
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.ClientConnectionError):
            await session.get(url + "view")


def tool_calls(log: Path) -> list[str]:
    return [m["params"]["name"] for m in asked(log) if m["method"] == "tools/call"]


async def test_the_preview_renders_the_persons_calls_and_confirms_the_apps_own(tmp_path: Path) -> None:
    from inspector.tui.screens.confirm_call import ConfirmCallScreen
    from inspector.tui.widgets.arguments import ArgumentsEditor

    log = tmp_path / "asked.jsonl"
    app = apps_inspector(log)

    async def call_as_the_person(city: str) -> None:
        app.query_one(ArgumentsEditor).form.load_value({"city": city})
        app.query_one("#tool-list #options").focus()
        await pilot.press("ctrl+j")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "the confirmation")
        assert isinstance(app.screen, ConfirmCallScreen) and app.screen.origin is None
        await pilot.press("y")

    async def app_call(view: ViewClient, request_id: int) -> ConfirmCallScreen:
        await view.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "refresh"}})
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "the app's call confirmation")
        screen = app.screen
        assert isinstance(screen, ConfirmCallScreen)
        return screen

    async with app.run_test(size=(140, 45)) as pilot:
        async with ViewClient.open(await preview_weather(pilot, app)) as view:
            await view.handshake()
            await call_as_the_person("Lima")
            assert await view.notification("ui/notifications/tool-input") == {"arguments": {"city": "Lima"}}
            result = await view.notification("ui/notifications/tool-result")
            assert result["structuredContent"] == {"city": "Lima", "temperature": 21}

            screen = await app_call(view, 2)
            assert screen.origin == "the MCP App of weather"
            assert "Asked by the MCP App of weather" in str(screen.query_one("#confirm-origin", Static).render())
            # Asked, not sent: the server has seen the person's call only.
            assert tool_calls(log) == ["weather"]
            await pilot.press("y")
            answer = await view.answer_to(2)
            assert answer["result"]["content"] == [{"type": "text", "text": "refreshed"}]
            assert tool_calls(log) == ["weather", "refresh"]

            await app_call(view, 3)
            await pilot.press("n")
            refused = await view.answer_to(3)
            assert refused["error"]["code"] == -32000 and "refused" in refused["error"]["message"]
            assert tool_calls(log) == ["weather", "refresh"]

            # Another call by the person: the view that showed the first is
            # torn down and replaced (tool-input goes once per view).
            await call_as_the_person("Quito")
            teardown = await view.next(
                lambda e: e.get("post", {}).get("method") == "ui/resource-teardown", "the teardown request"
            )
            await view.send({"jsonrpc": "2.0", "id": teardown["post"]["id"], "result": {}})
            await view.next(lambda e: e.get("reload") is True, "the reload")
            await view.handshake()
            assert await view.notification("ui/notifications/tool-input") == {"arguments": {"city": "Quito"}}
            result = await view.notification("ui/notifications/tool-result")
            assert result["structuredContent"]["city"] == "Quito"
        from inspector.tui.widgets.traffic_table import frame_summary

        # The Traffic pane's rows say which way each app message went.
        shown = [frame_summary(f) for f in app.client.traffic if f.kind == "app"]
        assert "app → host: tools/call" in shown and "host → app: ui/notifications/tool-input" in shown
        notes = [f.note for f in app.client.traffic if f.kind == "app"]
        for note in (
            "app → host: tools/call",
            "host → app: ui/notifications/tool-result",
            "host → app: ui/resource-teardown",
        ):
            assert note in notes
        forwarded = [
            f.message["params"]["name"] for f in app.client.traffic if f.kind == "request" and f.method == "tools/call"
        ]
        assert forwarded == ["weather", "refresh", "weather"]
    assert tool_calls(log) == ["weather", "refresh", "weather"]


async def test_the_preview_url_stays_in_view_and_alt_a_again_opens_the_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The URL is kept under the tool's name (a toast goes away), at 100x30
    too; only a second alt+a sends the browser there, never a console one."""
    from .waiting import eventually

    browser = tmp_path / "fake-browser"
    browser.write_text(f'#!/bin/sh\nexec "{PYTHON}" "{SERVERS / "fake_browser.py"}" "$@"\n')
    browser.chmod(0o755)
    opened = tmp_path / "opened.txt"
    monkeypatch.setenv("BROWSER", str(browser))
    monkeypatch.setenv("FAKE_BROWSER_LOG", str(opened))
    app = apps_inspector(tmp_path / "asked.jsonl")
    async with app.run_test(size=(100, 30)) as pilot:
        url = await preview_weather(pilot, app)
        await wait_for(pilot, lambda: url in header(app), "the URL in the tool's header")
        # Under the name, where a short terminal's header still shows it.
        assert header(app).splitlines()[1].startswith(url)
        assert not opened.exists()
        await pilot.press("alt+a")
        visits = await eventually(lambda: opened.exists() and opened.read_text().splitlines(), "the browser's visit")
        assert visits[:2] == [url, f"200 {url}"]

        monkeypatch.setenv("BROWSER", "/usr/bin/lynx")
        await pilot.press("alt+a")
        await wait_for(
            pilot,
            lambda: any("console one (lynx)" in str(n.message) for n in app._notifications),
            "the console browser refused",
        )
        assert len(opened.read_text().splitlines()) == 2
        # Another tool: no preview of its own, so no URL under its name.
        app.select_item("tools", "refresh")
        await wait_for(pilot, lambda: "visibility: app)" in header(app), "the refresh tool")
        assert url not in header(app)
