"""The compatibility matrix in the TUI: the server under every revision, era
and transport (what `inspector matrix` prints), built in the background on
connections of its own, so the session on screen is left alone."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from inspector.core.compare.matrix import Column, Matrix, build_matrix, columns_for
from inspector.core.safetext import one_line
from inspector.core.servers.spec import ServerSpec
from inspector.tui.safe import plain_line
from inspector.tui.screens.report_box import ReportScreen

__all__ = ["MatrixScreen"]

_KINDS = ("tools", "resources", "templates", "prompts")
_MARKS = {"same": "✓", "missing": "—", "differs": "≠", "n/a": "·"}


class MatrixScreen(ReportScreen):
    """The compatibility matrix of *spec*'s server, built in the background on connections of its own."""

    BINDINGS = [Binding("escape", "close_matrix", "Close", id="close_matrix")]

    def __init__(self, spec: ServerSpec) -> None:
        super().__init__()
        self.spec = spec
        self.matrix: Matrix | None = None
        self._asked = 0

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "compatibility matrix"
            yield Static(Text(f"asking {len(columns_for(self.spec))} columns…"), id="matrix-status")
            yield DataTable(id="matrix-columns", cursor_type="row", zebra_stripes=True)
            yield DataTable(id="matrix-rows", cursor_type="row", zebra_stripes=True)
            yield Static(Text("escape close · only the rows that differ are listed", style="dim"))

    def on_mount(self) -> None:
        table = self.query_one("#matrix-columns", DataTable)
        table.add_columns("column", "era", "status", "negotiated", *_KINDS)
        self.run_worker(self._build(), exclusive=True)

    def _column_done(self, column: Column) -> None:
        self._asked += 1
        counts = [str(len(column.lists[kind].items)) if kind in column.lists else "" for kind in _KINDS]
        status = column.status if column.accepted else f"{column.status}: {column.detail or ''}"
        self.query_one("#matrix-columns", DataTable).add_row(
            Text(column.label), Text(column.era), plain_line(status, 70), Text(column.negotiated or ""), *counts
        )
        self.query_one("#matrix-status", Static).update(
            Text(f"asked {self._asked} of {len(columns_for(self.spec))} columns…")
        )

    async def _build(self) -> None:
        matrix = await build_matrix(self.spec, on_column=self._column_done)
        self.matrix = matrix
        rows = self.query_one("#matrix-rows", DataTable)
        rows.add_column("row")
        for column in matrix.columns:
            rows.add_column(column.label)
        for row in matrix.differences:
            cells = []
            for cell in row.cells:
                mark = _MARKS.get(cell.state) or (f"{cell.state} ≠" if cell.changes else cell.state)
                cells.append(plain_line(mark, 30))
            rows.add_row(plain_line(f"{row.section}: {one_line(row.key, 60)}"), *cells)
        found = len(matrix.differences)
        summary = f"{found} row(s) differ between the accepted columns" if found else "no differences"
        self.query_one("#matrix-status", Static).update(Text(summary))

    def action_close_matrix(self) -> None:
        self.dismiss(None)
