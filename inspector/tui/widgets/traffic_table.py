"""A virtual view over the traffic log: one line per frame, drawn on demand.

The log can hold hundreds of thousands of frames, so there is no widget per
line: `render_line` builds the few visible lines from the frames, with an
LRU cache of rendered rows, and appends only extend the virtual size.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...core.problems import severity_rank
from ...core.safetext import one_line
from ...core.traffic import Frame

__all__ = ["TrafficTable", "frame_summary"]

Predicate = Callable[[Frame], bool]

_DIRECTION = {"out": ("→", "bold cyan"), "in": ("←", "bold green"), "local": ("•", "bold yellow")}
_KIND_STYLE = {
    "request": "cyan",
    "response": "green",
    "error": "bold red",
    "notification": "magenta",
    "invalid": "bold white on red",
    "batch": "blue",
    "stderr": "dim",
    "http": "blue",
    "sse": "blue",
    "process": "yellow",
    "transport": "yellow",
}


def frame_summary(frame: Frame) -> str:
    """What the row says after kind: method, id, note or the first bytes."""
    if frame.method:
        text = frame.method
    elif frame.note:
        text = frame.note
    elif frame.kind == "stderr" or frame.kind == "invalid":
        text = frame.text()
    else:
        text = ""
    if frame.kind == "error" and isinstance(frame.message, dict):
        error = frame.message.get("error")
        if isinstance(error, dict):
            text = f"{text} {error.get('code')}: {error.get('message')}".strip()
    return text


def _size(size: int) -> str:
    if size < 1024:
        return f"{size}B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f}K"
    return f"{size / 1024 / 1024:.1f}M"


def row_text(frame: Frame) -> Text:
    clock = time.strftime("%H:%M:%S", time.localtime(frame.time)) + f".{int(frame.time * 1000) % 1000:03d}"
    arrow, arrow_style = _DIRECTION.get(frame.direction, ("?", ""))
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(clock + " ", style="dim")
    text.append(arrow + " ", style=arrow_style)
    text.append(f"{frame.kind:<12.12}", style=_KIND_STYLE.get(frame.kind, ""))
    text.append(" ")
    if frame.id is not None:
        text.append(f"#{one_line(str(frame.id), 10)} ", style="bold")
    text.append(one_line(frame_summary(frame), 200))
    if frame.latency is not None:
        text.append(f"  {frame.latency * 1000:.1f}ms", style="yellow")
    if frame.raw is not None:
        text.append(f"  {_size(frame.size)}", style="dim")
    if frame.problems:
        text.append(f"  ⚠ {len(frame.problems)}", style="bold red")
    if frame.findings:
        worst = min(frame.findings, key=lambda p: severity_rank(p.severity)).severity
        mark = {"error": "✖", "warning": "⚠"}.get(worst, "ℹ")
        style = {"error": "bold red", "warning": "yellow"}.get(worst, "cyan")
        text.append(f"  {mark} {len(frame.findings)}", style=style)
    return text


class TrafficTable(ScrollView, can_focus=True):
    """Rows of frames with a cursor; follows the tail while the cursor is at the end."""

    DEFAULT_CSS = """
    TrafficTable { height: 1fr; }
    """

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
    ]

    cursor: reactive[int] = reactive(-1, always_update=True)

    class Highlighted(Message):
        def __init__(self, table: TrafficTable, frame: Frame | None) -> None:
            super().__init__()
            self.table = table
            self.frame = frame

        @property
        def control(self) -> TrafficTable:
            return self.table

    def __init__(
        self,
        frames: list[Frame],
        *,
        predicate: Predicate | None = None,
        row_renderer: Callable[[Frame], Text] = row_text,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.frames = frames
        self.row_renderer = row_renderer
        self.rows: list[int] = []
        self._synced = 0
        self._predicate: Predicate | None = predicate
        self._cache: LRUCache[tuple[int, bool], Text] = LRUCache(2048)
        self.follow = True

    # -- data ---------------------------------------------------------------------

    def set_filter(self, predicate: Predicate | None) -> None:
        """Rebuild the visible rows; the selected frame stays selected when visible."""
        selected = self.selected_frame
        self._predicate = predicate
        frames = self.frames
        if predicate is None:
            self.rows = list(range(len(frames)))
        else:
            self.rows = [i for i, frame in enumerate(frames) if predicate(frame)]
        self._synced = len(frames)
        self._resize()
        if selected is not None:
            self.select_seq(selected.seq)
        elif self.rows:
            self.cursor = len(self.rows) - 1
        else:
            self.cursor = -1
        self.refresh()

    def sync(self) -> None:
        """Take in frames appended to the log since the last call."""
        frames = self.frames
        count = len(frames)
        if count == self._synced:
            return
        predicate = self._predicate
        start = self._synced
        if predicate is None:
            self.rows.extend(range(start, count))
        else:
            self.rows.extend(i for i in range(start, count) if predicate(frames[i]))
        self._synced = count
        at_end = self.follow and (self.cursor < 0 or self.cursor >= len(self.rows) - 2 or self._was_at_end)
        self._resize()
        if at_end and self.rows:
            self.cursor = len(self.rows) - 1
        self.refresh()

    _was_at_end = True

    def invalidate(self, frame: Frame | None = None) -> None:
        """A frame changed after it was drawn (a partner or a problem was added)."""
        self._cache.clear()
        self.refresh()

    def _resize(self) -> None:
        self.virtual_size = Size(self.size.width, len(self.rows))

    @property
    def selected_frame(self) -> Frame | None:
        if 0 <= self.cursor < len(self.rows):
            return self.frames[self.rows[self.cursor]]
        return None

    def select_seq(self, seq: int) -> bool:
        for row, index in enumerate(self.rows):
            if self.frames[index].seq == seq:
                self.cursor = row
                return True
        return False

    # -- cursor --------------------------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        if self.rows:
            clamped = max(0, min(new, len(self.rows) - 1))
            if clamped != new:
                self.cursor = clamped
                return
            self._was_at_end = clamped == len(self.rows) - 1
            self.scroll_to_cursor()
        self.refresh()
        self.post_message(self.Highlighted(self, self.selected_frame))

    def scroll_to_cursor(self) -> None:
        height = self.scrollable_content_region.height or 1
        top = int(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def action_cursor(self, delta: int) -> None:
        self.cursor = max(0, self.cursor + delta)

    def action_page(self, direction: int) -> None:
        height = max(1, self.scrollable_content_region.height - 1)
        self.cursor = max(0, self.cursor + direction * height)

    def action_jump(self, where: int) -> None:
        self.cursor = 0 if where == 0 else len(self.rows) - 1

    def on_click(self, event: events.Click) -> None:
        row = int(self.scroll_y) + event.y
        if 0 <= row < len(self.rows):
            self.cursor = row

    def on_resize(self, event: events.Resize) -> None:
        self._resize()

    # -- drawing -------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        row = int(self.scroll_y) + y
        base = self.rich_style
        if not (0 <= row < len(self.rows)):
            return Strip.blank(width, base)
        frame = self.frames[self.rows[row]]
        selected = row == self.cursor
        key = (frame.seq, selected)
        text = self._cache.get(key)
        if text is None:
            text = self.row_renderer(frame)
            if selected:
                text.stylize(Style(reverse=True) if not self.has_focus else Style(bgcolor="blue"))
            self._cache[key] = text
        segments = list(text.render(self.app.console))
        strip = Strip([Segment(s.text.replace("\n", " "), s.style) for s in segments])
        return strip.crop_extend(int(self.scroll_x), int(self.scroll_x) + width, base)

    def on_focus(self) -> None:
        self._cache.clear()
        self.refresh()

    def on_blur(self) -> None:
        self._cache.clear()
        self.refresh()
