"""Keys that show a pane put focus where the pane's work is: F2…F9 on the
main panes' lists, alt+1…alt+5 on the bottom panel's tabs."""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Input, TabbedContent

from inspector.core.servers.spec import demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.bottom import BottomPanel
from inspector.tui.widgets.item_list import ItemList
from inspector.tui.widgets.traffic_table import TrafficTable

from .tui_helpers import burst, field_row, focus, focus_in, on_tool, select, wait_connected, wait_for

SIZE = (150, 45)


def inside(widget: Widget | None, ancestor: Widget) -> bool:
    return widget is not None and (widget is ancestor or ancestor in widget.ancestors)


async def test_function_keys_focus_the_list_of_the_pane_they_show() -> None:
    async with on_tool(demo_spec(), "weather_report", SIZE) as (app, pilot):
        city = field_row(app, ("city",)).query_one(Input)
        await focus(pilot, city)
        main = app.query_one("#main", TabbedContent)
        for key, tab, list_id in (
            ("f3", "resources", "#resource-list"),
            ("f4", "templates", "#template-list"),
            ("f5", "prompts", "#prompt-list"),
            ("f2", "tools", "#tool-list"),
        ):
            await burst(pilot, key)
            assert main.active == tab
            options = app.query_one(list_id, ItemList).options

            def on_list(options: Widget = options) -> bool:
                return app.focused is options

            await wait_for(pilot, on_list, f"focus on the {tab} list")
        # Pressed again on the pane already shown, from its form: back to the list.
        await focus(pilot, city)
        await burst(pilot, "f2")
        await wait_for(pilot, lambda: app.focused is app.query_one("#tool-list").options, "focus on the tool list")  # type: ignore[attr-defined]
        # Server has no list: focus goes into it, so its keys and scrolling work.
        await burst(pilot, "f6")
        assert main.active == "server"
        await wait_for(pilot, lambda: inside(app.focused, main.get_pane("server")), "focus in the server pane")


async def test_a_hidden_pane_opened_by_its_key_shows_its_tab() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        main = app.query_one("#main", TabbedContent)
        # The demo server over stdio has no tasks and no authorization: both tabs start hidden.
        assert not main.get_tab("tasks").display
        assert not main.get_tab("auth").display
        await burst(pilot, "f8")
        assert main.active == "tasks"
        assert main.get_tab("tasks").display
        await wait_for(pilot, lambda: inside(app.focused, main.get_pane("tasks")), "focus in the tasks pane")
        await burst(pilot, "f9")
        assert main.active == "auth"
        assert main.get_tab("auth").display


async def test_each_bottom_tab_has_a_key_that_opens_the_panel_and_focuses_it() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        panel = app.query_one(BottomPanel)
        bottom = panel.query_one("#bottom-tabs", TabbedContent)
        await burst(pilot, "ctrl+t")
        assert not panel.display
        # From a text field: the key is the panel's, not a character typed.
        await select(pilot, app, "tools", "weather_report")
        city = field_row(app, ("city",)).query_one(Input)
        await focus(pilot, city)
        before = city.value
        for key, tab in (("alt+2", "stderr"), ("alt+3", "logs"), ("alt+1", "traffic")):
            await burst(pilot, key)
            assert panel.display
            assert bottom.active == tab
            table = bottom.get_pane(tab).query_one(TrafficTable)
            await wait_for(pilot, lambda table=table: app.focused is table, f"focus on the {tab} table")
        assert city.value == before
        for key, tab in (("alt+4", "problems"), ("alt+5", "latency")):
            await burst(pilot, key)
            assert bottom.active == tab
            await focus_in(pilot, bottom.get_pane(tab), f"focus in {tab}")


async def test_alt_digit_sent_as_escape_and_digit_opens_the_tab_outside_text_fields() -> None:
    """xterm, tmux and GNOME's terminal send alt+3 as ESC 3, which Textual
    reads as the key of "£" (macOS's option+3): away from a text field it
    opens the tab alt+3 opens; in a text field it stays a typed character."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        panel = app.query_one(BottomPanel)
        bottom = panel.query_one("#bottom-tabs", TabbedContent)
        await focus(pilot, app.query_one("#tool-list", ItemList).options)
        keys = (("pound_sign", "logs"), ("trade_mark_sign", "stderr"), ("inverted_exclamation_mark", "traffic"))
        for key, tab in keys:
            await burst(pilot, key)

            def shown(tab: str = tab) -> bool:
                return bottom.active == tab

            await wait_for(pilot, shown, f"the {tab} tab")
        await select(pilot, app, "tools", "weather_report")
        city = field_row(app, ("city",)).query_one(Input)
        await focus(pilot, city)
        city.value = ""
        await burst(pilot, "pound_sign", "5")
        await wait_for(pilot, lambda: city.value == "£5", f"£5 typed (the field has {city.value!r})")
        assert bottom.active == "traffic"
