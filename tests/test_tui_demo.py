"""The TUI against the embedded demo server (stateless era by default) and
against hostile servers: nested forms, resources, templates with
completions, prompts, the connection error screen, and untrusted text."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from rich.text import Text
from textual._compositor import LayoutUpdate
from textual.widgets import Button, Input, Select, Static

from inspector.core.servers.spec import ServerSpec, demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.bottom import BottomPanel
from inspector.tui.panes.prompts import PromptsPane
from inspector.tui.panes.resources import ResourcesPane
from inspector.tui.panes.templates import TemplatesPane
from inspector.tui.panes.traffic import TrafficPane
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.screens.connect_error import ConnectErrorScreen
from inspector.tui.widgets.arguments import ArgumentsEditor
from inspector.tui.widgets.completing_field import form_fields
from inspector.tui.widgets.content_view import BlockView
from inspector.tui.widgets.form_row import FieldRow
from inspector.tui.widgets.item_list import ItemList
from inspector.tui.widgets.result_view import ResultView

from .peers import SERVERS
from .tui_helpers import field_row, fill, focus, focus_in, select, settle, type_into, wait_connected, wait_for

SIZE = (150, 50)
HOSTILE = str(SERVERS / "hostile.py")


def status_text(app: InspectorApp) -> str:
    return str(app.query_one(ResultView).query_one("#status", Static).render())


async def test_nested_form_call_through_confirmation() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        assert app.client.era == "modern"
        await select(pilot, app, "tools", "plan_trip")
        paths = [row.node.path for row in app.query(FieldRow) if not row.vacant]
        assert any(len(path) >= 2 for path in paths), paths  # nested objects are rows of their own
        editor = app.query_one(ArgumentsEditor)
        value, _errors = editor.arguments()
        assert value is not None
        # Switch to raw JSON and back: the value survives the round trip unchanged.
        editor.focus_first()
        await focus_in(pilot, editor, "focus in the arguments editor")
        await pilot.press("ctrl+o")
        await settle(pilot, "ctrl+o handled")
        assert editor.mode == "json"
        await focus(pilot, editor.json_area)
        await pilot.press("ctrl+o")
        await settle(pilot, "ctrl+o handled")
        assert editor.mode == "form"
        again, _errors = editor.arguments()
        assert again == value
        # Fill the required fields the form shows, then call.
        for row in app.query(FieldRow):
            if row.node.required and not row.node.is_set and row.query(Input):
                await fill(pilot, row, "Lisbon" if "city" in str(row.node.path) else "x")
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
        sent = app.screen.arguments  # type: ignore[attr-defined]
        await pilot.press("y")
        await wait_for(pilot, lambda: "OK" in status_text(app) or "ERROR" in status_text(app), "result")
        call = [f for f in app.traffic if f.method == "tools/call" and f.direction == "out"][-1]
        assert call.message["params"]["arguments"] == sent


async def test_media_result_and_reading_a_resource_link() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "media_gallery")
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
        await pilot.press("y")
        await wait_for(pilot, lambda: "OK" in status_text(app), "result")
        kinds = [view.block.get("type") for view in app.query(BlockView)]
        assert {"text", "image", "audio", "resource_link", "resource"} <= set(kinds)
        link = next(view for view in app.query(BlockView) if view.block.get("type") == "resource_link")
        await focus(pilot, link)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.query_one("#main").active == "resources", "resources tab")  # type: ignore[attr-defined]
        await wait_for(pilot, lambda: len(app.query_one("#resource-contents").children) > 1, "contents")


async def test_resource_read_subscribe_and_update_mark() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "resources", "demo://notes")
        pane = app.query_one(ResourcesPane)
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.query_one("#resource-contents").children) > 1, "contents")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "demo://notes" in pane.subscribed, "subscribed")
        await wait_for(
            pilot,
            lambda: (
                app.client.subscription is not None
                and (app.client.subscription.acknowledged or {}).get("resourceSubscriptions")
            ),
            "ack",
        )
        await app.client.call_tool("append_note", {"text": "hello from the test"})
        await wait_for(pilot, lambda: "demo://notes" in pane.updated, "updated mark")
        row = pane._row(next(i for i in app.lists["resources"].items if i.key == "demo://notes"))
        assert "●" in row.plain


async def test_template_with_completions_and_read() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "templates", "demo://users/{user_id}")
        pane = app.query_one(TemplatesPane)
        field = next(f for f in form_fields(app.query_one(TemplatesPane)) if f.argument == "user_id")
        await type_into(pilot, field.query_one(Input), "a")
        await wait_for(pilot, lambda: field.last_values, "completion values")
        assert all(value.startswith("a") for value in field.last_values)
        field.query_one(Input).value = field.last_values[0]
        await settle(pilot, "the template pane to take the value")
        assert pane.expanded() == f"demo://users/{field.last_values[0]}"
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: len(app.query_one("#template-contents").children) > 1, "read template")
        reads = [f for f in app.traffic if f.method == "resources/read" and f.direction == "out"]
        assert reads[-1].message["params"]["uri"] == pane.expanded()


async def test_prompt_with_arguments() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "prompts", "greeting")
        fields = {f.argument: f for f in form_fields(app.query_one(PromptsPane))}
        assert fields
        first = next(iter(fields.values()))
        await type_into(pilot, first.query_one(Input), "Ada")
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: len(app.query_one("#prompt-messages").children) > 1, "messages")
        texts = " ".join(str(s.render()) for s in app.query_one("#prompt-messages").query(Static))
        assert "Ada" in texts


async def test_log_level_selector_goes_into_the_envelope() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        app.query_one("#log-level", Select).value = "debug"
        await wait_for(
            pilot, lambda: app.client.modern is not None and app.client.modern.log_level == "debug", "log level"
        )
        await app.client.call_tool("log_every_level", {})
        await wait_for(pilot, lambda: len(app.query_one("#logs-table").rows) >= 8, "log rows")  # type: ignore[attr-defined]


async def test_connection_error_screen_shows_stderr_and_retries() -> None:
    spec = ServerSpec(command=sys.executable, args=[HOSTILE, "--mode", "exit-at-once"])
    app = InspectorApp(spec)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ConnectErrorScreen), "error screen")

        def shown() -> str:
            return " ".join(str(s.render()) for s in app.screen.query(Static))

        await wait_for(pilot, lambda: "cannot open database" in shown(), "stderr tail on the error screen")
        assert "exited with code 1" in shown()
        spawned = len([f for f in app.traffic if f.kind == "process" and "spawned" in (f.note or "")])
        await pilot.press("r")
        await wait_for(
            pilot,
            lambda: len([f for f in app.traffic if f.kind == "process" and "spawned" in (f.note or "")]) > spawned,
            "retry",
        )
        await wait_for(pilot, lambda: isinstance(app.screen, ConnectErrorScreen), "error screen again")


def _rendered(app: InspectorApp) -> str:
    update = app.screen._compositor.render_update(full=True)
    assert isinstance(update, LayoutUpdate)  # what a full update is
    return "\n".join(str(line) for line in update.strips)


async def test_hostile_text_is_inert() -> None:
    """Markup stays literal and no control character reaches the terminal:
    in the tool list and header, in every bottom tab (Traffic with a hostile
    frame's detail, Stderr, Logs), in the confirmation and in the result."""
    from typing import Any

    from inspector.core.record.traffic import Frame
    from inspector.tui.panes.stderr import StderrPane

    spec = ServerSpec(command=sys.executable, args=[HOSTILE, "--mode", "hostile-text"])
    app = InspectorApp(spec)
    # Escapes the hostile server sends (tests/servers/hostile.py): OSC title,
    # clipboard and hyperlink, BEL, backspace, clear screen, a raw SGR, NUL,
    # DEL, an 8-bit CSI and a right-to-left override.
    forbidden = ("\x1b]", "\x07", "\x08", "\x1b[2J", "\x1b[31mred", "\x00", "\x7f", "\x9b", "\u202e")

    def on_screen(where: str) -> str:
        """What the whole screen would write to a terminal now must hold none of
        the hostile escapes; returns the screen's text."""
        compositor: Any = app.screen._compositor
        update = compositor.render_update(full=True)
        output = update.render_segments(app.console)
        for sequence in forbidden:
            assert sequence not in output, f"{sequence!r} reached the terminal in {where}"
        return "\n".join("".join(s.text for strip in line for s in strip) for line in update.strips)

    async def show_tab(tab: str) -> None:
        await pilot.click(f"#bottom-tabs Tab#--content-tab-{tab}")
        await wait_for(pilot, lambda: app.query_one("#bottom-tabs").active == tab, f"{tab} tab")  # type: ignore[attr-defined]
        await settle(pilot, f"the {tab} tab drawn")

    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        item_list = app.query_one("#tool-list", ItemList)
        rows = [item_list.render_row(item) for item in item_list.items]
        assert all(isinstance(row, Text) for row in rows)
        assert sum("[bold red]" in row.plain for row in rows) >= 2
        for row in rows:
            assert not any(ch in row.plain for ch in "\x1b\x07\x08\r")
            assert not any(span.style and "link" in str(span.style) for span in row.spans)
        header = str(app.query_one("#tool-header-text", Static).render())
        assert "[bold red]ALERT[/]" in header and "\x1b" not in header and "␛" in header
        assert "ALERT" in on_screen("the tools pane")

        # The bottom panel starts shown; make it tall enough to read.
        panel = app.query_one(BottomPanel)
        assert panel.display and not panel.has_class("hidden")
        panel.styles.height = 26
        await wait_for(pilot, lambda: any(f.kind == "stderr" for f in app.traffic), "the hostile stderr line")
        await wait_for(pilot, lambda: any(f.method == "notifications/message" for f in app.traffic), "the log")

        # Traffic: the rows, then the detail of the hostile log notification and stderr line.
        await show_tab("traffic")
        table = app.query_one(TrafficPane).table
        detail = app.query_one("#traffic-detail")

        async def show_detail(frame: Frame) -> str:
            assert table.select_seq(frame.seq)
            head = f"frame #{frame.seq} "
            await wait_for(
                pilot, lambda: any(head in str(s.render()) for s in detail.query(Static)), "the frame's detail"
            )
            await settle(pilot, "the detail drawn")
            text = on_screen(f"the traffic detail of frame #{frame.seq}")
            assert "[bold red]ALERT[/] [link=https://evil.example]click[/link]" in text
            assert "␛" in text
            return text

        await show_detail(next(f for f in app.traffic if f.method == "notifications/message"))
        stderr_frame = next(f for f in app.traffic if f.kind == "stderr")
        text = await show_detail(stderr_frame)
        assert f"#{stderr_frame.seq} " in text and "stderr [bold red]ALERT[/]" in text  # the row itself

        # Stderr: the line as the server wrote it, escapes made visible.
        await show_tab("stderr")
        assert app.query_one(StderrPane).table.rows
        text = on_screen("the stderr view")
        assert "stderr [bold red]ALERT[/] [link=https://evil.example]click[/link]" in text and "␛" in text

        # Logs: the logger name and the data.
        await show_tab("logs")
        await wait_for(pilot, lambda: len(app.query_one("#logs-table").rows) >= 1, "log rows")  # type: ignore[attr-defined]
        text = on_screen("the logs view")
        assert "log [bold red]ALERT[/] [link=https://evil.example]click[/link]" in text and "␛" in text
        assert "[evil [bold red]ALERT" in text

        # The call result and the stderr it causes render inertly too.
        await select(pilot, app, "tools", "echo")
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
        on_screen("the confirmation")
        await pilot.press("y")
        await wait_for(pilot, lambda: "OK" in status_text(app), "result")
        on_screen("the result")
        block = next(iter(app.query(BlockView)))
        shown = " ".join(str(s.render()) for s in block.query(Static))
        assert "result [bold red]ALERT[/]" in shown and "␛]52;" in shown
        await show_tab("stderr")
        await wait_for(pilot, lambda: "stderr on call [bold red]ALERT[/]" in on_screen("stderr"), "stderr on call")


async def test_problems_view_from_live_validation() -> None:
    from inspector.tui.panes.problems import ProblemsPane
    from inspector.tui.widgets.traffic_table import row_text

    app = InspectorApp(ServerSpec(command=sys.executable, args=[str(SERVERS / "broken_server.py")]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.client.state == "connected" and app.validator is not None, "validator")
        pane = app.query_one(ProblemsPane)
        wanted = {"stdout-not-json", "tool-input-schema-root"}
        # Findings arrive in any order: until the two this test is about are in.
        await wait_for(
            pilot,
            lambda: pane.counts.get("error", 0) >= 3 and wanted <= {p.rule for p in pane.problems},
            "findings",
        )
        rules = {problem.rule for problem in pane.problems}
        assert wanted <= rules
        flagged = next(f for f in app.traffic if f.findings)
        assert "✖" in row_text(flagged).plain
        # The broken server also asks for things (a sampling request): refuse them.
        # (This server pages resources/templates/list without end: frames keep
        # coming, so the app is never quiet; wait for each step's own state.)
        while len(app.screen_stack) > 1:
            top = app.screen
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is not top, "escape to close the request")  # noqa: B023
        app.query_one("#bottom-tabs").active = "problems"  # type: ignore[attr-defined]
        problem_list = pane.query_one("#problem-list")
        await wait_for(pilot, lambda: problem_list.region.height > 0, "the problems tab shown")
        target = next(p for p in pane.problems if p.rule == "tool-input-schema-root")
        problem_list.highlighted = pane.problems.index(target)  # type: ignore[attr-defined]
        await focus(pilot, problem_list)
        await pilot.press("enter")
        # Showing the frame ends by focusing the traffic table.
        table = app.query_one(TrafficPane).table
        await wait_for(pilot, lambda: app.focused is table, "the frame shown in the traffic table")
        assert app.query_one("#bottom-tabs").active == "traffic"  # type: ignore[attr-defined]
        selected = app.query_one(TrafficPane).table.selected_frame
        assert selected is not None and selected.seq == target.seq


async def test_moving_between_tools_keeps_what_was_typed() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        app.select_item("tools", "echo")
        await wait_for(pilot, lambda: any(r.node.path == ("message",) for r in app.query(FieldRow)), "echo form")
        await fill(pilot, field_row(app, ("message",)), "kept across tools")
        # Arrow through the whole list and back without waiting: each move
        # rebuilds the form, and rebuilds pile up.
        tools = app.query_one("#tool-list", ItemList)
        tools.focus_list()
        await wait_for(pilot, lambda: app.focused is tools.options, "focus on the tool list")
        await pilot.press(*["down"] * 12, *["up"] * 12)
        app.select_item("tools", "echo")
        await wait_for(pilot, lambda: any(r.node.path == ("message",) for r in app.query(FieldRow)), "echo again")
        await settle(pilot, "the piled-up rebuilds done")
        assert app.return_code is None and app.is_running
        value, errors = await app.query_one(ArgumentsEditor).checked_arguments()
        assert value is not None and value["message"] == "kept across tools", (value, errors)


async def test_hostile_choice_labels_are_inert() -> None:
    """Enum values, oneOf titles and variant titles go into select widgets,
    which read a plain string as markup: a `[link=…]` there used to crash
    the app."""
    spec = ServerSpec(command=sys.executable, args=[HOSTILE, "--mode", "hostile-text"])
    app = InspectorApp(spec)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "tools" in app.lists, "tools")
        app.select_item("tools", "pick")
        await wait_for(pilot, lambda: any(r.node.path == ("many",) for r in app.query(FieldRow)), "the pick form")
        for select in app.query(Select):
            await focus(pilot, select)
            await pilot.press("enter")  # opens the overlay, which draws every option
            await wait_for(pilot, lambda: select.expanded, "the options overlay")  # noqa: B023
            await settle(pilot, "the options drawn")
            await pilot.press("escape")
        await settle(pilot, "the last overlay closed")
        assert app.is_running and app.return_code is None
        shown = app.export_screenshot()
        assert "[bold red]ALERT[/]" in shown or "[link=https://evil.example]" in shown


