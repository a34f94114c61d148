"""The TUI driven as a person would, against the reference TypeScript server."""

from __future__ import annotations

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Static, TabbedContent, TextArea

from inspector.core.servers.spec import ServerSpec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.bottom import BottomPanel
from inspector.tui.panes.tools import ToolsPane
from inspector.tui.panes.traffic import TrafficPane
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.screens.elicitation import ElicitationScreen
from inspector.tui.screens.sampling import SamplingScreen
from inspector.tui.widgets.content_view import BlockView
from inspector.tui.widgets.form_row import FieldRow
from inspector.tui.widgets.item_list import ItemList
from inspector.tui.widgets.json_tree import JsonTree
from inspector.tui.widgets.result_view import ResultView
from inspector.tui.widgets.traffic_table import TrafficTable

from .tui_helpers import confirmation, field_row, fill, focus, select, settle, type_into, wait_connected, wait_for

SIZE = (150, 50)


@pytest.fixture
def app(everything_stdio: ServerSpec) -> InspectorApp:
    return InspectorApp(everything_stdio)


def status_text(app: InspectorApp) -> str:
    return str(app.query_one(ResultView).query_one("#status", Static).render())


async def test_every_pane_lists_the_server(app: InspectorApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        counts = {list_.label: len(list_.items) for list_ in app.query(ItemList)}
        assert counts["Tools"] >= 16 and counts["Resources"] >= 7
        assert counts["Templates"] == 2 and counts["Prompts"] == 4
        assert app.query_one("#tool-list", ItemList).border_title == f"Tools ({counts['Tools']})"
        for tab in ("resources", "templates", "prompts", "server", "roots", "tools"):
            await pilot.press(
                {"resources": "f3", "templates": "f4", "prompts": "f5", "server": "f6", "roots": "f7", "tools": "f2"}[
                    tab
                ]
            )
            await settle(pilot, f"the key for {tab} handled")
            assert app.query_one("#main", TabbedContent).active == tab
        assert "Everything" in app.facts.server and app.facts.revision == "2025-11-25"


async def test_call_through_confirmation(app: InspectorApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "get-sum")
        await type_into(pilot, field_row(app, ("a",)).query_one(Input), "5")
        await type_into(pilot, field_row(app, ("b",)).query_one(Input), "37")
        await pilot.press("ctrl+enter")
        assert (await confirmation(pilot, app)).arguments == {"a": 5, "b": 37}
        await pilot.press("y")
        await wait_for(pilot, lambda: "OK" in status_text(app), "result")
        assert app.query_one(ResultView).last_result["content"][0]["text"] == "The sum of 5 and 37 is 42."


async def test_refusing_a_call_sends_nothing(app: InspectorApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "echo")
        await fill(pilot, field_row(app, ("message",)), "never sent")
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
        await pilot.press("n")
        await settle(pilot, "the refusal handled")
        assert not isinstance(app.screen, ConfirmCallScreen)
        assert not [f for f in app.traffic if f.method == "tools/call" and f.direction == "out"]


async def test_image_and_structured_results(app: InspectorApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "get-tiny-image")
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
        await pilot.press("y")
        await wait_for(pilot, lambda: "OK" in status_text(app), "image result")
        kinds = [view.block.get("type") for view in app.query(BlockView)]
        assert "image" in kinds
        image_view = next(v for v in app.query(BlockView) if v.block.get("type") == "image")
        assert image_view.binary is not None and image_view.binary[1] == "image/png"

        await select(pilot, app, "tools", "get-structured-content")
        field = field_row(app, ("location",))
        selects = field.query("Select")
        assert selects, "location is an enum"
        selects.first().value = 0  # type: ignore[attr-defined]
        await settle(pilot, "the form to take the value")
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
        await pilot.press("y")
        await wait_for(pilot, lambda: "structuredContent" in str(app.query_one(ResultView).last_result), "structured")
        texts = " ".join(str(s.render()) for s in app.query_one(ResultView).query(Static))
        assert "matches the outputSchema" in texts
        tree = app.query_one("#structured-tree", JsonTree)
        structured = app.query_one(ResultView).last_result["structuredContent"]
        key = next(iter(structured))
        node = tree.node_at((key,))
        assert node is not None and str(node.label).startswith(f"{key}: ")


async def test_sampling_and_elicitation_answered_by_the_person(app: InspectorApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "trigger-sampling-request")
        await fill(pilot, field_row(app, ("prompt",)), "hello")
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, SamplingScreen), "sampling modal")
        app.screen.query_one("#sampling-reply", TextArea).text = "written by the person"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "OK" in status_text(app), "sampling result")
        assert "written by the person" in str(app.query_one(ResultView).last_result)

        await select(pilot, app, "tools", "trigger-elicitation-request")
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, ElicitationScreen), "elicitation modal")
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: "OK" in status_text(app), "elicitation result")
        answers = [f for f in app.traffic if f.direction == "out" and f.method == "elicitation/create"]
        assert answers and answers[-1].message["result"] == {"action": "decline"}


