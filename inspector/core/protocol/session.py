"""The JSON-RPC session: ids, pending requests, timeouts, cancellation,
progress, server-to-client requests and notifications.

It knows JSON-RPC, not MCP features: the MCP operations and the handshake
live in `client.py`, and the era-specific request decoration is a hook
(`prepare_params`) so the stateless era can add its envelope without a
second session class.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.core.background import BackgroundTasks, stop_task
from inspector.core.protocol.errors import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    CancelledError,
    ConnectionClosed,
    InspectorError,
    JsonRpcError,
    ProtocolError,
    RequestTimeout,
)
from inspector.core.protocol.raw_json import encode_message, one_line, replace_member
from inspector.core.protocol.wire_json import TooDeep, id_type, parse, shallow_members, too_deep_reason
from inspector.core.record.traffic import Frame, TrafficLog
from inspector.core.transports.base import Transport

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_SERVER_REQUESTS",
    "SENDING",
    "SERVER_REQUESTS_FULL",
    "NotificationObserver",
    "PendingRequest",
    "ProgressCallback",
    "ServerRequest",
    "ServerRequestHandler",
    "Session",
]

DEFAULT_TIMEOUT = 60.0
TICK_SECONDS = 0.05
# Requests we stopped waiting for (cancelled, timed out, abandoned, closed),
# remembered so that a late answer is recognised rather than blamed on the
# server as an answer to an id nobody sent.
ENDED_MEMORY = 1000
# The request a transport is sending (its session and id), seen by what runs
# inside the send: an OAuth login holds that request's clock (hold_deadline).
SENDING: ContextVar[tuple[Session, Any] | None] = ContextVar("inspector_sending", default=None)
# Server requests held at once (waiting for a handler that may wait for the
# person); past it a request is declined at once with SERVER_REQUESTS_FULL, so
# a flood costs one error answer each instead of a queue without end.
MAX_SERVER_REQUESTS = 64
# JSON-RPC reserves -32000..-32099 for errors the implementation defines.
SERVER_REQUESTS_FULL = -32000
# Answered at once whatever the load: never held, so never declined.
UNHELD_METHODS = frozenset({"ping"})

ProgressCallback = Callable[[float, float | None, str | None], None]
NotificationObserver = Callable[[str, Any, Frame], None]

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_loads = json.loads


def _encode(message: Any) -> bytes:
    # Arguments a person wrote as raw JSON go out as written (raw_json.py).
    return encode_message(message, _dumps).encode("utf-8", errors="surrogatepass")


def _same_id(ours: Any, theirs: Any) -> bool:
    """JSON-RPC ids of different types are different ids (Python alone would
    match "3" never, but 3.0 and true to 3 and 1)."""
    return type(ours) is type(theirs)


def _hashable_id(msg_id: Any) -> bool:
    return isinstance(msg_id, (int, float, str))


def _near_miss(msg_id: Any) -> Any:
    """The id of ours that `msg_id` would equal but for its type, if any."""
    if isinstance(msg_id, bool):
        return int(msg_id)
    if isinstance(msg_id, float) and msg_id.is_integer():
        return int(msg_id)
    if isinstance(msg_id, str):
        text = msg_id.strip()
        if text.lstrip("-").isdigit() and len(text) < 20:
            return int(text)
    return None


STDOUT_HINT = (
    "a line on the server's stdout that is not JSON: stdio servers must write only "
    "JSON-RPC messages to stdout (logs belong on stderr)"
)


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
        return await self.future

    async def cancel(self, reason: str = "cancelled by the user") -> None:
        if self.session is not None:
            await self.session.cancel(self, reason)


@dataclass(slots=True, eq=False)
class ServerRequest:
    """A request the server sent us, as seen by a handler."""

    id: Any
    method: str
    params: Any
    frame: Frame
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    cancel_reason: str | None = None


ServerRequestHandler = Callable[[ServerRequest], Awaitable[Any]]


class Session:
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
        self.request_handlers: dict[str, ServerRequestHandler] = {}
        self.notification_observers: list[NotificationObserver] = []
        self.prepare_params: Callable[[str, Any], Any] | None = None
        # Era-specific checks of a result before its frame is recorded
        # (the stateless era flags an unknown `resultType`); returns problems.
        self.inspect_result: Callable[[str, Any], list[str]] | None = None
        self.closed_reason: str | None = None
        self.max_server_requests = MAX_SERVER_REQUESTS
        # Server requests counted against max_server_requests.
        self._held: set[ServerRequest] = set()
        self._pending: dict[Any, PendingRequest] = {}
        self._by_token: dict[Any, PendingRequest] = {}
        self._server_requests: dict[Any, tuple[ServerRequest, asyncio.Task[None]]] = {}
        # id -> (why we stopped waiting, the request's frame seq, its method, the id as sent)
        self._ended: OrderedDict[Any, tuple[str, int, str, Any]] = OrderedDict()
        # Owned here and ended by close(): notices of requests given up on
        # (sent first when closing), the handling of each server request,
        # and the error answers sent from the read callback.
        self._cancelling = BackgroundTasks()
        self._serving = BackgroundTasks()
        self._background = BackgroundTasks()
        self._next_id = 0
        self._loop = asyncio.get_running_loop()
        self._lost_observers: list[Callable[[str], None]] = []
        self._ticker: asyncio.TimerHandle | None = None
        transport.bind(self)

    # -- outgoing ------------------------------------------------------------------

    @property
    def in_flight(self) -> int:
        # A listen subscription is open for good; it is not "in flight".
        return sum(1 for pending in self._pending.values() if pending.method != "subscriptions/listen")

    def next_id(self) -> int:
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
        raw = _encode(message)
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
            self._by_token[request_id] = pending
        await self._send_request(pending, raw, message)
        return pending

    async def _send_request(self, pending: PendingRequest, raw: bytes, message: JSONObject) -> None:
        """Track a request, start its clock and send it within its deadline;
        a send that fails ends the request and raises why."""
        self._pending[pending.id] = pending
        if pending.timeout:
            pending.deadline = pending.started + pending.timeout
            self._ensure_ticker()
        sending = SENDING.set((self, pending.id))
        try:
            await self._send_by_deadline(pending, raw, message)
        except Exception as exc:
            self._finish(pending)
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
        pending = await self.start_request(
            method, params, timeout=timeout, on_progress=on_progress, note=note, cancel_on_timeout=cancel_on_timeout
        )
        return await pending.future

    async def notify(self, method: str, params: Any = None, *, note: str | None = None) -> Frame:
        if self.closed_reason is not None:
            raise ConnectionClosed(self.closed_reason)
        message: JSONObject = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        raw = _encode(message)
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
            replaced = replace_member(one_line(text), "id", _dumps(request_id))
            raw = replaced.encode("utf-8", errors="surrogatepass") if replaced is not None else _encode(message)
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
        self._finish(pending, "was cancelled")
        pending.future.set_exception(CancelledError(f"{pending.method}: {reason}"))
        if self.transport.cancel_request(pending.id):
            return
        with contextlib.suppress(ConnectionClosed, ConnectionError, OSError):
            await self.notify(
                "notifications/cancelled", {"requestId": pending.id, "reason": reason}, note="cancellation"
            )

    def _finish(self, pending: PendingRequest, ended: str | None = None) -> None:
        """Stop tracking a request; `ended` says why, when it got no answer."""
        self._pending.pop(pending.id, None)
        if pending.progress_token is not None:
            self._by_token.pop(pending.progress_token, None)
        pending.deadline = None
        if ended is not None:
            self._ended[pending.id] = (ended, pending.frame.seq, pending.method, pending.id)
            if len(self._ended) > ENDED_MEMORY:
                self._ended.popitem(last=False)

    def hold_deadline(self, request_id: Any) -> None:
        """Stop a request's clock: what runs inside its send now is not the
        server's time (an OAuth login, which has its own deadline)."""
        pending = self._pending.get(request_id)
        if pending is not None:
            pending.deadline = None

    def restart_deadline(self, request_id: Any) -> None:
        """Start a held request's clock afresh: it is being sent now (a no-op unless held)."""
        pending = self._pending.get(request_id)
        if pending is not None and pending.deadline is None and pending.timeout and not pending.future.done():
            pending.deadline = time.perf_counter() + pending.timeout
            self._ensure_ticker()

    def _ensure_ticker(self) -> None:
        # One coarse timer checks every deadline, instead of a timer handle
        # per request: a round trip then costs no timer-heap work at all.
        if self._ticker is None:
            self._ticker = self._loop.call_later(TICK_SECONDS, self._tick)

    def _tick(self) -> None:
        self._ticker = None
        now = time.perf_counter()
        waiting = False
        for pending in list(self._pending.values()):
            if pending.deadline is None:
                continue
            if pending.deadline <= now:
                self._expire(pending)
            else:
                waiting = True
        if waiting:
            self._ensure_ticker()

    def _expire(self, pending: PendingRequest) -> None:
        if pending.future.done():
            return
        self._finish(pending, "had timed out")
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
        """One raw inbound frame from the transport: record it, then act on it.

        Nothing raised while handling one frame reaches the transport: the
        frames that arrived with it in the same read must still be handled.
        """
        try:
            self._feed(raw, meta)
        except Exception as exc:  # noqa: BLE001 - reported on the log, the read goes on
            # The log itself may be what failed: then nothing is left to tell.
            with contextlib.suppress(Exception):
                self.traffic.event(
                    "local", "transport", note=f"internal error while handling an inbound frame: {exc!r}"
                )

    def _feed(self, raw: bytes, meta: JSONObject | None) -> None:
        try:
            message = parse(raw)
        except TooDeep:
            self._too_deep(raw, meta)
            return
        except UnicodeDecodeError as exc:
            self._invalid(raw, f"invalid UTF-8: {exc}", meta)
            return
        except ValueError as exc:
            stripped = raw.lstrip()
            hint = STDOUT_HINT if not stripped.startswith((b"{", b"[")) else f"invalid JSON: {exc}"
            self._invalid(raw, hint if hint == STDOUT_HINT else f"invalid JSON: {exc}", meta)
            return
        except RecursionError:
            # Within the bound, but the stack was already deep: still not parsed.
            self._too_deep(raw, meta)
            return
        if isinstance(message, dict):
            self._dispatch(raw, message, meta)
        elif isinstance(message, list) and message:
            odd = [f"batch item is not an object: {item!r}" for item in message if not isinstance(item, dict)]
            frame = self.traffic.add("in", "batch", raw=raw, message=message, meta=meta, problems=odd)
            for item in message:
                if isinstance(item, dict):
                    try:
                        self._dispatch(None, item, meta, frame)
                    except Exception as exc:  # noqa: BLE001 - the other items still count
                        frame.problems.append(f"internal error while handling a batch item: {exc!r}")
        else:
            self._invalid(raw, "a JSON-RPC message must be an object (or a non-empty batch array)", meta, message)

    def _invalid(self, raw: bytes, error: str, meta: JSONObject | None, message: Any = None) -> Frame:
        frame = self.traffic.add("in", "invalid", raw=raw, message=message, error=error, meta=meta, problems=[error])
        for pending in self._pending.values():
            pending.invalid_seen += 1
        return frame

    def _too_deep(self, raw: bytes, meta: JSONObject | None) -> None:
        """Record a frame nested past the bound, unparsed; what it answers
        (found by a shallow look at its top level) ends at once."""
        reason = too_deep_reason()
        members = shallow_members(raw)
        msg_id, method = members.get("id"), members.get("method")
        if not isinstance(msg_id, (int, str)) or isinstance(msg_id, bool):
            msg_id = None
        is_request = isinstance(method, str)
        pending = self._pending.get(msg_id) if msg_id is not None and not is_request else None
        if pending is not None and (not _same_id(pending.id, msg_id) or pending.future.done()):
            pending = None
        if pending is not None:
            self._finish(pending)
            method = pending.method
        frame = self.traffic.add(
            "in",
            "invalid",
            raw=raw,
            error=reason,
            method=method if isinstance(method, str) else None,
            id=msg_id,
            partner=pending.frame.seq if pending is not None else None,
            meta=meta,
            problems=[reason],
        )
        for other in self._pending.values():
            other.invalid_seen += 1
        if is_request and msg_id is not None:
            # A request we cannot read: the server still gets an answer.
            self._spawn(self._respond_error(msg_id, INVALID_REQUEST, f"request {reason}", frame))
        if pending is None:
            return
        pending.frame.partner = frame.seq
        error = ProtocolError(f"{pending.method}: the answer (frame #{frame.seq}) is {reason}")
        pending.frame.problems.append(str(error))
        pending.future.set_exception(error)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run an answer of ours in the background, kept until it is sent."""
        self._background.start(work)

    def _dispatch(
        self,
        raw: bytes | None,
        message: JSONObject,
        meta: JSONObject | None,
        batch: Frame | None = None,
    ) -> None:
        method = message.get("method")
        if method is not None:
            if "id" in message:
                self._on_server_request(raw, message, meta, batch)
            else:
                self._on_notification(raw, message, meta, batch)
            return
        msg_id = message.get("id")
        if "result" in message or "error" in message:
            self._on_response(raw, message, msg_id, meta, batch)
            return
        problem = "not a request, notification or response: no method, result or error"
        self._record(raw, "invalid", message, None, msg_id, meta, batch, problems=[problem])

    def _record(
        self,
        raw: bytes | None,
        kind: str,
        message: JSONObject,
        method: str | None,
        msg_id: Any,
        meta: JSONObject | None,
        batch: Frame | None,
        latency: float | None = None,
        partner: int | None = None,
        problems: list[str] | None = None,
        note: str | None = None,
    ) -> Frame:
        if batch is not None and raw is None:
            raw = _encode(message)
            meta = {**(meta or {}), "batch": batch.seq}
        return self.traffic.add(
            "in",
            kind,
            raw=raw,
            message=message,
            method=method,
            id=msg_id,
            latency=latency,
            partner=partner,
            meta=meta,
            note=note,
            problems=problems,
        )

    def _on_response(
        self,
        raw: bytes | None,
        message: JSONObject,
        msg_id: Any,
        meta: JSONObject | None,
        batch: Frame | None,
    ) -> None:
        is_error = "error" in message
        kind = "error" if is_error else "response"
        pending = self._pending.get(msg_id) if _hashable_id(msg_id) else None
        if pending is not None and not _same_id(pending.id, msg_id):
            pending = None
        if pending is None:
            ended = self._ended.get(msg_id) if _hashable_id(msg_id) else None
            if ended is not None and _same_id(ended[3], msg_id):
                del self._ended[msg_id]
                # Not the server's fault: we stopped waiting first.
                why, request_seq, method, _id = ended
                note = f"late answer to request #{request_seq}, which {why}; ignored"
                self._record(raw, kind, message, method, msg_id, meta, batch, partner=request_seq, note=note)
                return
            if msg_id is None and is_error:
                problem = "error response without an id (the server could not parse a request)"
            else:
                problem = f"response to unknown request id {msg_id!r}"
                near = self._near_pending(msg_id)
                if near is not None:
                    hint = (
                        f"request {near.id} ({near.method}) is pending, but its id is {id_type(near.id)} {near.id} "
                        f"and this one is {id_type(msg_id)}: JSON-RPC ids of different types are different ids"
                    )
                    problem += f"; {hint}"
                    near.near_miss = f"the server answered under the id {msg_id!r} ({id_type(msg_id)}) instead"
            self._record(raw, kind, message, None, msg_id, meta, batch, problems=[problem])
            return
        self._finish(pending)
        problems: list[str] = []
        if not is_error and self.inspect_result is not None:
            try:
                problems.extend(self.inspect_result(pending.method, message["result"]))
            except Exception as exc:  # a check must never break the session  # noqa: BLE001
                problems.append(f"result check failed: {exc!r}")
        frame = self._record(
            raw,
            kind,
            message,
            pending.method,
            msg_id,
            meta,
            batch,
            latency=time.perf_counter() - pending.started,
            partner=pending.frame.seq,
            problems=problems or None,
        )
        pending.frame.partner = frame.seq
        if pending.future.done():
            return
        message = frame.message  # secrets masked (the same object when it held none)
        if is_error:
            pending.future.set_exception(JsonRpcError.from_dict(message["error"]))
        else:
            pending.future.set_result(message["result"])

    def _progress_target(self, token: Any) -> PendingRequest | None:
        pending = self._by_token.get(token) if _hashable_id(token) else None
        return pending if pending is not None and _same_id(pending.progress_token, token) else None

    def _held_request(self, request_id: Any) -> tuple[ServerRequest, asyncio.Task[None]] | None:
        entry = self._server_requests.get(request_id) if _hashable_id(request_id) else None
        return entry if entry is not None and _same_id(entry[0].id, request_id) else None

    def _near_pending(self, msg_id: Any) -> PendingRequest | None:
        near = _near_miss(msg_id)
        if near is None:
            return None
        pending = self._pending.get(near)
        return pending if pending is not None and _same_id(pending.id, near) else None

    def _on_notification(
        self, raw: bytes | None, message: JSONObject, meta: JSONObject | None, batch: Frame | None
    ) -> None:
        method = message["method"]
        params = message.get("params")
        problems: list[str] = []
        if not isinstance(method, str):
            problems.append("method is not a string")
        elif (
            method == "notifications/progress"
            and isinstance(params, dict)
            and self._progress_target(params.get("progressToken")) is None
        ):
            problems.append(f"progress for unknown or finished token {params.get('progressToken')!r}")
        frame = self._record(
            raw,
            "notification",
            message,
            method if isinstance(method, str) else None,
            None,
            meta,
            batch,
            problems=problems,
        )
        params = frame.message.get("params")  # secrets masked (the same object when it held none)
        if not isinstance(method, str):
            return
        if method == "notifications/progress" and isinstance(params, dict):
            self._on_progress(params, frame)
        elif method == "notifications/cancelled" and isinstance(params, dict):
            entry = self._held_request(params.get("requestId"))
            if entry is not None:
                request, task = entry
                request.cancel_reason = params.get("reason") or "cancelled by the server"
                request.cancelled.set()
                task.cancel()
        for observer in list(self.notification_observers):
            try:
                observer(method, params, frame)
            except Exception as exc:  # an observer must never break the session  # noqa: BLE001
                frame.problems.append(f"notification observer failed: {exc!r}")

    def _on_progress(self, params: JSONObject, frame: Frame) -> None:
        pending = self._progress_target(params.get("progressToken"))
        if pending is None:
            return
        frame.partner = pending.frame.seq
        # Progress proves the server is alive: restart the timeout.
        if pending.deadline is not None and pending.timeout:
            pending.deadline = time.perf_counter() + pending.timeout
        if pending.on_progress is not None:
            progress = params.get("progress")
            total = params.get("total")
            message = params.get("message")
            try:
                pending.on_progress(
                    float(progress) if isinstance(progress, (int, float)) else 0.0,
                    float(total) if isinstance(total, (int, float)) else None,
                    message if isinstance(message, str) else None,
                )
            except Exception as exc:  # a progress display must not break the session  # noqa: BLE001
                frame.problems.append(f"progress callback failed: {exc!r}")

    def _on_server_request(
        self, raw: bytes | None, message: JSONObject, meta: JSONObject | None, batch: Frame | None
    ) -> None:
        method = message["method"]
        msg_id = message["id"]
        malformed = not isinstance(method, str) or not isinstance(msg_id, (int, str)) or isinstance(msg_id, bool)
        frame = self._record(
            raw,
            "request",
            message,
            method if isinstance(method, str) else None,
            msg_id,
            meta,
            batch,
            problems=["request with a non-string method or an id that is not a string or integer"]
            if malformed
            else None,
        )
        if malformed:
            self._spawn(
                self._respond_error(
                    msg_id if isinstance(msg_id, (int, str)) else None,
                    INVALID_REQUEST,
                    "invalid request",
                    frame,
                )
            )
            return
        held = method not in UNHELD_METHODS and method in self.request_handlers
        if held and len(self._held) >= self.max_server_requests:
            self._decline_excess(msg_id, frame)
            return
        # Secrets masked in what the handlers show (the same object when it held none).
        request = ServerRequest(msg_id, method, frame.message.get("params"), frame)
        if held:
            self._held.add(request)
        task = self._serving.start(self._serve(request))
        self._server_requests[msg_id] = (request, task)

    def _decline_excess(self, msg_id: Any, frame: Frame) -> None:
        limit = self.max_server_requests
        text = f"too many server requests pending: the client holds at most {limit} at a time; declined unanswered"
        note = f"declined at once: {limit} server requests were already waiting (the bound on pending server requests)"
        self._spawn(self._respond_error(msg_id, SERVER_REQUESTS_FULL, text, frame, {"limit": limit}, note=note))

    def _release(self, request: ServerRequest) -> None:
        """The request no longer waits: forget it, and free its place."""
        entry = self._server_requests.get(request.id)
        if entry is not None and entry[0] is request:
            del self._server_requests[request.id]
        self._held.discard(request)

    async def _serve(self, request: ServerRequest) -> None:
        handler = self.request_handlers.get(request.method)
        try:
            if handler is None:
                raise JsonRpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}")
            result = await handler(request)
        except asyncio.CancelledError:
            self._release(request)
            if request.cancelled.is_set():
                # Cancelled by the server: the spec says send nothing back.
                return
            raise
        except JsonRpcError as exc:
            self._release(request)
            await self._respond_error(request.id, exc.code, exc.message, request.frame, exc.data)
            return
        except Exception as exc:  # a handler bug becomes a JSON-RPC error, not a crash  # noqa: BLE001
            self._release(request)
            await self._respond_error(request.id, INTERNAL_ERROR, f"client handler failed: {exc}", request.frame)
            return
        self._release(request)
        if request.cancelled.is_set():
            return
        await self._respond(request.id, result, request.frame)

    async def _respond(self, msg_id: Any, result: Any, request_frame: Frame) -> None:
        await self._answer({"jsonrpc": "2.0", "id": msg_id, "result": result}, "response", request_frame)

    async def _respond_error(
        self,
        msg_id: Any,
        code: int,
        text: str,
        request_frame: Frame,
        data: Any = None,
        *,
        note: str | None = None,
    ) -> None:
        error: JSONObject = {"code": code, "message": text}
        if data is not None:
            error["data"] = data
        await self._answer({"jsonrpc": "2.0", "id": msg_id, "error": error}, "error", request_frame, note)

    async def _answer(self, message: JSONObject, kind: str, request_frame: Frame, note: str | None = None) -> None:
        """Record and send our answer to a server request, linked to it."""
        raw = _encode(message)
        frame = self.traffic.add(
            "out",
            kind,
            raw=raw,
            message=message,
            id=message["id"],
            method=request_frame.method,
            partner=request_frame.seq,
            note=note,
        )
        request_frame.partner = frame.seq
        with contextlib.suppress(ConnectionError, OSError, ConnectionClosed):
            await self.transport.send(raw, message)

    def abandon(self, pending: PendingRequest) -> None:
        """Stop waiting for a request without telling the server (its late
        answer, if any, is recorded with a note, not as a problem)."""
        self._finish(pending, "was abandoned")
        if not pending.future.done():
            pending.future.cancel()

    def fail_request(self, request_id: Any, error: Exception) -> None:
        """The transport could not deliver a request or its answer."""
        pending = self._pending.get(request_id)
        if pending is None or pending.future.done():
            return
        self._finish(pending)
        pending.frame.problems.append(str(error))
        pending.future.set_exception(error)

    def is_pending(self, request_id: Any) -> bool:
        return request_id in self._pending

    def pending_server_requests(self) -> list[ServerRequest]:
        return [request for request, _task in self._server_requests.values()]

    # -- end of the connection -------------------------------------------------------

    def on_connection_lost(self, callback: Callable[[str], None]) -> None:
        self._lost_observers.append(callback)

    def connection_lost(self, reason: str) -> None:
        if self.closed_reason is not None:
            return
        tail = self.transport.stderr_tail()
        self.closed_reason = reason
        detail = reason
        if tail:
            detail += "; last stderr: " + " | ".join(tail[-3:])
        for pending in list(self._pending.values()):
            self._finish(pending)
            if not pending.future.done():
                pending.future.set_exception(ConnectionClosed(f"{pending.method}: {detail}"))
        for _request, task in list(self._server_requests.values()):
            task.cancel()
        self._server_requests.clear()
        self._held.clear()
        self.traffic.event("local", "transport", note=f"connection lost: {reason}")
        for callback in list(self._lost_observers):
            try:
                callback(reason)
            except Exception as exc:  # noqa: BLE001 - an observer must never break the session; logged instead
                self.traffic.event("local", "transport", note=f"connection-lost observer failed: {exc!r}")

    async def close(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        if self._cancelling and self.closed_reason is None:
            # notifications/cancelled for requests that just timed out go first.
            await self._cancelling.wait(timeout=1.0)
        if self.closed_reason is None:
            self.closed_reason = "closed by the client"
            for pending in list(self._pending.values()):
                self._finish(pending, "was still open when the client closed the connection")
                if not pending.future.done():
                    pending.future.set_exception(ConnectionClosed(f"{pending.method}: connection closed"))
        self._server_requests.clear()
        self._held.clear()
        # Nothing of this session runs on once it is closed.
        for tasks in (self._serving, self._background, self._cancelling):
            await tasks.close()
        await self.transport.close()
