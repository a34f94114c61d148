"""A form's select can lose its overlay while it mounts (the form rebuilt
under it as a list page arrives on a busy machine); setting it up then is no
crash."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets._select import SelectOverlay

from inspector.tui.widgets.form_select import FormSelect

from .tui_helpers import settle


class OneSelect(App[None]):
    def compose(self) -> ComposeResult:
        yield FormSelect([("true", "true"), ("false", "false")], compact=True)


async def test_a_select_whose_overlay_is_gone_sets_up_without_a_crash() -> None:
    app = OneSelect()
    async with app.run_test() as pilot:
        select = app.query_one(FormSelect)
        # Its option list is mounted once the select is first opened.
        assert not select.query(SelectOverlay)
        select.action_show_overlay()
        await settle(pilot, "the options mounted")
        assert select.query(SelectOverlay)
        select.expanded = False
        await select.query_one(SelectOverlay).remove()
        assert not select.query(SelectOverlay)
        select._setup_options_renderables()
        # What the call set off has run (a crash there would stop the app).
        await settle(pilot, "the options set up")
        assert app.is_running
