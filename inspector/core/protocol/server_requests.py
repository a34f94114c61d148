"""The requests a server sends the client (sampling, elicitation, roots, ping):
each handled in a task of its own by the face's handler, answered once and
linked to it in the traffic log, and bounded: past MAX_SERVER_REQUESTS held at
once, one is declined at once instead of queued."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.core.background import BackgroundTasks
from inspector.core.protocol.errors import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    ConnectionClosed,
    JsonRpcError,
)
from inspector.core.protocol.jsonrpc import encode, hashable_id, same_id

if TYPE_CHECKING:
    from inspector.core.record.traffic import Frame, TrafficLog
    from inspector.core.transports.base import Transport
    from inspector.forms.values import JSONObject

__all__ = [
    "MAX_SERVER_REQUESTS",
    "SERVER_REQUESTS_FULL",
    "ServerRequest",
    "ServerRequestHandler",
    "ServerRequests",
]

# Server requests held at once (waiting for a handler that may wait for the
# person); past it a request is declined at once with SERVER_REQUESTS_FULL, so
# a flood costs one error answer each instead of a queue without end.
MAX_SERVER_REQUESTS = 64
# JSON-RPC reserves -32000..-32099 for errors the implementation defines.
SERVER_REQUESTS_FULL = -32000
# Answered at once whatever the load: never held, so never declined.
UNHELD_METHODS = frozenset({"ping"})


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


class ServerRequests:
    """One session's server requests: their handlers by method, and those still waiting."""

    def __init__(self, transport: Transport, traffic: TrafficLog) -> None:
        self.transport = transport
        self.traffic = traffic
        self.handlers: dict[str, ServerRequestHandler] = {}
        self.limit = MAX_SERVER_REQUESTS
        # Requests counted against the limit.
        self._held: set[ServerRequest] = set()
        self._waiting: dict[Any, tuple[ServerRequest, asyncio.Task[None]]] = {}
        # Owned here and ended by close(): the handling of each request, and
        # the error answers sent from the read callback.
        self._serving = BackgroundTasks()
        self._refusing = BackgroundTasks()

    def pending(self) -> list[ServerRequest]:
        """The server's requests still being handled."""
        return [request for request, _task in self._waiting.values()]

    def receive(self, msg_id: Any, method: Any, frame: Frame, malformed: bool) -> None:
        """A request the session has just recorded: refused, declined, or handed to its handler."""
        if malformed:
            self.refuse(msg_id if isinstance(msg_id, (int, str)) else None, INVALID_REQUEST, "invalid request", frame)
            return
        held = method not in UNHELD_METHODS and method in self.handlers
        if held and len(self._held) >= self.limit:
            self._decline_excess(msg_id, frame)
            return
        # Secrets masked in what the handlers show (the same object when it held none).
        request = ServerRequest(msg_id, method, frame.message.get("params"), frame)
        if held:
            self._held.add(request)
        task = self._serving.start(self._serve(request))
        self._waiting[msg_id] = (request, task)

    def refuse(
        self, msg_id: Any, code: int, text: str, frame: Frame, data: Any = None, *, note: str | None = None
    ) -> None:
        """Answer a request with an error from a task of its own (the read callback cannot wait)."""
        self._refusing.start(self._respond_error(msg_id, code, text, frame, data, note=note))

    def cancelled_by_server(self, params: JSONObject) -> None:
        """notifications/cancelled for a request still being handled: its handler is stopped, nothing is sent."""
        request_id = params.get("requestId")
        entry = self._waiting.get(request_id) if hashable_id(request_id) else None
        if entry is None or not same_id(entry[0].id, request_id):
            return
        request, task = entry
        request.cancel_reason = params.get("reason") or "cancelled by the server"
        request.cancelled.set()
        task.cancel()

    def drop_all(self) -> None:
        """The connection is lost: every handler stopped, nothing waits any more."""
        for _request, task in list(self._waiting.values()):
            task.cancel()
        self.forget_all()

    def forget_all(self) -> None:
        """Forget every request still being handled, without stopping its handler."""
        self._waiting.clear()
        self._held.clear()

    async def close(self) -> None:
        """Nothing of these requests runs on once closed."""
        self.forget_all()
        for tasks in (self._serving, self._refusing):
            await tasks.close()

    def _decline_excess(self, msg_id: Any, frame: Frame) -> None:
        limit = self.limit
        text = f"too many server requests pending: the client holds at most {limit} at a time; declined unanswered"
        note = f"declined at once: {limit} server requests were already waiting (the bound on pending server requests)"
        self.refuse(msg_id, SERVER_REQUESTS_FULL, text, frame, {"limit": limit}, note=note)

    def _release(self, request: ServerRequest) -> None:
        """The request no longer waits: forget it, and free its place."""
        entry = self._waiting.get(request.id)
        if entry is not None and entry[0] is request:
            del self._waiting[request.id]
        self._held.discard(request)

    async def _serve(self, request: ServerRequest) -> None:
        handler = self.handlers.get(request.method)
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
        await self._answer({"jsonrpc": "2.0", "id": request.id, "result": result}, "response", request.frame)

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
        raw = encode(message)
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
