"""The bottom panel: Traffic (every frame), Stderr (process lifecycle and
server stderr) and Logs (notifications/message with a level selector)."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.scalar import Unit
from textual.widgets import Input, Select, Static, TabbedContent, TabPane

from inspector.core.record.latency import latency_table
from inspector.core.record.traffic import Frame, TrafficLog
from inspector.core.safetext import one_line, safe_json
from inspector.tui.clipboard import copy_text
from inspector.tui.gaps import hold_gaps
from inspector.tui.panes.problems import ProblemsPane, severity_style
from inspector.tui.safe import json_syntax, plain, plain_line
from inspector.tui.widgets.big_text import HIGHLIGHT_LIMIT, LazyText, prepare_json, prepare_text
from inspector.tui.widgets.traffic_table import TrafficTable, header_text

# While the cursor follows new frames, their detail is built once they stop
# coming for this long (longer than the app's view sync interval).
FOLLOW_DETAIL_AFTER = 0.2

if TYPE_CHECKING:
    from inspector.tui.server_view import ServerView

__all__ = ["LOG_LEVELS", "BottomPanel", "FrameDetail", "StderrFilter", "StderrPane", "TrafficFilter", "log_row"]

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_LEVEL_STYLE = {
    "debug": "dim",
    "info": "cyan",
    "notice": "bold cyan",
    "warning": "yellow",
    "error": "red",
    "critical": "bold red",
    "alert": "bold white on red",
    "emergency": "bold white on dark_red",
}
MAX_DETAIL_CHARS = 100_000
# A frame above HIGHLIGHT_LIMIT bytes is prepared in a thread and drawn a
# screen at a time (`LazyText`); these bound what such a frame shows.
MAX_PRETTY_BYTES = 4_000_000
MAX_LAZY_RAW_CHARS = 1_000_000


class TrafficFilter:
    """What the filter box means: words that must all match, plus toggles.

    `in` / `out` / `local` pick a direction, `errors` keeps errors, invalid
    frames and frames with problems, `kind:X` and `method:X` match fields;
    other words match the method, the note or the raw text.
    """

    def __init__(self, query: str) -> None:
        self.direction: str | None = None
        self.errors_only = False
        self.kinds: list[str] = []
        self.methods: list[str] = []
        self.words: list[str] = []
        for word in query.lower().split():
            if word in ("in", "out", "local"):
                self.direction = word
            elif word in ("errors", "error", "!"):
                self.errors_only = True
            elif word.startswith("kind:"):
                self.kinds.append(word[5:])
            elif word.startswith("method:"):
                self.methods.append(word[7:])
            else:
                self.words.append(word)

    @property
    def empty(self) -> bool:
        return not (self.direction or self.errors_only or self.kinds or self.methods or self.words)

    def __call__(self, frame: Frame) -> bool:
        if self.direction and frame.direction != self.direction:
            return False
        if self.errors_only and not (frame.kind in ("error", "invalid") or frame.problems):
            return False
        if self.kinds and not any(frame.kind.startswith(k) for k in self.kinds):
            return False
        method = (frame.method or "").lower()
        if self.methods and not any(m in method for m in self.methods):
            return False
        if self.words:
            haystack = f"{method} {frame.note or ''} {frame.id if frame.id is not None else ''}".lower()
            if frame.raw is not None and len(frame.raw) < 65536:
                haystack += " " + frame.text().lower()
            return all(word in haystack for word in self.words)
        return True


@dataclass(frozen=True)
class BigFrame:
    """A large frame's texts, prepared off the UI loop (`prepare_frame`)."""

    message: str | None
    raw: str | None
    more: int


def prepare_frame(frame: Frame) -> BigFrame:
    """Pretty-print and make inert a large frame's message and raw text (in a thread)."""
    message = None
    if frame.size <= MAX_PRETTY_BYTES and frame.message is not None:
        message = prepare_json(frame.message)
    raw = more = None
    if frame.raw is not None:
        text = frame.raw[: MAX_LAZY_RAW_CHARS * 4].decode("utf-8", errors="replace")
        shown = text[:MAX_LAZY_RAW_CHARS]
        more = len(frame.raw) - len(shown.encode("utf-8", errors="replace"))
        raw = prepare_text(shown)
    return BigFrame(message, raw, more or 0)


