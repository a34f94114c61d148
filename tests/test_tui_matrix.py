"""The compatibility matrix in the TUI: reached from the command palette,
built on connections of its own, the rows that differ shown inert."""

from __future__ import annotations

from textual.widgets import DataTable

from inspector.core.servers.spec import ServerSpec
from inspector.tui.app import InspectorApp
from inspector.tui.screens.matrix import MatrixScreen

from .peers import PYTHON, SERVERS
from .test_tui_palette import SIZE, choose
from .tui_helpers import burst, wait_connected, wait_for


def cells(table: DataTable) -> list[list[str]]:  # type: ignore[type-arg]
    return [[str(cell) for cell in table.get_row_at(index)] for index in range(table.row_count)]


async def test_the_matrix_from_the_palette_shows_the_tool_missing_under_an_old_revision() -> None:
    spec = ServerSpec(transport="stdio", command=PYTHON, args=[str(SERVERS / "matrix_odd.py")])
    app = InspectorApp(spec)
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        first = len(app.traffic.frames)
        await choose(pilot, app, "matrix: every revision, era and transport")
        await wait_for(pilot, lambda: isinstance(app.screen, MatrixScreen), "the matrix screen")
        screen = app.screen
        assert isinstance(screen, MatrixScreen)
        # Five stdio columns, each a fresh server: bounded only against a hang.
        await wait_for(pilot, lambda: screen.matrix is not None, "the matrix built", timeout=300)
        columns = cells(screen.query_one("#matrix-columns", DataTable))
        assert [row[0] for row in columns] == [
            "stdio 2024-11-05",
            "stdio 2025-03-26",
            "stdio 2025-06-18",
            "stdio 2025-11-25",
            "stdio 2026-07-28",
        ]
        assert columns[1][2] == "accepted" and columns[0][2].startswith("not accepted")
        rows = cells(screen.query_one("#matrix-rows", DataTable))
        report = next(row for row in rows if row[0] == "tools: report")
        assert report[1:] == ["·", "—", "✓", "✓", "·"]
        names = [row[0] for row in rows]
        assert "tools: evil␛]0;pwned␇␛[31mred" in names
        assert not any("\x1b" in cell for row in rows for cell in row)
        # The session on screen was not used for it.
        assert app.client.state == "connected"
        assert not any(frame.method == "initialize" for frame in app.traffic.frames[first:])
        await burst(pilot, "escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, MatrixScreen), "the matrix closed")
