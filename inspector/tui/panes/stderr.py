"""The Stderr tab: process lifecycle and the server's stderr lines, with a
filter box like Traffic's."""

from __future__ import annotations

import time

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input

from inspector.core.record.traffic import Frame, TrafficLog
from inspector.tui import looks
from inspector.tui.safe import plain_line
from inspector.tui.widgets.traffic_table import TrafficTable

__all__ = ["StderrFilter", "StderrPane", "stderr_row"]


def stderr_row(frame: Frame, width: int = 0) -> Text:
    """A line the server wrote to stderr, or a note on its process, after the time."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(time.strftime("%H:%M:%S", time.localtime(frame.time)) + " ", style="dim")
    if frame.kind == "stderr":
        text.append_text(plain_line(frame.text(), 500))
    else:
        text.append_text(plain_line(frame.note or "", 500, style=looks.WARNING_STRONG))
    return text


def _is_stderr(frame: Frame) -> bool:
    return frame.kind in ("stderr", "process")


class StderrFilter:
    """What the Stderr filter box means: words that must all appear in the
    line (any case); a word starting with `-` must not appear."""

    def __init__(self, query: str) -> None:
        words = query.lower().split()
        self.wanted = [w for w in words if not (w.startswith("-") and len(w) > 1)]
        self.unwanted = [w[1:] for w in words if w.startswith("-") and len(w) > 1]

    @property
    def empty(self) -> bool:
        """Whether the filter keeps every line."""
        return not (self.wanted or self.unwanted)

    def __call__(self, frame: Frame) -> bool:
        if not _is_stderr(frame):
            return False
        line = (frame.text() if frame.kind == "stderr" else frame.note or "").lower()
        return all(w in line for w in self.wanted) and not any(w in line for w in self.unwanted)


class StderrPane(Vertical):
    """Process lifecycle and server stderr, with a `/` filter like Traffic's."""

    BINDINGS = [Binding("slash", "focus_filter", "Filter stderr", key_display="/", id="stderr_filter")]

    def __init__(self, traffic: TrafficLog) -> None:
        super().__init__()
        self.traffic = traffic

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter: words that must all appear, -word to hide", id="stderr-filter")
        yield TrafficTable(
            self.traffic.frames, predicate=_is_stderr, row_renderer=stderr_row, arrows="lines", id="stderr-table"
        )

    @property
    def table(self) -> TrafficTable:
        """The table of lines."""
        return self.query_one("#stderr-table", TrafficTable)

    @on(Input.Changed, "#stderr-filter")
    def _filter(self, event: Input.Changed) -> None:
        query = StderrFilter(event.value)
        self.table.set_filter(_is_stderr if query.empty else query)

    @on(Input.Submitted, "#stderr-filter")
    def _filter_done(self) -> None:
        self.table.focus()

    def action_focus_filter(self) -> None:
        self.query_one("#stderr-filter", Input).focus()
