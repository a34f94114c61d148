"""A virtual view over the traffic log: one line per frame, drawn on demand.

The log can hold hundreds of thousands of frames, so there is no widget per
line: `render_line` builds the few visible lines from the frames, with an
LRU cache of rendered strips, and appends only extend the virtual size.

Numbering: `#N` is always the frame's sequence number in the log (the same
number the detail, the partner link and the Problems view use); a JSON-RPC
id is shown in its own `id` column and written `id N` elsewhere.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.cells import cell_len, set_cell_size
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

from inspector.core.checks.problems import severity_rank
from inspector.core.record.traffic import Frame
from inspector.core.safetext import one_line
from inspector.tui import looks
from inspector.tui.gaps import hold_gaps
from inspector.tui.legible import legible

__all__ = ["TrafficTable", "frame_summary", "header_text", "row_text"]

Predicate = Callable[[Frame], bool]
# A row renderer gets the frame and the width it may fill.
RowRenderer = Callable[[Frame, int], Text]

_DIRECTION = {"out": ("→", looks.DIRECTION_OUT), "in": ("←", looks.DIRECTION_IN), "local": ("•", looks.DIRECTION_LOCAL)}
_KIND_STYLE = {
    "request": looks.REQUEST,
    "response": looks.RESPONSE,
    "error": looks.ERROR_STRONG,
    "notification": looks.NOTIFICATION,
    "invalid": looks.ALARM,
    "batch": looks.TRANSPORT,
    "stderr": looks.MUTED,
    "http": looks.TRANSPORT,
    "sse": looks.TRANSPORT,
    "process": looks.WARNING,
    "transport": looks.WARNING,
    "app": looks.APP,
}

# Column widths (cells).  The method column takes what is left, so latency,
# size and flags line up at the right whatever the method's length.
SEQ_W = 7  # "#123456"
TIME_W = 12  # "HH:MM:SS.mmm"
KIND_W = 12  # "notification"
ID_W = 6
LATENCY_W = 7  # "999.9ms" / "12.34s"
SIZE_W = 6  # "999.9K"
FLAGS_W = 4  # "⚠1✖3", "✖12"
MIN_METHOD_W = 8
_FIXED_W = (SEQ_W + 1) + (TIME_W + 1) + 2 + (KIND_W + 1) + (1 + ID_W) + (1 + LATENCY_W) + (1 + SIZE_W) + (1 + FLAGS_W)
DEFAULT_WIDTH = 100


def frame_summary(frame: Frame) -> str:
    """What the method column says: method, note, error or the first bytes."""
    if frame.kind == "app" and frame.note:
        # Between an MCP App and the inspector as its host: the note says which way ("app → host: tools/call").
        text = frame.note
    elif frame.method:
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


def _latency(seconds: float) -> str:
    ms = seconds * 1000
    return f"{ms:.1f}ms" if ms < 1000 else f"{seconds:.2f}s"


def _fit(text: str, width: int) -> str:
    """Exactly `width` cells: padded, or cut with an ellipsis (wide characters count double)."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text + " " * (width - cell_len(text))
    return set_cell_size(text, width - 1) + "…"


def _shows_time(width: int) -> bool:
    """Whether the clock column fits: a narrow table (a 100-column terminal)
    leaves it out, so latency with its unit, size and the problem marks at
    the right stay on screen (the frame's detail has the time)."""
    return width - _FIXED_W >= MIN_METHOD_W


def _method_width(width: int) -> int:
    fixed = _FIXED_W if _shows_time(width) else _FIXED_W - (TIME_W + 1)
    return max(MIN_METHOD_W, width - fixed)


def header_text(width: int = DEFAULT_WIDTH) -> Text:
    """The column header, laid out like `row_text` at the same width."""
    text = Text(no_wrap=True, overflow="crop")
    clock = f"{'time':<{TIME_W}} " if _shows_time(width) else ""
    text.append(
        f"{'#':<{SEQ_W}} {clock}↔ {'kind':<{KIND_W}} {_fit('method', _method_width(width))}"
        f" {'id':>{ID_W}} {'latency':>{LATENCY_W}} {'size':>{SIZE_W}} {'!':<{FLAGS_W}}",
        style="bold",
    )
    return text


