"""The TUI on big servers: the first page of a list is shown while later
pages are still on their way, a very large frame's detail, result,
resource and tool schema are drawn a screen at a time (prepared in a
thread), and a 100-property form is built with all its fields (those below
the first screenful as sketches, built when shown or tabbed to).  (Speed is
measured in bench/tui_launch.py and bench/tui_lists.py, not here.)"""

from __future__ import annotations

import gc
import sys
from pathlib import Path

from rich.syntax import Syntax
from textual.widgets import Input, Static, TabbedContent

from inspector.core.servers.spec import ServerSpec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.bottom import BottomPanel
from inspector.tui.panes.tools import ToolsPane
from inspector.tui.panes.traffic import TrafficPane
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.widgets.arguments import ArgumentsEditor
from inspector.tui.widgets.big_text import HIGHLIGHT_LIMIT, LazyBody, LazyText
from inspector.tui.widgets.content_view import BlockView
from inspector.tui.widgets.form_row import FieldRow
from inspector.tui.widgets.item_list import ItemList
from inspector.tui.widgets.schema_form import SchemaForm

from .peers import SERVERS
from .tui_helpers import burst, focus, select, settle, wait_connected, wait_for

SIZE = (150, 50)
SLOW_PAGES = str(SERVERS / "slow_pages.py")


def spec(release: Path, tools: int = 40, pages: int = 4) -> ServerSpec:
    return ServerSpec(
        transport="stdio",
        command=sys.executable,
        args=[SLOW_PAGES, "--release", str(release), "--tools", str(tools), "--pages", str(pages)],
    )


def tool_list(app: InspectorApp) -> ItemList:
    return app.query_one(ToolsPane).query_one(ItemList)


def lazy_lines(widget: LazyText, rows: int = 40) -> str:
    """The first rows the widget draws at its width, as text."""
    return "\n".join(widget.render_line(y).text for y in range(min(rows, widget.size.height)))


async def test_the_first_page_shows_before_later_pages_arrive(tmp_path: Path) -> None:
    release = tmp_path / "release"
    app = InspectorApp(spec(release))
    async with app.run_test(size=SIZE) as pilot:
        # 41 tools over 4 pages of 11: the first page only, while page 2 is held back.
        await wait_for(pilot, lambda: len(tool_list(app).items) > 0, "the first page in the list")
        await settle(pilot, "the list to draw the first page")
        listed = tool_list(app)
        assert [item.key for item in listed.items] == ["wide_form", *(f"tool_{i:04d}" for i in range(10))]
        assert "tools" not in app.lists  # the listing is not complete yet
        assert "loading" in str(listed.border_subtitle)
        assert any(f.method == "tools/list" and f.direction == "out" for f in app.traffic)
        # The page taken in is out of the collector's sight while the list arrives.
        assert gc.get_freeze_count() > 0
        release.touch()
        await wait_for(pilot, lambda: "tools" in app.lists, "the whole listing")
        await settle(pilot, "the list to draw the whole listing")
        names = [item.key for item in tool_list(app).items]
        assert len(names) == 41 and names[-1] == "big_json", names
        assert "loading" not in str(tool_list(app).border_subtitle)
        # And handed back to it once the list is in.
        assert gc.get_freeze_count() == 0


async def test_the_wire_validation_catches_up_while_a_list_is_held_and_after_it(tmp_path: Path) -> None:
    """The validation of the frames holds off while a list's pages stream
    in; a server that stops half-way through a list does not keep the frames
    already in from being checked, and the whole list is checked once in."""
    release = tmp_path / "release"
    app = InspectorApp(spec(release))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(tool_list(app).items) > 0, "the first page in the list")
        assert app.lists_loading == 1  # page 2 is held back
        panel = app.query_one(BottomPanel)
        await wait_for(
            pilot, lambda: panel.checked == len(app.traffic.frames), "the frames in checked, list unfinished"
        )
        assert "tools" not in app.lists and app.lists_loading == 1
        release.touch()
        await wait_for(pilot, lambda: "tools" in app.lists and app.lists_loading == 0, "the whole listing")
        await wait_for(pilot, lambda: panel.checked == len(app.traffic.frames), "every frame checked")
        pages = [f for f in app.traffic.frames if f.method == "tools/list" and f.direction == "in"]
        assert len(pages) == 4


