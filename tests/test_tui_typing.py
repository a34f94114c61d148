"""Typing into forms as a fast person does: every key queued at once, none
waiting for the one before it to be handled, and each must land in the
widget that showed focus when it was pressed."""

from __future__ import annotations

from textual.widgets import Input, Static

from inspector.core import demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.widgets.item_list import ItemList
from inspector.tui.widgets.result_view import ResultView

from .tui_helpers import burst, field_row, select, wait_connected, wait_for

SMALL = (100, 30)


def result_text(app: InspectorApp) -> str:
    view = app.query_one(ResultView)
    return " ".join(str(static.render()) for static in view.query(Static))


def last_call_arguments(app: InspectorApp) -> object:
    calls = [f for f in app.traffic if f.method == "tools/call" and f.direction == "out"]
    assert calls, "no tools/call was sent"
    return calls[-1].message["params"]["arguments"]


async def test_divide_typed_at_full_speed_from_the_list() -> None:
    """From the tool list: down to `divide`, enter, `8`, tab, `2`, call, yes,
    all in one burst; the call carries both numbers and the answer is 4."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SMALL) as pilot:
        await wait_connected(pilot, app)
        tools = app.query_one("#tool-list", ItemList)
        tools.focus_list()
        await pilot.pause()
        start = tools.options.highlighted or 0
        keys = ["down"] * ([item.key for item in tools.shown].index("divide") - start)
        await burst(pilot, *keys, "enter", "8", "tab", "2", "ctrl+j")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "the confirmation")
        await burst(pilot, "y")
        await wait_for(pilot, lambda: "= 4" in result_text(app), "the result 4")
        assert last_call_arguments(app) == {"dividend": 8, "divisor": 2}


async def test_text_after_tab_lands_in_the_next_field() -> None:
    """ "London⇥GB": the city keeps London and the country gets GB."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SMALL) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "plan_trip")
        city = field_row(app, ("traveller", "home", "city")).query_one(Input)
        city.focus()
        await burst(pilot, *"London", "tab", "G", "B")
        assert city.value == "London"
        country = field_row(app, ("traveller", "home", "country")).query_one(Input)
        assert country.value == "GB"
        assert app.focused is country
