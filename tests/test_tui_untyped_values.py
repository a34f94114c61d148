"""Values the person never typed are never sent from the TUI's form: no
top-level const, no empty required array or object, no default shown in a
select (until picked, or filled in by ctrl+d)."""

from __future__ import annotations

from textual.widgets import Checkbox, Input, Select

from inspector.core.servers.spec import ServerSpec
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.arguments import ArgumentsEditor

from .peers import PYTHON, SERVERS
from .test_tui_arguments import call_and_wait
from .tui_helpers import burst, field_row, focus, select, wait_connected, wait_for

SIZE = (160, 45)


def _app() -> InspectorApp:
    return InspectorApp(ServerSpec(transport="stdio", command=PYTHON, args=[str(SERVERS / "form_values.py")]))


def _sent(frame: object) -> object:
    return frame.message["params"]["arguments"]  # type: ignore[attr-defined]


async def test_only_what_was_typed_is_sent() -> None:
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "order")
        # The required object is open for typing, not behind an "include".
        city = field_row(app, ("address", "city")).query_one(Input)
        size = field_row(app, ("size",)).query_one(Select)
        assert size.is_blank() and "default: M" in str(size.prompt)
        assert "default: false" in str(field_row(app, ("gift",)).query_one(Select).prompt)
        await focus(pilot, field_row(app, ("note",)).query_one(Input))
        await burst(pilot, *"hi")
        assert _sent(await call_and_wait(pilot, app)) == {"note": "hi"}

        await focus(pilot, city)
        await burst(pilot, *"Oslo")
        api = field_row(app, ("api",)).query_one(Checkbox)
        assert api.value is False
        await focus(pilot, api)
        await burst(pilot, "enter")
        assert _sent(await call_and_wait(pilot, app)) == {"api": "v2", "address": {"city": "Oslo"}, "note": "hi"}


async def test_fill_defaults_puts_the_shown_defaults_in() -> None:
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "order")
        await focus(pilot, field_row(app, ("note",)).query_one(Input))
        await burst(pilot, "ctrl+d")
        editor = app.query_one(ArgumentsEditor)
        await wait_for(pilot, lambda: not editor.form._rebuild_pending, "the form redrawn")
        assert field_row(app, ("size",)).query_one(Select).value == 1  # the option "M"
        assert _sent(await call_and_wait(pilot, app)) == {"size": "M", "gift": False}
