"""The form widget: draws a `inspector.forms` model as rows of fields.

The model owns every value; each row is a small widget bound to one node.
Structural changes (adding an array item, switching a union variant,
toggling null, including an optional object) rebuild the rows from the
model, so the widget tree never drifts from the value.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.geometry import Size
from textual.message import Message
from textual.reactive import Reactive
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, OptionList, Select, SelectionList, Static, TextArea

from inspector.core.safetext import has_controls, one_line, safe_json, visible
from inspector.forms import (
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
from inspector.forms.values import json_text
from inspector.tui import looks
from inspector.tui.safe import plain
from inspector.tui.widgets.form_check import Snapshot, check_snapshot, snapshot

__all__ = ["SchemaForm"]

_BLANK = Select.NULL


def _is_item(node: FormNode) -> bool:
    return isinstance(node.parent, ArrayNode) and isinstance(node.key, int)


def _label(node: FormNode) -> Text:
    """The property's key (what `call` and the raw JSON need), `[i]` for an
    item, "value" for a root that is not an object; `*` when required."""
    text = Text()
    if isinstance(node.key, int):
        text.append(f"[{node.key}]", style="bold")
    else:
        text.append(visible(one_line(str(node.key) if node.key is not None else "value", 60)), style="bold")
    if node.required and node.path and not _is_item(node):
        text.append(" *", style=looks.ERROR_STRONG)
    return text


def _kind(node: FormNode) -> str:
    hint = node.schema.get("type")
    if isinstance(hint, list):
        return "/".join(str(h) for h in hint)
    fmt = node.schema.get("format")
    return str(node.kind) + (f", {fmt}" if isinstance(fmt, str) else "")


def _note(node: FormNode) -> Text:
    """The dimmed line under a field: its title when it differs from the key,
    the default, and the description (one line until the field has focus)."""
    text = Text()
    parts: list[Text] = []
    if node.title and node.title != node.key:
        parts.append(Text(visible(one_line(node.title, 60)), style="italic"))
    if node.has_default:
        parts.append(Text(f"default {one_line(json_text(node.default), 40)}"))
    if node.deprecated:
        parts.append(Text("deprecated", style=looks.WARNING))
    if node.description:
        parts.append(plain(node.description))
    for i, part in enumerate(parts):
        if i:
            text.append(" · ")
        text.append_text(part)
    return text


def _select_prompt(node: FormNode) -> str:
    """What a blank choice shows: the default when there is one (a hint; it is
    sent only when picked or filled in by "fill defaults")."""
    if node.has_default:
        label = json_text(node.default)
        if isinstance(node, EnumNode):
            label = next((o.label for o in node.options if o.value == node.default), label)
        return visible(one_line(f"default: {label}", 40))
    return "Select"


def _errors_text(node: FormNode) -> Text:
    messages = [v.message for v in node.errors]
    if node.text_error and node.text_error not in messages:
        messages.append(node.text_error)
    if node.is_raw and node.raw_reason:
        messages.append(f"held as raw JSON: {node.raw_reason}")
    return plain("\n".join(f"✖ {m}" for m in messages), style=looks.ERROR) if messages else Text()


# A form's first rows are mounted at once: enough to fill its height (or
# FIRST_LINES before it has one); the rest follow ROW_CHUNK at a time, one
# chunk per painted frame.
FIRST_LINES = 24
ROW_CHUNK = 8


def _array_count(node: ArrayNode) -> Text:
    items = node.children()
    left_out = sum(1 for item in items if not item.is_set)
    count = f"{len(items)} item{'s' if len(items) != 1 else ''}"
    if left_out:
        count += f", {left_out} empty (left out)"
    return Text(count, style=looks.WARNING if left_out else "dim")


def _rows_to_fill(rows: list[Widget], lines: int) -> int:
    """How many of `rows` it takes to fill `lines` lines (a row's height estimated from its node)."""
    used = 0
    for count, row in enumerate(rows, start=1):
        used += _row_lines(row)
        if used >= lines:
            return count
    return len(rows)


def _row_lines(row: Widget) -> int:
    if not isinstance(row, FieldRow):
        return 1
    node = row.node
    lines = 1
    if node.description or node.has_default or node.deprecated or (node.title and node.title != node.key):
        lines += 1
    if node.is_raw or isinstance(node, (ExtrasNode, RawJsonNode)) or getattr(node, "multiline", False):
        lines += 5
    elif isinstance(node, MultiSelectNode):
        lines += 8
    return lines


FOCUSABLE = "Input, TextArea, Select, Checkbox, SelectionList, Button"

# The kinds of node whose row is a line with an editor beside the label and
# nothing else; any other kind (objects, arrays, unions, blocks) has a row
# of its own making.
_STRUCTURED = (
    ConstNode,
    ArrayNode,
    ObjectNode,
    UnionNode,
    NullableNode,
    MultiSelectNode,
    ExtrasNode,
    RawJsonNode,
)


def _has_note(node: FormNode) -> bool:
    return bool(node.description or node.has_default or node.deprecated or (node.title and node.title != node.key))


def _row_shape(node: FormNode, depth: int) -> tuple[Any, ...] | None:
    """What a row for this node is made of, when another node's row of the
    same shape can be given this node instead of being built anew (a tool's
    form after another's: same widgets, new label, note and value); None
    for rows that are always built."""
    if node.is_raw or _is_item(node) or isinstance(node, _STRUCTURED):
        return None
    note = _has_note(node)
    if isinstance(node, EnumNode):
        current = node.selected_index
        labels = tuple(visible(option.label) for option in node.options)
        return ("enum", depth, note, labels, not node.required or current is None, _select_prompt(node))
    if isinstance(node, BooleanNode):
        return ("bool", depth, note, _select_prompt(node))
    if isinstance(node, StringNode) and has_controls(node.text()):
        return None
    if isinstance(node, StringNode) and node.multiline:
        return ("text", depth, note)
    return ("input", depth, note)


def _spec_shape(spec: tuple[FormNode, int] | None) -> tuple[Any, ...] | None:
    """The shape of the row a spec asks for (`_row_shape`; the "no arguments" line has one too)."""
    if spec is None:
        return ("no-arguments",)
    return _row_shape(*spec)


def _child_shape(child: Widget) -> tuple[Any, ...] | None:
    if isinstance(child, FieldRow):
        return child.shape
    if isinstance(child, Static) and child.has_class("no-arguments"):
        return ("no-arguments",)
    return None


W = TypeVar("W", Input, Select[Any], Button, Checkbox)


def compact(widget: W) -> W:
    """*widget* in its compact style.  Textual's `compact=True` restyles the
    widget (and all it holds) as it is made, before it is mounted, where its
    styles are worked out again: about a third of a big form's first screen."""
    widget.add_class("-textual-compact", update=False)
    widget.set_reactive(type(widget).compact, True)
    return widget


class FieldLine(Horizontal):
    """A row's first line: its label and editor side by side.

    This line, the row, its label and note, and the form itself never
    scroll their content (the form scrolls as a whole, and shows its
    scrollbar through a layout of its own), so a change of their content's
    size needs no second layout of the screen: Textual's widgets ask for one
    whenever a layout changes their virtual size, every row newly mounted
    among them, and a layout of the whole screen costs more than the rows."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)


class FieldLabel(Label):
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)


class FieldNote(Static):
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)


class FormInput(Input):
    """A form's one-line editor.  Its width is the row's whatever the text:
    a value typed or loaded repaints it, without laying the screen out
    (Textual's Input sets its virtual size to the text's on every change)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)


