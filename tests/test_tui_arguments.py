"""The tool arguments editor against the demo server: defaults sent only when
asked, raw JSON sent as typed, the raw editor's selection keys, and panes
that forget the previous item's form and result at once."""

from __future__ import annotations

from textual import events
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, Static, TextArea

from inspector.core.servers.spec import demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.prompts import PromptsPane
from inspector.tui.panes.templates import TemplatesPane
from inspector.tui.screens.composer import ComposerScreen
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.widgets.arguments import ArgumentsEditor
from inspector.tui.widgets.completing_field import form_fields
from inspector.tui.widgets.form_row import FieldRow
from inspector.tui.widgets.item_list import ItemList
from inspector.tui.widgets.result_view import ResultView

from .tui_helpers import burst, field_row, focus, focus_in, select, settle, wait_connected, wait_for

SIZE = (160, 45)


def tool_calls(app: InspectorApp) -> list[object]:
    return [f for f in app.traffic if f.method == "tools/call" and f.direction == "out"]


async def call_and_wait(pilot: Pilot[int], app: InspectorApp) -> object:
    """ctrl+j, y: returns the recorded tools/call frame."""
    before = len(tool_calls(app))
    await burst(pilot, "ctrl+j")
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "the confirmation")
    await burst(pilot, "y")
    await wait_for(pilot, lambda: len(tool_calls(app)) > before, "the tools/call")
    return tool_calls(app)[-1]


async def open_raw_editor(pilot: Pilot[int], app: InspectorApp) -> ArgumentsEditor:
    """Echo's arguments, switched to the raw JSON editor by its key, focus in it."""
    await wait_connected(pilot, app)
    await select(pilot, app, "tools", "echo")
    editor = app.query_one(ArgumentsEditor)
    editor.focus_first()
    await focus_in(pilot, editor, "focus in the arguments editor")
    await burst(pilot, "ctrl+o")
    await wait_for(pilot, lambda: app.focused is editor.json_area, "the raw editor")
    return editor


async def test_defaults_are_placeholders_until_filled_by_the_key() -> None:
    """echo's `repeat` has a default: shown as the placeholder, not sent;
    ctrl+d (fill defaults) puts it in the form and in the next call."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "echo")
        repeat = field_row(app, ("repeat",)).query_one(Input)
        assert repeat.value == ""
        assert "default: 1" in str(repeat.placeholder)
        message = field_row(app, ("message",)).query_one(TextArea)
        await focus(pilot, message)
        await burst(pilot, *"hi")
        frame = await call_and_wait(pilot, app)
        assert frame.message["params"]["arguments"] == {"message": "hi"}  # type: ignore[attr-defined]

        await focus(pilot, field_row(app, ("message",)).query_one(TextArea))
        await burst(pilot, "ctrl+d")
        editor = app.query_one(ArgumentsEditor)
        await wait_for(pilot, lambda: not editor.form._rebuild_pending, "the form redrawn")
        assert field_row(app, ("repeat",)).query_one(Input).value == "1"
        assert field_row(app, ("message",)).query_one(TextArea).text == "hi"
        frame = await call_and_wait(pilot, app)
        assert frame.message["params"]["arguments"] == {"message": "hi", "repeat": 1}  # type: ignore[attr-defined]


TYPED = '{"message":  "x\\u00e9", "repeat": 1.0}'


async def test_raw_editor_text_goes_on_the_wire_as_typed() -> None:
    """Typed into the raw JSON editor: odd spacing, an escape and 1.0 arrive
    in the recorded tools/call byte for byte."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        editor = await open_raw_editor(pilot, app)
        editor.json_area.clear()
        await burst(pilot, *TYPED)
        assert editor.json_area.text == TYPED
        frame = await call_and_wait(pilot, app)
        raw = frame.raw.decode()  # type: ignore[attr-defined]
        assert '"arguments":' + TYPED in raw, raw
        assert frame.message["params"]["arguments"] == {"message": "xé", "repeat": 1.0}  # type: ignore[attr-defined]