def frame_detail(frame: Frame, big: BigFrame | None = None) -> list[Any]:
    # `#N` is the frame's number in the log, as in the table's first column;
    # the JSON-RPC id is always written `id N`.
    head = Text()
    head.append(f"frame #{frame.seq} ", style="bold")
    head.append(f"{frame.direction} {frame.kind}", style="bold cyan")
    if frame.method:
        head.append_text(plain_line(f"  {frame.method}", 80, style="bold"))
    if frame.id is not None:
        head.append_text(plain_line(f"  id {frame.id}", 40))
    stamp = time.strftime("%H:%M:%S", time.localtime(frame.time)) + f".{int(frame.time * 1000) % 1000:03d}"
    head.append(f"  {stamp}", style="dim")
    if frame.latency is not None:
        head.append(f"  {frame.latency * 1000:.2f} ms", style="yellow")
    if frame.raw is not None:
        head.append(f"  {frame.size} bytes", style="dim")
    if frame.partner is not None:
        head.append(f"  partner frame #{frame.partner} (p jumps there)", style="magenta")
    retry_of = frame.meta.get("retry_of") if isinstance(frame.meta, dict) else None
    if isinstance(retry_of, int):
        head.append(f"  retry of frame #{retry_of} (o jumps there)", style="magenta")
    parts: list[Any] = [Static(hold_gaps(head))]
    for problem in frame.problems:
        parts.append(Static(plain(f"⚠ {problem}", style="bold red")))
    for finding in frame.findings:
        line = Text(f"{finding.severity} [{finding.rule}] ", style=severity_style(finding.severity))
        if finding.where:
            line.append_text(plain(finding.where + ": ", style="bold"))
        line.append_text(plain(finding.message))
        if finding.url:
            line.append("  ")
            line.append_text(plain(finding.url, style="dim underline"))
        parts.append(Static(line))
    if frame.error:
        parts.append(Static(plain(f"parse error: {frame.error}", style="bold red")))
    if frame.note and frame.raw is not None:
        parts.append(Static(plain(frame.note, style="italic")))
    if frame.meta:
        parts.append(Static(Text("transport", style="bold")))
        parts.append(Static(json_syntax(frame.meta)))
    if big is not None:
        parts.extend(_big_parts(frame, big))
        return parts
    if frame.message is not None:
        if frame.size > MAX_DETAIL_CHARS:
            parts.append(
                Static(Text(f"message too large to pretty-print ({frame.size} bytes); raw below", style="yellow"))
            )
        else:
            parts.append(Static(Text("message", style="bold")))
            parts.append(Static(json_syntax(frame.message)))
    if frame.raw is not None:
        raw = frame.text()
        shown = raw[:MAX_DETAIL_CHARS]
        parts.append(Static(Text("raw", style="bold")))
        parts.append(
            Static(plain(shown + (f"\n… {len(raw) - len(shown)} more characters" if len(raw) > len(shown) else "")))
        )
    elif frame.note:
        parts.append(Static(plain(frame.note)))
    return parts


def _big_parts(frame: Frame, big: BigFrame) -> list[Any]:
    """A large frame: its texts drawn a screen at a time, JSON coloured as it scrolls into view."""
    parts: list[Any] = []
    if big.message is not None:
        parts.append(Static(Text("message", style="bold")))
        parts.append(LazyText(big.message, json=True, classes="detail-message"))
    elif frame.message is not None:
        parts.append(Static(Text(f"message too large to pretty-print ({frame.size} bytes); raw below", style="yellow")))
    if big.raw is not None:
        parts.append(Static(Text("raw", style="bold")))
        parts.append(LazyText(big.raw, classes="detail-raw"))
        if big.more > 0:
            parts.append(Static(Text(f"… {big.more} more bytes (c copies the whole frame)", style="dim")))
    return parts


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


def log_row(frame: Frame, width: int = 0) -> Text:
    params = frame.message.get("params") if isinstance(frame.message, dict) else None
    params = params if isinstance(params, dict) else {}
    level = str(params.get("level", "?"))
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(time.strftime("%H:%M:%S", time.localtime(frame.time)) + " ", style="dim")
    text.append(f"{level:<9.9}", style=_LEVEL_STYLE.get(level, "bold red"))
    if isinstance(params.get("logger"), str):
        text.append_text(plain_line(f"[{params['logger']}] ", 30, style="magenta"))
    data = params.get("data")
    text.append(one_line(data if isinstance(data, str) else json.dumps(data, ensure_ascii=False), 400))
    return text


