"""Arguments for a call: the schema form and a raw JSON editor over one value.

Switching between them round-trips the value through the form model, so a
value typed in one appears unchanged in the other.  Values are kept per tool,
so moving between tools (or restarting the server) loses nothing.
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import ContentSwitcher, Static, TextArea

from ...core.safetext import safe_json
from ...forms import validate_value
from ..safe import plain
from .schema_form import SchemaForm

__all__ = ["ArgumentsEditor"]


class ArgumentsEditor(Vertical):
    BINDINGS = [Binding("ctrl+o", "toggle_mode", "Form/JSON", id="toggle_args_mode")]

    DEFAULT_CSS = """
    ArgumentsEditor { height: 1fr; }
    ArgumentsEditor > #args-mode { height: 1; color: $text-muted; }
    ArgumentsEditor > ContentSwitcher { height: 1fr; }
    ArgumentsEditor TextArea { height: 1fr; }
    ArgumentsEditor > #args-errors { height: auto; max-height: 6; color: $error; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.schema: dict[str, Any] = {"type": "object"}
        self.key: str | None = None
        self.mode = "form"
        self.saved: dict[str, tuple[str, Any]] = {}

    def compose(self) -> ComposeResult:
        yield Static("", id="args-mode")
        with ContentSwitcher(initial="args-form"):
            yield SchemaForm(id="args-form")
            yield TextArea("{}", language="json", id="args-json", soft_wrap=True, show_line_numbers=False)
        yield Static("", id="args-errors")

    @property
    def form(self) -> SchemaForm:
        return self.query_one(SchemaForm)

    @property
    def json_area(self) -> TextArea:
        return self.query_one("#args-json", TextArea)

    def _save_current(self) -> None:
        if self.key is None:
            return
        value, _errors = self.current_arguments()
        self.saved[self.key] = (self.mode, value)

    def load_schema(self, schema: dict[str, Any], *, key: str) -> None:
        self._save_current()
        self.schema = schema
        self.key = key
        mode, value = self.saved.get(key, (None, None))
        fallback = self.form.load_schema(schema)
        if fallback:
            self.mode = "json"
        elif mode:
            self.mode = mode
        if value is not None:
            self.form.load_value(value)
        self.json_area.load_text(safe_json(value if value is not None else self.form.value(), indent=2))
        self._show_mode(fallback)
        self._show_errors([])

    def _show_mode(self, fallback: str | None = None) -> None:
        self.query_one(ContentSwitcher).current = "args-form" if self.mode == "form" else "args-json"
        label = Text()
        label.append("form" if self.mode == "form" else "raw JSON", style="bold")
        label.append("  (ctrl+o switches, ctrl+enter or ctrl+j calls)", style="dim")
        if fallback:
            label.append("  the form cannot render this schema: ", style="yellow")
            label.append_text(plain(fallback, style="yellow"))
        self.query_one("#args-mode", Static).update(label)

    def _show_errors(self, errors: list[str]) -> None:
        self.query_one("#args-errors", Static).update(plain("\n".join(errors)) if errors else "")

    def current_arguments(self) -> tuple[dict[str, Any] | None, list[str]]:
        """The value to send and what is wrong with it (None when unusable)."""
        if self.mode == "json":
            try:
                value = json.loads(self.json_area.text or "{}")
            except ValueError as exc:
                return None, [f"JSON: {exc}"]
        else:
            value, conversion_errors = self.form.value_and_errors()
            if conversion_errors:
                self._show_errors(conversion_errors)
                return None, conversion_errors
        if not isinstance(value, dict):
            return None, ["arguments must be a JSON object"]
        if self.mode == "form":
            # Errors are drawn next to their fields; here only how many.
            violations = self.form.validate()
            errors = [f"{v.display_path or '(arguments)'}: {v.message}" for v in violations]
            self._show_errors([f"{len(errors)} problem(s), shown at the fields"] if errors else [])
            return value, errors
        errors = [f"{v.display_path or '(arguments)'}: {v.message}" for v in validate_value(self.schema, value)]
        self._show_errors(errors)
        return value, errors

    def action_toggle_mode(self) -> None:
        value, errors = self.current_arguments()
        if value is None:
            self._show_errors(errors)
            return
        # The focused editor is about to be hidden; focus follows to the
        # other one so ctrl+o and ctrl+enter keep working from the keyboard.
        focused = self.app.focused
        had_focus = focused is not None and self in focused.ancestors_with_self
        if self.mode == "form":
            self.json_area.load_text(safe_json(value, indent=2))
            self.mode = "json"
        else:
            if self.form.fallback_reason:
                self._show_errors([f"the form cannot render this schema: {self.form.fallback_reason}"])
                return
            self.form.load_value(value)
            self.mode = "form"
        self._show_mode()
        if had_focus:
            self.focus_first()

    @on(TextArea.Changed, "#args-json")
    def _json_changed(self, event: TextArea.Changed) -> None:
        if self.mode != "json":
            return
        try:
            value = json.loads(event.text_area.text or "{}")
        except ValueError as exc:
            self._show_errors([f"JSON: {exc}"])
            return
        errors = [f"{v.display_path or '(arguments)'}: {v.message}" for v in validate_value(self.schema, value)]
        self._show_errors(errors)

    @on(SchemaForm.Changed)
    def _form_changed(self, event: SchemaForm.Changed) -> None:
        self.current_arguments()

    def focus_first(self) -> None:
        if self.mode == "json":
            self.json_area.focus()
        else:
            self.form.focus_first()
