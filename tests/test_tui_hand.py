"""What a person found driving the TUI in a real terminal (tmux) against
third-party servers; the schemas are copied into tests/servers/hand_shapes.py.

A real terminal's keys differ from `pilot.press`: alt+n arrives as ESC n,
which Textual reads as the key alt+n *carrying the character n*, and a text
field takes any key with a printable character before the bindings of the
widgets around it are looked at.  So these tests post the very events
Textual's own terminal parser makes of the bytes a terminal sends.
"""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest
from textual import events
from textual._xterm_parser import XTermParser
from textual.pilot import Pilot
from textual.widgets import Input, Static, TabbedContent, TextArea

from inspector.core.servers.spec import ServerSpec
from inspector.tui.app import InspectorApp
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.widgets.arguments import ArgumentsEditor
from inspector.tui.widgets.form_row import FieldRow

from .peers import PYTHON, SERVERS
from .tui_helpers import TIMEOUT, burst, field_row, focus, on_tool, quiet, select, settle, wait_connected, wait_for

SMALL = (100, 30)


def hand_shapes() -> ServerSpec:
    return ServerSpec(transport="stdio", command=PYTHON, args=[str(SERVERS / "hand_shapes.py")], timeout=30)


def from_terminal(data: str) -> list[events.Key]:
    """The key events Textual's terminal driver makes of *data* (the bytes a
    terminal sends), as if nothing followed them."""
    parser = XTermParser()
    keys = [token for token in parser.feed(data) if isinstance(token, events.Key)]
    # End of input: a lone ESC sequence is resolved as the driver's timeout would.
    keys += [token for token in parser.feed("") if isinstance(token, events.Key)]
    return keys


async def send_terminal(pilot: Pilot[int], data: str) -> None:
    """Post what a terminal sends for *data* and wait until the app has handled it."""
    app = pilot.app
    for key in from_terminal(data):
        key.set_sender(app)
        app.post_message(key)
    deadline = time.monotonic() + TIMEOUT
    while not quiet(app):
        assert time.monotonic() < deadline, f"timed out waiting for {data!r} to be handled"
        await asyncio.sleep(0.02)  # why: the polling interval of this wait


def last_call_arguments(app: InspectorApp) -> object:
    calls = [f for f in app.traffic if f.method == "tools/call" and f.direction == "out"]
    assert calls, "no tools/call was sent"
    return calls[-1].message["params"]["arguments"]


async def add_entity_alice(pilot: Pilot[int], app: InspectorApp) -> None:
    """In create_entities' form: an entity named alice of type person, with
    one observation added and still empty (focus in its field)."""
    form = app.query_one(ArgumentsEditor).form
    await focus(pilot, form.query(".array-add").first())
    await burst(pilot, "enter", *"alice", "tab", *"person", "tab", "enter")


def count_text(row: FieldRow) -> str:
    """What an array's row says of its items ("2 items, 1 empty (left out)")."""
    return " ".join(str(static.render()) for static in row.query(Static) if "item" in str(static.render()))


def test_the_terminal_sends_alt_keys_with_their_character() -> None:
    """The premise: ESC n is alt+n with the character n; alt+up has none."""
    [alt_n] = from_terminal("\x1bn")
    assert (alt_n.key, alt_n.character) == ("alt+n", "n")
    assert alt_n.is_printable
    [alt_up] = from_terminal("\x1b[1;3A")
    assert (alt_up.key, alt_up.character) == ("alt+up", None)


async def test_alt_keys_from_a_terminal_work_inside_an_array_items_text_field() -> None:
    """The memory server's create_entities, typed in a terminal: alt+n in an
    observation's field adds the next observation (no "n" typed into the
    field), alt+up moves it first, alt+x removes one."""
    async with on_tool(hand_shapes(), "create_entities", SMALL) as (app, pilot):
        await add_entity_alice(pilot, app)
        await burst(pilot, *"likes tea")
        first = field_row(app, ("entities", 0, "observations", 0)).query_one(Input)
        assert first.value == "likes tea"
        await send_terminal(pilot, "\x1bn")
        assert first.value == "likes tea", "alt+n typed into the field"
        await wait_for(pilot, lambda: len(app.query(".text-input")) == 4, "a second observation")
        await burst(pilot, *"hates coffee")
        await send_terminal(pilot, "\x1b[1;3A")  # alt+up
        await send_terminal(pilot, "\x1bn")
        await send_terminal(pilot, "\x1bx")  # the third one, removed again
        await burst(pilot, "ctrl+j")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "the confirmation")
        await burst(pilot, "y")
        await wait_for(pilot, lambda: any(f.method == "tools/call" for f in app.traffic), "the call")
        assert last_call_arguments(app) == {
            "entities": [{"name": "alice", "entityType": "person", "observations": ["hates coffee", "likes tea"]}]
        }


