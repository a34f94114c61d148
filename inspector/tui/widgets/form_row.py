"""One row of a form: a node's line (label and editor), its note, the blocks
under it and its marks; and the shape by which a row can show another node."""

from __future__ import annotations

import asyncio
from typing import Any, Protocol, runtime_checkable

from rich.text import Text
from textual.app import ComposeResult, RenderResult
from textual.containers import Vertical
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import Reactive
from textual.strip import Strip
from textual.widgets import Input, Label, Select, Static, TextArea

from inspector.core.safetext import has_controls, one_line, visible
from inspector.forms import (
    ArrayNode,
    BooleanNode,
    ConstNode,
    EnumNode,
    ExtrasNode,
    FormNode,
    MultiSelectNode,
    NullableNode,
    ObjectNode,
    RawJsonNode,
    StringNode,
    UnionNode,
    build_form,
)
from inspector.tui.widgets.form_editors import (
    block_editors,
    bool_choice,
    enum_choice,
    item_buttons,
    line_editors,
    text_placeholder,
)
from inspector.tui.widgets.form_parts import FieldLabel, FieldLine, FieldNote, FormInput
from inspector.tui.widgets.form_select import FormSelect
from inspector.tui.widgets.form_sketch import can_sketch, sketch_height, sketch_text
from inspector.tui.widgets.form_text import (
    array_count,
    errors_text,
    field_label,
    has_note,
    is_item,
    kind_text,
    note_text,
    select_prompt,
)
from inspector.tui.widgets.vacancy import Vacancy

__all__ = ["FieldRow", "ShowsMarks", "row_shape"]

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


def row_shape(node: FormNode, depth: int) -> tuple[Any, ...] | None:
    """What a row for this node is made of, when another node's row of the
    same shape can be given this node instead of being built anew (a tool's
    form after another's: same widgets, new label, note and value); None
    for rows that are always built."""
    if node.is_raw or is_item(node) or isinstance(node, _STRUCTURED):
        return None
    note = has_note(node)
    if isinstance(node, EnumNode):
        current = node.selected_index
        labels = tuple(visible(option.label) for option in node.options)
        return ("enum", depth, note, labels, not node.required or current is None, select_prompt(node))
    if isinstance(node, BooleanNode):
        return ("bool", depth, note, select_prompt(node))
    if isinstance(node, StringNode) and has_controls(node.text()):
        return None
    if isinstance(node, StringNode) and node.multiline:
        return ("text", depth, note)
    return ("input", depth, note)


# The node of a vacant row (`FieldRow.vacate`): a form of its own, shown nowhere.
_VACANT = build_form({"type": "string"})


@runtime_checkable
class ShowsMarks(Protocol):
    """What a row asks of the form it is in: whether a node's marks show yet."""

    def marks_shown(self, node: FormNode) -> bool:
        """Whether *node*'s marks are shown."""
        ...


