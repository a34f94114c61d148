"""Keys remapped by binding id from the inspector's config file: the new
keys work, the old ones do not, help and the key bar show the keys in
force, and what the file gets wrong is reported, never a crash."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static, TabbedContent

from inspector.core.servers.spec import demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.keymap import binding_ids, load_keymap
from inspector.tui.panes.bottom import BottomPanel
from inspector.tui.screens.help import HelpScreen, all_bindings
from inspector.tui.widgets.status_bar import KeyBar

from .test_tui_server_requests import record_notifications
from .tui_helpers import burst, console_for, select, settle, wait_connected, wait_for

SIZE = (150, 45)

REMAP = """
[keymap]
toggle_bottom = "f13"
tab_prompts = ["f12", "alt+p"]
read_template = "alt+r"
"""


def config(tmp_path: Path, name: str, text: str) -> dict[str, str]:
    (tmp_path / name).write_text(text, encoding="utf-8")
    return {"INSPECTOR_CONFIG_DIR": str(tmp_path)}


def help_text(app: InspectorApp) -> list[str]:
    table = app.screen.query_one("#help-keys", Static).content
    console = console_for(app, record=True)
    console.print(table)
    return console.export_text().splitlines()


def row_of(rows: list[str], description: str) -> str:
    found = [row for row in rows if f" {description} " in f" {row} "]
    assert found, (description, rows)
    return found[0]


def test_every_binding_has_an_id_a_keymap_can_name() -> None:
    bindings = all_bindings()
    assert [(owner.__name__, b.key) for owner, b in bindings if not b.id] == []
    ids = binding_ids()
    assert {"toggle_bottom", "tab_prompts", "copy_command", "traffic_copy", "save_block"} <= ids


async def test_a_remapped_key_works_the_old_one_does_not_and_help_shows_it(tmp_path: Path) -> None:
    settings = load_keymap(config(tmp_path, "config.toml", REMAP))
    assert settings.problems == []
    assert settings.keymap == {"toggle_bottom": "f13", "tab_prompts": "f12,alt+p", "read_template": "alt+r"}
    app = InspectorApp(demo_spec(), keymap=settings)
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        panel = app.query_one(BottomPanel)
        main = app.query_one("#main", TabbedContent)
        assert panel.display
        # The old keys do nothing any more.
        await burst(pilot, "ctrl+t", "f5")
        # Whatever the keys set off has run to its end (nothing, if they are unbound).
        await settle(pilot, "the old keys handled")
        assert panel.display and main.active == "tools"
        # The new ones do what the old ones did.
        await burst(pilot, "f13")
        await wait_for(pilot, lambda: not panel.display, "the panel hidden by f13")
        await burst(pilot, "f12")
        await wait_for(pilot, lambda: main.active == "prompts", "the prompts pane by f12")
        await burst(pilot, "f2", "alt+p")
        await wait_for(pilot, lambda: main.active == "prompts", "the prompts pane by alt+p")
        # The key bar shows the key in force.
        bar = str(app.screen.query_one(KeyBar).render())
        assert "f13 Panel" in bar and "^t Panel" not in bar, bar
        # And so does help.
        await burst(pilot, "f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
        rows = help_text(app)
        panel_row = row_of(rows, "Panel (show or hide the bottom panel)")
        assert "f13" in panel_row and "ctrl+t" not in panel_row, panel_row
        prompts_row = row_of(rows, "Prompts")
        assert "f12 / alt+p" in prompts_row and "f5" not in prompts_row, prompts_row
        # Untouched bindings keep their keys.
        assert "ctrl+r" in row_of(rows, "Reconnect (restart / reconnect the server)")
        await burst(pilot, "escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen), "help closed")
        # Hints written on screen name the key in force.
        await select(pilot, app, "templates", "demo://users/{user_id}")
        uri = app.query_one("#template-uri", Static)
        await wait_for(pilot, lambda: "alt+r reads it" in str(uri.render()), "the template's hint")


async def test_an_unknown_id_or_a_bad_key_is_reported_not_a_crash(tmp_path: Path) -> None:
    settings = load_keymap(
        config(tmp_path, "config.toml", '[keymap]\nno_such_binding = "f13"\nreconnect = 5\ntab_tools = "f12"\n')
    )
    assert settings.keymap == {"tab_tools": "f12"}
    assert len(settings.problems) == 2
    assert any("'no_such_binding'" in problem for problem in settings.problems), settings.problems
    assert any("reconnect needs a key" in problem for problem in settings.problems), settings.problems
    app = InspectorApp(demo_spec(), keymap=settings)
    notes: list[str] = []
    original = app.notify_plain

    def notify_plain(message: str, **kwargs: Any) -> None:
        notes.append(message)
        original(message, **kwargs)

    app.notify_plain = notify_plain  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        assert any("no_such_binding" in note for note in notes), notes
        main = app.query_one("#main", TabbedContent)
        await burst(pilot, "f3", "f12")
        await wait_for(pilot, lambda: main.active == "tools", "the tools pane by f12")


async def test_a_key_taken_from_another_binding_is_reported(tmp_path: Path) -> None:
    # ctrl+r is reconnect's: the panel gets it, reconnect loses it, and the person is told.
    settings = load_keymap(config(tmp_path, "config.toml", '[keymap]\ntoggle_bottom = "ctrl+r"\n'))
    assert settings.keymap == {"toggle_bottom": "ctrl+r"}
    assert len(settings.problems) == 1, settings.problems
    assert "toggle_bottom takes ctrl+r from reconnect" in settings.problems[0]
    app = InspectorApp(demo_spec(), keymap=settings)
    notes = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        assert any("toggle_bottom takes ctrl+r" in note for note in notes), notes
        panel = app.query_one(BottomPanel)
        await burst(pilot, "ctrl+r")
        await wait_for(pilot, lambda: not panel.display, "the panel hidden by ctrl+r")


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("config.toml", "[keymap\nreconnect = 'f13'", "cannot be read"),
        ("config.yaml", "keymap: [f13", "cannot be read"),
        ("config.toml", "keymap = 'f13'", "must map binding ids"),
    ],
)
def test_a_broken_file_is_reported(tmp_path: Path, name: str, text: str, problem: str) -> None:
    settings = load_keymap(config(tmp_path, name, text))
    assert settings.keymap == {}
    assert len(settings.problems) == 1 and problem in settings.problems[0], settings.problems


def test_yaml_keymap_and_no_file(tmp_path: Path) -> None:
    settings = load_keymap(config(tmp_path, "config.yaml", "keymap:\n  reconnect: f13\n  help: f1,f12\n"))
    assert settings.problems == []
    assert settings.keymap == {"reconnect": "f13", "help": "f1,f12"}
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = load_keymap({"INSPECTOR_CONFIG_DIR": str(empty)})
    assert nothing.keymap == {} and nothing.problems == [] and nothing.path is None


def test_the_tui_launch_reads_the_keymap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from inspector.cli.parser import build_parser
    from inspector.tui import launch

    monkeypatch.setenv("INSPECTOR_CONFIG_DIR", str(tmp_path))
    (tmp_path / "config.toml").write_text(REMAP, encoding="utf-8")
    seen: list[dict[str, str]] = []

    def run(app: InspectorApp, *args: object, **kwargs: object) -> None:
        seen.append(app.keymap_settings.keymap)

    monkeypatch.setattr(InspectorApp, "run", run)
    monkeypatch.setattr(launch, "exit_code", lambda app: 0)
    assert launch.run_tui(demo_spec(), build_parser().parse_args([])) == 0
    assert seen == [{"toggle_bottom": "f13", "tab_prompts": "f12,alt+p", "read_template": "alt+r"}]