def stderr_row(frame: Frame, width: int = 0) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(time.strftime("%H:%M:%S", time.localtime(frame.time)) + " ", style="dim")
    if frame.kind == "stderr":
        text.append_text(plain_line(frame.text(), 500))
    else:
        text.append_text(plain_line(frame.note or "", 500, style="bold yellow"))
    return text


def _is_log(frame: Frame) -> bool:
    return frame.method == "notifications/message" and frame.direction == "in"


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
        return not (self.wanted or self.unwanted)

    def __call__(self, frame: Frame) -> bool:
        if not _is_stderr(frame):
            return False
        line = (frame.text() if frame.kind == "stderr" else frame.note or "").lower()
        return all(w in line for w in self.wanted) and not any(w in line for w in self.unwanted)


class FrameDetail(VerticalScroll):
    """The selected frame's JSON and raw text; the arrows scroll it."""

    arrow_hint = "scroll"


class TrafficPane(Horizontal):
    @property
    def inspector(self) -> ServerView:
        from inspector.tui.server_view import owner_of

        return owner_of(self)

    BINDINGS = [
        Binding("slash", "focus_filter", "Filter traffic", key_display="/", id="traffic_filter"),
        Binding("p", "partner", "Partner", id="traffic_partner"),
        Binding("o", "original", "Original request", id="traffic_original", show=False),
        Binding("c", "copy", "Copy", id="traffic_copy"),
        Binding("e", "toggle_errors", "Errors only", id="traffic_errors"),
        Binding("r", "resend", "Edit & resend", id="traffic_resend"),
        Binding("n", "compose", "Raw message", id="traffic_compose"),
    ]

    DEFAULT_CSS = """
    TrafficPane > #traffic-left { width: 60%; }
    TrafficPane #traffic-filter { height: 1; border: none; padding: 0 1; }
    TrafficPane > #traffic-detail { width: 1fr; border-left: solid $primary-muted; padding: 0 1; }
    /* Where the arrows go: the focused side has the accent edge. */
    TrafficPane > #traffic-detail:focus { border-left: thick $accent; }
    TrafficPane > #traffic-left { border-left: blank; }
    TrafficPane > #traffic-left:focus-within { border-left: thick $accent; }
    """

    def __init__(self, traffic: TrafficLog) -> None:
        super().__init__()
        self.traffic = traffic

    def compose(self) -> ComposeResult:
        with Vertical(id="traffic-left"):
            yield Input(placeholder="filter: words, in/out, errors, kind:X, method:X", id="traffic-filter")
            yield TrafficTable(self.traffic.frames, header=header_text, arrows="frames", id="traffic-table")
        yield FrameDetail(id="traffic-detail")

    @property
    def table(self) -> TrafficTable:
        return self.query_one("#traffic-table", TrafficTable)

    @on(Input.Changed, "#traffic-filter")
    def _filter(self, event: Input.Changed) -> None:
        query = TrafficFilter(event.value)
        self.table.set_filter(None if query.empty else query)

    @on(Input.Submitted, "#traffic-filter")
    def _filter_done(self) -> None:
        self.table.focus()

    @on(TrafficTable.Highlighted, "#traffic-table")
    async def _highlighted(self, event: TrafficTable.Highlighted) -> None:
        self._show_detail(event.frame)

    @work(exclusive=True, group="traffic-detail")
    async def _show_detail(self, frame: Frame | None) -> None:
        detail = self.query_one("#traffic-detail", FrameDetail)
        if self.table.following:
            # Frames streaming in (a listing of 200 pages) move the cursor
            # at every view sync; the detail of each would cost a layout of
            # the screen.  A newer frame cancels this wait (exclusive).
            await asyncio.sleep(FOLLOW_DETAIL_AFTER)
            # A list still arriving brings more frames: the detail waits for
            # its last page rather than laying the screen out between pages.
            while self.inspector.lists_loading:
                tables = self.query(TrafficTable)
                if not tables or not tables.first().following:
                    break
                await asyncio.sleep(FOLLOW_DETAIL_AFTER)
            if not self.is_attached or not detail.is_attached:
                return  # the app is closing
        big = None
        if frame is not None and frame.size > HIGHLIGHT_LIMIT:
            # Parsing, pretty-printing and escaping 100 KB take tens of ms: not on the UI loop.
            big = await asyncio.to_thread(prepare_frame, frame)
        await detail.remove_children()
        if frame is not None:
            await detail.mount_all(frame_detail(frame, big))

    def action_focus_filter(self) -> None:
        self.query_one("#traffic-filter", Input).focus()

    def action_partner(self) -> None:
        frame = self.table.selected_frame
        if frame is not None and frame.partner is not None and not self.table.select_seq(frame.partner):
            self.app.notify("the partner frame is hidden by the filter", severity="warning")

    def action_original(self) -> None:
        """From a retry (MRTR round, version or header retry, 404 resend) to the request it repeats."""
        frame = self.table.selected_frame
        retry_of = frame.meta.get("retry_of") if frame is not None and isinstance(frame.meta, dict) else None
        if not isinstance(retry_of, int):
            self.app.notify("this frame is not a retry", severity="warning")
        elif not self.table.select_seq(retry_of):
            self.app.notify("the original request is hidden by the filter", severity="warning")

    def action_copy(self) -> None:
        frame = self.table.selected_frame
        if frame is not None:
            how = copy_text(self.app, frame.text())
            self.app.notify(f"copied frame #{frame.seq} ({how})")

    def action_resend(self) -> None:
        frame = self.table.selected_frame
        if frame is None or frame.direction != "out" or not isinstance(frame.message, dict):
            self.app.notify("select a message we sent to edit and resend it", severity="warning")
            return
        self.inspector.open_composer(safe_json(frame.message, indent=2), f"Edit and resend #{frame.seq}")

    def action_compose(self) -> None:
        self.inspector.open_composer()

    def action_toggle_errors(self) -> None:
        field = self.query_one("#traffic-filter", Input)
        words = field.value.split()
        field.value = " ".join(w for w in words if w != "errors") if "errors" in words else " ".join([*words, "errors"])