async def test_an_arrays_count_follows_what_is_typed_into_its_items() -> None:
    """An item just added is empty (left out); once something is typed into
    it the array's row no longer says so."""
    async with on_tool(hand_shapes(), "create_entities", SMALL) as (app, pilot):
        await add_entity_alice(pilot, app)
        observations = field_row(app, ("entities", 0, "observations"))
        assert "1 empty" in count_text(observations)
        await burst(pilot, *"likes tea")
        await wait_for(pilot, lambda: "empty" not in count_text(observations), "the count to drop 'empty'")
        assert "1 item" in count_text(observations)


async def test_function_keys_switch_panes_from_a_multi_line_text_field() -> None:
    """F6 (Server) and F7 (Roots) are also TextArea's own keys (select line,
    select all): in the filesystem server's write_file `content`, they
    still switch the pane, and the text is untouched."""
    async with on_tool(hand_shapes(), "write_file", SMALL) as (app, pilot):
        area = field_row(app, ("content",)).query_one(TextArea)
        await focus(pilot, area)
        await burst(pilot, *"hello")
        main = app.query_one("#main", TabbedContent)
        for key, tab in (("f6", "server"), ("f7", "roots")):
            app.action_show_tab("tools")
            await wait_for(pilot, lambda: main.active == "tools", "the tools pane again")
            await settle(pilot, "focus moved to the tool list")
            await focus(pilot, area)
            await burst(pilot, key)
            await wait_for(pilot, lambda tab=tab: main.active == tab, f"{key} to show the {tab} pane")  # type: ignore[misc]
        assert area.text == "hello"


