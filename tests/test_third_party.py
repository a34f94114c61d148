"""The TUI and the scripting commands against third-party reference servers
(server-filesystem, server-sequential-thinking: npm peers), for what a person
found using them by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.css.query import NoMatches
from textual.widgets import Button, Input, Static, TabbedContent

from inspector.core.servers.spec import ServerSpec, demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.widgets.arguments import ArgumentsEditor
from inspector.tui.widgets.result_view import ResultView
from inspector.tui.widgets.status_bar import StatusBar

from .peers import FILESYSTEM, NODE, SEQUENTIAL_THINKING, require, run_inspector
from .tui_helpers import field_row, on_tool, select, type_into, wait_connected, wait_for

SMALL = (100, 30)


def filesystem(folder: Path) -> ServerSpec:
    return ServerSpec(transport="stdio", command=NODE, args=[str(require(FILESYSTEM)), str(folder)], timeout=30)


def result_text(app: InspectorApp) -> str:
    result = app.query_one(ResultView).last_result
    return "\n".join(block.get("text", "") for block in (result or {}).get("content", []))


async def call_and_read(pilot: Any, app: InspectorApp, tool: str) -> str:
    """Select *tool*, call it through the confirmation, and return its text."""
    await select(pilot, app, "tools", tool)
    before = app.query_one(ResultView).last_result
    await pilot.press("ctrl+j")
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "the confirmation")
    await pilot.press("y")
    await wait_for(pilot, lambda: app.query_one(ResultView).last_result not in (None, before), f"{tool}'s result")
    return result_text(app)


async def test_the_tui_offers_no_roots_nobody_gave(tmp_path: Path) -> None:
    """server-filesystem serves the client's roots instead of the folders on
    its command line once the client offers any: the TUI offered its working
    directory unasked, and the folder the person named was refused."""
    named, added = tmp_path / "named", tmp_path / "added"
    named.mkdir()
    added.mkdir()
    app = InspectorApp(filesystem(named))
    async with app.run_test(size=SMALL) as pilot:
        await wait_connected(pilot, app)
        assert str(named) in await call_and_read(pilot, app, "list_allowed_directories")
        assert app.handlers.roots == []

        # A root the person adds is offered, and the server switches to it.
        await pilot.press("f7")
        await wait_for(pilot, lambda: app.query_one("#main", TabbedContent).active == "roots", "the Roots tab")
        await type_into(pilot, app.query_one("#root-input", Input), str(added))
        asked = roots_asked(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: roots_asked(app) > asked, "the server asking for the roots again")
        await wait_for(pilot, lambda: "Updated allowed directories" in stderr_text(app), "the server switching")
        await pilot.press("f2")
        shown = await call_and_read(pilot, app, "list_allowed_directories")
        assert str(added) in shown and str(named) not in shown


def roots_asked(app: InspectorApp) -> int:
    return len([f for f in app.traffic if f.method == "roots/list" and f.direction == "in" and f.kind == "request"])


def stderr_text(app: InspectorApp) -> str:
    return "\n".join(str(f.raw) for f in app.traffic if f.kind == "stderr")


def sent_arguments(record: Path) -> Any:
    frames = [json.loads(line) for line in record.read_text().splitlines()]
    calls = [f for f in frames if f.get("method") == "tools/call" and f.get("dir") == "out"]
    return json.loads(calls[-1]["raw"])["params"]["arguments"]


def test_a_union_with_a_string_keeps_the_text_as_typed(tmp_path: Path) -> None:
    """sequentialthinking's `nextThoughtNeeded` is `type: ["boolean", "string"]`:
    `yes` or `1` went out as `true`, hiding what the server does with them."""
    record = tmp_path / "call.jsonl"
    server = ["--", NODE, str(require(SEQUENTIAL_THINKING))]
    base = ["call", "sequentialthinking", "thought=t", "thoughtNumber=1", "totalThoughts=1", "--yes"]
    for typed, sent in (("yes", "yes"), ("1", "1"), ("true", True), ("false", False)):
        done = run_inspector(*base, f"nextThoughtNeeded={typed}", "--record", str(record), *server)
        assert sent_arguments(record)["nextThoughtNeeded"] == sent, (typed, done.stderr)
        # The server takes booleans and "true"/"false" only: "yes" is its error to show.
        assert (done.returncode == 0) == isinstance(sent, bool), (typed, done.stdout, done.stderr)


async def test_the_server_pane_names_what_opened_the_connection(tmp_path: Path) -> None:
    """A stateless-era server answers server/discover, not initialize: the
    Server pane called its answer the initialize result."""
    for spec, era, opening in (
        (filesystem(tmp_path), "legacy", "initialize result"),
        (demo_spec(), "modern", "server/discover result"),
    ):
        app = InspectorApp(spec)
        async with app.run_test(size=SMALL) as pilot:
            await wait_connected(pilot, app)
            assert app.client.era == era
            await pilot.press("f6")
            await wait_for(pilot, lambda: app.query_one("#main", TabbedContent).active == "server", "the tab")  # noqa: B023
            shown = str(app.query_one("#server-raw", Static).render())
            assert shown.startswith(opening + "\n"), shown[:80]


def sequential_thinking() -> ServerSpec:
    return ServerSpec(transport="stdio", command=NODE, args=[str(require(SEQUENTIAL_THINKING))], timeout=30)


async def test_the_safe_integer_limit_is_not_shown_as_a_bound() -> None:
    """Zod bounds every integer by 2^53 - 1: the fields read
    "1 … 9007199254740991" where the bound that matters is "≥ 1"."""
    async with on_tool(sequential_thinking(), "sequentialthinking", SMALL) as (app, _pilot):
        for path in (("thoughtNumber",), ("totalThoughts",)):
            assert field_row(app, path).query_one(Input).placeholder == "integer ≥ 1"


def test_tool_help_names_types_and_nested_paths(tmp_path: Path) -> None:
    """`call TOOL --help` said `(union)` for `type: ["boolean", "string"]`,
    `(enum)` without the values, `(array)` for edit_file's edits without the
    fields a `key=value` path reaches into."""
    thinking = run_inspector("call", "sequentialthinking", "--help", "--", NODE, str(require(SEQUENTIAL_THINKING)))
    assert thinking.returncode == 0, thinking.stderr
    assert "  nextThoughtNeeded*  (boolean or string)" in thinking.stdout
    assert "  thoughtNumber*  (integer ≥ 1)" in thinking.stdout
    files = run_inspector("call", "edit_file", "--help", "--", NODE, str(require(FILESYSTEM)), str(tmp_path))
    assert files.returncode == 0, files.stderr
    assert "  edits*  (array of object)" in files.stdout
    assert "  edits[N].oldText*  (string)" in files.stdout and "  edits[N].newText*  (string)" in files.stdout


async def test_another_tools_result_gives_the_form_its_rows(tmp_path: Path) -> None:
    """At 100x30 the result of the last call kept half the column when another
    tool was selected, leaving edit_file's form five rows."""
    app = InspectorApp(filesystem(tmp_path))
    async with app.run_test(size=SMALL) as pilot:
        await wait_connected(pilot, app)
        await call_and_read(pilot, app, "list_allowed_directories")
        result = app.query_one(ResultView)
        full = result.outer_size.height
        assert full > 3
        await select(pilot, app, "tools", "edit_file")
        await wait_for(pilot, lambda: result.outer_size.height == 3, "the other tool's result folded")
        assert "list_allowed_directories" in str(result.border_title)
        await select(pilot, app, "tools", "list_allowed_directories")
        await wait_for(pilot, lambda: result.outer_size.height == full, "its own result shown whole again")