def _flags(frame: Frame) -> list[tuple[str, str]]:
    """Marks with counts: the core's protocol problems, then the worst lint finding."""
    flags: list[tuple[str, str]] = []
    if frame.problems:
        flags.append((f"⚠{len(frame.problems)}", looks.ERROR_STRONG))
    if frame.findings:
        worst = min(frame.findings, key=lambda p: severity_rank(p.severity)).severity
        mark = {"error": "✖", "warning": "⚠"}.get(worst, "ℹ")
        style = {"error": looks.ERROR_STRONG, "warning": looks.WARNING}.get(worst, looks.INFO)
        flags.append((f"{mark}{len(frame.findings)}", style))
    return flags


def row_text(frame: Frame, width: int = DEFAULT_WIDTH) -> Text:
    """One frame as aligned columns: #, time, direction, kind, method, id, latency, size, flags."""
    clock = time.strftime("%H:%M:%S", time.localtime(frame.time)) + f".{int(frame.time * 1000) % 1000:03d}"
    arrow, arrow_style = _DIRECTION.get(frame.direction, ("?", ""))
    text = Text(no_wrap=True, overflow="crop")
    text.append(f"{'#' + str(frame.seq):<{SEQ_W}} ", style="bold")
    if _shows_time(width):
        text.append(clock + " ", style=looks.MUTED)
    text.append(arrow + " ", style=arrow_style)
    text.append(f"{frame.kind:<{KIND_W}.{KIND_W}} ", style=_KIND_STYLE.get(frame.kind, ""))
    # Server text: one_line makes every control character visible first.
    text.append(_fit(one_line(frame_summary(frame), 300), _method_width(width)))
    ident = "" if frame.id is None else one_line(str(frame.id), 40)
    shown = _fit(ident, ID_W) if cell_len(ident) > ID_W else " " * (ID_W - cell_len(ident)) + ident
    text.append(" " + shown, style="bold")
    latency = _latency(frame.latency) if frame.latency is not None else ""
    text.append(f" {latency:>{LATENCY_W}.{LATENCY_W}}", style=looks.LATENCY)
    size = _size(frame.size) if frame.raw is not None else ""
    text.append(f" {size:>{SIZE_W}}", style=looks.MUTED)
    text.append(" ")
    used = 0
    for flag, style in _flags(frame):
        text.append(flag, style=style)
        used += len(flag)
    if used < FLAGS_W:
        text.append(" " * (FLAGS_W - used))
    return hold_gaps(text)


