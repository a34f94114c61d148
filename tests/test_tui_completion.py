"""Completion in prompt and template forms: a dropdown of every suggestion
the server gave, matched whatever the case; up/down choose, enter or tab
accept, escape closes it."""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Input

from inspector.core.servers.spec import demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.prompts import PromptsPane
from inspector.tui.widgets.completing_field import CompletingField, form_fields, matching
from inspector.tui.widgets.item_list import ItemList

from .tui_helpers import burst, focus, select, wait_connected, wait_for

SIZE = (160, 45)


def _field(app: InspectorApp, argument: str) -> CompletingField:
    return next(f for f in form_fields(app.query_one(PromptsPane)) if f.argument == argument)


def test_matching_ignores_case_and_puts_prefixes_first() -> None:
    assert matching(["Go", "Django", "go-kit", "Rust"], "GO") == ["Go", "go-kit", "Django"]
    assert matching(["x", "y"], "q") == ["x", "y"]  # the server's own matches, kept


async def test_dropdown_choose_accept_and_close() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "prompts", "code_review")
        await wait_for(pilot, lambda: list(form_fields(app.query_one(PromptsPane))), "the prompt form")
        field = _field(app, "language")
        editor = field.query_one(Input)
        await focus(pilot, editor)
        await burst(pilot, "c")
        await wait_for(pilot, lambda: field.dropdown_open, "the dropdown")
        assert field.shown == ["C", "C++", "C#"]
        await burst(pilot, "down", "down", "up", "down", "enter")  # down to C#, enter
        assert editor.value == "C#"
        assert not field.dropdown_open
        assert app.focused is editor

        # Upper case finds lower-case suggestions; tab accepts and focus stays.
        editor.value = ""
        await burst(pilot, *"TY")
        await wait_for(pilot, lambda: field.dropdown_open and field.shown == ["TypeScript"], "TypeScript")
        await burst(pilot, "tab")
        assert editor.value == "TypeScript"
        assert app.focused is editor

        # Escape closes the dropdown only; a second escape goes back to the list.
        await burst(pilot, "backspace")
        await wait_for(pilot, lambda: field.dropdown_open, "the dropdown again")
        await burst(pilot, "escape")
        assert not field.dropdown_open and app.focused is editor
        await burst(pilot, "escape")
        prompts: Widget = app.query_one(PromptsPane).query_one(ItemList).options
        assert app.focused is prompts

        # Down on a closed field opens the dropdown with what the server suggests.
        await focus(pilot, _field(app, "focus").query_one(Input))
        await burst(pilot, "down")
        focus_field = _field(app, "focus")
        await wait_for(pilot, lambda: focus_field.dropdown_open, "the focus suggestions")
        assert focus_field.shown == ["readability", "performance", "security", "tests", "naming"]
        await burst(pilot, "down", "enter", "ctrl+j")
        await wait_for(pilot, lambda: [f for f in app.traffic if f.method == "prompts/get"], "prompts/get")
        sent = [f for f in app.traffic if f.method == "prompts/get" and f.direction == "out"][-1]
        assert sent.message["params"]["arguments"] == {"language": "TypeScrip", "focus": "performance"}