async def test_a_100_property_form_is_built_with_all_its_fields(tmp_path: Path) -> None:
    release = tmp_path / "release"
    release.touch()
    app = InspectorApp(spec(release))
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "wide_form")
        rows = [row for row in app.query(FieldRow) if not row.vacant]
        assert [row.node.path for row in rows] == [(f"field_{i:03d}",) for i in range(100)]
        # The first screenful is built; the rows below it are sketches (one
        # widget each) until they are shown.
        assert rows[0].query("Input") and not rows[0].sketched
        assert rows[-1].sketched and not rows[-1].query("Input")
        # Scrolled to the end, the last rows are built: whole rows with their editors.
        form = app.query_one(ToolsPane).query_one(SchemaForm)
        form.scroll_end(animate=False)
        await wait_for(pilot, lambda: bool(rows[-1].query("Input")), "the last row built once shown")
        assert not rows[-1].sketched
        assert rows[-1].query_one(".field-label", Static).render().plain.startswith("field_099")
        # Another tool replaces the rows; coming back builds all 100 again.
        await select(pilot, app, "tools", "tool_0003")
        assert not [row for row in app.query(FieldRow) if not row.vacant]
        await select(pilot, app, "tools", "wide_form")
        assert len([row for row in app.query(FieldRow) if not row.vacant]) == 100


async def test_tab_into_the_sketched_rows_of_a_big_form_loses_no_key(tmp_path: Path) -> None:
    """Typed at full speed from the first field down past the first
    screenful: each row tabbed to is built under the keys and takes its own."""
    release = tmp_path / "release"
    release.touch()
    app = InspectorApp(spec(release))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "wide_form")
        rows = [row for row in app.query(FieldRow) if not row.vacant]
        sketched = [index for index, row in enumerate(rows) if row.sketched]
        assert sketched, "a 30-line terminal shows only some of 100 rows"
        first_input = rows[0].query_one(Input)
        await focus(pilot, first_input)
        # Text fields are every fifth row (0, 5, 10...); the others are a number,
        # a boolean, a choice and a number: one tab stop each.
        target = next(index for index in sketched if index % 5 == 0)
        keys: list[str] = list("start")
        for index in range(5, target + 1, 5):
            keys += ["tab"] * 5 + list(f"t{index}")
        await burst(pilot, *keys)
        editor = app.query_one(ToolsPane).query_one(ArgumentsEditor)
        value = editor.form.value()
        assert value["field_000"] == "start"
        for index in range(5, target + 1, 5):
            assert value[f"field_{index:03d}"] == f"t{index}", (index, value)
        assert app.focused is rows[target].query_one(Input)


