"""The requests a session waits for an answer to: their clocks (one coarse
ticker for every deadline), their progress tokens, and a memory of those it
stopped waiting for, so that a late answer is recognised rather than blamed
on the server as an answer to an id nobody sent."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.core.protocol.jsonrpc import hashable_id, near_miss, same_id

if TYPE_CHECKING:
    from inspector.core.protocol.session import Session
    from inspector.core.record.traffic import Frame

__all__ = ["ENDED_MEMORY", "TICK_SECONDS", "PendingRequest", "PendingRequests", "ProgressCallback"]

TICK_SECONDS = 0.05
# Requests we stopped waiting for (cancelled, timed out, abandoned, closed), remembered.
ENDED_MEMORY = 1000

ProgressCallback = Callable[[float, float | None, str | None], None]


@dataclass(slots=True, eq=False)
class PendingRequest:
    """A request waiting for its response."""

    id: Any
    method: str
    frame: Frame
    future: asyncio.Future[Any]
    timeout: float | None
    started: float
    on_progress: ProgressCallback | None = None
    progress_token: Any = None
    deadline: float | None = None
    invalid_seen: int = 0
    cancel_on_timeout: bool = True
    session: Session | None = None
    # An answer whose id matched ours but for its type ("3" for 3).
    near_miss: str | None = None

    async def result(self) -> Any:
        """Wait for the answer."""
        return await self.future

    async def cancel(self, reason: str = "cancelled by the user") -> None:
        """Cancel the request through its session."""
        if self.session is not None:
            await self.session.cancel(self, reason)


class PendingRequests(dict[Any, PendingRequest]):
    """The requests waiting for an answer, by id; `expire` is told of one whose deadline passed."""

    def __init__(self, loop: asyncio.AbstractEventLoop, expire: Callable[[PendingRequest], None]) -> None:
        super().__init__()
        self.by_token: dict[Any, PendingRequest] = {}
        # id -> (why we stopped waiting, the request's frame seq, its method, the id as sent)
        self.ended: OrderedDict[Any, tuple[str, int, str, Any]] = OrderedDict()
        self._loop = loop
        self._expire = expire
        self._ticker: asyncio.TimerHandle | None = None

    def track(self, pending: PendingRequest) -> None:
        """Wait for `pending` from now on, its clock started."""
        self[pending.id] = pending
        if pending.timeout:
            pending.deadline = pending.started + pending.timeout
            self._ensure_ticker()

    def finish(self, pending: PendingRequest, ended: str | None = None) -> None:
        """Stop tracking a request; `ended` says why, when it got no answer."""
        self.pop(pending.id, None)
        if pending.progress_token is not None:
            self.by_token.pop(pending.progress_token, None)
        pending.deadline = None
        if ended is not None:
            self.ended[pending.id] = (ended, pending.frame.seq, pending.method, pending.id)
            if len(self.ended) > ENDED_MEMORY:
                self.ended.popitem(last=False)

    def answered_by(self, msg_id: Any) -> PendingRequest | None:
        """The request an answer with this id is for (the same id, of the same type)."""
        pending = self.get(msg_id) if hashable_id(msg_id) else None
        return pending if pending is not None and same_id(pending.id, msg_id) else None

    def late(self, msg_id: Any) -> tuple[str, int, str, Any] | None:
        """A request we stopped waiting for that this id answers, forgotten now: (why, seq, method, id)."""
        ended = self.ended.get(msg_id) if hashable_id(msg_id) else None
        if ended is None or not same_id(ended[3], msg_id):
            return None
        del self.ended[msg_id]
        return ended

    def near(self, msg_id: Any) -> PendingRequest | None:
        """The request whose id `msg_id` would be but for its type."""
        near = near_miss(msg_id)
        if near is None:
            return None
        pending = self.get(near)
        return pending if pending is not None and same_id(pending.id, near) else None

    def progress_target(self, token: Any) -> PendingRequest | None:
        """The request a progress notification with this token is for (None when there is none)."""
        pending = self.by_token.get(token) if hashable_id(token) else None
        return pending if pending is not None and same_id(pending.progress_token, token) else None

    def hold_deadline(self, request_id: Any) -> None:
        """Stop a request's clock."""
        pending = self.get(request_id)
        if pending is not None:
            pending.deadline = None

    def restart_deadline(self, request_id: Any) -> None:
        """Start a held request's clock afresh (a no-op unless held)."""
        pending = self.get(request_id)
        if pending is not None and pending.deadline is None and pending.timeout and not pending.future.done():
            pending.deadline = time.perf_counter() + pending.timeout
            self._ensure_ticker()

    def restart_clock(self, pending: PendingRequest) -> None:
        """Progress proves the server is alive: the request's timeout starts again."""
        if pending.deadline is not None and pending.timeout:
            pending.deadline = time.perf_counter() + pending.timeout

    def stop_ticking(self) -> None:
        """Stop the deadline ticker."""
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None

    def _ensure_ticker(self) -> None:
        # One coarse timer checks every deadline, instead of a timer handle
        # per request: a round trip then costs no timer-heap work at all.
        if self._ticker is None:
            self._ticker = self._loop.call_later(TICK_SECONDS, self._tick)

    def _tick(self) -> None:
        self._ticker = None
        now = time.perf_counter()
        waiting = False
        for pending in list(self.values()):
            if pending.deadline is None:
                continue
            if pending.deadline <= now:
                self._expire(pending)
            else:
                waiting = True
        if waiting:
            self._ensure_ticker()
