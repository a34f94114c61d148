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
    asked = [json.loads(line) for line in log.read_text().splitlines()]
    assert not any(m["method"] == "resources/read" and "ui://" in str(m["params"]) for m in asked)
