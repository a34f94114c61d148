"""Where focus is in a form, and where it goes back to once its rows are rebuilt."""

from __future__ import annotations

from typing import Any

from textual.widget import Widget
from textual.widgets import Button

from inspector.forms import FormNode
from inspector.tui.widgets.form_row import FieldRow
from inspector.tui.widgets.form_text import is_item

__all__ = ["FOCUSABLE", "UNDER", "FocusPlace", "focus_target", "focused_place", "item_of", "row_of"]

FOCUSABLE = "Input, TextArea, Select, Checkbox, SelectionList, Button"

# After a rebuild, focus the first editor under the row rather than its own buttons.
UNDER = "-under"

# A row's path, and which of its buttons has focus (None: its editor).
FocusPlace = tuple[tuple[Any, ...], str | None]


def row_of(widget: Widget) -> FieldRow | None:
    """The row *widget* is in, if any."""
    node: Any = widget
    while node is not None and not isinstance(node, FieldRow):
        node = node.parent
    return node


def item_of(node: FormNode | None) -> FormNode | None:
    """The array item *node* is (or is in), innermost first."""
    while node is not None:
        if is_item(node):
            return node
        node = node.parent
    return None


def is_item_button(widget: Widget) -> bool:
    """Whether *widget* is one of an array item's buttons (up, down, remove)."""
    return isinstance(widget, Button) and any(name.startswith("item-") for name in widget.classes)


def focused_place(focused: Widget | None, form: Widget) -> FocusPlace | None:
    """The row of *form* holding focus (*focused*), and which of its buttons has it."""
    button = None
    if isinstance(focused, Button):
        button = next((name for name in focused.classes if name.startswith(("item-", "array-"))), None)
    while focused is not None and focused is not form:
        if isinstance(focused, FieldRow):
            return focused.node.path, button
        focused = focused.parent  # type: ignore[assignment]
    return None


def _row_at(rows: list[FieldRow], path: tuple[Any, ...]) -> tuple[FieldRow | None, tuple[Any, ...]]:
    """The row at *path*, or the item before it or its array when it has gone
    (an item removed); and the path found."""
    by_path: dict[tuple[Any, ...], FieldRow] = {}
    for row in rows:
        # A union's row and its variant's share a path: the union's comes first.
        by_path.setdefault(row.node.path, row)
    target = by_path.get(path)
    while target is None and path:
        path = (*path[:-1], path[-1] - 1) if isinstance(path[-1], int) and path[-1] > 0 else path[:-1]
        target = by_path.get(path)
    return target, path


def focus_target(rows: list[FieldRow], path: tuple[Any, ...], button: str | None = None) -> Widget | None:
    """What to focus for the row at *path* (its *button* if named; else its
    editor, or the first editor under it), or the item before it or its array
    when it has gone (an item removed)."""
    target, found = _row_at(rows, path)
    if target is None:
        return None
    if found != path:
        button = None
    path = found
    widgets = [w for w in target.query(FOCUSABLE) if w.focusable]
    if button is not None and button != UNDER:
        chosen = [w for w in widgets if w.has_class(button)]
    else:
        editors = [] if button == UNDER else [w for w in widgets if not is_item_button(w)]
        under = [
            w
            for row in rows[rows.index(target) + 1 :]
            if row.node.path[: len(path)] == path
            for w in row.query(FOCUSABLE)
            if w.focusable and not is_item_button(w)
        ]
        # Under a row just opened, typing goes to the first editor, not to
        # the "leave out" button of the object that was opened.
        typed = [w for w in under if not isinstance(w, Button)]
        chosen = editors or typed[:1] or under[:1]
    chosen = chosen or widgets
    return chosen[0] if chosen else None
