"""Finding one's way in the TUI: layout at small sizes, the key bar, list
rows, enter on every list, the help screen, the header's state, the
palette, filters, trust, reconnecting and roots; against the demo server."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from textual.command import CommandInput, CommandList, CommandPalette
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Select, Static, TabbedContent

from inspector.core.protocol.errors import JsonRpcError
from inspector.core.servers.spec import ServerSpec, demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.badges import tool_row
from inspector.tui.panes.prompts import PromptsPane
from inspector.tui.panes.roots import RootsPane
from inspector.tui.panes.tasks import TasksPane
from inspector.tui.panes.templates import TemplatesPane
from inspector.tui.panes.tools import ToolsPane
from inspector.tui.panes.traffic import TrafficPane
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.screens.connect_error import ConnectErrorScreen
from inspector.tui.screens.help import HelpScreen, all_bindings, key_names
from inspector.tui.widgets.completing_field import form_fields
from inspector.tui.widgets.filter_list import FilterList
from inspector.tui.widgets.form_row import FieldRow
from inspector.tui.widgets.item_list import ItemList
from inspector.tui.widgets.result_view import ResultView
from inspector.tui.widgets.status_bar import KeyBar, StatusBar

from .peers import SERVERS
from .tui_helpers import console_for, field_row, fill, focus, select, settle, type_into, wait_connected, wait_for

HOSTILE = str(SERVERS / "hostile.py")


pytestmark = pytest.mark.usefixtures("own_config")


def screen_lines(app: InspectorApp) -> list[str]:
    update: Any = app.screen._compositor.render_update(full=True)
    return ["".join(strip.text for strip in line) for line in update.strips]


def screen_text(app: InspectorApp) -> str:
    return "\n".join(screen_lines(app))


def status_text(app: InspectorApp) -> str:
    return str(app.query_one(ResultView).query_one("#status", Static).render())


def selected(app: InspectorApp) -> str | None:
    tool = app.query_one(ToolsPane).tool
    return tool.key if tool is not None else None


def out_frames(app: InspectorApp, method: str) -> list[object]:
    return [f for f in app.traffic if f.method == method and f.direction == "out"]


def palette_highlights(app: InspectorApp, text: str) -> bool:
    """The command palette has finished searching for what was typed and
    highlights a hit that mentions *text*."""
    screen = app.screen
    if not isinstance(screen, CommandPalette):
        return False
    searching = any(
        worker.group == CommandPalette._GATHER_COMMANDS_GROUP and not worker.is_finished for worker in app.workers
    )
    hits = screen.query_one(CommandList)
    if searching or hits.highlighted is None:
        return False
    return text in str(hits.get_option_at_index(hits.highlighted).prompt)


async def call_through_confirmation(pilot: Pilot[int], app: InspectorApp) -> None:
    await pilot.press("ctrl+enter")
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
    await pilot.press("y")


# -- 1. the result has room -----------------------------------------------------------


async def test_result_is_visible_after_a_call_at_100x30() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_connected(pilot, app)
        assert "-short" in app.screen.classes
        result = app.query_one(ResultView)
        app.select_item("tools", "echo")
        await wait_for(pilot, lambda: selected(app) == "echo", "echo selected")
        await wait_for(pilot, lambda: any(r.node.path == ("message",) for r in app.query(FieldRow)), "echo form")
        # No result yet: the form has the column to itself.
        assert result.empty and result.region.height == 0
        await fill(pilot, field_row(app, ("message",)), "seen at a small size")
        await call_through_confirmation(pilot, app)
        await wait_for(pilot, lambda: "OK" in status_text(app), "result")
        await settle(pilot, "the layout with the result")
        region = result.region
        assert region.height >= 6, region
        assert region.bottom <= app.query_one("BottomPanel").region.y, (region, "under the bottom panel")
        assert "seen at a small size" in screen_text(app)
        # The form keeps rows too.
        assert app.query_one("#tool-tabs").region.height >= 6


async def test_the_form_has_the_column_until_a_result_at_140x45() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_connected(pilot, app)
        assert "-tall" in app.screen.classes
        await select(pilot, app, "tools", "register_user")
        tabs = app.query_one("#tool-tabs")
        before = tabs.region.height
        assert app.query_one(ResultView).region.height == 0
        assert before >= 20, before
        app.select_item("tools", "get_json")
        await wait_for(pilot, lambda: selected(app) == "get_json", "get_json")
        await call_through_confirmation(pilot, app)
        await wait_for(pilot, lambda: "OK" in status_text(app), "result")
        await settle(pilot, "the layout with the result")
        assert app.query_one(ResultView).region.height >= 8
        assert tabs.region.height >= 8


# -- 2. the key bar ----------------------------------------------------------------------


async def test_key_bar_keeps_help_and_reconnect_at_100_columns() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_connected(pilot, app)
        await focus(pilot, app.query_one("#tool-list", ItemList).options)
        await settle(pilot, "the key bar for the tool list")
        footer = screen_lines(app)[-1]
        for needed in ("? Help", "^r Reconnect", "^t Panel", "^q Quit", "/ Filter", "^⏎/^j Call"):
            assert needed in footer, (needed, footer)
        await focus(pilot, app.query_one(TrafficPane).table)
        await settle(pilot, "the key bar for the traffic table")
        footer = screen_lines(app)[-1]
        for needed in ("? Help", "^r Reconnect", "^t Panel", "^q Quit", "Filter traffic"):
            assert needed in footer, (needed, footer)
        local, _app_keys = app.query_one(KeyBar).keys()
        assert len([k for k in local if k.description in footer]) <= 4


# -- 3. list rows ---------------------------------------------------------------------------


async def test_tool_rows_keep_two_lines_with_a_scrollbar() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_connected(pilot, app)
        await settle(pilot, "the tool list laid out")
        options = app.query_one("#tool-list", ItemList).options
        assert options.show_vertical_scrollbar  # the case that wrapped rows to a third line
        assert options.virtual_size.height == 2 * options.option_count
        text = screen_text(app)
        # Cut with an ellipsis, never wrapped: every tool's first line is on screen in order.
        assert "Delete a remote file" in text
        assert "delete_remote_file" not in text or "…" in text
        lines = [line for line in screen_lines(app) if line.startswith("│")]
        assert not any(line.startswith("│ type)") for line in lines)


async def test_assumed_hints_differ_in_the_list() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        tools = {item.key: item for item in app.lists["tools"].items}
        echo = tool_row(tools["echo"]).plain.splitlines()[1]  # no annotations: every hint assumed
        assert echo.split() == ["RW?", "DESTR?", "NON-IDEM?", "OPEN?"]
        weather = tool_row(tools["weather_report"]).plain.splitlines()[1]
        # The raw name first, then the badges.
        name, badges = weather.split("  ")
        assert name == "weather_report" and "RO" in badges and "?" not in badges


# -- 4. enter on every list -----------------------------------------------------------------


async def test_enter_on_templates_and_prompts_focuses_the_form() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        app.select_item("templates", "demo://users/{user_id}")
        pane = app.query_one(TemplatesPane)
        await wait_for(pilot, lambda: list(form_fields(pane)), "template form")
        await focus(pilot, app.query_one("#template-list", ItemList).options)
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(app.focused, Input) and pane in app.focused.ancestors and app.focused.id != "filter",
            "template field focused",
        )
        app.select_item("prompts", "greeting")
        prompts = app.query_one(PromptsPane)
        await wait_for(pilot, lambda: list(form_fields(prompts)), "prompt form")
        await focus(pilot, app.query_one("#prompt-list", ItemList).options)
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(app.focused, Input) and prompts in app.focused.ancestors and app.focused.id != "filter",
            "prompt field focused",
        )


# -- 5. help ---------------------------------------------------------------------------------


async def test_help_lists_every_binding_and_opens_with_its_key() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        await focus(pilot, app.query_one("#tool-list", ItemList).options)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "help screen")
        table = app.screen.query_one("#help-keys", Static).content
        console = console_for(app, record=True)
        console.print(table)
        text = console.export_text()
        bindings = all_bindings()
        assert len(bindings) > 50
        rows = text.splitlines()
        for owner, binding in bindings:
            key, description = key_names(binding), binding.description
            assert any(key in row and description in row for row in rows), (owner.__name__, key, description)
        for must in ("L ", "Log in", "ctrl+s", "ctrl+d", "tasks/list", "Show the frame", "Don't ask again", "f9"):
            assert must in text, must
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen), "help closed")


# -- 6. the header tells the truth --------------------------------------------------------


def header(app: InspectorApp) -> str:
    return app.query_one(StatusBar).render().plain


async def test_unreachable_url_says_disconnected() -> None:
    from inspector.cli.parser import build_parser
    from inspector.core.servers.from_args import spec_from_args

    spec = spec_from_args(build_parser().parse_args(["--url", "http://127.0.0.1:1/mcp"]), [])
    app = InspectorApp(spec)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ConnectErrorScreen), "error screen", timeout=40)
        assert app.facts.state == "disconnected", app.facts
        assert "cannot reach" in app.facts.reason or "connect" in app.facts.reason
        assert app.facts.revision == ""
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConnectErrorScreen), "the error screen closed")
        await settle(pilot, "the header redrawn")
        text = header(app)
        assert "disconnected" in text and "idle" not in text
        assert "0 in flight" in text
        assert app.query_one("#log-level", Select).disabled
        tabs = app.query_one("#main", TabbedContent)
        assert tabs.get_tab("tasks").display is False
        assert app.query_one("#as-task", Checkbox).display is False


async def test_crashed_start_shows_no_revision() -> None:
    spec = ServerSpec(command=sys.executable, args=[HOSTILE, "--mode", "exit-at-once"])
    app = InspectorApp(spec)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ConnectErrorScreen), "error screen")
        assert app.facts.state == "disconnected"
        assert app.facts.revision == ""
        assert app.client.protocol_version is None or app.facts.revision == ""
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConnectErrorScreen), "the error screen closed")
        await settle(pilot, "the header redrawn")
        text = header(app)
        assert "2026-" not in text and "2025-" not in text
        assert app.query_one("#log-level", Select).disabled
        assert app.query_one("#main", TabbedContent).get_tab("tasks").display is False


async def test_connected_header_always_counts_in_flight() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        text = header(app)
        assert "connected" in text and "0 in flight" in text and app.facts.revision in text
        assert not app.query_one("#log-level", Select).disabled


# -- 7. smaller things ----------------------------------------------------------------------


async def test_tool_detail_shows_icons_and_meta() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        app.select_item("tools", "media_gallery")
        await wait_for(pilot, lambda: selected(app) == "media_gallery", "media_gallery")
        shown = str(app.query_one("#tool-header-text", Static).render())
        assert "icon: " in shown and "image/" in shown
        assert "_meta: " in shown and "io.github.inspector-demo/category" in shown


async def test_result_names_its_tool_and_errors_show_their_time() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        app.select_item("tools", "get_json")
        await wait_for(pilot, lambda: selected(app) == "get_json", "get_json")
        await call_through_confirmation(pilot, app)
        await wait_for(pilot, lambda: "OK" in status_text(app), "result")
        result = app.query_one(ResultView)
        assert "get_json" in str(result.border_title)
        assert not result.border_subtitle
        app.select_item("tools", "echo")
        await wait_for(pilot, lambda: selected(app) == "echo", "echo")
        assert "get_json" in str(result.border_title)
        assert "not the selected tool" in str(result.border_subtitle)
        await result.show_error(JsonRpcError(-32602, "no such tool"), 0.25)
        assert "after 250 ms" in status_text(app)


async def test_progress_line_shows_the_cancel_key() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        app.select_item("tools", "long_running_task")
        await wait_for(pilot, lambda: any(r.node.path == ("steps",) for r in app.query(FieldRow)), "form")
        await fill(pilot, field_row(app, ("steps",)), "50")
        await fill(pilot, field_row(app, ("interval_ms",)), "200")
        await call_through_confirmation(pilot, app)
        await wait_for(pilot, lambda: "progress" in status_text(app), "progress")
        assert "ctrl+x cancels" in status_text(app)
        await pilot.press("ctrl+x")
        await wait_for(pilot, lambda: "progress" not in status_text(app) and "✖" in status_text(app), "cancelled")


async def test_roots_and_tasks_lists_filter_with_slash() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        app.action_show_tab("roots")
        await wait_for(pilot, lambda: app.query_one("#main", TabbedContent).active == "roots", "roots tab")
        # The tab focuses its list when it opens: before a field is focused.
        await settle(pilot, "the roots tab opened")
        pane = app.query_one(RootsPane)
        field = pane.query_one("#root-input", Input)
        for path in ("/tmp/alpha-root", "/tmp/beta-root"):
            await type_into(pilot, field, path)
            await pilot.press("enter")
            await wait_for(pilot, lambda: any(path in r["uri"] for r in app.handlers.roots), f"the root {path}")  # noqa: B023
        roots_list = pane.query_one("#roots-list", FilterList)
        assert len(roots_list.items) >= 2
        await focus(pilot, roots_list.options)
        await pilot.press("slash", *"beta")
        await wait_for(pilot, lambda: len(roots_list.shown) == 1, "filtered roots")
        assert "(1/" in str(roots_list.border_title)
        await pilot.press("enter")  # back to the list, the filter stays
        await wait_for(pilot, lambda: app.focused is roots_list.options, "list focused")
        await pilot.press("delete")
        await wait_for(pilot, lambda: all("beta" not in r["uri"] for r in app.handlers.roots), "beta removed")
        assert any("alpha" in r["uri"] for r in app.handlers.roots)
        # The tasks list is the same kind of list.
        assert isinstance(app.query_one(TasksPane).query_one("#task-list"), FilterList)


async def test_palette_call_selects_and_asks_first() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the command palette")
        await focus(pilot, app.screen.query_one(CommandInput))
        await pilot.press(*"call: weather_report")
        await wait_for(pilot, lambda: palette_highlights(app, "weather_report"), "the palette's hit")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
        assert app.screen.tool.key == "weather_report"  # type: ignore[attr-defined]
        assert selected(app) == "weather_report"
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmCallScreen), "the confirmation closed")
        await settle(pilot, "the refusal handled")
        assert not out_frames(app, "tools/call")


# -- 8. things that worked without a test ------------------------------------------------


async def test_slash_filters_the_tool_list() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        tools = app.query_one("#tool-list", ItemList)
        total = len(tools.items)
        await focus(pilot, tools.options)
        await pilot.press("slash", *"weather")
        await wait_for(pilot, lambda: [i.key for i in tools.shown] == ["weather_report"], "filtered")
        assert str(tools.border_title) == f"Tools (1/{total})"
        assert selected(app) == "weather_report"
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(tools.shown) == total, "filter cleared")
        assert app.focused is tools.options


async def test_list_changed_refreshes_the_lists() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        assert "bonus_fortune" not in [i.key for i in app.lists["tools"].items]
        tools_before = len(out_frames(app, "tools/list"))
        app.select_item("tools", "toggle_extras")
        await wait_for(pilot, lambda: selected(app) == "toggle_extras", "tool")
        await call_through_confirmation(pilot, app)
        await wait_for(pilot, lambda: "OK" in status_text(app), "result")
        tools = app.query_one("#tool-list", ItemList)
        await wait_for(pilot, lambda: any(i.key == "bonus_fortune" for i in tools.items), "bonus tool listed")
        assert len(out_frames(app, "tools/list")) > tools_before
        prompts = app.query_one("#prompt-list", ItemList)
        await wait_for(pilot, lambda: len(prompts.items) == len(app.lists["prompts"].items), "prompts refreshed")


async def test_read_only_trust_flow() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        assert not app.trusted_tools and "no-confirm" not in header(app)
        # Not offered for a tool that does not say it is read-only.
        app.select_item("tools", "echo")
        await wait_for(pilot, lambda: selected(app) == "echo", "echo")
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
        assert not app.screen.can_trust  # type: ignore[attr-defined]
        await pilot.press("a")
        await settle(pilot, "the key handled")
        assert isinstance(app.screen, ConfirmCallScreen) and not app.trusted_tools
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmCallScreen), "closed")
        # Offered for readOnlyHint: true, and shown in the header while on.
        app.select_item("tools", "get_json")
        await wait_for(pilot, lambda: selected(app) == "get_json", "tool")
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
        screen = app.screen
        assert isinstance(screen, ConfirmCallScreen) and screen.can_trust
        await pilot.press("a")
        await wait_for(pilot, lambda: len(out_frames(app, "tools/call")) == 1, "first call")
        assert app.trusted_tools == {"get_json"}
        await wait_for(pilot, lambda: "no-confirm: get_json" in header(app), "header shows trust")
        await wait_for(pilot, lambda: "OK" in status_text(app), "result")
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: len(out_frames(app, "tools/call")) == 2, "second call without asking")
        assert not isinstance(app.screen, ConfirmCallScreen)


async def test_ctrl_r_reconnects() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)

        def spawned() -> int:
            return len([f for f in app.traffic if f.kind == "process" and "spawned" in (f.note or "")])

        before = spawned()
        await focus(pilot, app.query_one("#tool-list", ItemList).options)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: spawned() > before, "a new server process")
        await wait_for(pilot, lambda: app.client.state == "connected" and app.negotiated, "connected again")
        assert app.facts.revision


async def test_a_pane_opened_while_the_server_starts_keeps_focus_once_connected(tmp_path: Any) -> None:
    """F3 (Resources) pressed before the server answers: once connected,
    the Resources pane is still the one shown and its list has the keys."""
    started = tmp_path / "start"
    slow_start = str(SERVERS / "slow_start.py")
    spec = ServerSpec(command=sys.executable, args=[slow_start, "--until", str(started)], timeout=60)
    app = InspectorApp(spec)
    async with app.run_test(size=(150, 50)) as pilot:
        tabs = app.query_one("#main", TabbedContent)
        await pilot.press("f3")
        await wait_for(pilot, lambda: tabs.active == "resources", "the Resources pane")
        assert app.client.state != "connected"
        started.touch()
        await wait_connected(pilot, app)
        resources = app.query_one("#resource-list", ItemList)
        assert tabs.active == "resources"
        assert app.focused is resources.options
        # The keys go to the resource list.
        first = resources.highlighted_index
        await pilot.press("down")
        await wait_for(pilot, lambda: resources.highlighted_index != first, "the next resource")


async def test_roots_editor_sends_list_changed() -> None:
    spec = demo_spec()
    spec.era = "legacy"  # the stateless era has no notifications/roots/list_changed
    app = InspectorApp(spec)
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        assert app.client.modern is None
        await pilot.press("f7")
        await wait_for(pilot, lambda: app.query_one("#main", TabbedContent).active == "roots", "roots tab")
        await type_into(pilot, app.query_one("#root-input", Input), "/tmp/a-new-root")
        await pilot.press("enter")
        await wait_for(pilot, lambda: out_frames(app, "notifications/roots/list_changed"), "notification sent")
        assert any(r["uri"].endswith("/tmp/a-new-root") for r in app.handlers.roots)


async def test_lists_change_underneath_a_modal() -> None:
    """A list changes while the help screen is on top: the pane underneath
    is updated all the same."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        app.push_screen(HelpScreen())
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "help screen")
        before = len(app.lists["tools"].items)
        await app.client.call_tool("toggle_extras", {"kind": "tool"})
        await wait_for(pilot, lambda: len(app.lists["tools"].items) == before + 1, "the re-listed tools")
        assert isinstance(app.screen, HelpScreen) and app.is_running
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen), "help closed")
        tools = app.query_one("#tool-list", ItemList)
        assert tools.border_title == f"Tools ({before + 1})"
