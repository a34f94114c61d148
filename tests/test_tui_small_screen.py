"""A 100x30 terminal: the bottom panel starts as its tab row, one key opens
it; the tool list keeps every tool's name whole before its badges."""

from __future__ import annotations

from textual.widgets import TabbedContent

from inspector.core.servers.spec import demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.bottom import BottomPanel
from inspector.tui.panes.traffic import TrafficPane
from inspector.tui.widgets.item_list import ItemList

from .test_tui_screen_text import svg_lines
from .tui_helpers import burst, wait_connected, wait_for

SMALL = (100, 30)


async def test_the_bottom_panel_starts_collapsed_and_one_key_opens_it() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SMALL) as pilot:
        await wait_connected(pilot, app)
        panel = app.query_one(BottomPanel)
        assert panel.region.height == 3, panel.region
        lines = svg_lines(app)
        # The tab row is there, right above the key bar; nothing of the traffic table is.
        assert any("Traffic" in line and "Latency" in line for line in lines[-4:]), lines[-4:]
        table = app.query_one(TrafficPane).table
        assert table.region.height == 0
        await burst(pilot, "ctrl+t")
        await wait_for(pilot, lambda: table.region.height > 1, "the table shown")
        assert not panel.has_class("collapsed") and panel.region.height > 3
        # ctrl+t again hides it, and once more shows it open (not collapsed).
        await burst(pilot, "ctrl+t")
        await wait_for(pilot, lambda: not panel.display, "the panel hidden")
        await burst(pilot, "ctrl+t")
        await wait_for(pilot, lambda: table.region.height > 1, "the table shown again")


async def test_a_tab_key_opens_the_collapsed_panel_on_its_tab() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SMALL) as pilot:
        await wait_connected(pilot, app)
        panel = app.query_one(BottomPanel)
        assert panel.has_class("collapsed")
        await burst(pilot, "alt+3")
        assert not panel.has_class("collapsed")
        assert panel.query_one("#bottom-tabs", TabbedContent).active == "logs"


async def test_a_tall_terminal_starts_with_the_panel_open() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(100, 45)) as pilot:
        await wait_connected(pilot, app)
        assert not app.query_one(BottomPanel).has_class("collapsed")
        assert app.query_one(TrafficPane).table.region.height > 3


async def test_tool_names_come_before_badges_in_a_narrow_list() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SMALL) as pilot:
        await wait_connected(pilot, app)
        tools = app.query_one("#tool-list", ItemList)
        text = "\n".join(svg_lines(app))
        # Every tool row in view shows the whole name (the badges after it may be cut).
        names = [item.name for item in tools.shown if item.title and item.title != item.name]
        visible = [name for name in names if name in text]
        assert "delete_remote_file" in visible, text
        assert "register_user" in visible, text
        assert len(visible) >= 5, visible