class FieldRow(Vacancy, Vertical):
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
    FieldRow.-sketch { height: 1; }
    FieldRow.-sketch.-noted { height: 2; }
    """

    class SketchShown(Message):
        """A sketched row was drawn on screen: it is to be built."""

        def __init__(self, row: FieldRow) -> None:
            super().__init__()
            self.row = row

    # See FieldLine.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)

    def __init__(self, node: FormNode, depth: int) -> None:
        super().__init__()
        self.node = node
        self.shape = row_shape(node, depth)
        if depth:
            # (Styles set on a widget cost a restyle: none for the top-level rows.)
            self.styles.padding = (0, 0, 0, depth * 2)
        self._errors: Static | None = None
        # An array's "N items, M empty" line: it changes as its items are typed into.
        self._count: Static | None = None
        self._composed = False
        # Drawn as text until shown or focused (`sketch`, `build`).
        self._sketched = False
        self._asked = False
        self._building: asyncio.Event | None = None

    @property
    def can_vacate(self) -> bool:
        """Whether the row can stay blank for a later node: one of a shape another node can take, built."""
        return self.shape is not None and self._composed and not self._sketched

    def vacate(self) -> None:
        """Blank the row where it stands, for a later form to give a node of
        its shape; the rows around it do not move."""
        if not self.vacant:
            # No node of any form: nothing finds a field here by its path.
            self.node = _VACANT
        super().vacate()

    def sketch(self) -> bool:
        """Start as a sketch (before mounting), if this row's kind can: its
        widgets are built once it is shown or focused.  Whether it is one."""
        if self._composed or not can_sketch(self.node, self.shape):
            return False
        self._sketched = True
        self.can_focus = True
        self.add_class("-sketch", update=False)
        if sketch_height(self.node) > 1:
            self.add_class("-noted", update=False)
        return True

    @property
    def sketched(self) -> bool:
        """Whether the row is still drawn as text (its widgets not built yet)."""
        return self._sketched

    @property
    def settled(self) -> bool:
        """Whether the row draws what it will go on drawing: a sketch not yet
        shown, or a row whose widgets are built (none waiting or being built)."""
        if self._sketched:
            return not self._asked
        return self._building is None or self._building.is_set()

    def render(self) -> RenderResult:
        if self._sketched:
            return sketch_text(self.node)
        return super().render()

    def render_lines(self, crop: Region) -> list[Strip]:
        # Only a row on screen is drawn: a sketch drawn is one the person can see.
        if self._sketched and not self._asked:
            self._asked = True
            self.post_message(self.SketchShown(self))
        return super().render_lines(crop)

    async def build(self) -> None:
        """Build the widgets of a sketched row (once; a second call waits for the first)."""
        if not self._sketched:
            if self._building is not None:
                await self._building.wait()
            return
        self._sketched = False
        self._building = asyncio.Event()
        if self.app.focused is not self:
            # (A focused sketch stays focusable until its editor has taken focus: `on_focus`.)
            self.can_focus = False
        self.remove_class("-sketch", "-noted")
        try:
            await self.recompose()
        finally:
            self._building.set()

    async def on_focus(self) -> None:
        """A sketch tabbed or clicked to: its widgets are built and its editor
        takes focus; keys typed meanwhile wait for it (`KeyOrder`)."""
        if not self._sketched:
            return
        order = getattr(self.app, "key_order", None)
        if order is not None:
            order.busy(self)
        try:
            await self.build()
            editor = next((w for w in self.query("Input, Select, TextArea") if w.focusable), None)
            if editor is not None and self.app.focused in (self, None):
                editor.focus()
        finally:
            # After the focus move just scheduled: the row leaves the focus
            # chain, and the next key goes to the editor.
            self.app.call_later(self._handed_focus, order)

    def _handed_focus(self, order: Any) -> None:
        self.can_focus = False
        if order is not None:
            order.done(self)

    def compose(self) -> ComposeResult:
        if self._sketched:
            return
        self._composed = True
        node = self.node
        blocks = list(block_editors(node))
        with FieldLine(classes="field-line"):
            yield FieldLabel(field_label(node), classes="field-label")
            if not blocks:
                yield from line_editors(node)
                if isinstance(node, ArrayNode):
                    self._count = Static(array_count(node), classes="field-kind")
                    yield self._count
            else:
                yield Static(Text(one_line(kind_text(node), 30)), classes="field-kind")
            yield from item_buttons(node)
        note = note_text(node)
        if note:
            yield FieldNote(note, classes="field-description")
        yield from blocks
        marks = self._marks()
        if marks:
            # Most rows never show a mark: their line is made when one comes.
            self._errors = Static(marks, classes="field-errors")
            yield self._errors

    def _marks(self) -> Text:
        form = self._form()
        return errors_text(self.node) if form is None or form.marks_shown(self.node) else Text()

    def _form(self) -> ShowsMarks | None:
        for ancestor in self.ancestors:
            if isinstance(ancestor, ShowsMarks):
                return ancestor
        return None

    def rebind(self, node: FormNode) -> None:
        """Show *node* (a row of the same shape, `row_shape`) in this row's
        widgets: its label, note, value and marks, nothing of the node it
        showed before."""
        self.node = node
        if self._sketched:
            self.refresh()
            self.show_errors()
            return
        if not self._composed:
            return  # it composes from the new node when it mounts
        self.query_one(".field-label", Label).update(field_label(node), layout=False)
        if has_note(node):
            self.query_one(".field-description", Static).update(note_text(node), layout=False)
        # Values put here are the model's already: not a change by the person.
        with self.prevent(Input.Changed, Select.Changed, TextArea.Changed):
            self._load_editor(node)
        self.show_errors()

    def _load_editor(self, node: FormNode) -> None:
        if isinstance(node, StringNode) and node.multiline:
            # load_text also forgets the undo history: no ctrl+z brings
            # back what was typed for another tool.
            self.query_one(".text-editor", TextArea).load_text(node.text())
        elif isinstance(node, EnumNode):
            self.query_one(FormSelect).value = enum_choice(node)
        elif isinstance(node, BooleanNode):
            self.query_one(FormSelect).value = bool_choice(node)
        else:
            editor = self.query_one(FormInput)
            editor.value = node.text()
            editor.cursor_position = len(editor.value)
            placeholder = text_placeholder(node)
            if editor.placeholder != placeholder:
                editor.placeholder = placeholder
            editor.password = bool(getattr(node, "secret", False))

    def refresh_count(self) -> None:
        """Redraw an array's item count (an item typed into may stop or start being empty)."""
        if self._count is not None and isinstance(self.node, ArrayNode):
            self._count.update(array_count(self.node))

    def show_errors(self) -> None:
        """Draw the node's marks as they stand (none while the form does not show them yet)."""
        # A row mounted a moment ago may not have composed its children yet;
        # it draws the node's errors itself when it does.
        if self.vacant:
            return
        if self._sketched:
            if self._marks():
                self.post_message(self.SketchShown(self))
            return
        if not self._composed:
            return
        marks = self._marks()
        if self._errors is not None:
            self._errors.update(marks)
            self._errors.set_class(not marks, "-empty")
        elif marks:
            self._errors = Static(marks, classes="field-errors")
            self.mount(self._errors)
