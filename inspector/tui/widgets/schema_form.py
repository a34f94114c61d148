"""The form widget: draws a `inspector.forms` model as rows of fields.

The model owns every value; each row is a small widget bound to one node.
Structural changes (adding an array item, switching a union variant,
toggling null, including an optional object) rebuild the rows from the
model, so the widget tree never drifts from the value.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, Select, SelectionList, Static, TextArea

from ...core.safetext import has_controls, one_line, safe_json, visible
from ...forms import (
    UNSET,
    ArrayNode,
    BooleanNode,
    ConstNode,
    EnumNode,
    ExtrasNode,
    FormNode,
    FormValueError,
    MultiSelectNode,
    NullableNode,
    ObjectNode,
    RawJsonNode,
    StringNode,
    UnionNode,
    Violation,
    build_form,
)
from ...forms.values import json_text
from ..safe import plain

__all__ = ["SchemaForm"]

_BLANK = Select.NULL


def _label(node: FormNode) -> Text:
    text = Text()
    item = isinstance(node.parent, ArrayNode) and isinstance(node.key, int)
    if item and node.title:
        # Items share their schema's title; the position tells them apart.
        text.append(f"[{node.key}] ", style="bold")
    text.append(visible(one_line(node.label, 60)), style="bold")
    if node.required and node.path and not item:
        text.append(" *", style="bold red")
    hint = node.schema.get("type")
    fmt = node.schema.get("format")
    kind = str(node.kind)
    detail = f"{kind}" + (f", {fmt}" if isinstance(fmt, str) else "")
    if isinstance(hint, list):
        detail = "/".join(str(h) for h in hint)
    text.append(f"  {one_line(detail, 40)}", style="dim")
    if node.has_default:
        text.append(f"  default {one_line(json_text(node.default), 40)}", style="dim italic")
    if node.deprecated:
        text.append("  deprecated", style="yellow")
    return text


def _errors_text(node: FormNode) -> Text:
    messages = [v.message for v in node.errors]
    if node.text_error and node.text_error not in messages:
        messages.append(node.text_error)
    if node.is_raw and node.raw_reason:
        messages.append(f"held as raw JSON: {node.raw_reason}")
    return plain("\n".join(f"✖ {m}" for m in messages), style="red") if messages else Text()


class FieldRow(Vertical):
    """One node: label, description, the editor, and its errors."""

    DEFAULT_CSS = """
    FieldRow { height: auto; margin: 0 0 1 0; }
    FieldRow > .field-description { color: $text-muted; }
    FieldRow > .field-errors { color: $error; height: auto; }
    FieldRow Input, FieldRow Select { width: 1fr; }
    FieldRow TextArea { height: 6; }
    FieldRow > Horizontal { height: auto; }
    FieldRow Button { min-width: 5; width: auto; margin: 0 1 0 0; }
    """

    def __init__(self, node: FormNode, depth: int) -> None:
        super().__init__()
        self.node = node
        self.styles.padding = (0, 0, 0, depth * 2)

    def compose(self) -> ComposeResult:
        node = self.node
        yield Label(_label(node))
        if node.description:
            yield Static(plain(node.description), classes="field-description")
        yield from self._editor()
        yield Static(_errors_text(node), classes="field-errors")

    def _json_text(self) -> str:
        value = self.node.to_value()
        return "" if value is UNSET else safe_json(value, indent=2)

    def _editor(self) -> ComposeResult:
        node = self.node
        if node.is_raw or (isinstance(node, StringNode) and has_controls(node.text())):
            # Server-supplied text (a default, say) may hold control
            # characters; an editor would send them to the terminal, so such
            # a value is edited as escaped JSON instead.
            if not node.is_raw:
                yield Static(plain("contains control characters: edited as escaped JSON", style="yellow"))
            yield TextArea(self._json_text(), language="json", classes="raw-editor", soft_wrap=True)
        elif isinstance(node, StringNode) and node.multiline:
            yield TextArea(node.text(), classes="text-editor", soft_wrap=True)
        elif isinstance(node, EnumNode):
            options = [(Text(visible(option.label)), index) for index, option in enumerate(node.options)]
            current = node.selected_index
            yield Select(
                options,
                value=current if current is not None else _BLANK,
                allow_blank=not node.required or current is None,
                classes="enum-editor",
            )
        elif isinstance(node, BooleanNode):
            state = node.to_value()
            choice = _BLANK if state is UNSET else ("true" if state else "false")
            yield Select([("true", "true"), ("false", "false")], value=choice, allow_blank=True, classes="bool-editor")
        elif isinstance(node, MultiSelectNode):
            yield SelectionList[int](
                *[
                    (Text(visible(option.label)), index, node.is_selected(index))
                    for index, option in enumerate(node.options)
                ],
                classes="multi-editor",
            )
        elif isinstance(node, ConstNode):
            yield Static(plain(f"constant: {json_text(node.schema.get('const'))}"))
            if not node.required:
                yield Checkbox("include", node.is_set, classes="const-include")
        elif isinstance(node, ExtrasNode):
            yield Static(plain("additional properties, as one JSON object", style="dim"))
            yield TextArea(self._json_text(), language="json", classes="raw-editor", soft_wrap=True)
        elif isinstance(node, RawJsonNode):
            reason = getattr(node, "reason", None) or "the form cannot show this part of the schema"
            yield Static(plain(f"raw JSON: {reason}", style="yellow"))
            yield TextArea(self._json_text(), language="json", classes="raw-editor", soft_wrap=True)
        elif isinstance(node, ArrayNode):
            count = len(node.children())
            with Horizontal():
                yield Static(Text(f"{count} item(s)", style="dim"))
                if node.can_add:
                    yield Button("+ add", classes="array-add", compact=True)
                if not node.required and node.is_set:
                    yield Button("clear", classes="array-clear", compact=True)
        elif isinstance(node, ObjectNode):
            if not node.required or not node.path:
                if node.path and not node.present:
                    yield Button("+ include this object", classes="object-include", compact=True)
                elif node.path:
                    yield Button("leave out", classes="object-clear", compact=True)
        elif isinstance(node, UnionNode):
            options = [(Text(visible(variant.title)), index) for index, variant in enumerate(node.variants)]
            yield Select(options, value=node.selected, allow_blank=False, classes="union-editor")
        elif isinstance(node, NullableNode):
            yield Checkbox("null", node.is_null, classes="null-toggle")
        else:
            placeholder = getattr(node, "placeholder", "")
            yield Input(
                node.text(),
                placeholder=visible(str(placeholder)),
                password=bool(getattr(node, "secret", False)),
                classes="text-input",
            )
        parent = node.parent
        if isinstance(parent, ArrayNode) and isinstance(node.key, int):
            with Horizontal():
                yield Button("↑", classes="item-up", compact=True)
                yield Button("↓", classes="item-down", compact=True)
                if parent.can_remove:
                    yield Button("✕ remove", classes="item-remove", compact=True)

    def show_errors(self) -> None:
        # A row mounted a moment ago may not have composed its children yet;
        # it draws the node's errors itself when it does.
        for errors in self.query(".field-errors").results(Static):
            errors.update(_errors_text(self.node))


class SchemaForm(VerticalScroll):
    """A form for one JSON Schema; posts `Changed` whenever the value may have changed."""

    DEFAULT_CSS = """
    SchemaForm { height: 1fr; padding: 0 1; }
    """

    class Changed(Message):
        def __init__(self, form: SchemaForm) -> None:
            super().__init__()
            self.form = form

        @property
        def control(self) -> SchemaForm:
            return self.form

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.root: FormNode | None = None
        self.fallback_reason: str | None = None
        self._rebuild_scheduled = False
        self._rebuild_pending = False
        self._dirty = False
        self._focus_after_rebuild = False

    # -- public surface --------------------------------------------------------------

    def load_schema(self, schema: dict[str, Any]) -> str | None:
        """Build the form; returns why it falls back to raw JSON, if it does."""
        self.root = build_form(schema)
        self.fallback_reason = None
        if isinstance(self.root, RawJsonNode):
            self.fallback_reason = getattr(self.root, "reason", None) or "the schema is not a form"
        self.rebuild()
        return self.fallback_reason

    def load_value(self, value: Any) -> None:
        if self.root is not None:
            self.root.load_value(value)
            self.rebuild()

    def value(self) -> Any:
        if self.root is None:
            return {}
        value = self.root.to_value()
        return {} if value is UNSET else value

    def value_and_errors(self) -> tuple[Any, list[str]]:
        """The current value, and text entries that did not convert."""
        if self.root is None:
            return {}, []
        errors = [f"{node.display_path}: {node.text_error}" for node in self.root.walk() if node.text_error]
        return self.value(), errors

    def validate(self) -> list[Violation]:
        if self.root is None:
            return []
        violations = self.root.validate()
        for row in self.query(FieldRow):
            row.show_errors()
        return violations

    def focus_first(self) -> None:
        if self._rebuild_pending:
            # The rows are about to be replaced: focus the new ones instead.
            self._focus_after_rebuild = True
            return
        for widget in self.query("Input, TextArea, Select, Checkbox, SelectionList, Button"):
            if widget.focusable:
                widget.focus()
                return

    # -- drawing ---------------------------------------------------------------------

    def rebuild(self) -> None:
        # Requests made while a rebuild is scheduled or running fold into it:
        # the loop below draws the model as it is once the last one is done.
        self._dirty = True
        self._rebuild_pending = True
        if not self._rebuild_scheduled:
            self._rebuild_scheduled = True
            self.call_after_refresh(self._rebuild)

    async def _rebuild(self) -> None:
        try:
            while self._dirty:
                self._dirty = False
                focused_path = self._focused_path()
                await self.remove_children()
                rows: list[Widget] = []
                if self.root is not None:
                    self._rows(self.root, 0, rows)
                await self.mount_all(rows)
                if focused_path is not None:
                    self._refocus(focused_path)
        finally:
            self._rebuild_scheduled = False
            self._rebuild_pending = False
        if self._focus_after_rebuild:
            self._focus_after_rebuild = False
            self.focus_first()

    def _rows(self, node: FormNode, depth: int, out: list[Widget]) -> None:
        is_root_object = not node.path and isinstance(node, ObjectNode)
        if not is_root_object:
            out.append(FieldRow(node, depth))
        if node.is_raw:
            return
        next_depth = depth if is_root_object else depth + 1
        if isinstance(node, ObjectNode) and node.path and not node.present:
            return
        if isinstance(node, NullableNode) and node.is_null:
            return
        shown = [
            child
            for child in node.children()
            if not (isinstance(node, ObjectNode) and child is node.extras and not self._show_extras(node))
        ]
        for child in shown:
            self._rows(child, next_depth, out)
        if is_root_object and not shown:
            out.append(Static(Text("no arguments", style="dim"), classes="no-arguments"))

    @staticmethod
    def _show_extras(node: ObjectNode) -> bool:
        # Most tool schemas leave additionalProperties unsaid; an editor for
        # undeclared keys on each of them would be noise.  Show it when the
        # schema asks for extra keys or the value already holds some.
        declared = node.schema.get("additionalProperties")
        return (
            node.extras.is_set
            or (declared is not None and declared is not False)
            or bool(node.schema.get("patternProperties"))
        )

    def _focused_path(self) -> tuple[Any, ...] | None:
        focused = self.app.focused
        while focused is not None and focused is not self:
            if isinstance(focused, FieldRow):
                return focused.node.path
            focused = focused.parent  # type: ignore[assignment]
        return None

    def _refocus(self, path: tuple[Any, ...]) -> None:
        for row in self.query(FieldRow):
            if row.node.path == path:
                for widget in row.query("Input, TextArea, Select, Checkbox, SelectionList, Button"):
                    if widget.focusable:
                        widget.focus()
                        return

    # -- events from rows --------------------------------------------------------------

    @staticmethod
    def _row_of(widget: Widget) -> FieldRow | None:
        node: Any = widget
        while node is not None and not isinstance(node, FieldRow):
            node = node.parent
        return node

    def _changed(self, row: FieldRow | None = None, structural: bool = False) -> None:
        if row is not None:
            row.show_errors()
        if structural:
            self.rebuild()
        self.post_message(self.Changed(self))

    @on(Input.Changed, ".text-input")
    def _text(self, event: Input.Changed) -> None:
        event.stop()
        row = self._row_of(event.input)
        if row is None:
            return
        try:
            row.node.set_text(event.value)
        except FormValueError:
            pass  # the node keeps the message in text_error, shown below
        self._changed(row)

    @on(TextArea.Changed)
    def _area(self, event: TextArea.Changed) -> None:
        event.stop()
        row = self._row_of(event.text_area)
        if row is None:
            return
        try:
            if event.text_area.has_class("raw-editor"):
                row.node.set_json_text(event.text_area.text)
            else:
                row.node.set_text(event.text_area.text)
        except FormValueError as exc:
            row.node.text_error = exc.message
        self._changed(row)

    @on(Select.Changed)
    def _select(self, event: Select.Changed) -> None:
        event.stop()
        row = self._row_of(event.select)
        if row is None:
            return
        node, value = row.node, event.value
        if isinstance(node, EnumNode):
            node.select(value if isinstance(value, int) else None)
            self._changed(row)
        elif isinstance(node, BooleanNode):
            if value is _BLANK:
                node.clear()
            else:
                node.load_value(value == "true")
            self._changed(row)
        elif isinstance(node, UnionNode) and isinstance(value, int) and value != node.selected:
            node.select(value)
            self._changed(row, structural=True)

    @on(SelectionList.SelectedChanged)
    def _multi(self, event: SelectionList.SelectedChanged[int]) -> None:
        event.stop()
        row = self._row_of(event.selection_list)
        if row is not None and isinstance(row.node, MultiSelectNode):
            row.node.set_selected(list(event.selection_list.selected))
            self._changed(row)

    @on(Checkbox.Changed)
    def _checkbox(self, event: Checkbox.Changed) -> None:
        event.stop()
        row = self._row_of(event.checkbox)
        if row is None:
            return
        node = row.node
        if isinstance(node, NullableNode):
            node.set_null(event.value)
            self._changed(row, structural=True)
        elif isinstance(node, ConstNode):
            if event.value:
                node.include()
            else:
                node.clear()
            self._changed(row)

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        event.stop()
        row = self._row_of(event.button)
        if row is None:
            return
        node = row.node
        classes = event.button.classes
        if "array-add" in classes and isinstance(node, ArrayNode):
            node.add()
        elif "array-clear" in classes:
            node.clear()
        elif "object-include" in classes and isinstance(node, ObjectNode):
            node.present = True
        elif "object-clear" in classes:
            node.clear()
        elif isinstance(node.parent, ArrayNode) and isinstance(node.key, int):
            parent, index = node.parent, node.key
            if "item-up" in classes:
                parent.move_up(index)
            elif "item-down" in classes:
                parent.move_down(index)
            elif "item-remove" in classes:
                parent.remove(index)
        self._changed(row, structural=True)