async def test_alt_a_from_a_terminal_previews_the_app_from_the_raw_json_editor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alt+a (ESC a) with focus in the arguments' raw JSON editor starts the
    MCP App preview instead of typing "a" into the JSON."""
    from inspector.tui.panes.tools import ToolsPane

    monkeypatch.setenv("INSPECTOR_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("INSPECTOR_TOKEN_STORE", "file")
    log = tmp_path / "asked.jsonl"
    app = InspectorApp(ServerSpec(command=PYTHON, args=[str(SERVERS / "apps_server.py"), str(log)], timeout=30))
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "weather")
        editor = app.query_one(ArgumentsEditor)
        editor.action_toggle_mode()
        area = editor.json_area
        await wait_for(pilot, lambda: area.display, "the raw JSON editor")
        await focus(pilot, area)
        before = area.text
        await send_terminal(pilot, "\x1ba")
        pane = app.query_one(ToolsPane)
        await wait_for(pilot, lambda: pane.app_url is not None, "the preview's URL")
        assert area.text == before
        await pane.stop_app_preview()


async def test_a_narrow_traffic_table_keeps_latency_size_and_problem_marks() -> None:
    """At 100x30 the traffic table is about 58 cells wide: the latency keeps
    its unit, and the size and the mark of a call that breaks the tool's
    schema stay on screen (the clock column gives way)."""
    from inspector.core.servers.spec import demo_spec
    from inspector.tui.panes.traffic import TrafficPane

    app = InspectorApp(demo_spec())
    async with app.run_test(size=SMALL) as pilot:
        await wait_connected(pilot, app)
        await app.client.call_tool("register_user", {"username": "bob"})
        await burst(pilot, "alt+1")
        table = app.query_one(TrafficPane).table
        call = next(f for f in app.traffic if f.method == "tools/call" and f.direction == "out")
        answer = next(f for f in app.traffic if f.direction == "in" and f.partner == call.seq)
        # Frames are validated in a thread, a batch at a time: the findings come a moment after the frame.
        await wait_for(pilot, lambda: bool(call.findings or call.problems), "the call's schema breach")

        def line_of(seq: int) -> str:
            lines = [table.render_line(y).text for y in range(table.scrollable_content_region.height)]
            return next((line for line in lines if line.startswith(f"#{seq} ")), "")

        await wait_for(pilot, lambda: line_of(answer.seq), "the answer's row on screen")
        assert table.scrollable_content_region.width < 70
        assert re.search(r"\d(ms|s) +\d+(\.\d)?[BKM] ", line_of(answer.seq)), line_of(answer.seq)
        assert "⚠" in line_of(call.seq), line_of(call.seq)


async def test_a_prompt_arguments_whole_description_is_shown() -> None:
    """FastMCP puts the allowed values of a prompt argument at the end of
    its description: at 100x30 they are on screen, wrapped, not cut."""
    from inspector.tui.panes.prompts import PromptsPane
    from inspector.tui.widgets.completing_field import form_fields

    app = InspectorApp(hand_shapes())
    async with app.run_test(size=SMALL) as pilot:
        await wait_connected(pilot, app)
        await burst(pilot, "f5")
        pane = app.query_one(PromptsPane)
        await wait_for(pilot, lambda: len(form_fields(pane)) == 2, "the review prompt's fields")
        await settle(pilot, "the fields laid out")
        style = next(field for field in form_fields(pane) if field.argument == "style")
        label = style.query_one("Label")
        assert label.region.right <= style.content_region.right, "the label runs past the field's edge"
        shown = "".join(strip.text.strip() for strip in label.render_lines(label.region.reset_offset))
        assert '"pedantic","friendly"]' in shown, shown


async def test_read_from_the_palette_selects_the_resource_it_shows() -> None:
    """`read: URI` in the palette shows that resource's contents and selects
    it in the list, so the detail (and ctrl+s, which subscribes to the
    selected resource) is about the resource on screen."""
    from textual.command import CommandInput, CommandList, CommandPalette

    from inspector.core.servers.spec import demo_spec
    from inspector.tui.panes.resources import ResourcesPane
    from inspector.tui.widgets.item_list import ItemList

    wanted = "demo://config.json"
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SMALL) as pilot:
        await wait_connected(pilot, app)
        await wait_for(pilot, lambda: "resources" in app.lists, "the resources listed")
        await burst(pilot, "ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the command palette")
        await focus(pilot, app.screen.query_one(CommandInput))
        await burst(pilot, *f"read: {wanted}")

        def hit() -> bool:
            hits = app.screen.query(CommandList)
            return (
                bool(hits)
                and hits.first().highlighted is not None
                and wanted in str(hits.first().get_option_at_index(hits.first().highlighted or 0).prompt)
            )

        await wait_for(pilot, hit, "the palette's hit")
        await burst(pilot, "enter")
        pane = app.query_one(ResourcesPane)
        contents = pane.query_one("#resource-contents")
        await wait_for(pilot, lambda: wanted in str(contents.border_title), "the resource read")
        resources = pane.query_one(ItemList)
        await wait_for(pilot, lambda: pane.current is not None and pane.current.key == wanted, "the resource selected")
        assert resources.highlighted_item is not None and resources.highlighted_item.key == wanted


async def test_function_keys_leave_the_panes_under_a_modal_alone() -> None:
    """The panes' keys have priority (for text areas), yet on the call's
    confirmation they switch nothing underneath it."""
    async with on_tool(hand_shapes(), "write_file", SMALL) as (app, pilot):
        await burst(pilot, "ctrl+j")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "the confirmation")
        await burst(pilot, "f6", "f7")
        assert isinstance(app.screen, ConfirmCallScreen)
        assert app.query_one("#main", TabbedContent).active == "tools"
        await burst(pilot, "n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmCallScreen), "the confirmation closed")
        assert not any(f.method == "tools/call" for f in app.traffic)


async def test_the_tool_header_shows_when_it_has_focus() -> None:
    """Tab from the tool list stops on the tool's header (its description
    scrolls there): its border says so, as the list's does, instead of focus
    seeming to vanish while typed keys go nowhere."""
    from inspector.tui.widgets.item_list import ItemList

    async with on_tool(hand_shapes(), "create_entities", SMALL) as (app, pilot):
        header = app.query_one("#tool-header")
        idle = header.styles.border_top
        tools = app.query_one("#tool-list", ItemList)
        await focus(pilot, tools.options)
        await burst(pilot, "tab")
        await wait_for(pilot, lambda: app.focused is header, "focus on the header")
        await settle(pilot, "the header restyled")
        assert header.styles.border_top != idle
