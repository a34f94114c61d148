"""The Traffic tab: every frame in a table with a filter box, the selected
frame's detail beside it, and the keys that act on a frame (its partner, the
request it retries, copy, edit and resend)."""

from __future__ import annotations

import asyncio

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import var
from textual.widgets import Input

from inspector.core.record.traffic import Frame, TrafficLog
from inspector.core.safetext import safe_json
from inspector.tui.clipboard import copy_text
from inspector.tui.panes.frame_detail import FrameDetail, frame_detail, prepare_frame
from inspector.tui.widgets.big_text import HIGHLIGHT_LIMIT
from inspector.tui.widgets.traffic_table import TrafficTable, header_text

__all__ = ["TrafficFilter", "TrafficPane"]

# While the cursor follows new frames, their detail is built once they stop
# coming for this long (longer than the app's view sync interval).
FOLLOW_DETAIL_AFTER = 0.2


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
        """Whether the filter keeps every frame."""
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


class TrafficPane(Horizontal):
    """The frames table and filter on the left, the selected frame's detail on the right."""

    # How many of the server's lists are arriving now (bound by the view, through the bottom panel).
    lists_loading: var[int] = var(0)

    class ComposerRequested(Message):
        """Open the raw composer: on *text* (a message to edit and send again, under *title*), else a template."""

        def __init__(self, text: str | None = None, title: str | None = None) -> None:
            super().__init__()
            self.text = text
            self.title = title

    BINDINGS = [
        Binding("slash", "focus_filter", "Filter traffic", key_display="/", id="traffic_filter"),
        Binding("p", "partner", "Partner", id="traffic_partner"),
        Binding("o", "original", "Original request", id="traffic_original", show=False),
        Binding("c", "copy", "Copy", id="traffic_copy"),
        Binding("e", "toggle_errors", "Errors only", id="traffic_errors"),
        Binding("r", "resend", "Edit & resend", id="traffic_resend"),
        Binding("n", "compose", "Raw message", id="traffic_compose"),
    ]

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
        """The table of frames."""
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
            while self.lists_loading:
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
        self.post_message(self.ComposerRequested(safe_json(frame.message, indent=2), f"Edit and resend #{frame.seq}"))

    def action_compose(self) -> None:
        self.post_message(self.ComposerRequested())

    def action_toggle_errors(self) -> None:
        field = self.query_one("#traffic-filter", Input)
        words = field.value.split()
        field.value = " ".join(w for w in words if w != "errors") if "errors" in words else " ".join([*words, "errors"])
