"""The TUI's collection flow, driven by keys against the demo server: call a
tool, ctrl+b saves the call as a step (arguments as they went out,
expectations from what came back), the Collections pane runs the steps and
shows pass/fail per expectation."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input, Static, TabbedContent

from inspector.collections import load_collection
from inspector.core.record.recording_files import last_call
from inspector.core.servers.spec import demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.collections import CollectionsPane
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.screens.run_steps import RunStepsScreen
from inspector.tui.screens.save_step import SaveStepScreen

from .tui_helpers import field_row, fill, focus, select, settle, type_into, wait_connected, wait_for

SIZE = (150, 50)


def checks_text(app: InspectorApp) -> str:
    return str(app.query_one("#collection-checks", Static).render())


def status_of(app: InspectorApp, row: str) -> str:
    table = app.query_one("#collection-steps", DataTable)
    return str(table.get_cell(row, table.ordered_columns[0].key))


async def test_save_a_call_as_a_step_and_run_the_collection(tmp_path: Path) -> None:
    path = tmp_path / "saved.yaml"
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        tabs = app.query_one("#main", TabbedContent)
        await select(pilot, app, "tools", "echo")
        await fill(pilot, field_row(app, ("message",)), "hi there")
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
        await pilot.press("y")

        def answered() -> bool:
            found = last_call(app.traffic, "echo")
            return found is not None and found[1] is not None

        await wait_for(pilot, answered, "the answer")
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: isinstance(app.screen, SaveStepScreen), "the save dialog")
        await type_into(pilot, app.screen.query_one("#save-step-path", Input), str(path))
        await pilot.press("enter")
        await wait_for(pilot, path.exists, "the collection file")
        steps = load_collection(str(path)).steps
        assert [(s.name, s.kind, s.target) for s in steps] == [("call echo", "call", "echo")]
        # As sent: the schema's `repeat` default is not in the file.
        assert steps[0].arguments == {"message": "hi there"}
        assert steps[0].expect.outcome == "success"
        assert steps[0].expect.values == {"content": [{"type": "text", "text": "hi there"}]}

        # The pane shows the file it saved to; a second step that fails is added by hand.
        pane = app.query_one(CollectionsPane)
        await wait_for(pilot, lambda: pane.collection is not None, "the loaded collection")
        with path.open("a", encoding="utf-8") as handle:
            handle.write(
                "  - name: wrong\n    call: echo\n    arguments: {message: x}\n"
                "    expect:\n      values:\n        content[0].text: y\n"
            )
        await pilot.press("f10")
        await wait_for(pilot, lambda: tabs.active == "collections", "the Collections tab")
        await type_into(pilot, pane.query_one("#collection-path", Input), str(path))
        await pilot.press("enter")
        table = pane.query_one("#collection-steps", DataTable)
        await wait_for(pilot, lambda: table.row_count == 2, "two steps")
        await focus(pilot, table)
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, RunStepsScreen), "the run confirmation")
        await pilot.press("y")
        await wait_for(pilot, lambda: len(pane.results) == 2, "both steps run")
        assert status_of(app, "call echo") == "✓ pass" and status_of(app, "wrong") == "✗ FAIL"
        table.move_cursor(row=0)
        await wait_for(pilot, lambda: "✓ success" in checks_text(app), "the first step's checks")
        assert '✓ content == [{"text": "hi there", "type": "text"}]' in checks_text(app)
        table.move_cursor(row=1)
        await wait_for(pilot, lambda: "✗ content[0].text" in checks_text(app), "the second step's checks")
        assert 'found "x"' in checks_text(app)
        # enter on a step runs that step alone.
        before = len([f for f in app.traffic if f.method == "tools/call" and f.direction == "out"])
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RunStepsScreen), "the run confirmation")
        await pilot.press("y")
        await wait_for(
            pilot,
            lambda: len([f for f in app.traffic if f.method == "tools/call" and f.direction == "out"]) == before + 1,
            "one more call",
        )


async def test_saving_before_any_call_says_so(tmp_path: Path) -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "get_json")
        await pilot.press("ctrl+b")

        def answered() -> bool:
            told = any("call get_json first" in str(n.message) for n in app._notifications)
            return told or isinstance(app.screen, SaveStepScreen)

        # ctrl+b either opens the save screen or says why not: until one of them.
        await wait_for(pilot, answered, "ctrl+b to open the save screen or say why not")
        await settle(pilot, "ctrl+b handled")
        assert not isinstance(app.screen, SaveStepScreen)
        assert any("call get_json first" in str(n.message) for n in app._notifications)