async def test_raw_editor_untouched_sends_the_form_value() -> None:
    """Switching to the raw editor without editing it sends the form's value
    as usual, encoded by the inspector."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "echo")
        await focus(pilot, field_row(app, ("message",)).query_one(TextArea))
        await burst(pilot, *"hi", "ctrl+o")
        editor = app.query_one(ArgumentsEditor)
        await wait_for(pilot, lambda: app.focused is editor.json_area, "the raw editor")
        frame = await call_and_wait(pilot, app)
        assert b'"arguments":{"message":"hi"}' in frame.raw  # type: ignore[attr-defined]


async def test_composer_sends_the_typed_request_with_only_its_id_changed() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        app.open_composer()
        await wait_for(
            pilot, lambda: isinstance(app.screen, ComposerScreen) and app.screen.query(TextArea), "the composer"
        )
        typed = (
            '{"jsonrpc": "2.0",\n "id" : 99, "method": "tools/call",\n "params": {"name": "echo", "arguments": '
            + TYPED
            + "}}"
        )
        app.screen.query_one(TextArea).text = typed
        await burst(pilot, "ctrl+s")
        await wait_for(pilot, lambda: tool_calls(app), "the tools/call")
        frame = tool_calls(app)[-1]
        assert frame.note == "typed in the composer"  # type: ignore[attr-defined]
        request_id = frame.message["id"]  # type: ignore[attr-defined]
        assert request_id != 99
        expected = typed.replace("\n", " ").replace('"id" : 99', f'"id" : {request_id}')
        assert frame.raw == expected.encode()  # type: ignore[attr-defined]


async def test_raw_editor_select_all_then_paste_replaces_the_text() -> None:
    """ctrl+a selects the whole raw JSON; a paste then replaces it (and so
    does typing), and the pasted text is what the call sends."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        area = (await open_raw_editor(pilot, app)).json_area
        area.load_text('{\n  "message": "old"\n}')
        area.move_cursor((1, 5))
        await burst(pilot, "ctrl+a")
        assert area.selected_text == area.text
        app.post_message(events.Paste(TYPED))
        await wait_for(pilot, lambda: area.text == TYPED, "the pasted text in place of the old")
        await burst(pilot, "ctrl+a", *"{}")
        assert area.text == "{}"
        await burst(pilot, "ctrl+a")
        app.post_message(events.Paste(TYPED))
        await wait_for(pilot, lambda: area.text == TYPED, "the pasted text again")
        frame = await call_and_wait(pilot, app)
        assert ('"arguments":' + TYPED).encode() in frame.raw  # type: ignore[attr-defined]


def shown_rows(app: InspectorApp) -> list[tuple[object, ...]]:
    return [
        row.node.path
        for row in app.screen.query(FieldRow)
        if row.display and not row.vacant and row.parent and row.parent.display
    ]


async def test_a_filter_matching_no_tool_clears_the_form_and_result() -> None:
    """A filter that matches no tool leaves none of the previous tool on
    screen: no form, no schema, no result; clearing the filter brings the
    tool back with what was typed and its result."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "echo")
        await focus(pilot, field_row(app, ("message",)).query_one(TextArea))
        await burst(pilot, *"hi")
        await call_and_wait(pilot, app)
        view = app.query_one(ResultView)
        await wait_for(pilot, lambda: view.display and "hi" in str(view.last_result), "the result")
        tools = app.query_one("#tool-list", ItemList)
        tools.action_filter()
        await focus_in(pilot, tools.query_one("#filter"), "focus on the tool filter")
        # Pasted: typed letter by letter, "z" alone matches another tool first.
        app.post_message(events.Paste("zzzq"))
        editor = app.query_one(ArgumentsEditor)
        await wait_for(pilot, lambda: tools.highlighted_item is None and not editor.form._rebuild_pending, "no tool")
        assert editor.key is None
        assert shown_rows(app) == []
        assert not view.display
        assert str(app.query_one("#tool-schema", Static).render()) == ""
        assert "No tool selected" in str(app.query_one("#tool-header-text", Static).render())
        await burst(pilot, "escape")  # clears the filter
        await wait_for(pilot, lambda: editor.key == "echo" and not editor.form._rebuild_pending, "echo again")
        assert field_row(app, ("message",)).query_one(TextArea).text == "hi"
        assert view.display


async def test_the_previous_tool_form_leaves_the_screen_at_once() -> None:
    """The new tool's rows are mounted before the next frame; until then the
    old ones are already hidden, never shown under the new tool's name (a
    row of the same shape, wherever it stood, may show one of the new
    tool's fields at once)."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "plan_trip")
        assert ("traveller",) in shown_rows(app)
        tools = app.query_one("#tool-list", ItemList)
        echo = next(item for item in tools.items if item.key == "echo")
        editor = app.query_one(ArgumentsEditor)
        editor.load_schema(echo.input_schema, key="echo")
        root = editor.form.root
        assert root is not None
        shown = [
            row
            for row in app.screen.query(FieldRow)
            if row.display and not row.vacant and row.parent and row.parent.display
        ]
        assert all(row.node.root is root for row in shown)
        assert set(shown_rows(app)) <= {("message",), ("repeat",)}
        await wait_for(pilot, lambda: shown_rows(app) == [("message",), ("repeat",)], "echo's form")
        assert ("traveller",) not in shown_rows(app)