# After a rebuild, focus the first editor under the row rather than its own buttons.
UNDER = "-under"


class FormSelect(Select[Any]):
    """A form's select, safe to remove while it mounts.

    Its list of options (an OptionList, the costliest of a select's parts)
    is mounted when first needed: opened, or holding a value to highlight.
    A form of many choices, most of them left blank, mounts a third fewer
    widgets."""

    # The option list while it waits to be mounted (set in compose).
    _unmounted_options: Widget | None = None

    def compose(self) -> ComposeResult:
        for part in super().compose():
            if isinstance(part, OptionList):
                self._unmounted_options = part
                continue
            yield part

    def _mount_options(self) -> None:
        options, self._unmounted_options = self._unmounted_options, None
        if options is not None and self.is_attached:
            self.mount(options)
            self._setup_options_renderables()

    def _setup_options_renderables(self) -> None:
        if self._unmounted_options is not None:
            return  # filled when mounted
        # A form rebuilt while this select mounts (a page of the list arriving
        # on a busy machine) takes its overlay away before the select's own
        # mount handler fills it; there is nothing left to fill then.
        with contextlib.suppress(NoMatches):
            super()._setup_options_renderables()

    def _watch_value(self, value: Any) -> None:
        if value != self.NULL:
            self._mount_options()  # the value is highlighted in it
        super()._watch_value(value)

    def _watch_expanded(self, expanded: bool) -> None:
        if expanded:
            self._mount_options()
        super()._watch_expanded(expanded)

    def _watch_prompt(self, prompt: str) -> None:
        if self.is_mounted:
            self._mount_options()  # the blank option shows the prompt
        super()._watch_prompt(prompt)

    def action_show_overlay(self) -> None:
        self._mount_options()
        super().action_show_overlay()


