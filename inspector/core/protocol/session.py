"""The JSON-RPC session: ids, pending requests, timeouts, cancellation,
progress, server-to-client requests and notifications.

It knows JSON-RPC, not MCP features: the MCP operations live in `client.py`,
the handshake (or the stateless era's discovery) in `eras.py`, and the era-specific request decoration is a hook
(`prepare_params`) so the stateless era can add its envelope without a
second session class.  What it sends is here; what comes in is read by
`frame_reader.py`, the requests waiting for an answer are kept by `pending.py`,
and the server's own requests are handled by `server_requests.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from inspector.core.background import BackgroundTasks, stop_task
from inspector.core.protocol.errors import (
    CancelledError,
    ConnectionClosed,
    InspectorError,
    RequestTimeout,
)
from inspector.core.protocol.frame_reader import FrameReader
from inspector.core.protocol.jsonrpc import dumps, encode
from inspector.core.protocol.pending import PendingRequest, PendingRequests, ProgressCallback
from inspector.core.protocol.raw_json import one_line, replace_member
from inspector.core.protocol.server_requests import ServerRequest, ServerRequests
from inspector.core.record.traffic import Frame, TrafficLog
from inspector.core.transports.base import Transport

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["DEFAULT_TIMEOUT", "SENDING", "NotificationObserver", "Session"]

DEFAULT_TIMEOUT = 60.0
# The request a transport is sending (its session and id), seen by what runs
# inside the send: an OAuth login holds that request's clock (hold_deadline).
SENDING: ContextVar[tuple[Session, Any] | None] = ContextVar("inspector_sending", default=None)

NotificationObserver = Callable[[str, Any, Frame], None]

_loads = json.loads


class Session:
    """One connection's JSON-RPC: what is sent, what is waited for, and its end."""

    def __init__(
        self,
        transport: Transport,
        traffic: TrafficLog,
        *,
        default_timeout: float | None = DEFAULT_TIMEOUT,
    ) -> None:
        self.transport = transport
        self.traffic = traffic
        self.default_timeout = default_timeout
        self.notification_observers: list[NotificationObserver] = []
        self.prepare_params: Callable[[str, Any], Any] | None = None
        # Era-specific checks of a result before its frame is recorded
        # (the stateless era flags an unknown `resultType`); returns problems.
        self.inspect_result: Callable[[str, Any], list[str]] | None = None
        self.closed_reason: str | None = None
        self._loop = asyncio.get_running_loop()
        self._pending = PendingRequests(self._loop, self._expire)
        # The server's requests: their handlers (`server_requests.handlers`) and those waiting.
        self.server_requests = ServerRequests(transport, traffic)
        self._reader = FrameReader(self, traffic, self._pending, self.server_requests)
        # Notices of requests given up on, owned here and ended by close() (sent first when closing).
        self._cancelling = BackgroundTasks()
        self._next_id = 0
        self._lost_observers: list[Callable[[str], None]] = []
        transport.bind(self)

    # -- outgoing ------------------------------------------------------------------

    @property
    def in_flight(self) -> int:
        """How many requests wait for their answer (an open listen subscription does not count)."""
        # A listen subscription is open for good; it is not "in flight".
        return sum(1 for pending in self._pending.values() if pending.method != "subscriptions/listen")

    def next_id(self) -> int:
        """A new request id."""
        self._next_id += 1
        return self._next_id

    async def start_request(
        self,
        method: str,
        params: Any = None,
        *,
        timeout: float | bool | None = True,
        on_progress: ProgressCallback | None = None,
        note: str | None = None,
        retry_of: int | None = None,
        cancel_on_timeout: bool = True,
    ) -> PendingRequest:
        """Send a request and return its pending handle without waiting.

        `retry_of` is the sequence number of the request this one repeats (a
        multi round-trip round, a retry after -32022/-32020, a resend after
        the session expired); it is kept in the frame's `meta["retry_of"]`,
        apart from `partner`, which links the request to its response.
        """
        if self.closed_reason is not None:
            raise ConnectionClosed(self.closed_reason)
        request_id = self.next_id()
        if on_progress is not None:
            params = dict(params or {})
            meta = dict(params.get("_meta") or {})
            meta["progressToken"] = request_id
            params["_meta"] = meta
        if self.prepare_params is not None:
            params = self.prepare_params(method, params)
        message: JSONObject = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        raw = encode(message)
        frame = self.traffic.add(
            "out",
            "request",
            raw=raw,
            message=message,
            method=method,
            id=request_id,
            note=note,
            meta={"retry_of": retry_of} if retry_of is not None else None,
        )
        effective: float | None
        if timeout is True:
            effective = self.default_timeout
        elif timeout is False or timeout is None:
            effective = None
        else:
            effective = float(timeout)
        pending = PendingRequest(
            request_id,
            method,
            frame,
            self._loop.create_future(),
            effective,
            time.perf_counter(),
            on_progress,
            request_id if on_progress is not None else None,
            session=self,
            cancel_on_timeout=cancel_on_timeout,
        )
        if on_progress is not None:
            self._pending.by_token[request_id] = pending
        await self._send_request(pending, raw, message)
        return pending

    async def _send_request(self, pending: PendingRequest, raw: bytes, message: JSONObject) -> None:
        """Track a request, start its clock and send it within its deadline;
        a send that fails ends the request and raises why."""
        self._pending.track(pending)
        sending = SENDING.set((self, pending.id))
        try:
            await self._send_by_deadline(pending, raw, message)
        except Exception as exc:
            self._pending.finish(pending)
            # The connection may have failed this request already; the
            # exception raised below is the one the caller sees.
            if pending.future.done():
                if not pending.future.cancelled():
                    pending.future.exception()
            else:
                pending.future.cancel()
            reason = f"could not send {pending.method}: {exc}"
            pending.frame.problems.append(reason)
            if isinstance(exc, InspectorError):
                raise
            raise ConnectionClosed(reason) from exc
        finally:
            SENDING.reset(sending)

    async def _send_by_deadline(self, pending: PendingRequest, raw: bytes, message: JSONObject) -> None:
        """The transport's send, bounded by the request's deadline.

        A transport may send and read in one go (HTTP reads the initialize
        answer before anything else may go out): a server that never ends
        that body must not hold the caller past --timeout.  The send is
        cancelled when the request ends unanswered; once answered, the rest
        of the body gets one more timeout at most.
        """
        if pending.deadline is None:
            await self.transport.send(raw, message)
            return
        sending = self._loop.create_task(self.transport.send(raw, message))
        try:
            await asyncio.wait({sending, pending.future}, return_when=asyncio.FIRST_COMPLETED)
            if not sending.done() and pending.frame.partner is not None:
                # Answered while the body is still coming.
                await asyncio.wait({sending}, timeout=pending.timeout)
        finally:
            if not sending.done():
                await stop_task(sending)
                note = f"{pending.method}: the transport's send was stopped (the request ended before it finished)"
                self.traffic.event("local", "transport", note=note)
        if not sending.cancelled():
            sending.result()

    async def request(
        self,
        method: str,
        params: Any = None,
        *,
        timeout: float | bool | None = True,
        on_progress: ProgressCallback | None = None,
        note: str | None = None,
        cancel_on_timeout: bool = True,
    ) -> Any:
        """Send a request and wait for its answer (see `start_request`)."""
        pending = await self.start_request(
            method, params, timeout=timeout, on_progress=on_progress, note=note, cancel_on_timeout=cancel_on_timeout
        )
        return await pending.future

    async def notify(self, method: str, params: Any = None, *, note: str | None = None) -> Frame:
        """Send a notification, recorded first; the frame it made."""
        if self.closed_reason is not None:
            raise ConnectionClosed(self.closed_reason)
        message: JSONObject = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        raw = encode(message)
        frame = self.traffic.add("out", "notification", raw=raw, message=message, method=method, note=note)
        await self.transport.send(raw, message)
        return frame

    async def send_raw(self, text: str, *, note: str = "raw") -> PendingRequest | Frame:
        """Send what the person typed: it must be JSON, not necessarily MCP.

        A request gets a fresh id of ours (so its answer is matched and
        timed like any other) and is otherwise sent exactly as typed: no
        envelope is added, only the id's value is replaced in the text.
        Anything else goes out byte for byte.  Line breaks (between tokens:
        a JSON string cannot hold one) become spaces, as a stdio message is
        one line.
        """
        message = _loads(text)
        if isinstance(message, dict) and isinstance(message.get("method"), str) and "id" in message:
            if self.closed_reason is not None:
                raise ConnectionClosed(self.closed_reason)
            request_id = self.next_id()
            message = {**message, "id": request_id}
            # Only the id changes: the rest is the person's text, byte for byte.
            replaced = replace_member(one_line(text), "id", dumps(request_id))
            raw = replaced.encode("utf-8", errors="surrogatepass") if replaced is not None else encode(message)
            method = message["method"]
            frame = self.traffic.add(
                "out", "request", raw=raw, message=message, method=method, id=request_id, note=note
            )
            pending = PendingRequest(
                request_id,
                method,
                frame,
                self._loop.create_future(),
                self.default_timeout,
                time.perf_counter(),
                session=self,
            )
            # Bounded by --timeout like any request: a raw `initialize` is sent
            # and read in one go on HTTP.
            await self._send_request(pending, raw, message)
            return pending
        raw = one_line(text).encode("utf-8", errors="surrogatepass")
        kind = "notification" if isinstance(message, dict) and "method" in message else "invalid"
        method = message.get("method") if isinstance(message, dict) else None
        frame = self.traffic.add("out", kind, raw=raw, message=message, method=method, note=note)
        await self.transport.send(raw, message if isinstance(message, dict) else {"batch": message})
        return frame

    async def cancel(self, pending: PendingRequest, reason: str = "cancelled by the user") -> None:
        """Cancel an in-flight request: tell the server, then fail the waiter."""
        if pending.future.done():
            return
        self._pending.finish(pending, "was cancelled")
        pending.future.set_exception(CancelledError(f"{pending.method}: {reason}"))
        if self.transport.cancel_request(pending.id):
            return
        with contextlib.suppress(ConnectionClosed, ConnectionError, OSError):
            await self.notify(
                "notifications/cancelled", {"requestId": pending.id, "reason": reason}, note="cancellation"
            )

    def hold_deadline(self, request_id: Any) -> None:
        """Stop a request's clock: what runs inside its send now is not the
        server's time (an OAuth login, which has its own deadline)."""
        self._pending.hold_deadline(request_id)

    def restart_deadline(self, request_id: Any) -> None:
        """Start a held request's clock afresh: it is being sent now (a no-op unless held)."""
        self._pending.restart_deadline(request_id)

    def _expire(self, pending: PendingRequest) -> None:
        if pending.future.done():
            return
        self._pending.finish(pending, "had timed out")
        error = RequestTimeout(pending.method, pending.timeout or 0)
        if pending.near_miss:
            error.args = (f"{error.args[0]}; {pending.near_miss}",)
        if pending.invalid_seen:
            error.args = (
                f"{error.args[0]}; meanwhile the server sent {pending.invalid_seen} frame(s) that could not be "
                "parsed (see the traffic log)",
            )
        pending.frame.problems.append(str(error))
        pending.future.set_exception(error)
        self.traffic.event("local", "transport", note=str(error), meta={"timeout": pending.id})
        # The spec asks a client that gives up on a request to say so.
        if pending.cancel_on_timeout and not self.transport.cancel_request(pending.id):
            # Kept until sent: closing right after a timeout still tells the server.
            self._cancelling.start(self._quiet_notify_cancel(pending.id, "request timed out"))

    async def _quiet_notify_cancel(self, request_id: Any, reason: str) -> None:
        # A courtesy nobody waits for: the request is given up on already, and
        # a connection that fails the notice reports its own loss.
        with contextlib.suppress(Exception):
            await self.notify(
                "notifications/cancelled", {"requestId": request_id, "reason": reason}, note="cancellation"
            )

    # -- incoming ------------------------------------------------------------------

    def feed(self, raw: bytes, meta: JSONObject | None = None) -> None:
        """One raw inbound frame from the transport: record it, then act on it (frame_reader.py)."""
        self._reader.feed(raw, meta)

    def abandon(self, pending: PendingRequest) -> None:
        """Stop waiting for a request without telling the server (its late
        answer, if any, is recorded with a note, not as a problem)."""
        self._pending.finish(pending, "was abandoned")
        if not pending.future.done():
            pending.future.cancel()

    def fail_request(self, request_id: Any, error: Exception) -> None:
        """The transport could not deliver a request or its answer."""
        pending = self._pending.get(request_id)
        if pending is None or pending.future.done():
            return
        self._pending.finish(pending)
        pending.frame.problems.append(str(error))
        pending.future.set_exception(error)

    def is_pending(self, request_id: Any) -> bool:
        """Whether the request with this id still waits for its answer."""
        return request_id in self._pending

    def pending_server_requests(self) -> list[ServerRequest]:
        """The server's requests still being handled."""
        return self.server_requests.pending()

    # -- end of the connection -------------------------------------------------------

    def on_connection_lost(self, callback: Callable[[str], None]) -> None:
        """Call `callback` with the reason when the connection is lost."""
        self._lost_observers.append(callback)

    def connection_lost(self, reason: str) -> None:
        """The transport lost the connection: fail every waiting request (quoting the server's last stderr
        lines), stop the server's requests' handlers, record it, and tell the observers; once only."""
        if self.closed_reason is not None:
            return
        tail = self.transport.stderr_tail()
        self.closed_reason = reason
        detail = reason
        if tail:
            detail += "; last stderr: " + " | ".join(tail[-3:])
        for pending in list(self._pending.values()):
            self._pending.finish(pending)
            if not pending.future.done():
                pending.future.set_exception(ConnectionClosed(f"{pending.method}: {detail}"))
        self.server_requests.drop_all()
        self.traffic.event("local", "transport", note=f"connection lost: {reason}")
        for callback in list(self._lost_observers):
            try:
                callback(reason)
            except Exception as exc:  # noqa: BLE001 - an observer must never break the session; logged instead
                self.traffic.event("local", "transport", note=f"connection-lost observer failed: {exc!r}")

    async def close(self) -> None:
        """Close the connection: send the pending cancellation notices, fail the requests still waiting,
        end the server's requests' handling, then close the transport."""
        self._pending.stop_ticking()
        if self._cancelling and self.closed_reason is None:
            # notifications/cancelled for requests that just timed out go first.
            await self._cancelling.wait(timeout=1.0)
        if self.closed_reason is None:
            self.closed_reason = "closed by the client"
            for pending in list(self._pending.values()):
                self._pending.finish(pending, "was still open when the client closed the connection")
                if not pending.future.done():
                    pending.future.set_exception(ConnectionClosed(f"{pending.method}: connection closed"))
        # Nothing of this session runs on once it is closed, and its
        # transport closes even when ending the rest fails or is cancelled.
        try:
            await self.server_requests.close()
            await self._cancelling.close()
        finally:
            await self.transport.close()