async def test_a_prompt_argument_named_as_no_widget_id_may_be_gets_its_field() -> None:
    """A server's argument name is text, not an identifier: `1st.page` gets
    its field and is sent as typed."""
    spec = ServerSpec(command=sys.executable, args=[HOSTILE, "--mode", "hostile-text"])
    app = InspectorApp(spec)
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "prompts", "prompt")
        pane = app.query_one(PromptsPane)
        names = ["arg", "1st.page"]
        await wait_for(pilot, lambda: [f.argument for f in form_fields(pane)] == names, "the fields")
        field = form_fields(pane)[-1]
        field.query_one(Input).value = "2"
        pane.action_get()
        await wait_for(pilot, lambda: any(f.method == "prompts/get" for f in app.traffic), "the prompts/get")
        sent = next(f for f in app.traffic if f.method == "prompts/get")
        assert sent.message["params"]["arguments"] == {"1st.page": "2"}
        assert app.is_running


def saved_files(folder: Path) -> list[tuple[str, bytes]]:
    return [(path.name, path.read_bytes()[:8]) for path in folder.glob("mcp-resource-1*")]


async def test_saving_a_read_resource_blob(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from inspector.demo.resources import IMAGE_URI

    monkeypatch.chdir(tmp_path)
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        app.open_resource(IMAGE_URI)
        await wait_for(pilot, lambda: app.query_one("#resource-contents").query(BlockView), "contents")
        block = app.query_one("#resource-contents").query_one(BlockView)
        await focus(pilot, block)
        await pilot.press("s")
        await wait_for(pilot, lambda: saved_files(tmp_path), "saved file")
        [(name, head)] = saved_files(tmp_path)
        assert name.endswith(".png") and head.startswith(b"\x89PNG")


def test_saving_where_the_working_directory_is_read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    from inspector.tui.widgets.content_view import save_blob

    monkeypatch.chdir("/proc")  # no file can be created here, not even by root
    path = save_blob(b"abc", "text/plain", "mcp-test-save")
    try:
        assert Path(path).parent == Path(tempfile.gettempdir()) and Path(path).read_bytes() == b"abc"
    finally:
        Path(path).unlink()


async def test_form_details_password_items_and_focus_across_modes() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        app.select_item("tools", "register_user")
        await wait_for(pilot, lambda: any(r.node.path == ("password",) for r in app.query(FieldRow)), "form")
        assert field_row(app, ("password",)).query_one(Input).password
        assert not field_row(app, ("username",)).query_one(Input).password
        # ctrl+o moves focus along with the mode, both ways.
        editor = app.query_one(ArgumentsEditor)
        await focus(pilot, field_row(app, ("username",)).query_one(Input))
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: app.focused is editor.json_area, "focus on the JSON editor")
        await pilot.press("ctrl+o")
        await wait_for(
            pilot,
            lambda: editor.mode == "form" and app.focused is not None and editor.form in app.focused.ancestors,
            "form focus",
        )
        app.select_item("tools", "plan_trip")
        await wait_for(pilot, lambda: any(r.node.path == ("stops",) for r in app.query(FieldRow)), "trip form")
        field_row(app, ("stops",)).query_one(".array-add", Button).press()
        await wait_for(pilot, lambda: any(r.node.path == ("stops", 0) for r in app.query(FieldRow)), "an item")
        label = str(field_row(app, ("stops", 0)).query_one("Label").render())
        assert label == "[0]"  # an item is never marked required; its title is in the note
        assert "Stop" in str(field_row(app, ("stops", 0)).query_one(".field-description", Static).render())
        app.select_item("tools", "get_json")
        await wait_for(pilot, lambda: app.query(".no-arguments"), "the no-arguments note")
