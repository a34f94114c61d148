"""What the server sends, read by the session: each frame parsed without trusting
it, recorded first, then routed (an answer to its pending request, a
notification to the observers, a request to the server-request handlers).

Nothing raised while handling one frame reaches the transport: the frames that
arrived with it in the same read must still be handled.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Any

from inspector.core.protocol.errors import INVALID_REQUEST, JsonRpcError, ProtocolError
from inspector.core.protocol.jsonrpc import encode, same_id
from inspector.core.protocol.wire_json import TooDeep, id_type, parse, shallow_members, too_deep_reason

if TYPE_CHECKING:
    from inspector.core.protocol.pending import PendingRequest, PendingRequests
    from inspector.core.protocol.server_requests import ServerRequests
    from inspector.core.protocol.session import Session
    from inspector.core.record.traffic import Frame, TrafficLog
    from inspector.forms.values import JSONObject

__all__ = ["STDOUT_HINT", "FrameReader"]

STDOUT_HINT = (
    "a line on the server's stdout that is not JSON: stdio servers must write only "
    "JSON-RPC messages to stdout (logs belong on stderr)"
)


class FrameReader:
    """Reads the frames of one session; the session's hooks (`inspect_result`,
    `notification_observers`) are looked up as each frame comes."""

    def __init__(
        self, session: Session, traffic: TrafficLog, pending: PendingRequests, server_requests: ServerRequests
    ) -> None:
        self.session = session
        self.traffic = traffic
        self.pending = pending
        self.server_requests = server_requests

    def feed(self, raw: bytes, meta: JSONObject | None = None) -> None:
        """One raw inbound frame from the transport: record it, then act on it."""
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
            self._batch(raw, message, meta)
        else:
            self._invalid(raw, "a JSON-RPC message must be an object (or a non-empty batch array)", meta, message)

    def _batch(self, raw: bytes, message: list[Any], meta: JSONObject | None) -> None:
        odd = [f"batch item is not an object: {item!r}" for item in message if not isinstance(item, dict)]
        frame = self.traffic.add("in", "batch", raw=raw, message=message, meta=meta, problems=odd)
        for item in message:
            if isinstance(item, dict):
                try:
                    self._dispatch(None, item, meta, frame)
                except Exception as exc:  # noqa: BLE001 - the other items still count
                    frame.problems.append(f"internal error while handling a batch item: {exc!r}")

    def _invalid(self, raw: bytes, error: str, meta: JSONObject | None, message: Any = None) -> Frame:
        frame = self.traffic.add("in", "invalid", raw=raw, message=message, error=error, meta=meta, problems=[error])
        for pending in self.pending.values():
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
        pending = self.pending.get(msg_id) if msg_id is not None and not is_request else None
        if pending is not None and (not same_id(pending.id, msg_id) or pending.future.done()):
            pending = None
        if pending is not None:
            self.pending.finish(pending)
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
        for other in self.pending.values():
            other.invalid_seen += 1
        if is_request and msg_id is not None:
            # A request we cannot read: the server still gets an answer.
            self.server_requests.refuse(msg_id, INVALID_REQUEST, f"request {reason}", frame)
        if pending is None:
            return
        pending.frame.partner = frame.seq
        error = ProtocolError(f"{pending.method}: the answer (frame #{frame.seq}) is {reason}")
        pending.frame.problems.append(str(error))
        pending.future.set_exception(error)

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
            raw = encode(message)
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
        pending = self.pending.answered_by(msg_id)
        if pending is None:
            self._on_unexpected_answer(raw, message, msg_id, meta, batch)
            return
        self.pending.finish(pending)
        problems: list[str] = []
        inspect_result = self.session.inspect_result
        if not is_error and inspect_result is not None:
            try:
                problems.extend(inspect_result(pending.method, message["result"]))
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

    def _on_unexpected_answer(
        self,
        raw: bytes | None,
        message: JSONObject,
        msg_id: Any,
        meta: JSONObject | None,
        batch: Frame | None,
    ) -> None:
        """An answer no pending request waits for: late (we stopped waiting first), or the server's mistake."""
        is_error = "error" in message
        kind = "error" if is_error else "response"
        ended = self.pending.late(msg_id)
        if ended is not None:
            # Not the server's fault: we stopped waiting first.
            why, request_seq, method, _id = ended
            note = f"late answer to request #{request_seq}, which {why}; ignored"
            self._record(raw, kind, message, method, msg_id, meta, batch, partner=request_seq, note=note)
            return
        if msg_id is None and is_error:
            problem = "error response without an id (the server could not parse a request)"
        else:
            problem = f"response to unknown request id {msg_id!r}"
            near = self.pending.near(msg_id)
            if near is not None:
                problem += f"; {_near_miss_hint(near, msg_id)}"
                near.near_miss = f"the server answered under the id {msg_id!r} ({id_type(msg_id)}) instead"
        self._record(raw, kind, message, None, msg_id, meta, batch, problems=[problem])

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
            and self.pending.progress_target(params.get("progressToken")) is None
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
            self.server_requests.cancelled_by_server(params)
        for observer in list(self.session.notification_observers):
            try:
                observer(method, params, frame)
            except Exception as exc:  # an observer must never break the session  # noqa: BLE001
                frame.problems.append(f"notification observer failed: {exc!r}")

    def _on_progress(self, params: JSONObject, frame: Frame) -> None:
        pending = self.pending.progress_target(params.get("progressToken"))
        if pending is None:
            return
        frame.partner = pending.frame.seq
        # Progress proves the server is alive: restart the timeout.
        self.pending.restart_clock(pending)
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
        self.server_requests.receive(msg_id, method, frame, malformed)


def _near_miss_hint(near: PendingRequest, msg_id: Any) -> str:
    return (
        f"request {near.id} ({near.method}) is pending, but its id is {id_type(near.id)} {near.id} "
        f"and this one is {id_type(msg_id)}: JSON-RPC ids of different types are different ids"
    )