class FieldRow(Vertical):
    """One node: a line with its key and its editor (or buttons), a dimmed
    note, a multi-line editor when it needs one, and its marks."""

    DEFAULT_CSS = """
    FieldRow { height: auto; margin: 0; }
    FieldRow > .field-line { height: auto; }
    FieldRow .field-label { width: 22; height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    FieldRow .field-kind { width: auto; height: 1; color: $text-muted; margin: 0 1 0 1; }
    FieldRow > .field-line:focus-within > .field-label { background: $accent; color: $text; }
    FieldRow:focus-within > .field-line > .field-label { background: $accent 60%; }
    FieldRow > .field-description {
        color: $text-muted; height: 1; text-wrap: nowrap; text-overflow: ellipsis; padding: 0 0 0 2;
    }
    FieldRow:focus-within > .field-description { height: auto; text-wrap: wrap; }
    FieldRow > .field-errors { color: $error; height: auto; padding: 0 0 0 2; }
    FieldRow > .field-errors.-empty { display: none; }
    FieldRow Input, FieldRow Select { width: 1fr; }
    FieldRow Input:focus { background: $boost; }
    FieldRow TextArea { height: 5; }
    FieldRow Button { min-width: 3; width: auto; margin: 0 1 0 0; }
    FieldRow Button:focus { text-style: bold reverse; }
    FieldRow Checkbox { width: auto; border: none; padding: 0; height: 1; }
    FieldRow SelectionList { height: auto; max-height: 8; }
    """

    # See FieldLine.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)

    def __init__(self, node: FormNode, depth: int) -> None:
        super().__init__()
        self.node = node
        self.shape = _row_shape(node, depth)
        if depth:
            # (Styles set on a widget cost a restyle: none for the top-level rows.)
            self.styles.padding = (0, 0, 0, depth * 2)
        self._errors: Static | None = None
        # An array's "N items, M empty" line: it changes as its items are typed into.
        self._count: Static | None = None
        self._composed = False

    def compose(self) -> ComposeResult:
        self._composed = True
        node = self.node
        blocks = list(self._block_editor())
        with FieldLine(classes="field-line"):
            yield FieldLabel(_label(node), classes="field-label")
            if not blocks:
                yield from self._line_editor()
            else:
                yield Static(Text(one_line(_kind(node), 30)), classes="field-kind")
            yield from self._item_buttons()
        note = _note(node)
        if note:
            yield FieldNote(note, classes="field-description")
        yield from blocks
        marks = self._marks()
        if marks:
            # Most rows never show a mark: their line is made when one comes.
            self._errors = Static(marks, classes="field-errors")
            yield self._errors

    def _json_text(self) -> str:
        value = self.node.to_value()
        return "" if value is UNSET else safe_json(value, indent=2)

    def _block_editor(self) -> ComposeResult:
        """The editors that need rows of their own (under the line)."""
        node = self.node
        if node.is_raw or (isinstance(node, StringNode) and has_controls(node.text())):
            # Server-supplied text (a default, say) may hold control
            # characters; an editor would send them to the terminal, so such
            # a value is edited as escaped JSON instead.
            if not node.is_raw:
                yield Static(plain("contains control characters: edited as escaped JSON", style=looks.WARNING))
            yield TextArea(self._json_text(), language="json", classes="raw-editor", soft_wrap=True)
        elif isinstance(node, StringNode) and node.multiline:
            yield TextArea(node.text(), classes="text-editor", soft_wrap=True)
        elif isinstance(node, MultiSelectNode):
            yield SelectionList[int](
                *[
                    (Text(visible(option.label)), index, node.is_selected(index))
                    for index, option in enumerate(node.options)
                ],
                classes="multi-editor",
            )
        elif isinstance(node, ExtrasNode):
            yield Static(plain("additional properties, as one JSON object", style="dim"))
            yield TextArea(self._json_text(), language="json", classes="raw-editor", soft_wrap=True)
        elif isinstance(node, RawJsonNode):
            reason = getattr(node, "reason", None) or "the form cannot show this part of the schema"
            yield Static(plain(f"raw JSON: {reason}", style=looks.WARNING))
            yield TextArea(self._json_text(), language="json", classes="raw-editor", soft_wrap=True)

    def _line_editor(self) -> ComposeResult:
        """The editor or buttons that sit beside the label."""
        node = self.node
        if isinstance(node, EnumNode):
            options = [(Text(visible(option.label)), index) for index, option in enumerate(node.options)]
            current = node.selected_index
            yield compact(
                FormSelect(
                    options,
                    value=current if current is not None else _BLANK,
                    allow_blank=not node.required or current is None,
                    prompt=_select_prompt(node),
                    classes="enum-editor",
                )
            )
        elif isinstance(node, BooleanNode):
            state = node.to_value()
            choice = _BLANK if state is UNSET else ("true" if state else "false")
            yield compact(
                FormSelect(
                    [("true", "true"), ("false", "false")],
                    value=choice,
                    allow_blank=True,
                    prompt=_select_prompt(node),
                    classes="bool-editor",
                )
            )
        elif isinstance(node, ConstNode):
            yield Static(plain(f"constant {json_text(node.schema.get('const'))}"), classes="field-kind")
            if not node.fills_itself:
                yield compact(Checkbox("include", node.is_set, classes="const-include"))
        elif isinstance(node, ArrayNode):
            if node.can_add:
                yield compact(Button("+ add", classes="array-add"))
            if not node.required and node.is_set:
                yield compact(Button("clear", classes="array-clear"))
            self._count = Static(_array_count(node), classes="field-kind")
            yield self._count
        elif isinstance(node, ObjectNode):
            # A required object shows its fields open (it is sent once one
            # of them is filled); an optional one waits to be included.
            if node.path and not node.required:
                if not node.present:
                    yield compact(Button("+ include", classes="object-include"))
                else:
                    yield compact(Button("leave out", classes="object-clear"))
            yield Static(Text(one_line(_kind(node), 30)), classes="field-kind")
        elif isinstance(node, UnionNode):
            options = [(Text(visible(variant.title)), index) for index, variant in enumerate(node.variants)]
            yield compact(FormSelect(options, value=node.selected, allow_blank=False, classes="union-editor"))
        elif isinstance(node, NullableNode):
            yield compact(Checkbox("null", node.is_null, classes="null-toggle"))
            yield Static(Text(one_line(_kind(node), 30)), classes="field-kind")
        else:
            placeholder = getattr(node, "placeholder", "") or _kind(node)
            yield compact(
                FormInput(
                    node.text(),
                    placeholder=visible(str(placeholder)),
                    password=bool(getattr(node, "secret", False)),
                    classes="text-input",
                )
            )

    def _item_buttons(self) -> ComposeResult:
        parent = self.node.parent
        if isinstance(parent, ArrayNode) and isinstance(self.node.key, int):
            yield compact(Button("↑", classes="item-up", tooltip="move up"))
            yield compact(Button("↓", classes="item-down", tooltip="move down"))
            if parent.can_remove:
                yield compact(Button("✕", classes="item-remove", tooltip="remove"))

    def _marks(self) -> Text:
        form = self._form()
        return _errors_text(self.node) if form is None or form.marks_shown(self.node) else Text()

    def _form(self) -> SchemaForm | None:
        for ancestor in self.ancestors:
            if isinstance(ancestor, SchemaForm):
                return ancestor
        return None

    def rebind(self, node: FormNode) -> None:
        """Show *node* (a row of the same shape, `_row_shape`) in this row's
        widgets: its label, note, value and marks, nothing of the node it
        showed before."""
        self.node = node
        if not self._composed:
            return  # it composes from the new node when it mounts
        self.query_one(".field-label", Label).update(_label(node), layout=False)
        if _has_note(node):
            self.query_one(".field-description", Static).update(_note(node), layout=False)
        # Values put here are the model's already: not a change by the person.
        with self.prevent(Input.Changed, Select.Changed, TextArea.Changed):
            if isinstance(node, StringNode) and node.multiline:
                # load_text also forgets the undo history: no ctrl+z brings
                # back what was typed for another tool.
                self.query_one(".text-editor", TextArea).load_text(node.text())
            elif isinstance(node, EnumNode):
                current = node.selected_index
                self.query_one(FormSelect).value = current if current is not None else _BLANK
            elif isinstance(node, BooleanNode):
                state = node.to_value()
                self.query_one(FormSelect).value = _BLANK if state is UNSET else ("true" if state else "false")
            else:
                editor = self.query_one(FormInput)
                editor.value = node.text()
                editor.cursor_position = len(editor.value)
                placeholder = visible(str(getattr(node, "placeholder", "") or _kind(node)))
                if editor.placeholder != placeholder:
                    editor.placeholder = placeholder
                editor.password = bool(getattr(node, "secret", False))
        self.show_errors()

    def refresh_count(self) -> None:
        if self._count is not None and isinstance(self.node, ArrayNode):
            self._count.update(_array_count(self.node))

    def show_errors(self) -> None:
        # A row mounted a moment ago may not have composed its children yet;
        # it draws the node's errors itself when it does.
        if not self._composed:
            return
        marks = self._marks()
        if self._errors is not None:
            self._errors.update(marks)
            self._errors.set_class(not marks, "-empty")
        elif marks:
            self._errors = Static(marks, classes="field-errors")
            self.mount(self._errors)