async def test_switching_template_clears_the_previous_read() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "templates", "demo://users/{user_id}")
        pane = app.query_one(TemplatesPane)
        contents = app.query_one("#template-contents")
        field = next(f for f in form_fields(pane) if f.argument == "user_id")
        field.query_one(Input).value = "ada"
        await settle(pilot, "the template pane to take the value")
        pane.action_read()
        await wait_for(pilot, lambda: len(contents.children) > 1, "the read")
        await select(pilot, app, "templates", "demo://files/{+path}")
        await wait_for(pilot, lambda: pane.current is not None and pane.current.key.startswith("demo://files"), "files")
        assert len(contents.children) == 0
        assert contents.border_title is None
        assert [f.argument for f in form_fields(pane)] == ["path"]


async def test_switching_prompt_clears_the_previous_messages() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "prompts", "tip_of_the_day")
        pane = app.query_one(PromptsPane)
        messages = app.query_one("#prompt-messages")
        pane.action_get()
        await wait_for(pilot, lambda: len(messages.children) > 1, "the messages")
        await select(pilot, app, "prompts", "greeting")
        await wait_for(pilot, lambda: pane.current is not None and pane.current.key == "greeting", "greeting")
        assert len(messages.children) == 0
        assert [f.argument for f in form_fields(pane)]


async def escape_to_list(pilot: Pilot[int], app: InspectorApp, kind: str, key: str, pane_type: type[Widget]) -> None:
    """Type into the first field of the item's form, escape: focus is on the
    list again, with the item still highlighted and the text kept."""
    await select(pilot, app, kind, key)
    pane = app.query_one(pane_type)
    await wait_for(pilot, lambda: form_fields(pane), f"the {kind} form")
    field = form_fields(pane)[0].query_one(Input)
    await focus(pilot, field)
    await burst(pilot, *"ab", "escape")
    items = pane.query_one(ItemList)
    await wait_for(pilot, lambda: app.focused is items.options, f"focus back on the {kind} list")
    assert field.value == "ab"
    assert items.highlighted_item is not None and items.highlighted_item.key == key


async def test_escape_from_a_template_or_prompt_form_returns_to_its_list() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await escape_to_list(pilot, app, "templates", "demo://users/{user_id}", TemplatesPane)
        await escape_to_list(pilot, app, "prompts", "greeting", PromptsPane)


async def test_typed_raw_json_survives_a_visit_to_another_tool() -> None:
    """The raw text typed for a tool is what its editor shows and sends after
    moving to another tool and back, not a re-encoding of it."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        editor = await open_raw_editor(pilot, app)
        editor.json_area.clear()
        await burst(pilot, *TYPED)
        await select(pilot, app, "tools", "divide")
        await select(pilot, app, "tools", "echo")
        assert editor.mode == "json" and editor.json_area.text == TYPED
        editor.focus_first()
        await focus_in(pilot, editor, "focus in the arguments editor")
        frame = await call_and_wait(pilot, app)
        assert ('"arguments":' + TYPED).encode() in frame.raw  # type: ignore[attr-defined]


async def test_composer_notification_keeps_its_bytes_on_one_line() -> None:
    """A notification typed over several lines goes out as typed, its line
    breaks (between tokens) as spaces: a stdio message is one line."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        app.open_composer()
        await wait_for(
            pilot, lambda: isinstance(app.screen, ComposerScreen) and app.screen.query(TextArea), "the composer"
        )
        typed = '{"jsonrpc" : "2.0",\n  "method": "notifications/roots/list_changed",\n "params": {"x": 1.0}}'
        app.screen.query_one(TextArea).text = typed
        await burst(pilot, "ctrl+s")

        def sent() -> list[object]:
            return [f for f in app.traffic if f.direction == "out" and f.note == "typed in the composer"]

        await wait_for(pilot, sent, "the notification")
        assert sent()[-1].raw == typed.replace("\n", " ").encode()  # type: ignore[attr-defined]
        assert app.client.state == "connected"
