"""The form widget: draws a `inspector.forms` model as rows of fields.

The model owns every value; each row is a small widget bound to one node.
Structural changes (adding an array item, switching a union variant,
toggling null, including an optional object) rebuild the rows from the
model (`FormRows`), so the widget tree never drifts from the value.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual import on
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Button, Checkbox, Input, Select, SelectionList, TextArea

from inspector.forms import (
    UNSET,
    ArrayNode,
    BooleanNode,
    ConstNode,
    EnumNode,
    FormNode,
    FormValueError,
    MultiSelectNode,
    NullableNode,
    ObjectNode,
    RawJsonNode,
    UnionNode,
    Violation,
    build_form,
)
from inspector.tui.widgets.form_check import Snapshot, check_snapshot, snapshot
from inspector.tui.widgets.form_focus import UNDER, item_of, row_of
from inspector.tui.widgets.form_row import FieldRow
from inspector.tui.widgets.form_rows import FormRows
from inspector.tui.widgets.form_select import BLANK

__all__ = ["SchemaForm"]


class SchemaForm(FormRows):
    """A form for one JSON Schema; posts `Changed` whenever the value may have changed."""

    DEFAULT_CSS = """
    SchemaForm { height: 1fr; padding: 0 1; }
    """

    # Items of an array from the keyboard, wherever focus is inside one
    # (the item's own buttons are a tab or a jump away; these are one key).
    # Priority: a terminal sends alt+n as ESC n, which Textual reads as alt+n
    # carrying the character "n", and a text field types that character
    # before the bindings around it are looked at.
    BINDINGS = [
        Binding("alt+n", "add_item", "New item", id="form_add_item", show=False, priority=True),
        Binding("alt+up", "move_item(-1)", "Item up", id="form_item_up", show=False, priority=True),
        Binding("alt+down", "move_item(1)", "Item down", id="form_item_down", show=False, priority=True),
        Binding("alt+x", "remove_item", "Remove item", id="form_remove_item", show=False, priority=True),
    ]

    class Changed(Message):
        """The form's value may have changed."""

        def __init__(self, form: SchemaForm) -> None:
            super().__init__()
            self.form = form

        @property
        def control(self) -> SchemaForm:
            """The form that changed."""
            return self.form

    class Checked(Message):
        """The value was checked against the schema (in a thread); marks are filed."""

        def __init__(self, form: SchemaForm, violations: list[Violation]) -> None:
            super().__init__()
            self.form = form
            self.violations = violations

        @property
        def control(self) -> SchemaForm:
            """The form that was checked."""
            return self.form

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.fallback_reason: str | None = None
        # Marks show on the fields a person has changed, or on all of them
        # once a call or an accept asked for the whole value.
        self.touched: set[tuple[Any, ...]] = set()
        self.show_all_marks = False
        self.violations: list[Violation] = []
        self._generation = 0
        self._checking = False
        self._check_again = False

    def load_schema(self, schema: dict[str, Any]) -> str | None:
        """Build the form; returns why it falls back to raw JSON, if it does."""
        self.root = build_form(schema)
        self.touched = set()
        self.show_all_marks = False
        self.violations = []
        self._generation += 1
        self.fallback_reason = None
        if isinstance(self.root, RawJsonNode):
            self.fallback_reason = getattr(self.root, "reason", None) or "the schema is not a form"
        self._show_new_form()
        return self.fallback_reason

    def clear(self) -> None:
        """No schema: the form shows nothing (no item is selected)."""
        self.root = None
        self.fallback_reason = None
        self.touched = set()
        self.show_all_marks = False
        self.violations = []
        self._generation += 1
        self._show_new_form()

    def drafts(self) -> dict[tuple[Any, ...], tuple[bool, str]]:
        """Text typed into fields that did not convert ("4x" for an integer,
        JSON that does not parse in a raw block: the flag), by the field's
        path: not in the value, yet what the person sees."""
        found: dict[tuple[Any, ...], tuple[bool, str]] = {}
        for node in self.root.walk() if self.root is not None else ():
            if node.json_draft is not None:
                found[node.path] = (True, node.json_draft)
            elif node.draft_text is not None:
                found[node.path] = (False, node.draft_text)
        return found

    def load_value(self, value: Any, drafts: dict[tuple[Any, ...], tuple[bool, str]] | None = None) -> None:
        """Put *value* in the form (rows of the same shape take it where they
        stand), then the *drafts* (`drafts`) back into their fields."""
        if self.root is not None:
            self.root.load_value(value)
            if drafts:
                # The innermost node at each path holds the typed text (a
                # nullable's field shares its path with the nullable; the walk
                # meets it last).
                nodes = {node.path: node for node in self.root.walk()}
                for path, (is_json, text) in drafts.items():
                    if path in nodes:
                        self._restore_draft(nodes[path], text, is_json)
            if not self._rebuild_scheduled and self._focused_place() is None:
                # The same rows (a tool's saved value on its new form): they take it at once.
                specs = self._specs()
                if len(specs) == self._rows_shown() and self._reuse(specs) == len(specs):
                    return
            self.rebuild()

    def _restore_draft(self, node: FormNode, text: str, is_json: bool) -> None:
        try:
            if is_json:
                node.set_json_text(text)
            else:
                node.set_text(text)
        except FormValueError:
            # Kept as typed, its message shown at the field as before.
            self.touched.add(node.path)

    def value(self) -> Any:
        """The form's value (an empty object when there is no schema or nothing is set)."""
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

    def marks_shown(self, node: FormNode) -> bool:
        """Whether *node*'s marks show: under a field the person changed, or all once asked for."""
        if self.show_all_marks:
            return True
        path = node.path
        return any(path[: len(touched)] == touched for touched in self.touched)

    def check(self) -> None:
        """Check the value against the schema in a thread; marks follow when it is done.

        One check runs at a time: changes made meanwhile are checked together
        once it ends, so a slow schema never piles threads up."""
        if self.root is None:
            return
        self._generation += 1
        if self._checking:
            self._check_again = True
            return
        self._checking = True
        shot = snapshot(self.root)
        generation = self._generation
        self.run_worker(
            lambda: self._check_in_thread(generation, shot),
            thread=True,
            group="form-check",
            exit_on_error=False,
        )

    def _check_in_thread(self, generation: int, shot: Snapshot) -> None:
        try:
            found: list[Violation] | None = check_snapshot(shot)
        except Exception as exc:  # noqa: BLE001 - a check that fails must still end (else no later check runs)
            found = [Violation((), f"the value could not be checked: {exc}", "schema")]
        try:
            self.app.call_from_thread(self._checked, generation, found)
        except RuntimeError:
            pass  # the app is closing

    def _checked(self, generation: int, found: list[Violation] | None) -> None:
        self._checking = False
        if self._check_again:
            self._check_again = False
            self.check()
            return
        if generation == self._generation and found is not None:
            self._apply(found)

    def _apply(self, found: list[Violation]) -> list[Violation]:
        if self.root is None:
            return []
        self.violations = self.root.file_violations(found)
        for row in self.query(FieldRow):
            row.show_errors()
        self.post_message(self.Checked(self, self.violations))
        return self.violations

    async def check_now(self) -> list[Violation]:
        """Check at once (before a call or an accept) and show every mark;
        the check still runs in a thread."""
        if self.root is None:
            return []
        self.show_all_marks = True
        self._generation += 1
        found = await asyncio.to_thread(check_snapshot, snapshot(self.root))
        return self._apply(found)

    def _focused_node(self) -> FormNode | None:
        row = row_of(self.app.focused) if self.app.focused is not None else None
        return row.node if row is not None else None

    def action_add_item(self) -> None:
        """A new item after the one focus is in (or at the end of the array
        whose row has focus); typing goes on in it."""
        node = self._focused_node()
        if isinstance(node, ArrayNode):
            array, index = node, len(node.items)
        else:
            item = item_of(node)
            if item is None or not isinstance(item.parent, ArrayNode) or not isinstance(item.key, int):
                return
            array, index = item.parent, item.key + 1
        if not array.can_add:
            return
        self._focus_to = (array.add(index=index).path, None)
        self._touch_structure(array)

    def action_move_item(self, step: int) -> None:
        item = item_of(self._focused_node())
        if item is None or not isinstance(item.parent, ArrayNode) or not isinstance(item.key, int):
            return
        array, index = item.parent, item.key
        place = self._focused_place()
        moved = array.move(index, index + step)
        if place is not None:
            # Focus stays on the same widget of the moved item.
            path, button = place
            self._focus_to = ((*array.path, moved, *path[len(item.path) :]), button)
        self._touch_structure(array)

    def action_remove_item(self) -> None:
        item = item_of(self._focused_node())
        if item is None or not isinstance(item.parent, ArrayNode) or not isinstance(item.key, int):
            return
        array = item.parent
        if not array.can_remove:
            return
        array.remove(item.key)
        self._focus_to = (item.path, None)
        self._touch_structure(array)

    def _touch_structure(self, array: ArrayNode) -> None:
        self.touched.add(array.path)
        self.rebuild()
        self.check()
        self.post_message(self.Changed(self))

    def _changed(self, row: FieldRow | None = None, structural: bool = False) -> None:
        if row is not None:
            self.touched.add(row.node.path)
            row.show_errors()
            self._recount(row.node)
        if structural:
            self.rebuild()
        self.check()
        self.post_message(self.Changed(self))

    def _recount(self, node: FormNode) -> None:
        """The item counts of the arrays *node* is in (an item typed into may
        stop or start being empty)."""
        arrays: list[FormNode] = []
        parent = node.parent
        while parent is not None:
            if isinstance(parent, ArrayNode):
                arrays.append(parent)
            parent = parent.parent
        if arrays:
            for row in self.query(FieldRow):
                if any(row.node is array for array in arrays):
                    row.refresh_count()

    @on(Input.Changed, ".text-input")
    def _text(self, event: Input.Changed) -> None:
        event.stop()
        row = row_of(event.input)
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
        row = row_of(event.text_area)
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
        row = row_of(event.select)
        if row is None:
            return
        node, value = row.node, event.value
        if isinstance(node, EnumNode):
            node.select(value if isinstance(value, int) else None)
            self._changed(row)
        elif isinstance(node, BooleanNode):
            if value is BLANK:
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
        row = row_of(event.selection_list)
        if row is not None and isinstance(row.node, MultiSelectNode):
            row.node.set_selected(list(event.selection_list.selected))
            self._changed(row)

    @on(Checkbox.Changed)
    def _checkbox(self, event: Checkbox.Changed) -> None:
        event.stop()
        row = row_of(event.checkbox)
        if row is None:
            return
        node = row.node
        if isinstance(node, NullableNode):
            node.set_null(event.value)
            inner = node.children()
            if not event.value and len(inner) == 1 and isinstance(inner[0], ObjectNode):
                # Not null means an object here: open it for typing rather
                # than asking for a second "include".
                inner[0].present = True
                self._focus_to = (node.path, UNDER)
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
        row = row_of(event.button)
        if row is None:
            return
        node = row.node
        classes = event.button.classes
        if "array-add" in classes and isinstance(node, ArrayNode):
            # Typing goes on in the new item.
            self._focus_to = (node.add().path, None)
        elif "array-clear" in classes:
            node.clear()
        elif "object-include" in classes and isinstance(node, ObjectNode):
            node.present = True
            self._focus_to = (node.path, UNDER)
        elif "object-clear" in classes:
            node.clear()
        elif isinstance(node.parent, ArrayNode) and isinstance(node.key, int):
            parent, index = node.parent, node.key
            if "item-up" in classes:
                self._focus_to = ((*parent.path, parent.move_up(index)), "item-up")
            elif "item-down" in classes:
                self._focus_to = ((*parent.path, parent.move_down(index)), "item-down")
            elif "item-remove" in classes:
                parent.remove(index)
                self._focus_to = (node.path, None)
        self._changed(row, structural=True)
