"""The widgets a form's row is made of: its line, label and note, the one-line
editor, and the compact style they are given before they are mounted."""

from __future__ import annotations

from typing import Any, TypeVar

from textual.containers import Horizontal
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

__all__ = ["FieldLabel", "FieldLine", "FieldNote", "FormInput", "compact"]

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
    """A row's key, at the start of its line (no layout when it changes: see `FieldLine`)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)


class FieldNote(Static):
    """The dimmed note under a row's line (no layout when it changes: see `FieldLine`)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)


class FormInput(Input):
    """A form's one-line editor.  Its width is the row's whatever the text:
    a value typed or loaded repaints it, without laying the screen out
    (Textual's Input sets its virtual size to the text's on every change)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)
