"""Arguments for a call: the schema form and a raw JSON editor over one value.

Switching between them round-trips the value through the form model, so a
value typed in one appears unchanged in the other.  Values are kept per tool,
so moving between tools (or restarting the server) loses nothing.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import ContentSwitcher, Static, TextArea
from textual.worker import get_current_worker

from inspector.core.protocol.raw_json import RawJsonObject
from inspector.core.safetext import safe_json
from inspector.forms import Violation, validate_value
from inspector.forms.values import parse_json_text
from inspector.tui import looks
from inspector.tui.safe import plain
from inspector.tui.widgets.json_area import JsonArea
from inspector.tui.widgets.schema_form import SchemaForm

__all__ = ["ArgumentsEditor"]


class ArgumentsEditor(Vertical):
    """A tool's arguments, edited as a form or as raw JSON (ctrl+o switches), each tool's kept as it was left."""

    BINDINGS = [
        Binding("ctrl+o", "toggle_mode", "Form/JSON", id="toggle_args_mode"),
        # Priority so it works from a field (an input's own ctrl+d deletes
        # right, as the delete key does); only active over the form, so the
        # raw editor keeps ctrl+d.
        Binding("ctrl+d", "fill_defaults", "Fill defaults", id="fill_defaults", priority=True),
    ]

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
        # Per tool: the mode, the value, when the person edited the raw JSON
        # that text (sent as written: RawJsonObject), and the form's fields
        # whose text did not convert (SchemaForm.drafts).
        self.saved: dict[str, tuple[str, Any, str | None, dict[tuple[Any, ...], tuple[bool, str]]]] = {}
        # The text this editor last put in the raw editor: anything else there
        # was typed by the person.
        self._shown_text = "{}"
        # What the raw editor is to show once it is (it is hidden in form
        # mode: loading it for every tool the highlight passes costs a redraw).
        self._json_due: str | None = None
        self._mode_shown: tuple[str, str | None] | None = None
        self._errors_shown: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("", id="args-mode")
        with ContentSwitcher(initial="args-form"):
            yield SchemaForm(id="args-form")
            yield JsonArea("{}", language="json", id="args-json", soft_wrap=True, show_line_numbers=False)
        yield Static("", id="args-errors")

    @property
    def form(self) -> SchemaForm:
        """The arguments form."""
        return self.query_one(SchemaForm)

    @property
    def json_area(self) -> TextArea:
        """The raw JSON editor."""
        return self.query_one("#args-json", TextArea)

    def _save_current(self) -> None:
        if self.key is None:
            return
        drafts: dict[tuple[Any, ...], tuple[bool, str]] = {}
        if self.mode == "form":
            # What converted, and the rest as typed: a field that does not
            # convert ("4x" for an integer) loses neither itself nor the others.
            value, drafts = self.form.value(), self.form.drafts()
        else:
            value, _errors = self.arguments()
        typed = self.json_area.text if self.mode == "json" and self._raw_edited() else None
        self.saved[self.key] = (self.mode, value, typed, drafts)

    def load_schema(self, schema: dict[str, Any], *, key: str) -> None:
        """Edit the arguments of the tool *key*, whose input schema is *schema*: its mode and value as last left, raw
        JSON when the form cannot draw the schema."""
        self._save_current()
        self.schema = schema
        self.key = key
        mode, value, typed, drafts = self.saved.get(key, (None, None, None, {}))
        fallback = self.form.load_schema(schema)
        if fallback:
            self.mode = "json"
        elif mode:
            self.mode = mode
        if value is not None:
            self.form.load_value(value, drafts)
        self._load_json(safe_json(value if value is not None else self.form.value(), indent=2), typed)
        self._show_mode(fallback)
        self._show_errors([])

    def clear(self) -> None:
        """Nothing selected: an empty form (what was typed is kept per tool)."""
        self._save_current()
        self.key = None
        self.schema = {"type": "object"}
        self.form.clear()
        self._load_json("{}")
        self._show_errors([])

    def _load_json(self, text: str, typed: str | None = None) -> None:
        """Show *text* in the raw editor (or the person's own *typed* text);
        in form mode, once the editor is shown."""
        self._shown_text = text
        wanted = typed if typed is not None else text
        if self.mode == "json":
            self._json_due = None
            self.json_area.load_text(wanted)
        else:
            self._json_due = wanted

    def _raw_edited(self) -> bool:
        if self._json_due is not None:
            return self._json_due != self._shown_text
        return self.json_area.text != self._shown_text

    def _show_mode(self, fallback: str | None = None) -> None:
        if self.mode == "json" and self._json_due is not None:
            text, self._json_due = self._json_due, None
            self.json_area.load_text(text)
        self.query_one(ContentSwitcher).current = "args-form" if self.mode == "form" else "args-json"
        if self._mode_shown == (self.mode, fallback):
            return
        self._mode_shown = (self.mode, fallback)
        label = Text()
        label.append("form" if self.mode == "form" else "raw JSON", style="bold")
        label.append("  (ctrl+o switches, ctrl+enter or ctrl+j calls)", style="dim")
        if fallback:
            label.append("  the form cannot render this schema: ", style=looks.WARNING)
            label.append_text(plain(fallback, style=looks.WARNING))
        self.query_one("#args-mode", Static).update(label)

    def _show_errors(self, errors: list[str]) -> None:
        if errors == self._errors_shown:
            return
        self._errors_shown = list(errors)
        self.query_one("#args-errors", Static).update(plain("\n".join(errors)) if errors else "")

    def arguments(self) -> tuple[dict[str, Any] | None, list[str]]:
        """The value to send, or None and why it cannot be sent (JSON that
        does not parse, text that does not convert); not checked against the
        schema, which takes a thread (`checked_arguments`)."""
        if self.mode == "json":
            text = self.json_area.text
            try:
                value = parse_json_text(text or "{}")
            except ValueError as exc:
                return None, [str(exc)]
            if isinstance(value, dict) and text.strip() and self._raw_edited():
                # What the person typed goes on the wire as typed (1.0, \u00e9, 1e2).
                value = RawJsonObject(value, text)
        else:
            value, conversion_errors = self.form.value_and_errors()
            if conversion_errors:
                return None, conversion_errors
        if not isinstance(value, dict):
            return None, ["arguments must be a JSON object"]
        return value, []

    async def checked_arguments(self) -> tuple[dict[str, Any] | None, list[str]]:
        """The value to send and how it breaks the input schema, checked in a
        thread; in the form every mark is shown at its field."""
        value, errors = self.arguments()
        if value is None:
            self._show_errors(errors)
            return None, errors
        if self.mode == "form":
            violations = await self.form.check_now()
        else:
            violations = await asyncio.to_thread(validate_value, self.schema, value)
            self._show_errors(_lines(violations))
        return value, _lines(violations)

    def action_toggle_mode(self) -> None:
        value, errors = self.arguments()
        if value is None:
            self._show_errors(errors)
            return
        # The focused editor is about to be hidden; focus follows to the
        # other one so ctrl+o and ctrl+enter keep working from the keyboard.
        focused = self.app.focused
        had_focus = focused is not None and self in focused.ancestors_with_self
        if self.mode == "form":
            self._load_json(safe_json(value, indent=2))
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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "fill_defaults":
            return self.mode == "form" and self.form.root is not None and not self.form.fallback_reason
        return True

    def action_fill_defaults(self) -> None:
        """Put the schema's defaults into the empty fields: a form starts
        without them (the server applies them anyway), and this sends them."""
        form = self.form
        if form.root is None:
            return
        filled = form.root.fill_defaults()
        if not filled:
            self.app.notify("no empty field has a default")
            return
        form.touched.update(node.path for node in filled)
        form.rebuild()
        form.check()
        form.post_message(SchemaForm.Changed(form))
        self.app.notify(f"filled {len(filled)} default(s)")

    @on(TextArea.Changed, "#args-json")
    def _json_changed(self, event: TextArea.Changed) -> None:
        if self.mode != "json":
            return
        try:
            value = parse_json_text(event.text_area.text or "{}")
        except ValueError as exc:
            self._show_errors([str(exc)])
            return
        self._check_json(self.schema, value)

    @work(thread=True, exclusive=True, group="args-json-check", exit_on_error=False)
    def _check_json(self, schema: dict[str, Any], value: Any) -> None:
        # A server's schema may be slow to check: never on the event loop.
        violations = validate_value(schema, value)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._json_checked, schema, violations)

    def _json_checked(self, schema: dict[str, Any], violations: list[Violation]) -> None:
        if schema is self.schema and self.mode == "json":
            self._show_errors(_lines(violations))

    @on(SchemaForm.Checked)
    def _form_checked(self, event: SchemaForm.Checked) -> None:
        event.stop()
        if self.mode != "form":
            return
        form = event.form
        nodes = form.root.walk() if form.root is not None else iter(())
        shown = sum(len(node.errors) for node in nodes if node.errors and form.marks_shown(node))
        self._show_errors([f"{shown} problem(s), shown at the fields"] if shown else [])

    @on(SchemaForm.Changed)
    def _form_changed(self, event: SchemaForm.Changed) -> None:
        value, errors = self.arguments()
        if value is None:
            self._show_errors(errors)

    def focus_first(self) -> None:
        """Focus the form's first field, or the JSON editor in JSON mode."""
        if self.mode == "json":
            self.json_area.focus()
        else:
            self.form.focus_first()


def _lines(violations: list[Violation]) -> list[str]:
    return [f"{v.display_path or '(arguments)'}: {v.message}" for v in violations]