class StderrPane(Vertical):
    """Process lifecycle and server stderr, with a `/` filter like Traffic's."""

    BINDINGS = [Binding("slash", "focus_filter", "Filter stderr", key_display="/", id="stderr_filter")]

    DEFAULT_CSS = """
    StderrPane #stderr-filter { height: 1; border: none; padding: 0 1; }
    """

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


class LogsPane(Vertical):
    DEFAULT_CSS = """
    LogsPane > Horizontal { height: 3; }
    LogsPane Select { width: 24; }
    LogsPane #logs-hint { width: 1fr; padding: 1 1; color: $text-muted; }
    """

    def __init__(self, traffic: TrafficLog) -> None:
        super().__init__()
        self.traffic = traffic

    @property
    def inspector(self) -> ServerView:
        from inspector.tui.server_view import owner_of

        return owner_of(self)

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Select([(level, level) for level in LOG_LEVELS], prompt="log level", id="log-level")
            yield Static("sends logging/setLevel", id="logs-hint")
        yield TrafficTable(
            self.traffic.frames, predicate=_is_log, row_renderer=log_row, arrows="messages", id="logs-table"
        )

    @on(Select.Changed, "#log-level")
    def _level(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self._set_level(event.value)

    @work(group="log-level", exclusive=True)
    async def _set_level(self, level: str) -> None:
        await self.inspector.client.set_logging_level(level)
        self.inspector.notify(f"log level set to {level}")


class BottomPanel(Vertical):
    DEFAULT_CSS = """
    BottomPanel { height: 12; border-top: heavy $primary-muted; }
    BottomPanel.hidden { display: none; }
    BottomPanel TabbedContent, BottomPanel ContentSwitcher, BottomPanel TabPane { height: 1fr; }
    """

    def __init__(self, traffic: TrafficLog) -> None:
        super().__init__()
        self.traffic = traffic
        # How many frames the wire validation (in a thread) is done with:
        # the Problems tab takes no frame before its findings are known.
        self.checked = 0

    def compose(self) -> ComposeResult:
        with TabbedContent(id="bottom-tabs"):
            with TabPane("Traffic", id="traffic"):
                yield TrafficPane(self.traffic)
            with TabPane("Stderr", id="stderr"):
                yield StderrPane(self.traffic)
            with TabPane("Logs", id="logs"):
                yield LogsPane(self.traffic)
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
        if self.has_class("hidden") or self.has_class("collapsed"):
            self.open()
            return
        height = self.styles.height
        current = int(height.value) if height is not None and height.unit is Unit.CELLS else 12
        self.styles.height = max(5, min(60, current + delta))
