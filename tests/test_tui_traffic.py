"""The bottom panel's views: the traffic table follows the tail like
`tail -f`, keeps its place once the person moved up, keeps the selected row
on screen; rows, header and detail share one numbering; Stderr has a filter."""

from __future__ import annotations

import sys

import pytest
from textual.widgets import Input, Static, TabbedContent

from inspector.core.record.traffic import TrafficLog
from inspector.core.servers.spec import ServerSpec, demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.bottom import BottomPanel
from inspector.tui.panes.stderr import StderrPane
from inspector.tui.panes.traffic import TrafficPane
from inspector.tui.widgets.status_bar import KeyBar
from inspector.tui.widgets.traffic_table import ID_W, LATENCY_W, SIZE_W, TrafficTable, header_text, row_text

from .peers import SERVERS
from .tui_helpers import burst, focus, settle, wait_connected, wait_for

SIZE = (150, 50)
HOSTILE = str(SERVERS / "hostile.py")


def visible_rows(table: TrafficTable) -> range:
    """The rows on screen, read from what the table drew."""
    top = int(table.scroll_y)
    height = table.scrollable_content_region.height - (1 if table.header is not None else 0)
    return range(top, min(len(table.rows), top + height))


def drawn(table: TrafficTable) -> list[str]:
    """The lines the table draws now, as text."""
    return [table.render_line(y).text for y in range(table.scrollable_content_region.height)]


def assert_cursor_on_screen(table: TrafficTable) -> None:
    assert table.cursor in visible_rows(table), (table.cursor, visible_rows(table), table.scroll_y)
    selected = table.selected_frame
    assert selected is not None
    assert any(line.startswith(f"#{selected.seq} ") for line in drawn(table)), drawn(table)


async def show_bottom_tab(pilot: object, app: InspectorApp, tab: str) -> None:
    """Click a bottom tab, as a person would."""
    await pilot.click(f"#bottom-tabs Tab#--content-tab-{tab}")  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: app.query_one("#bottom-tabs", TabbedContent).active == tab, f"tab {tab}")  # type: ignore[arg-type]
    await settle(pilot, f"the {tab} tab shown")  # type: ignore[arg-type]


def add_events(app: InspectorApp, count: int, label: str = "test event") -> None:
    for n in range(count):
        app.traffic.event("local", "transport", note=f"{label} {n}")


async def test_the_newest_frame_is_on_screen_at_startup() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await settle(pilot, "the table laid out at startup")
        table = app.query_one(TrafficPane).table
        assert len(table.rows) > table.scrollable_content_region.height, "more frames than lines"
        assert table.cursor == len(table.rows) - 1
        assert_cursor_on_screen(table)
        assert table.scroll_y == table.max_scroll_y


async def test_tail_is_followed_across_tab_switches_and_resizes() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        table = app.query_one(TrafficPane).table
        await show_bottom_tab(pilot, app, "stderr")
        add_events(app, 30, "while hidden")
        await wait_for(pilot, lambda: len(table.rows) == len(app.traffic.frames), "rows synced while hidden")
        await show_bottom_tab(pilot, app, "traffic")
        assert table.cursor == len(table.rows) - 1
        assert_cursor_on_screen(table)
        # Frames while shown: still following.
        add_events(app, 5, "while shown")
        await wait_for(pilot, lambda: len(table.rows) == len(app.traffic.frames), "rows synced")
        await settle(pilot, "the table to take the new rows")
        assert_cursor_on_screen(table)
        # Hidden panel (ctrl+t) and shown again; then a smaller and a larger panel.
        await pilot.press("ctrl+t")
        await settle(pilot, "the panel hidden")
        add_events(app, 10, "panel hidden")
        await settle(pilot, "the frames taken in while hidden")
        await pilot.press("ctrl+t")
        await settle(pilot, "the panel shown again")
        assert table.cursor == len(table.rows) - 1
        assert_cursor_on_screen(table)
        panel = app.query_one(BottomPanel)
        heights = []
        for delta in (-4, 10):
            panel.resize_by(delta)
            await settle(pilot, "the table laid out at its new size")
            assert_cursor_on_screen(table)
            heights.append(panel.outer_size.height)
        # Each resize starts from the height the one before left.
        assert heights[1] == heights[0] + 10