async def test_a_very_large_frame_and_result_are_shown(tmp_path: Path) -> None:
    release = tmp_path / "release"
    release.touch()
    app = InspectorApp(spec(release))
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "big_json")
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.query(BlockView), "the result")
        # The result: its JSON text pretty-printed (in a thread), drawn a screen at a time.
        body = app.query(BlockView).first().query_one(LazyText)
        assert body.json and body.line_count > 2_500
        assert '"marker": "END-OF-BIG"' in body.text
        await wait_for(pilot, lambda: body.size.width > 0, "the result laid out")
        assert '"rows": [' in lazy_lines(body)
        # The traffic detail of the answer (about 170 KB): message and raw text, both shown.
        answer = next(f for f in app.traffic if f.method == "tools/call" and f.direction == "in")
        assert answer.size > 6 * HIGHLIGHT_LIMIT
        pane = app.query_one(TrafficPane)
        pane.table.focus()
        assert pane.table.select_seq(answer.seq)
        detail = pane.query_one("#traffic-detail")

        def shows_the_answer() -> bool:
            # Another large frame (a tools/list page) may be in the detail until the selection's detail is drawn.
            head = detail.query(Static)
            return bool(head) and f"frame #{answer.seq} " in str(head.first().render())

        await wait_for(
            pilot, lambda: shows_the_answer() and len(detail.query(LazyText)) == 2, "the large frame's detail"
        )
        message, raw = detail.query(LazyText)
        assert message.json and '"jsonrpc": "2.0"' in message.text and "END-OF-BIG" in message.text
        assert raw.text.startswith('{"jsonrpc"') and "END-OF-BIG" in raw.text
        await wait_for(pilot, lambda: message.size.width > 0, "the detail laid out")
        first_rows = lazy_lines(message).splitlines()[:3]
        assert first_rows[0].strip() == "{", first_rows
        # The app still answers keys: the table moves on to the next frame.
        await pilot.press("up")
        await wait_for(pilot, lambda: pane.table.selected_frame is not answer, "the cursor moved")


async def test_a_very_large_resource_and_tool_schema_are_prepared_off_the_loop(tmp_path: Path) -> None:
    release = tmp_path / "release"
    release.touch()
    app = InspectorApp(spec(release))
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        # The 170 KB JSON resource: pretty-printed in a thread, coloured a screen at a time.
        app.open_resource("big://rows.json")
        contents = app.query_one("#resource-contents")
        await wait_for(pilot, lambda: contents.query(LazyBody), "the resource's body")
        body = contents.query_one(LazyBody)
        await wait_for(pilot, lambda: body.prepared, "the body prepared")
        assert body.json and body.line_count > 2_500 and '"marker": "END-OF-BIG"' in body.text
        await wait_for(pilot, lambda: body.size.width > 0, "the body laid out")
        assert '"rows": [' in lazy_lines(body)
        # big_json's 40 KB input schema, in the Input schema tab.
        await select(pilot, app, "tools", "big_json")
        app.query_one("#tool-tabs", TabbedContent).active = "tool-schema-tab"
        holder = app.query_one("#tool-schema", Static).parent
        assert holder is not None
        await wait_for(pilot, lambda: holder.query(LazyBody) and holder.query_one(LazyBody).prepared, "the schema")
        schema = holder.query_one(LazyBody)
        assert schema.json and "END-OF-SCHEMA" in schema.text
        assert not app.query_one("#tool-schema", Static).display
        # A small schema next: highlighted in the Static again, the big one gone.
        await select(pilot, app, "tools", "tool_0003")
        await wait_for(pilot, lambda: not holder.query(LazyBody), "the big schema gone")
        assert app.query_one("#tool-schema", Static).display
        shown = app.query_one("#tool-schema", Static).content
        assert isinstance(shown, Syntax) and '"type": "object"' in shown.code


async def test_a_filter_typed_while_pages_arrive_finds_the_items_of_later_pages(tmp_path: Path) -> None:
    """The filter's text of the items already listed is kept as the list
    grows; the items of the pages that arrive later are matched too."""
    release = tmp_path / "release"
    app = InspectorApp(spec(release))
    async with app.run_test(size=SIZE) as pilot:
        listed = tool_list(app)
        await wait_for(pilot, lambda: len(listed.items) == 11, "the first page in the list")
        await focus(pilot, listed.options)
        await pilot.press("slash", *"tool_00")
        await wait_for(pilot, lambda: listed.filter_text == "tool_00", "the filter typed")
        assert [item.key for item in listed.shown] == [f"tool_{i:04d}" for i in range(10)]
        release.touch()
        await wait_for(pilot, lambda: "tools" in app.lists and len(listed.items) == 41, "the whole listing")
        await wait_for(pilot, lambda: len(listed.shown) == 39, "the matches of every page")
        assert [item.key for item in listed.shown] == [f"tool_{i:04d}" for i in range(39)]
        assert listed.border_title == "Tools (39/41)"