class SchemaForm(VerticalScroll):
    """A form for one JSON Schema; posts `Changed` whenever the value may have changed."""

    DEFAULT_CSS = """
    SchemaForm { height: 1fr; padding: 0 1; }
    """

    # Its height is its parent's: rows added or removed change only what it
    # scrolls (a scrollbar shown or hidden lays the screen out by itself).
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)

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
        def __init__(self, form: SchemaForm) -> None:
            super().__init__()
            self.form = form

        @property
        def control(self) -> SchemaForm:
            return self.form

    class Checked(Message):
        """The value was checked against the schema (in a thread); marks are filed."""

        def __init__(self, form: SchemaForm, violations: list[Violation]) -> None:
            super().__init__()
            self.form = form
            self.violations = violations

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
        self._mounting = 0
        self._focus_after_rebuild = False
        self._focus_to: tuple[tuple[Any, ...], str | None] | None = None
        # Marks show on the fields a person has changed, or on all of them
        # once a call or an accept asked for the whole value.
        self.touched: set[tuple[Any, ...]] = set()
        self.show_all_marks = False
        self.violations: list[Violation] = []
        self._generation = 0
        self._checking = False
        self._check_again = False

    # -- public surface --------------------------------------------------------------

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

    def _show_new_form(self) -> None:
        """The rows of a new schema.  Rows of the same shape as the ones on
        screen take the new nodes at once (in order, wherever they sit), the
        others leave the screen at once, and the few rows left to build follow
        before the next frame: moving between similar tools lays the screen
        out once at most, and a tool like the last builds nothing.  Otherwise
        the previous schema's rows go from the screen at once and the new ones
        are mounted after the next refresh (a big form takes a while)."""
        if not self._rebuild_scheduled and self._focused_place() is None:
            specs = self._specs()
            plan = self._plan(specs)
            built = sum(1 for row in plan if row is None)
            if built <= ROW_CHUNK:
                self._rebind(specs, plan)
                kept = {id(row) for row in plan if row is not None}
                stale = [child for child in self.children if id(child) not in kept]
                if not built and not stale:
                    return
                for child in stale:
                    child.display = False
                self.rebuild(soon=True)
                return
        for child in self.children:
            child.display = False
        self.rebuild()

    def _plan(self, specs: list[tuple[FormNode, int] | None]) -> list[Widget | None]:
        """For each row *specs* asks for, a row on screen of the same shape
        to take its node (None: one is built), in the order they stand: the
        longest run of matching shapes (a field added or dropped keeps the
        rows around it)."""
        children = list(self.children)
        wanted = [_spec_shape(spec) for spec in specs]
        have = [_child_shape(child) for child in children]
        # Longest common subsequence of shapes (forms are small: at most a few
        # hundred rows on each side, and only when they differ a little).
        rows, cols = len(wanted), len(have)
        if rows * cols > 40_000:
            return [None] * rows
        table = [[0] * (cols + 1) for _ in range(rows + 1)]
        for i in range(rows - 1, -1, -1):
            for j in range(cols - 1, -1, -1):
                if wanted[i] is not None and wanted[i] == have[j]:
                    table[i][j] = table[i + 1][j + 1] + 1
                else:
                    table[i][j] = max(table[i + 1][j], table[i][j + 1])
        plan: list[Widget | None] = [None] * rows
        i = j = 0
        while i < rows and j < cols:
            if wanted[i] is not None and wanted[i] == have[j]:
                plan[i] = children[j]
                i += 1
                j += 1
            elif table[i + 1][j] >= table[i][j + 1]:
                i += 1
            else:
                j += 1
        return plan

    @staticmethod
    def _rebind(specs: list[tuple[FormNode, int] | None], plan: list[Widget | None]) -> None:
        for spec, row in zip(specs, plan, strict=True):
            if spec is not None and isinstance(row, FieldRow):
                row.rebind(spec[0])
            if row is not None and not row.display:
                row.display = True

    def _reuse(self, specs: list[tuple[FormNode, int] | None]) -> int:
        """Give the rows on screen the nodes of *specs* from the first, as far
        as their shapes match; how many took one."""
        children = self.children
        kept = 0
        for spec, child in zip(specs, children, strict=False):
            if _spec_shape(spec) is None or _spec_shape(spec) != _child_shape(child):
                break
            kept += 1
        for spec, child in zip(specs[:kept], children, strict=False):
            if spec is not None and isinstance(child, FieldRow):
                child.rebind(spec[0])
        return kept

    def load_value(self, value: Any) -> None:
        if self.root is not None:
            self.root.load_value(value)
            if not self._rebuild_scheduled and self._focused_place() is None:
                # The same rows (a tool's saved value on its new form): they take it at once.
                specs = self._specs()
                if len(specs) == len(self.children) and self._reuse(specs) == len(specs):
                    return
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

    def marks_shown(self, node: FormNode) -> bool:
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

    def focus_first(self) -> None:
        """Focus the editor of the first required field still empty (what the
        person must type first), else the first widget."""
        if self._rebuild_pending:
            # The rows are about to be replaced: focus the new ones instead.
            self._focus_after_rebuild = True
            return
        widgets = [w for w in self.query(FOCUSABLE) if w.focusable]
        for widget in widgets:
            row = self._row_of(widget)
            if row is not None and not isinstance(widget, Button) and row.node.required and not row.node.is_set:
                widget.focus()
                return
        if widgets:
            widgets[0].focus()

    # -- array items from the keyboard -------------------------------------------------

    def _focused_node(self) -> FormNode | None:
        row = self._row_of(self.app.focused) if self.app.focused is not None else None
        return row.node if row is not None else None

    @staticmethod
    def _item_of(node: FormNode | None) -> FormNode | None:
        """The array item *node* is (or is in), innermost first."""
        while node is not None:
            if _is_item(node):
                return node
            node = node.parent
        return None

    def action_add_item(self) -> None:
        """A new item after the one focus is in (or at the end of the array
        whose row has focus); typing goes on in it."""
        node = self._focused_node()
        if isinstance(node, ArrayNode):
            array, index = node, len(node.items)
        else:
            item = self._item_of(node)
            if item is None or not isinstance(item.parent, ArrayNode) or not isinstance(item.key, int):
                return
            array, index = item.parent, item.key + 1
        if not array.can_add:
            return
        self._focus_to = (array.add(index=index).path, None)
        self._touch_structure(array)

    def action_move_item(self, step: int) -> None:
        item = self._item_of(self._focused_node())
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
        item = self._item_of(self._focused_node())
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

    # -- drawing ---------------------------------------------------------------------

    def rebuild(self, soon: bool = False) -> None:
        # Requests made while a rebuild is scheduled or running fold into it:
        # the loop below draws the model as it is once the last one is done.
        # *soon*: before the next frame (a few rows to add or remove), not after it.
        self._dirty = True
        self._rebuild_pending = True
        self._hold_keys(True)
        if not self._rebuild_scheduled:
            self._rebuild_scheduled = True
            if soon:
                self.call_next(self._rebuild)
            else:
                self.call_after_refresh(self._rebuild)

    async def _rebuild(self) -> None:
        # The rows a screen can show are mounted (and painted) first; the
        # rest follow a chunk per painted frame (`_mount_more`), so a
        # 100-field form is on screen long before its last row is built.
        # The rebuild counts as pending (keys wait) until the last row is in.
        # The screen is laid out once the rows are in, not as each one mounts
        # and each of its widgets after it (a layout of the whole screen apiece).
        rest: list[Widget] = []
        focused: tuple[tuple[Any, ...], str | None] | None = None
        try:
            with self.app.batch_update():
                while self._dirty:
                    self._dirty = False
                    self._mounting += 1
                    focused = self._focused_place()
                    if self._focus_to is not None:
                        focused, self._focus_to = self._focus_to, None
                    specs = self._specs()
                    # Rows under the person's hands are built anew (focus and the
                    # cursor go back to them); otherwise the rows on screen that
                    # match the new ones take their nodes.
                    if focused is None:
                        plan = self._plan(specs)
                        if sum(1 for row in plan if row is None) <= ROW_CHUNK:
                            await self._build_in_place(specs, plan)
                            rest = []
                            continue
                    kept = self._reuse(specs) if focused is None else 0
                    for child in self.children[:kept]:
                        if not child.display:
                            child.display = True
                    await self.remove_children(self.children[kept:])
                    rows = [self._widget(spec) for spec in specs[kept:]]
                    # A rebuild under the person's hands (focus in the form) mounts
                    # every row at once: focus goes back, and the view follows it,
                    # before the next key.
                    first = (
                        len(rows)
                        if focused is not None
                        else _rows_to_fill(rows, max(0, (self.size.height or FIRST_LINES) - kept))
                    )
                    await self.mount_all(rows[:first])
                    rest = rows[first:]
        finally:
            self._rebuild_scheduled = False
        if rest:
            self.call_after_refresh(self._mount_more, self._mounting, rest, focused)
        else:
            self._built(focused)

    async def _build_in_place(self, specs: list[tuple[FormNode, int] | None], plan: list[Widget | None]) -> None:
        """The rows of *plan* take their nodes where they stand; the others
        go, and a row is built for each spec that has none, in its place."""
        self._rebind(specs, plan)
        kept = {id(row) for row in plan if row is not None}
        stale = [child for child in self.children if id(child) not in kept]
        if stale:
            for child in stale:
                child.display = False
            # Not awaited: awaiting the removal runs its layout request a
            # second time, after the batch (a second layout of the screen).
            self.remove_children(stale)
            # Textual signals the removal's end only through the awaitable
            # not awaited above; each turn hands the loop to the removal.
            while any(child.is_attached for child in stale):  # noqa: ASYNC110
                await asyncio.sleep(0)
            await asyncio.sleep(0)
        waits = []
        pending: list[Widget] = []
        for spec, row in zip(specs, plan, strict=True):
            if row is None:
                pending.append(self._widget(spec))
            elif pending:
                waits.append(self.mount_all(pending, before=row))
                pending = []
        if pending:
            waits.append(self.mount_all(pending))
        for wait in waits:
            await wait

    async def _mount_more(
        self, generation: int, rest: list[Widget], focused: tuple[tuple[Any, ...], str | None] | None
    ) -> None:
        if generation != self._mounting or self._dirty or not self.is_attached:
            return  # a newer rebuild replaces these rows
        chunk, rest = rest[:ROW_CHUNK], rest[ROW_CHUNK:]
        await self.mount_all(chunk)
        if generation != self._mounting or self._dirty:
            return
        if rest:
            self.call_after_refresh(self._mount_more, generation, rest, focused)
        else:
            self._built(focused)

    def _built(self, focused: tuple[tuple[Any, ...], str | None] | None) -> None:
        """Every row is mounted: focus goes back where it was, keys flow again."""
        if focused is not None:
            self._refocus(*focused)
        self._rebuild_pending = False
        if self._focus_after_rebuild:
            self._focus_after_rebuild = False
            self.focus_first()
        self._hold_keys(False)

    def _hold_keys(self, hold: bool) -> None:
        # Keys typed while the rows are replaced wait for the new rows
        # (inspector.tui.key_order), so none lands on a row being removed.
        order = getattr(self.app, "key_order", None)
        if order is not None:
            if hold:
                order.busy(self)
            else:
                order.done(self)

    def on_unmount(self) -> None:
        self._hold_keys(False)

    def _specs(self) -> list[tuple[FormNode, int] | None]:
        """The rows the model asks for: each node with its depth (None: the
        line saying there are no arguments)."""
        specs: list[tuple[FormNode, int] | None] = []
        if self.root is not None:
            self._rows(self.root, 0, specs)
        return specs

    @staticmethod
    def _widget(spec: tuple[FormNode, int] | None) -> Widget:
        if spec is None:
            return Static(Text("no arguments", style="dim"), classes="no-arguments")
        return FieldRow(*spec)

    def _rows(self, node: FormNode, depth: int, out: list[tuple[FormNode, int] | None]) -> None:
        is_root_object = not node.path and isinstance(node, ObjectNode)
        if not is_root_object:
            out.append((node, depth))
        if node.is_raw:
            return
        next_depth = depth if is_root_object else depth + 1
        if isinstance(node, ObjectNode) and node.path and not node.present and not node.required:
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
            out.append(None)

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

    def _focused_place(self) -> tuple[tuple[Any, ...], str | None] | None:
        """The row holding focus, and which of its buttons has it."""
        focused = self.app.focused
        button = None
        if isinstance(focused, Button):
            button = next((name for name in focused.classes if name.startswith(("item-", "array-"))), None)
        while focused is not None and focused is not self:
            if isinstance(focused, FieldRow):
                return focused.node.path, button
            focused = focused.parent  # type: ignore[assignment]
        return None

    def _refocus(self, path: tuple[Any, ...], button: str | None = None) -> None:
        """Focus the row at *path* (its *button* if named; else its editor, or
        the first editor under it), or the item before it or its array when
        it has gone (an item removed)."""
        rows = list(self.query(FieldRow))
        by_path: dict[tuple[Any, ...], FieldRow] = {}
        for row in rows:
            # A union's row and its variant's share a path: the union's comes first.
            by_path.setdefault(row.node.path, row)
        target = by_path.get(path)
        while target is None and path:
            path = (*path[:-1], path[-1] - 1) if isinstance(path[-1], int) and path[-1] > 0 else path[:-1]
            target = by_path.get(path)
            button = None
        if target is None:
            return
        widgets = [w for w in target.query(FOCUSABLE) if w.focusable]
        if button is not None and button != UNDER:
            chosen = [w for w in widgets if w.has_class(button)]
        else:
            editors = [] if button == UNDER else [w for w in widgets if not _is_item_button(w)]
            under = [
                w
                for row in rows[rows.index(target) + 1 :]
                if row.node.path[: len(path)] == path
                for w in row.query(FOCUSABLE)
                if w.focusable and not _is_item_button(w)
            ]
            # Under a row just opened, typing goes to the first editor, not to
            # the "leave out" button of the object that was opened.
            typed = [w for w in under if not isinstance(w, Button)]
            chosen = editors or typed[:1] or under[:1]
        chosen = chosen or widgets
        if chosen:
            chosen[0].focus()

    # -- events from rows --------------------------------------------------------------

    @staticmethod
    def _row_of(widget: Widget) -> FieldRow | None:
        node: Any = widget
        while node is not None and not isinstance(node, FieldRow):
            node = node.parent
        return node

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
        row = self._row_of(event.button)
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


def _is_item_button(widget: Widget) -> bool:
    return isinstance(widget, Button) and any(name.startswith("item-") for name in widget.classes)