class TrafficTable(ScrollView, can_focus=True):
    """Rows of frames with a cursor, like `tail -f`: while the cursor is on
    the last row, new frames move it along and the view follows; once the
    person moves up, new frames leave both where they are.  The cursor's row
    is kept on screen whatever happens to the size or the visibility."""

    # The cursor row's look comes from the theme, focused or not.
    COMPONENT_CLASSES = {"traffic-table--cursor", "traffic-table--cursor-blurred", "traffic-table--header"}

    DEFAULT_CSS = """
    TrafficTable { height: 1fr; overflow-x: hidden; }
    TrafficTable > .traffic-table--header { background: $panel; color: $foreground; }
    TrafficTable > .traffic-table--cursor { background: $block-cursor-background; }
    TrafficTable > .traffic-table--cursor-blurred { background: $primary-muted; }
    """

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False, id="rows_up"),
        Binding("down", "cursor(1)", "Down", show=False, id="rows_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="rows_page_up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="rows_page_down"),
        Binding("home", "jump(0)", "First", show=False, id="rows_first"),
        Binding("end", "jump(-1)", "Last (follow new frames)", show=False, id="rows_last"),
    ]

    cursor: reactive[int] = reactive(-1, always_update=True)

    class Highlighted(Message):
        """The cursor is on *frame* (None: no frame shown)."""

        def __init__(self, table: TrafficTable, frame: Frame | None) -> None:
            super().__init__()
            self.table = table
            self.frame = frame

        @property
        def control(self) -> TrafficTable:
            """The table that sent the message."""
            return self.table

    def __init__(
        self,
        frames: list[Frame],
        *,
        predicate: Predicate | None = None,
        row_renderer: RowRenderer = row_text,
        header: Callable[[int], Text] | None = None,
        arrows: str = "rows",
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        # What up and down move through, for the key bar.
        self.arrow_hint = arrows
        self.frames = frames
        self.row_renderer = row_renderer
        self.header = header
        self.rows: list[int] = []
        self._synced = 0
        self._predicate: Predicate | None = predicate
        # Finished strips by (seq, selected); cleared when the width or the
        # focus changes, since both change every row's look.
        self._cache: LRUCache[tuple[int, bool], Strip] = LRUCache(512)
        self._cache_width = -1

    # -- data ---------------------------------------------------------------------

    @property
    def following(self) -> bool:
        """The cursor is on the last row (or there are none): new frames move it along."""
        return self.cursor < 0 or self.cursor >= len(self.rows) - 1

    def set_filter(self, predicate: Predicate | None) -> None:
        """Rebuild the visible rows.  Following stays following; otherwise the
        selected frame stays selected, or the nearest earlier one when the
        filter hides it."""
        selected = self.selected_frame
        following = self.following
        self._predicate = predicate
        frames = self.frames
        if predicate is None:
            self.rows = list(range(len(frames)))
        else:
            self.rows = [i for i, frame in enumerate(frames) if predicate(frame)]
        self._synced = len(frames)
        self._resize()
        if not self.rows:
            self.cursor = -1
        elif following or selected is None:
            self.cursor = len(self.rows) - 1
        else:
            self.cursor = self._row_at_or_before(selected.seq)
        self.refresh()

    def sync(self) -> None:
        """Take in frames appended to the log since the last call."""
        frames = self.frames
        count = len(frames)
        if count == self._synced:
            return
        following = self.following
        predicate = self._predicate
        start = self._synced
        before = len(self.rows)
        if predicate is None:
            self.rows.extend(range(start, count))
        else:
            self.rows.extend(i for i in range(start, count) if predicate(frames[i]))
        self._synced = count
        if len(self.rows) == before:
            return
        self._resize()
        if following:
            self.cursor = len(self.rows) - 1
        # The new virtual size reaches the scrollbars on the next layout:
        # anchor again once it has.
        self.call_after_refresh(self._anchor)
        self.refresh()

    def invalidate(self, frame: Frame | None = None) -> None:
        """A frame changed after it was drawn (a partner or a problem was added)."""
        self._cache.clear()
        self.refresh()

    @property
    def _head(self) -> int:
        return 1 if self.header is not None else 0

    def _resize(self) -> None:
        size = Size(0, len(self.rows) + self._head)
        if size != self.virtual_size:
            # Only the scrollbar follows the rows: setting virtual_size would
            # lay the whole screen out at every sync while frames stream in
            # (a listing in 200 pages: a layout every 50 ms).  The table's
            # own size does not depend on its rows.
            self.set_reactive(TrafficTable.virtual_size, size)
            if self.is_mounted:
                self._scroll_update(size)

    @property
    def _visible_rows(self) -> int:
        return self.scrollable_content_region.height - self._head

    @property
    def selected_frame(self) -> Frame | None:
        """The frame at the cursor, if any."""
        if 0 <= self.cursor < len(self.rows):
            return self.frames[self.rows[self.cursor]]
        return None

    def _row_at_or_before(self, seq: int) -> int:
        """The row of the frame `seq`, or of the nearest earlier frame shown (rows are in log order)."""
        frames, rows = self.frames, self.rows
        low, high = 0, len(rows)
        while low < high:
            middle = (low + high) // 2
            if frames[rows[middle]].seq <= seq:
                low = middle + 1
            else:
                high = middle
        return max(0, low - 1)

    def select_seq(self, seq: int) -> bool:
        """Put the cursor on frame #seq; False when the filter hides it."""
        if not self.rows:
            return False
        row = self._row_at_or_before(seq)
        if self.frames[self.rows[row]].seq != seq:
            return False
        self.cursor = row
        return True

    # -- cursor and scrolling -----------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        if self.rows:
            clamped = max(0, min(new, len(self.rows) - 1))
            if clamped != new:
                self.cursor = clamped
                return
            self._anchor()
        self.refresh()
        self.post_message(self.Highlighted(self, self.selected_frame))

    def _anchor(self) -> None:
        """Scroll so the view shows the tail when following, else the cursor's row.

        `force`: before the first layout Textual has not yet decided there is
        a scrollbar and would ignore the scroll; the value is clamped anyway.
        """
        visible = self._visible_rows
        if visible <= 0 or not self.rows:
            return  # not on screen: Show/Resize anchor it when it is
        top = int(self.scroll_y)
        if self.following:
            target = max(0, len(self.rows) - visible)
        elif self.cursor < top:
            target = self.cursor
        elif self.cursor >= top + visible:
            target = self.cursor - visible + 1
        else:
            return
        if target != top:
            self.scroll_to(y=target, animate=False, force=True)

    def action_cursor(self, delta: int) -> None:
        self.cursor = max(0, self.cursor + delta)

    def action_page(self, direction: int) -> None:
        height = max(1, self._visible_rows - 1)
        self.cursor = max(0, self.cursor + direction * height)

    def action_jump(self, where: int) -> None:
        self.cursor = 0 if where == 0 else len(self.rows) - 1

    def on_click(self, event: events.Click) -> None:
        row = int(self.scroll_y) + event.y - self._head
        if event.y >= self._head and 0 <= row < len(self.rows):
            self.cursor = row

    def on_resize(self, event: events.Resize) -> None:
        self._resize()
        self.call_after_refresh(self._anchor)

    def on_show(self, event: events.Show) -> None:
        # Frames that arrived while another tab (or the hidden panel) was
        # shown scrolled nothing: catch up now that there is a height.
        self.call_after_refresh(self._anchor)

    # -- drawing -------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if width != self._cache_width:
            self._cache.clear()
            self._cache_width = width
        if y < self._head and self.header is not None:
            return self._strip(self.header(width), width, self.get_component_rich_style("traffic-table--header"))
        row = int(self.scroll_y) + y - self._head
        if not (0 <= row < len(self.rows)):
            return Strip.blank(width, base)
        frame = self.frames[self.rows[row]]
        selected = row == self.cursor
        key = (frame.seq, selected)
        strip = self._cache.get(key)
        if strip is None:
            text = self.row_renderer(frame, width)
            if selected:
                if text.cell_len < width:
                    text.append(" " * (width - text.cell_len))
                component = "traffic-table--cursor" if self.has_focus else "traffic-table--cursor-blurred"
                cursor = self.get_component_rich_style(component, partial=True)
                text.stylize(cursor)
                # Its own background: the roles' colours may not read on it.
                strip = legible(self._strip(text, width, base), (base + cursor).color)
            else:
                strip = self._strip(text, width, base)
            self._cache[key] = strip
        return strip

    def _strip(self, text: Text, width: int, base: Style) -> Strip:
        # The widget's style under the row's own; rows are one line (server
        # text went through one_line), so the segments need no clean-up.
        text.style = base
        # (Text.render leaves the text's own style to a text with spans.)
        segments = list(text.render(self.app.console, end="")) if text.spans else [Segment(text.plain, base)]
        if text.cell_len == width:
            return Strip(segments, width)  # the usual case: no second strip to crop into
        return Strip(segments).crop_extend(0, width, base)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, theme: object) -> None:
        # The cached strips hold the old theme's colours.
        self._cache.clear()
        self.refresh()

    def on_focus(self) -> None:
        self._cache.clear()
        self.refresh()

    def on_blur(self) -> None:
        self._cache.clear()
        self.refresh()