async def test_cancel_a_long_call(app: InspectorApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "trigger-long-running-operation")
        await type_into(pilot, field_row(app, ("duration",)).query_one(Input), "20")
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
        await pilot.press("y")
        await wait_for(pilot, lambda: "progress" in status_text(app), "progress")
        app.query_one(ToolsPane).focus()
        await pilot.press("ctrl+x")
        await wait_for(pilot, lambda: "✖ cancelled: tools/call" in status_text(app), "cancelled status")
        assert "Error" not in status_text(app)
        cancels = [f for f in app.traffic if f.method == "notifications/cancelled" and f.direction == "out"]
        assert cancels


async def test_traffic_selection_and_filter(app: InspectorApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        panel = app.query_one(BottomPanel)
        panel.sync()
        traffic = app.query_one(TrafficPane)
        table = traffic.table
        assert len(table.rows) == len(app.traffic.frames)
        traffic.query_one("#traffic-filter", Input).value = "method:tools/list"
        await settle(pilot, "the filter applied")
        methods = [(app.traffic.frames[i].kind, app.traffic.frames[i].method) for i in table.rows]
        assert table.rows and all("tools/list" in (app.traffic.frames[i].method or "") for i in table.rows), methods
        await focus(pilot, table)
        await pilot.press("home")
        first = table.selected_frame
        assert first is not None and first.method == "tools/list" and first.kind == "request"
        await pilot.press("p")
        partner = table.selected_frame
        assert partner is not None and partner.seq == first.partner and partner.kind == "response"
        traffic.query_one("#traffic-filter", Input).value = "errors"
        await settle(pilot, "the filter applied")
        assert all(
            app.traffic.frames[i].kind in ("error", "invalid") or app.traffic.frames[i].problems for i in table.rows
        )
        assert isinstance(table, TrafficTable)


async def test_task_tool_runs_as_a_task_and_shows_in_the_tasks_pane(app: InspectorApp) -> None:
    from inspector.tui.panes.tasks import TasksPane

    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        app.select_item("tools", "simulate-research-query")
        # The form is rebuilt a moment after the selection; under load, more than a moment.
        await wait_for(pilot, lambda: any(r.node.path == ("topic",) for r in app.query(FieldRow)), "the topic field")
        checkbox = app.query_one("#as-task", Checkbox)
        assert checkbox.display and checkbox.value and checkbox.disabled  # taskSupport: required
        await fill(pilot, field_row(app, ("topic",)), "otters")
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
        await pilot.press("y")
        # The task's own status can pass between two looks on a busy machine:
        # that it ran as a task is checked below (tasks/result, the Tasks pane).
        await wait_for(pilot, lambda: "task" in status_text(app) or "OK" in status_text(app), "task status")
        await wait_for(pilot, lambda: "OK" in status_text(app), "task result", timeout=30)
        assert "otters" in str(app.query_one(ResultView).last_result)
        await pilot.press("f8")
        await settle(pilot, "f8 handled")
        pane = app.query_one(TasksPane)
        assert [task.status for task in pane.shown] == ["completed"]
        sent = [f.method for f in app.traffic if f.direction == "out"]
        assert "tasks/result" in sent


async def test_a_new_result_opens_at_its_status_line(app: InspectorApp) -> None:
    """A long result read to its end, then another call: the new result shows
    from its top (its status line), not at the last one's scroll position."""

    async def call(count: str) -> None:
        view = app.query_one(ResultView)
        before = view.last_result
        await fill(pilot, field_row(app, ("count",)), count)
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
        await pilot.press("y")
        await wait_for(
            pilot, lambda: view.last_result is not before and "OK" in status_text(app), f"the result of {count} links"
        )
        await settle(pilot, "the result drawn")

    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "get-resource-links")
        await call("10")
        view = app.query_one(ResultView)
        view.scroll_end(animate=False, immediate=True)
        await settle(pilot, "the result scrolled to its end")
        assert view.scroll_y > 0, "the result is too short to scroll: the test shows nothing"
        await call("9")
        assert view.max_scroll_y > 0, "the second result is too short to scroll: the test shows nothing"
        assert view.scroll_y == 0


