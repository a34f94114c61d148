"""The bottom panel: its tabs (Traffic, Stderr, Logs, Problems, Latency),
taking in new frames, and its size."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.css.scalar import Unit
from textual.reactive import var
from textual.widgets import Input, Static, TabbedContent, TabPane

from inspector.core.record.latency import latency_table
from inspector.core.record.traffic import Frame
from inspector.core.safetext import one_line
from inspector.tui.panes.context import ServerContext
from inspector.tui.panes.logs import LogsPane
from inspector.tui.panes.problems import ProblemsPane
from inspector.tui.panes.stderr import StderrPane
from inspector.tui.panes.traffic import TrafficPane
from inspector.tui.widgets.traffic_table import TrafficTable

__all__ = ["BottomPanel", "latency_renderable"]


def latency_renderable(frames: list[Frame]) -> Text:
    """Count and percentiles per method, as aligned columns of one text
    (a rich Table pads with bare spaces, which a screenshot's text drops)."""
    rows = latency_table(frames)
    if not rows:
        return Text("no answered requests yet", style="dim")
    width = max(len("method"), *(len(one_line(row.method, 60)) for row in rows))
    text = Text(no_wrap=True)
    text.append(
        f"{'method':<{width}}  {'count':>6}  {'errors':>6}  {'p50 ms':>9}  {'p95 ms':>9}  {'max ms':>9}\n", style="bold"
    )
    for row in rows:
        text.append(
            f"{one_line(row.method, 60):<{width}}  {row.count:>6}  {row.errors or '':>6}"
            f"  {row.p50 * 1000:>9.1f}  {row.p95 * 1000:>9.1f}  {row.max * 1000:>9.1f}\n"
        )
    text.rstrip()
    return text


class BottomPanel(Vertical):
    """The tabs under the panes; hidden, collapsed to its tab row, or resized by the person."""

    # How many of the server's lists are arriving now (bound by the view; the Traffic pane's is bound to this).
    lists_loading: var[int] = var(0)

    def __init__(self, server: ServerContext) -> None:
        super().__init__()
        self.server = server
        self.traffic = server.traffic
        # How many frames the wire validation (in a thread) is done with:
        # the Problems tab takes no frame before its findings are known.
        self.checked = 0

    def compose(self) -> ComposeResult:
        with TabbedContent(id="bottom-tabs"):
            with TabPane("Traffic", id="traffic"):
                yield TrafficPane(self.traffic).data_bind(BottomPanel.lists_loading)
            with TabPane("Stderr", id="stderr"):
                yield StderrPane(self.traffic)
            with TabPane("Logs", id="logs"):
                yield LogsPane(self.server)
            with TabPane("Problems", id="problems"):
                yield ProblemsPane()
            with TabPane("Latency", id="latency"):
                yield VerticalScroll(Static("", id="latency-table"))

    def sync(self) -> None:
        """Take in new frames; the Problems tab takes the findings of the
        first `checked` frames (those the wire validation is done with)."""
        for table in self.query(TrafficTable):
            table.sync()
        problems = self.query_one(ProblemsPane)
        total = problems.take(self.traffic.frames, self.checked)
        counts = problems.counts
        label = "Problems" if not total else f"Problems ({counts.get('error', 0)}✖ {counts.get('warning', 0)}⚠)"
        tab = self.query_one("#bottom-tabs", TabbedContent).get_tab("problems")
        # A tab's label, even the same one, lays the whole screen out: only
        # when it changed (this runs at every sync while frames stream in).
        if tab.label.plain != label:
            tab.label = label
        if self.query_one("#bottom-tabs", TabbedContent).active == "latency":
            self.query_one("#latency-table", Static).update(latency_renderable(self.traffic.frames))

    @on(ProblemsPane.ShowFrame)
    def _show_frame(self, event: ProblemsPane.ShowFrame) -> None:
        tabs = self.query_one("#bottom-tabs", TabbedContent)
        tabs.active = "traffic"
        pane = self.query_one(TrafficPane)
        if not pane.table.select_seq(event.seq):
            pane.query_one("#traffic-filter", Input).value = ""
            pane.table.set_filter(None)
            pane.table.select_seq(event.seq)
        pane.table.focus()

    @on(TabbedContent.TabActivated, "#bottom-tabs")
    def _tab_shown(self, event: TabbedContent.TabActivated) -> None:
        self.sync()
        # Focus left inside the pane just hidden would be moved by Textual to
        # a sibling in that same pane, which switches the tab straight back:
        # take it along to the pane now shown.
        focused = self.app.focused
        if focused is None or event.pane in focused.ancestors:
            return
        ancestors = focused.ancestors
        if self in ancestors and any(isinstance(node, TabPane) for node in ancestors):
            targets = [*event.pane.query(TrafficTable), *(w for w in event.pane.query("*") if w.focusable)]
            if targets:
                targets[0].focus()

    def open(self) -> None:
        """Show the panel at its full height."""
        self.remove_class("hidden", "collapsed")

    def on_click(self) -> None:
        # Collapsed to its tab row: a click on a tab opens the panel there.
        if self.has_class("collapsed"):
            self.open()

    def toggle(self) -> None:
        """Hide an open panel; open a hidden or collapsed one."""
        if self.has_class("hidden") or self.has_class("collapsed"):
            self.open()
        else:
            self.add_class("hidden")

    def resize_by(self, delta: int) -> None:
        """Grow the panel by *delta* rows (shrink when negative), between 5 and 60; a hidden or collapsed panel opens
        instead."""
        if self.has_class("hidden") or self.has_class("collapsed"):
            self.open()
            return
        height = self.styles.height
        current = int(height.value) if height is not None and height.unit is Unit.CELLS else 12
        self.styles.height = max(5, min(60, current + delta))