async def test_moving_up_stops_following_and_end_resumes() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        table = app.query_one(TrafficPane).table
        await focus(pilot, table)
        await pilot.press("up", "up", "up")
        await settle(pilot, "the cursor moved up")
        cursor, top = table.cursor, table.scroll_y
        selected = table.selected_frame
        assert selected is not None and not table.following
        add_events(app, 40, "after moving up")
        await wait_for(pilot, lambda: len(table.rows) == len(app.traffic.frames), "rows synced")
        await settle(pilot, "the table to take the new rows")
        # The person's place is kept: same row, same frame, same scroll.
        assert table.cursor == cursor and table.selected_frame is selected and table.scroll_y == top
        assert_cursor_on_screen(table)
        await pilot.press("end")
        await settle(pilot, "the end key handled")
        add_events(app, 10, "after end")
        await wait_for(pilot, lambda: len(table.rows) == len(app.traffic.frames), "rows synced")
        await settle(pilot, "the table to take the new rows")
        assert table.cursor == len(table.rows) - 1
        assert_cursor_on_screen(table)
        # A filter that hides the selected frame selects the nearest earlier one shown.
        hidden = next(f for f in app.traffic if f.note == "after moving up 5")
        assert table.select_seq(hidden.seq)
        app.query_one(TrafficPane).query_one("#traffic-filter", Input).value = "in"
        await settle(pilot, "the filter applied")
        earlier = max(f.seq for f in app.traffic if f.direction == "in" and f.seq < hidden.seq)
        assert table.selected_frame is not None and table.selected_frame.seq == earlier
        assert_cursor_on_screen(table)


async def test_frame_numbers_ids_and_aligned_columns() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        pane = app.query_one(TrafficPane)
        table = pane.table
        lines = drawn(table)
        # A header line names the columns.
        for column in ("#", "time", "kind", "method", "id", "latency", "size"):
            assert column in lines[0].split(), lines[0]
        response = next(f for f in app.traffic if f.kind == "response" and f.method == "tools/list")
        assert response.partner is not None and response.id is not None
        await focus(pilot, table)
        assert table.select_seq(response.seq)
        await settle(pilot, "the selection drawn")
        # In the row, `#N` is the frame number and the JSON-RPC id has its own column.
        row = next(line for line in drawn(table) if line.startswith(f"#{response.seq} "))
        id_end = lines[0].index(" id ") + 1 + 2
        assert row[id_end - ID_W : id_end].strip() == str(response.id)
        # The detail says the same: frame #N, id N, partner frame #M.
        detail = pane.query_one("#traffic-detail")

        def detail_of_response() -> bool:
            # Not the detail of the frame selected before (the newest), still shown a moment.
            heads = detail.query(Static)
            return len(detail.children) > 1 and f"frame #{response.seq} " in str(heads.first().render())

        await wait_for(pilot, detail_of_response, "the response's detail")
        head = str(pane.query_one("#traffic-detail").query(Static).first().render())
        assert head.startswith(f"frame #{response.seq} ") and f"id {response.id}" in head
        assert f"partner frame #{response.partner}" in head
        await pilot.press("p")
        await settle(pilot, "the partner selected")
        assert table.selected_frame is not None and table.selected_frame.seq == response.partner


def test_latency_and_size_columns_line_up_whatever_the_method() -> None:
    traffic = TrafficLog()
    width = 90
    traffic.add("out", "request", raw=b"{}", message={}, method="a", id=1)
    traffic.add("in", "response", raw=b"{}" * 600, message={}, method="a", id=1, latency=0.0123, partner=1)
    long_method = "notifications/" + "x" * 200
    traffic.add("in", "response", raw=b"{}", message={}, method=long_method, id="a-long-string-id", latency=2.5)
    traffic.add("in", "response", raw=b"{}", message={}, method="宽字符的方法名" * 5, id=7, latency=0.0004)
    header = header_text(width).plain
    latency_end = header.index("latency") + len("latency")
    size_end = header.index("size") + len("size")
    rows = [row_text(frame, width).plain for frame in traffic.frames]
    from rich.cells import cell_len, set_cell_size

    def cells(text: str, start: int, end: int) -> str:
        """The text in cell columns [start, end)."""
        return set_cell_size(set_cell_size(text, end)[::-1], end - start)[::-1]

    assert all(cell_len(row) == width for row in rows), [cell_len(r) for r in rows]
    latencies = [cells(row, latency_end - LATENCY_W, latency_end).strip() for row in rows]
    assert latencies == ["", "12.3ms", "2.50s", "0.4ms"]
    sizes = [cells(row, size_end - SIZE_W, size_end).strip() for row in rows]
    assert sizes == ["2B", "1.2K", "2B", "2B"]
    assert "…" in rows[2] and rows[2].startswith("#3 ")