async def test_text_that_does_not_convert_survives_another_tool(app: InspectorApp) -> None:
    """A number typed half-way ("4x") and another tool selected: coming back,
    both fields show what was typed, and the form holds the field that converted."""
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "get-sum")
        await fill(pilot, field_row(app, ("a",)), "5")
        await fill(pilot, field_row(app, ("b",)), "4x")
        await select(pilot, app, "tools", "echo")
        await select(pilot, app, "tools", "get-sum")
        assert field_row(app, ("a",)).query_one(Input).value == "5"
        assert field_row(app, ("b",)).query_one(Input).value == "4x"
        await fill(pilot, field_row(app, ("b",)), "37")
        await pilot.press("ctrl+enter")
        assert (await confirmation(pilot, app)).arguments == {"a": 5, "b": 37}


async def read_to_its_end_then_another_tool(pilot: Pilot[int], app: InspectorApp, scroller: VerticalScroll) -> None:
    """*scroller* (of the tool shown) scrolled to its end, then another tool
    selected whose text scrolls there too: it shows from its top."""
    scroller.scroll_end(animate=False, immediate=True)
    await settle(pilot, f"{scroller!r} scrolled to its end")
    assert scroller.scroll_y > 0, "the first tool's text does not scroll: the test shows nothing"
    await select(pilot, app, "tools", "simulate-research-query")
    assert scroller.max_scroll_y > 0, "the second tool's text does not scroll: the test shows nothing"
    assert scroller.scroll_y == 0


async def test_another_tools_header_opens_at_its_name(everything_stdio: ServerSpec) -> None:
    """On a short screen the header scrolls; read to its end for one tool,
    the next tool's header shows from its name, not from its description."""
    app = InspectorApp(everything_stdio)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "trigger-url-elicitation")
        await read_to_its_end_then_another_tool(pilot, app, app.query_one("#tool-header", VerticalScroll))


async def test_another_tools_schema_opens_at_its_top(everything_stdio: ServerSpec) -> None:
    """The Input schema tab read to its end for one tool: the next tool's
    schema shows from its top."""
    app = InspectorApp(everything_stdio)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "trigger-url-elicitation")
        app.query_one("#tool-tabs", TabbedContent).active = "tool-schema-tab"
        await settle(pilot, "the schema tab shown")
        holder = app.query_one("#tool-schema", Static).parent
        assert isinstance(holder, VerticalScroll)
        await read_to_its_end_then_another_tool(pilot, app, holder)
