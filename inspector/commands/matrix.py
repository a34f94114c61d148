"""`inspector matrix`: the server under every revision, era and transport.

A table on a terminal (Rich), `--format markdown` for a README, JSON with
`--json` (or when piped).  Exit 0 when every accepted column agrees,
`DIFFERENCES` when some row differs.  Every piece of server text passes
through `one_line`/`visible` (and Rich `Text`, never markup) before it is
printed; markdown cells are also escaped so a name cannot break the table.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from inspector.commands import exitcodes
from inspector.commands.output import Output
from inspector.core.compare.matrix import Cell, Column, Matrix, Row, build_matrix
from inspector.core.safetext import one_line, visible
from inspector.core.servers.spec import ServerSpec

__all__ = ["markdown_lines", "run_matrix", "short_cell"]

_MARKS = {"same": "✓", "missing": "—", "differs": "≠", "n/a": "·"}


def short_cell(cell: Cell) -> str:
    """A cell as a mark: ✓ same, ≠ differs, — missing, · not compared; a call's outcome (≠: shaped otherwise)."""
    mark = _MARKS.get(cell.state)
    if mark is not None:
        return mark
    # A call: its outcome, marked when its result is shaped otherwise.
    return f"{cell.state} ≠" if cell.changes else cell.state


def _column_state(column: Column) -> str:
    if column.accepted:
        return "accepted"
    return f"{column.status}: {one_line(column.detail or '', 80)}"


def _shown_rows(matrix: Matrix, every: bool) -> list[Row]:
    return matrix.rows if every else matrix.differences


def _detail_lines(matrix: Matrix, rows: list[Row]) -> list[str]:
    lines = []
    for row in rows:
        for column, cell in zip(matrix.columns, row.cells, strict=True):
            if cell.changes:
                changes = "; ".join(one_line(change, 100) for change in cell.changes[:8])
                more = f" (+{len(cell.changes) - 8} more)" if len(cell.changes) > 8 else ""
                note = f" ({one_line(cell.note, 100)})" if cell.note else ""
                lines.append(f"{row.section} {one_line(row.key, 60)} @ {column.label}: {changes}{more}{note}")
    return lines


def _md(text: str, limit: int = 80) -> str:
    # A pipe or a backtick in a server's name would reshape the table.
    return one_line(text, limit).replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")


def markdown_lines(matrix: Matrix, every: bool = False) -> list[str]:
    """The matrix as Markdown for a README: the columns' table, then the rows that differ (*every*: all rows)
    with their details."""
    columns = matrix.columns
    lines = [f"## Compatibility matrix: {_md(matrix.server)}", ""]
    lines += ["| transport | revision | era | status | negotiated | tools | resources | templates | prompts |"]
    lines += ["|---|---|---|---|---|---|---|---|---|"]
    for column in columns:
        counts = [str(len(column.lists[kind].items)) if kind in column.lists else "" for kind in _KINDS]
        lines.append(
            f"| {column.transport} | {column.revision} | {column.era} | {_md(_column_state(column))} "
            f"| {column.negotiated or ''} | " + " | ".join(counts) + " |"
        )
    rows = _shown_rows(matrix, every)
    lines.append("")
    if not rows:
        lines.append("No differences between the accepted columns.")
        return lines
    lines.append("| row | " + " | ".join(column.label for column in columns) + " |")
    lines.append("|---|" + "---|" * len(columns))
    for row in rows:
        cells = " | ".join(_md(short_cell(cell)) for cell in row.cells)
        lines.append(f"| {row.section}: {_md(row.key)} | {cells} |")
    details = _detail_lines(matrix, rows)
    if details:
        lines += ["", *(f"- {_md(line, 400)}" for line in details)]
    return lines


_KINDS = ("tools", "resources", "templates", "prompts")


def _print_table(matrix: Matrix, every: bool, stream: Any) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    # Piped text keeps every column: no terminal width to fit.
    width = None if stream.isatty() else 240
    console = Console(file=stream, highlight=False, soft_wrap=False, width=width)
    summary = Table(title=Text(f"inspector matrix: {one_line(matrix.server, 80)}"), show_lines=False)
    for name in ("column", "era", "status", "negotiated", *_KINDS, "calls"):
        summary.add_column(name)
    for column in matrix.columns:
        counts = [str(len(column.lists[kind].items)) if kind in column.lists else "" for kind in _KINDS]
        calls = sum(1 for call in column.calls.values() if call.get("outcome") == "ok")
        summary.add_row(
            Text(column.label),
            Text(column.era),
            Text(_column_state(column)),
            Text(column.negotiated or ""),
            *(Text(count) for count in counts),
            Text(f"{calls}/{len(column.calls)}" if column.calls else ""),
        )
    console.print(summary)
    rows = _shown_rows(matrix, every)
    if not rows:
        console.print(Text("no differences between the accepted columns"))
        return
    table = Table(title=Text("differences" if not every else "every row"))
    table.add_column("row")
    for column in matrix.columns:
        table.add_column(Text(f"{column.transport}\n{column.revision}"), justify="center")
    for row in rows:
        table.add_row(Text(f"{row.section}: {one_line(row.key, 50)}"), *(Text(short_cell(cell)) for cell in row.cells))
    console.print(table)
    for line in _detail_lines(matrix, rows):
        console.print(Text(visible(line, keep_newlines=False)))


async def _compute(spec: ServerSpec, args: argparse.Namespace) -> Matrix:
    from inspector.commands.runner import connected

    def connect(pinned: ServerSpec) -> Any:
        return connected(pinned, args)

    def progress(column: Column) -> None:
        if sys.stderr.isatty():
            print(f"inspector matrix: {column.label}: {column.status}", file=sys.stderr)

    ignore = frozenset(args.ignore) if args.ignore is not None else frozenset({"lastModified"})
    return await build_matrix(spec, connect=connect, call_tools=not args.no_calls, ignore=ignore, on_column=progress)


def run_matrix(spec: ServerSpec, args: argparse.Namespace) -> int:
    """`inspector matrix`: the server under every revision, era and transport; returns the exit code."""
    if spec.protocol_version or (getattr(args, "era", None) not in (None, "auto")):
        print("inspector: matrix asks every revision and era itself; drop --protocol-version/--era", file=sys.stderr)
        return exitcodes.USAGE
    if getattr(args, "record", None):
        # One file per column would be nine files; none is clearer than a partial one.
        print("inspector: matrix does not record (--record ignored): each column is its own session", file=sys.stderr)
    fmt = args.format or ("json" if getattr(args, "json", False) else None)
    out = Output.for_args(args) if fmt is None else Output(fmt == "json")
    fmt = fmt or ("json" if out.json else "table")
    try:
        matrix = asyncio.run(_compute(spec, args))
    except BrokenPipeError:
        raise
    except Exception as exc:  # noqa: BLE001 - a failure becomes a message and an exit code
        from inspector.commands.runner import reported

        return reported(exc)
    if not any(column.accepted for column in matrix.columns):
        if fmt == "json":
            out.json_value(matrix.to_json())
        for column in matrix.columns:
            print(f"inspector: {column.label}: {visible(_column_state(column))}", file=sys.stderr)
        return exitcodes.CANNOT_CONNECT
    if fmt == "json":
        out.json_value(matrix.to_json())
    elif fmt == "markdown":
        out.lines(markdown_lines(matrix, args.all))
    else:
        _print_table(matrix, args.all, out.stream)
    return exitcodes.DIFFERENCES if matrix.differences else exitcodes.OK
