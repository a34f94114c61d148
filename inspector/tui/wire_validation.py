"""The wire validation of one server's traffic, off the UI loop.

Every frame is checked in a thread, a batch at a time (the traffic table
shows a frame at once; its findings follow on a later redraw).  The thread
shares the interpreter with the loop, so it steps aside while the person is
at the keys and holds off while a list's pages stream in.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.css.query import NoMatches

from inspector.core.record.traffic import Frame
from inspector.tui.panes.bottom import BottomPanel
from inspector.tui.timers import call_later
from inspector.tui.widgets.traffic_table import TrafficTable

if TYPE_CHECKING:
    from inspector.core.checks.frame_validator import FrameValidator
    from inspector.tui.app import InspectorApp
    from inspector.tui.server_view import ServerView

__all__ = ["WireValidation"]

# The wire validation holds off while a list's pages arrive less than this
# far apart (a server that stops sending is checked all the same).
VALIDATION_HOLD = 1.0
# The wire validation's thread shares the interpreter with the loop: it
# waits while the person is at the keys (and this long after the last key),
# and otherwise hands the interpreter over at least this often, so a key that
# comes is not kept waiting for the thread's turn to end (5 ms by default).
VALIDATION_QUIET_AFTER_INPUT = 0.3
VALIDATION_HAND_OVER = 0.001


class WireValidation:
    """Checks every frame of a view's traffic in order, a batch at a time in a thread."""

    def __init__(self, view: ServerView) -> None:
        self._view = view
        # The app whose time of the last key the thread reads (set by `start`).
        self._app: InspectorApp | None = None
        # None until its models are warmed (in a thread, at mount).
        self.validator: FrameValidator | None = None
        # Frames checked so far (the first `validated` of the traffic).
        self.validated = 0
        # Whether a batch is being checked now (one at a time: the validator learns from frames in order).
        self.busy = False
        self._retry_scheduled = False
        self._stop = threading.Event()
        self._handed_over = 0.0
        self._last_frame_at = 0.0

    def start(self, app: InspectorApp) -> None:
        """Warm the validator in a worker of the view; *app* tells when the last key came."""
        self._app = app
        self._view.run_worker(self._warm(), group="validation", exit_on_error=False)

    def stop(self) -> None:
        """End the thread's work at its next frame (the view is closing)."""
        self._stop.set()

    def frame_arrived(self) -> None:
        """Note that a frame came now (the validation holds off while a list's pages stream)."""
        self._last_frame_at = time.monotonic()

    async def _warm(self) -> None:
        from inspector.core.checks.frame_validator import FrameValidator

        await asyncio.to_thread(FrameValidator.warm)
        view = self._view
        self.validator = FrameValidator(
            lambda: view.client.protocol_version if view.recording is None else None,
            tools=self._tool_definition,
            frames=view.traffic.by_seq,
            pause=self.pause,
        )
        view.schedule_sync()

    def pause(self) -> None:
        """Called in the validation thread between frames and list items:
        it steps aside while keys (or the mouse) come, and hands the
        interpreter to the loop every millisecond or so otherwise."""
        app = self._app
        assert app is not None, "the validation pauses only once started"
        stop = self._stop
        now = time.monotonic()
        quiet = app.last_input + VALIDATION_QUIET_AFTER_INPUT
        if now < quiet:
            while now < quiet and not stop.is_set():
                time.sleep(quiet - now)
                now = time.monotonic()
                quiet = app.last_input + VALIDATION_QUIET_AFTER_INPUT
        elif now - self._handed_over > VALIDATION_HAND_OVER:
            time.sleep(0)
        else:
            return
        self._handed_over = time.monotonic()

    def _tool_definition(self, name: str) -> dict[str, Any] | None:
        listing = self._view.lists.get("tools")
        item = listing.find(name) if listing is not None else None
        return item.data if item is not None else None

    def check_new_frames(self) -> None:
        """Start checking the frames that came since the last batch, unless a
        batch runs now or a list's pages are streaming in."""
        validator = self.validator
        if validator is None or self.busy or self._holding():
            return
        frames = self._view.traffic.frames
        start, end = self.validated, len(frames)
        if start >= end:
            return
        self.busy = True
        self._view.run_worker(
            partial(self._check_batch, validator, frames[start:end], end),  # type: ignore[arg-type]
            group="validation-batch",
            exit_on_error=False,
        )

    def _holding(self) -> bool:
        """Whether to wait: checking a listing's pages (every tool against its
        schema) shares the interpreter with the loop, so it waits while the
        pages stream in, and catches up once the list is on screen (the list
        load syncs again) or the frames stop coming."""
        view = self._view
        if not view.lists_loading or time.monotonic() - self._last_frame_at >= VALIDATION_HOLD:
            return False
        if not self._retry_scheduled:
            self._retry_scheduled = True
            call_later(view, VALIDATION_HOLD, self._retry)
        return True

    def _retry(self) -> None:
        self._retry_scheduled = False
        self._view.schedule_sync()

    async def _check_batch(self, validator: FrameValidator, batch: list[Frame], end: int) -> None:
        stop = self._stop

        def annotate_all() -> bool:
            changed = False
            for frame in batch:
                if stop.is_set():
                    break
                self.pause()
                if validator.annotate(frame):
                    changed = True
            return changed

        try:
            changed = await asyncio.to_thread(annotate_all)
        finally:
            self.busy = False
            self.validated = end
        view = self._view
        with contextlib.suppress(NoMatches):
            view.query_one(BottomPanel).checked = end
        if changed:
            for table in view.query(TrafficTable):
                table.invalidate()
        view.schedule_sync()
