"""Palette entries for several servers in one window: go to a server, the
matrix of one, and the diff of two (what `inspector diff` compares: every
list of each, on connections of their own, so the sessions on screen are
left alone)."""

from __future__ import annotations

import argparse
from functools import partial
from itertools import combinations
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from inspector.core.safetext import one_line, visible
from inspector.core.servers.spec import ServerSpec
from inspector.tui import looks
from inspector.tui.screens.report_box import ReportScreen

if TYPE_CHECKING:
    from inspector.tui.app import InspectorApp
    from inspector.tui.palette import PaletteEntry

__all__ = ["DiffScreen", "server_entries"]


def server_entries(app: InspectorApp) -> list[PaletteEntry]:
    """Nothing with one server; with several: a "server:" entry per server,
    "matrix:" per server and "diff:" per pair, in list order."""
    from inspector.tui.palette import PaletteEntry

    views = app.views
    if len(views) < 2:
        return []
    entries = []
    for number, view in enumerate(views, start=1):
        label = one_line(view.label, 40)
        entries.append(
            PaletteEntry(
                f"server: {number} {label}",
                "show this server's panes (ctrl+n: the next server)",
                partial(app.show_server, view),
            )
        )
    for number, view in enumerate(views, start=1):
        if view.recording is None:
            entries.append(
                PaletteEntry(
                    f"matrix: server {number} {one_line(view.label, 40)}",
                    "this server under each protocol revision it accepts, on connections of its own",
                    partial(_open_matrix, app, view.spec),
                )
            )
    for (one, first), (two, second) in combinations(enumerate(views, start=1), 2):
        if first.recording is not None or second.recording is not None:
            continue
        entries.append(
            PaletteEntry(
                f"diff: these two servers: {one} {one_line(first.label, 30)} → {two} {one_line(second.label, 30)}",
                "what inspector diff compares: every tool, resource, template and prompt of each",
                partial(app.push_screen, DiffScreen((first.label, first.spec), (second.label, second.spec))),
            )
        )
    return entries


def _open_matrix(app: InspectorApp, spec: ServerSpec) -> None:
    from inspector.tui.screens.matrix import MatrixScreen

    app.push_screen(MatrixScreen(spec))


class DiffScreen(ReportScreen):
    """`inspector diff` of two servers of the list, shown as it prints it."""

    BINDINGS = [Binding("escape", "close_diff", "Close", id="close_diff")]

    def __init__(self, before: tuple[str, ServerSpec], after: tuple[str, ServerSpec]) -> None:
        super().__init__()
        self.before = before
        self.after = after
        # The report's lines once both sides answered (what a test reads).
        self.lines: list[str] | None = None
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "diff"
            yield Static(
                Text(f"asking A = {visible(self.before[0])} and B = {visible(self.after[0])}…"), id="diff-status"
            )
            with VerticalScroll(id="diff-scroll"):
                yield Static(Text(""), id="diff-report")
            yield Static(Text("escape close · + only in B, - only in A, ~ changed", style="dim"))

    def on_mount(self) -> None:
        self.run_worker(self._compare(), exclusive=True, exit_on_error=False)

    async def _compare(self) -> None:
        from inspector.commands.answers import CliHandlers
        from inspector.commands.diff import Side, fetch_sides, report_lines
        from inspector.commands.runner import failure
        from inspector.core.compare.diff import diff_lists

        sides = [Side("a", self.before[0], spec=self.before[1]), Side("b", self.after[0], spec=self.after[1])]
        status = self.query_one("#diff-status", Static)
        try:
            # Nobody answers these connections' server requests: they are refused.
            before, after = await fetch_sides(sides, argparse.Namespace(), handlers=CliHandlers(False))
        except Exception as exc:  # noqa: BLE001 - a side that fails is said, not raised
            _code, message, _detail = failure(exc)
            self.error = message
            status.update(Text(f"cannot compare: {visible(message)}", style=looks.ERROR_STRONG))
            return
        report = diff_lists(before, after, frozenset())
        lines = report_lines(report)
        self.lines = lines
        heading = f"A = {self.before[0]}   B = {self.after[0]}"
        status.update(Text(visible(heading) + ("" if lines else "\nno differences"), style="bold"))
        self.query_one("#diff-report", Static).update(Text("\n".join(visible(line) for line in lines)))

    def action_close_diff(self) -> None:
        self.dismiss(None)
