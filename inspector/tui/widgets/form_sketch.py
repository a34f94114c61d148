"""A form row drawn as text before its widgets exist (a "sketch").

A big form's rows below its first screenful start as sketches: one widget
each, drawing the row's label, value and note as its widgets would, so the
whole form is there (its height, its scrollbar, its Tab order) at once.
A sketch becomes the row's widgets when it is shown (scrolled to) or
focused (tabbed or clicked to): `FieldRow.build`.  Only rows of one editor
beside their label are sketched (a text field or a choice); a row of
buttons, blocks or marks is always built.
"""

from __future__ import annotations

from rich.text import Text

from inspector.core.safetext import one_line, visible
from inspector.forms import BooleanNode, EnumNode, FormNode
from inspector.tui.widgets.form_editors import bool_choice, enum_choice, text_placeholder
from inspector.tui.widgets.form_select import BLANK
from inspector.tui.widgets.form_text import field_label, has_note, note_text, select_prompt

__all__ = ["SKETCHED", "can_sketch", "sketch_height", "sketch_text"]

# The row shapes (`row_shape`) a sketch can stand for: one editor beside the label.
SKETCHED = frozenset({"input", "enum", "bool"})
# The width of a row's label (FieldRow's CSS: `.field-label { width: 22 }`).
LABEL_WIDTH = 22


def can_sketch(node: FormNode, shape: tuple[object, ...] | None) -> bool:
    """Whether the row of *node* (of *shape*) can start as a sketch: one editor, no marks to show."""
    return shape is not None and shape[0] in SKETCHED and not node.errors and not node.text_error


def sketch_height(node: FormNode) -> int:
    """The lines the row takes once built (its line, and its note's)."""
    return 2 if has_note(node) else 1


def _value(node: FormNode) -> Text:
    if isinstance(node, EnumNode):
        choice = enum_choice(node)
        if choice is BLANK:
            return Text(select_prompt(node), style="dim")
        return Text(visible(one_line(node.options[choice].label, 80)))
    if isinstance(node, BooleanNode):
        choice = bool_choice(node)
        return Text(select_prompt(node), style="dim") if choice is BLANK else Text(str(choice))
    text = node.text()
    if not text:
        return Text(text_placeholder(node), style="dim")
    if getattr(node, "secret", False):
        return Text("•" * min(len(text), 40))
    return Text(visible(one_line(text, 200)))


def sketch_text(node: FormNode) -> Text:
    """The row as its widgets draw it: the label, the value (or what a blank one shows), the note under them."""
    label = field_label(node)
    label.truncate(LABEL_WIDTH, overflow="ellipsis", pad=True)
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append_text(label)
    text.append(" ")
    text.append_text(_value(node))
    if has_note(node):
        text.append("\n  ")
        note = note_text(node)
        note.stylize("dim")
        text.append_text(note)
    return text