async def test_the_header_keeps_its_facts_in_view_beside_a_long_name() -> None:
    """At 100 columns "sequential-thinking-server 2026.8.31" pushed the
    header's last facts off screen: the calls in flight, and which tools
    are called without a confirmation."""
    async with on_tool(sequential_thinking(), "sequentialthinking", SMALL) as (app, pilot):
        for path, text in ((("thought",), "t"), (("thoughtNumber",), "1"), (("totalThoughts",), "1")):
            await type_into(pilot, field_row(app, path).query_one(Input), text)
        await pilot.press("ctrl+j")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "the confirmation")
        await pilot.press("a")  # read-only: call, and stop asking this session
        await wait_for(pilot, lambda: app.facts.trusted_tools == ("sequentialthinking",), "the tool trusted")
        header = app.query_one(StatusBar)
        shown = header.render()
        assert shown.cell_len <= header.content_size.width, shown.plain
        assert "in flight" in shown.plain and "no-confirm: sequentialthinking" in shown.plain
        # The name gave way: cut, and the "MCP inspector" before it dropped.
        assert shown.plain.startswith("sequential-th"), shown.plain


async def test_the_confirmations_buttons_stay_on_a_short_screen(tmp_path: Path) -> None:
    """At 100x30 read_multiple_files with twelve paths made the confirmation
    taller than the screen: its Call and Cancel buttons were cut off."""
    paths = [str(tmp_path / f"file-{n}.txt") for n in range(12)]
    async with on_tool(filesystem(tmp_path), "read_multiple_files", SMALL) as (app, pilot):
        app.query_one(ArgumentsEditor).form.load_value({"paths": paths})
        await pilot.press("ctrl+j")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "the confirmation")
        screen = app.screen

        def on_screen(button_id: str) -> bool:
            # The screen is current before its widgets are mounted; on a busy machine the wait can see it first.
            try:
                button = screen.query_one(f"#{button_id}", Button)
            except NoMatches:
                return False
            x, y = button.region.center
            return button.region.bottom <= screen.size.height and screen.get_widget_at(int(x), int(y))[0] is button

        await wait_for(pilot, lambda: on_screen("yes") and on_screen("no"), "both buttons on screen")
        args = screen.query_one("#confirm-args")
        assert args.max_scroll_y > 0, "the arguments scroll within their box"
        await pilot.press("n")