async def test_stderr_view_has_a_filter() -> None:
    spec = ServerSpec(command=sys.executable, args=[HOSTILE, "--mode", "stderr-chatter"])
    app = InspectorApp(spec)
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await show_bottom_tab(pilot, app, "stderr")
        pane = app.query_one(StderrPane)
        table = pane.table
        await wait_for(pilot, lambda: sum("starting up" in line for line in drawn(table)) >= 3, "stderr lines")
        everything = len(table.rows)
        await focus(pilot, table)
        await pilot.press("slash")
        field = pane.query_one("#stderr-filter", Input)
        await wait_for(pilot, lambda: app.focused is field, "the filter focused by /")
        await pilot.press(*"step 2")
        await settle(pilot, "the filter applied")
        shown = [app.traffic.frames[i].text() for i in table.rows]
        assert shown and all("step 2" in line for line in shown), shown
        # Any case; a word after `-` hides the lines holding it.
        field.value = "STARTING -3"
        await settle(pilot, "the filter applied")
        shown = [app.traffic.frames[i].text().strip() for i in table.rows]
        assert shown == ["starting up, step 1", "starting up, step 2"], shown
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.focused is table, "enter returns to the table")
        field.value = ""
        await settle(pilot, "the filter cleared")
        assert len(table.rows) == everything
        # Process lifecycle lines stay in the Stderr view, and the filter finds them too.
        field.value = "spawned"
        await settle(pilot, "the filter applied")
        assert [app.traffic.frames[i].kind for i in table.rows] == ["process"]


def cursor_row_on_screen(app: InspectorApp, table: TrafficTable) -> bool:
    """The cursor's row is drawn where the person sees it: inside the table's
    region and not under another widget (the key bar docks over the bottom)."""
    row = table.cursor - int(table.scroll_y)
    if not 0 <= row < table._visible_rows:
        return False
    y = table.content_region.y + (1 if table.header is not None else 0) + row
    widget, _region = app.screen.get_widget_at(table.content_region.x + 1, y)
    return widget is table


@pytest.mark.parametrize("size", [(100, 30), (200, 50)])
async def test_the_newest_row_is_the_cursor_row_and_on_screen(size: tuple[int, int]) -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=size) as pilot:
        await wait_connected(pilot, app)
        await burst(pilot, "alt+1")
        pane = app.query_one(TrafficPane)
        table = pane.table
        add_events(app, 60, "many")
        await wait_for(pilot, lambda: len(table.rows) == len(app.traffic.frames), "rows synced")
        last = app.traffic.frames[-1]
        detail = pane.query_one("#traffic-detail")

        def shown() -> bool:
            heads = detail.query(Static)
            return bool(heads) and f"frame #{last.seq} " in str(heads.first().render())

        await wait_for(pilot, shown, "the newest frame in the detail")
        await settle(pilot, "the newest frame drawn")
        assert table.cursor == len(table.rows) - 1
        assert table.selected_frame is last
        assert cursor_row_on_screen(app, table), (size, table.cursor, table.scroll_y, table.region)
        assert any(line.startswith(f"#{last.seq} ") for line in drawn(table))


async def test_focus_between_table_and_detail_is_visible() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        pane = app.query_one(TrafficPane)
        table = pane.table
        detail = pane.query_one("#traffic-detail")
        await focus(pilot, table)
        await settle(pilot, "the focus drawn")
        cursor_focused = table.render_line(1 + table.cursor - int(table.scroll_y))
        edge_blurred = detail.styles.border_left
        await focus(pilot, detail)
        await settle(pilot, "the blur drawn")
        cursor_blurred = table.render_line(1 + table.cursor - int(table.scroll_y))
        assert cursor_focused.text == cursor_blurred.text
        assert [s.style for s in cursor_focused] != [s.style for s in cursor_blurred]
        assert detail.styles.border_left != edge_blurred


@pytest.mark.parametrize("size", [(100, 30), (200, 50)])
async def test_the_key_bar_says_what_the_arrows_do_on_each_side(size: tuple[int, int]) -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=size) as pilot:
        await wait_connected(pilot, app)
        await burst(pilot, "alt+1")
        pane = app.query_one(TrafficPane)
        bar = app.query_one(KeyBar)
        await wait_for(pilot, lambda: app.focused is pane.table, "focus on the table")
        await wait_for(pilot, lambda: "↑↓ frames" in str(bar.render()), "the table's arrows in the key bar")
        assert "↑↓ scroll" not in str(bar.render())
        # The first frame (initialize, or discover): a long detail.
        await burst(pilot, "home")
        detail = pane.query_one("#traffic-detail")
        await wait_for(pilot, lambda: detail.max_scroll_y > 0, "a detail longer than its pane")
        await focus(pilot, detail)
        await wait_for(pilot, lambda: "↑↓ scroll" in str(bar.render()), "the detail's arrows in the key bar")
        assert "↑↓ frames" not in str(bar.render())
        # And the arrows do that: the detail scrolls, the table's cursor stays.
        await burst(pilot, "down", "down")
        await wait_for(pilot, lambda: detail.scroll_y > 0, "the detail scrolled")
        assert pane.table.cursor == 0
        # The app's own keys still come first.
        assert str(bar.render()).startswith(" ? Help")
        # Stderr's table says what its rows are.
        await burst(pilot, "alt+2")
        await wait_for(pilot, lambda: "↑↓ lines" in str(bar.render()), "the stderr table's arrows")
