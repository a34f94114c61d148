"""What was typed into a tool's form and does not convert yet is kept when
another tool is selected and shown again on coming back."""

from __future__ import annotations

from textual.widgets import Input, TextArea

from inspector.core.servers.spec import ServerSpec
from inspector.tui.app import InspectorApp

from .peers import PYTHON, SERVERS
from .tui_helpers import confirmation, field_row, fill, select, wait_connected

SIZE = (120, 40)


async def test_json_that_does_not_parse_survives_another_tool() -> None:
    app = InspectorApp(ServerSpec(transport="stdio", command=PYTHON, args=[str(SERVERS / "free_form.py")]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "drop")
        await fill(pilot, field_row(app, ("target",)), "e1")
        await fill(pilot, field_row(app, ("data",)), '{"text/plain": ')
        await select(pilot, app, "tools", "ping")
        await select(pilot, app, "tools", "drop")
        assert field_row(app, ("target",)).query_one(Input).value == "e1"
        assert field_row(app, ("data",)).query_one(TextArea).text == '{"text/plain": '
        await fill(pilot, field_row(app, ("data",)), '{"text/plain": "hi"}')
        await pilot.press("ctrl+enter")
        assert (await confirmation(pilot, app)).arguments == {"target": "e1", "data": {"text/plain": "hi"}}
