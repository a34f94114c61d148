"""Which rows a form's model asks for, which rows on screen can take their
nodes instead of being built anew, and how many rows fill a screen."""

from __future__ import annotations

from typing import Any

from textual.widget import Widget
from textual.widgets import Static

from inspector.forms import ExtrasNode, FormNode, MultiSelectNode, NullableNode, ObjectNode, RawJsonNode
from inspector.tui.widgets.form_row import FieldRow, row_shape

__all__ = [
    "FIRST_LINES",
    "ROW_CHUNK",
    "SPARE_ROWS",
    "RowSpec",
    "child_shape",
    "chunk_to_mount",
    "match_rows",
    "row_specs",
    "rows_to_fill",
    "spec_shape",
]

# A form's first rows are mounted at once: enough to fill its height (or
# FIRST_LINES before it has one); the rest follow ROW_CHUNK at a time, one
# chunk per painted frame.
FIRST_LINES = 24
ROW_CHUNK = 8
# Rows a form keeps blank at its end for a later form's nodes (`FieldRow.vacate`).
SPARE_ROWS = 4
# A sketched row (one widget) against a built one (five to ten).
SKETCH_COST = 0.05

# A row the model asks for: a node and its depth (None: the line saying there are no arguments).
RowSpec = tuple[FormNode, int] | None


def row_specs(root: FormNode | None) -> list[RowSpec]:
    """The rows the model asks for: each node with its depth (None: the
    line saying there are no arguments)."""
    specs: list[RowSpec] = []
    if root is not None:
        _rows(root, 0, specs)
    return specs


def _rows(node: FormNode, depth: int, out: list[RowSpec]) -> None:
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
        if not (isinstance(node, ObjectNode) and child is node.extras and not _show_extras(node))
    ]
    for child in shown:
        _rows(child, next_depth, out)
    if is_root_object and not shown:
        out.append(None)


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


def spec_shape(spec: RowSpec) -> tuple[Any, ...] | None:
    """The shape of the row a spec asks for (`row_shape`; the "no arguments" line has one too)."""
    if spec is None:
        return ("no-arguments",)
    return row_shape(*spec)


def child_shape(child: Widget) -> tuple[Any, ...] | None:
    """The shape of a row on screen (None: one no node can take)."""
    if isinstance(child, FieldRow):
        return child.shape
    if isinstance(child, Static) and child.has_class("no-arguments"):
        return ("no-arguments",)
    return None


def match_rows(wanted: list[tuple[Any, ...] | None], have: list[tuple[Any, ...] | None]) -> list[int | None]:
    """For each shape *wanted*, the index of a shape in *have* equal to it (None:
    none), in the order they stand: the longest run of matching shapes (a field
    added or dropped keeps the rows around it)."""
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
    plan: list[int | None] = [None] * rows
    i = j = 0
    while i < rows and j < cols:
        if wanted[i] is not None and wanted[i] == have[j]:
            plan[i] = j
            i += 1
            j += 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return plan


def chunk_to_mount(rows: list[Widget]) -> int:
    """How many of *rows* to mount in the next frame: ROW_CHUNK built rows,
    a sketch (`FieldRow.sketch`) counting as a small part of one."""
    cost = 0.0
    for count, row in enumerate(rows, start=1):
        cost += SKETCH_COST if isinstance(row, FieldRow) and row.sketched else 1.0
        if cost >= ROW_CHUNK:
            return count
    return len(rows)


def rows_to_fill(rows: list[Widget], lines: int) -> int:
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
