"""Streamable HTTP (2025-03-26 and later), handshake era.

Each message is its own POST.  A request's answer is either one JSON body
or an SSE stream that carries the response (and anything the server sends
first).  A stream that ends before the response came is resumed with a GET
carrying `Last-Event-ID`, after the server's `retry` delay.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import httpx2

from inspector.core.background import stop_task
from inspector.core.protocol.errors import (
    ConnectionClosed,
    EraFallback,
    HttpError,
    InspectorError,
    SessionExpired,
    TransportFallback,
    UnusableAnswer,
    body_excerpt,
)
from inspector.core.protocol.modern import MODERN_ERRORS, param_headers, standard_headers
from inspector.core.record.traffic import TrafficLog
from inspector.core.transports.httpbase import (
    DEFAULT_MAX_MESSAGE_SIZE,
    KEPT_PREFIX,
    HttpTransportBase,
    neither_json_nor_sse,
    read_bounded,
)

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["StreamableHttpTransport"]

DEFAULT_RETRY_MS = 1000
MAX_RESUMES = 10
GET_STREAM_MAX_FAILURES = 5
# How long the session waits for the GET stream's first answer before it
# counts as ready (at most; --timeout, when shorter, bounds it too).
GET_STREAM_WAIT = 5.0


class StreamableHttpTransport(HttpTransportBase):
    """The Streamable HTTP transport: each message POSTed to one URL, answered with JSON or an event
    stream, a session id and a GET stream in the handshake era, per-request headers in the stateless one."""

    kind = "http"

    def __init__(
        self,
        traffic: TrafficLog,
        url: str,
        headers: Mapping[str, str] | None = None,
        secret_names: set[str] | None = None,
        allow_fallback: bool = False,
        open_get_stream: bool = True,
        auth: httpx2.Auth | None = None,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        request_timeout: float | None = None,
    ) -> None:
        super().__init__(
            traffic,
            url,
            headers,
            secret_names,
            auth=auth,
            max_message_size=max_message_size,
            request_timeout=request_timeout,
        )
        self.allow_fallback = allow_fallback
        self.open_get_stream = open_get_stream
        self.session_id: str | None = None
        self.get_stream_state: dict[str, Any] = {}
        # The stateless era: per-request headers, no session, no GET stream,
        # cancellation by closing the response stream.
        self.tool_headers: dict[str, dict[str, tuple[str, ...]]] = {}
        self._request_tasks: dict[Any, asyncio.Task[Any]] = {}
        self._get_task: asyncio.Task[Any] | None = None
        # Called with the expired session id when the GET stream gets 404:
        # the client opens a new session (once, shared with any request that
        # learns the same).
        self.on_session_expired: Callable[[str], None] | None = None

    def describe(self) -> str:
        """``Streamable HTTP:`` and the URL."""
        return f"Streamable HTTP: {self.url}"

    async def start(self) -> None:
        """Make the HTTP client; the first POST opens the connection."""
        # Nothing to open: the first POST (initialize) is the connection.
        _ = self.client

    def _headers(self, accept: str, *, with_version: bool = True) -> dict[str, str]:
        headers = dict(self.headers)
        headers["Accept"] = accept
        if self.session_id and not self.modern:
            headers["Mcp-Session-Id"] = self.session_id
        if with_version and self.protocol_version:
            headers["MCP-Protocol-Version"] = self.protocol_version
        return headers

    async def send(self, raw: bytes, message: JSONObject) -> None:
        """POST the message: the set-up requests before anything else, other requests in a task of their own."""
        is_request = "method" in message and "id" in message
        if not is_request:
            label = str(message.get("method") or ("response" if "id" in message else "message"))
            await self.bounded_post(self._post(raw, message), label)
            return
        if message.get("method") == "initialize" or (self.probing and message.get("method") == "server/discover"):
            # Set-up must finish (session id, era and fallback decisions) before
            # anything else; the session bounds this send by the request's deadline.
            await self._post(raw, message)
            return
        request_id = message.get("id")
        task = self.spawn(self._post_request(raw, message))
        self._request_tasks[request_id] = task
        task.add_done_callback(lambda _t: self._request_tasks.pop(request_id, None))

    async def _post_request(self, raw: bytes, message: JSONObject) -> None:
        try:
            await self._post(raw, message)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the waiting request must learn why, whatever it was  # noqa: BLE001
            self.receiver.fail_request(message.get("id"), exc)

    async def _post(self, raw: bytes, message: JSONObject) -> None:
        method = message.get("method")
        is_init = method == "initialize"
        headers = self._headers("application/json, text/event-stream", with_version=not is_init)
        headers["Content-Type"] = "application/json"
        if self.modern and isinstance(method, str):
            params = message.get("params")
            headers.update(standard_headers(method, params))
            if method == "tools/call" and isinstance(params, dict):
                paths = self.tool_headers.get(str(params.get("name")), {})
                headers.update(param_headers(paths, params.get("arguments")))
        request = self.client.build_request("POST", self.url, content=raw, headers=headers)
        try:
            response = await self.client.send(request, stream=True)
        except httpx2.HTTPError as exc:
            raise self.connect_failure("POST", self.url, exc) from exc
        try:
            await self._handle_post_response(response, headers, message, is_init)
        finally:
            await response.aclose()

    async def _handle_post_response(
        self, response: httpx2.Response, headers: dict[str, str], message: JSONObject, is_init: bool
    ) -> None:
        status = response.status_code
        label = str(message.get("method") or ("response" if "id" in message else "message"))
        self.record_response("POST", self.url, response, headers, for_method=label, for_id=message.get("id"))
        if is_init and status < 300:
            session_id = response.headers.get("mcp-session-id")
            if session_id:
                self.session_id = session_id
        if status == 202 or (status < 300 and "id" not in message):
            return
        if status >= 400:
            await self._post_refused(response, headers, message, is_init)
            return
        await self._post_answered(response, message, label)

    async def _post_refused(
        self, response: httpx2.Response, headers: dict[str, str], message: JSONObject, is_init: bool
    ) -> None:
        """An HTTP error answer to a POST: a JSON-RPC error with an id goes to the session as the
        answer it is; anything else raises (the era probe's fallback, the transport's, the session
        gone, or the HTTP failure)."""
        status = response.status_code
        raw_body, cut = await read_bounded(response, self.max_message_size)
        body = raw_body.decode("utf-8", errors="replace")
        parsed = _json_or_none(body)
        is_jsonrpc_error = isinstance(parsed, dict) and "error" in parsed
        sent_session = headers.get("Mcp-Session-Id")
        fallback = self.probing and message.get("method") == "server/discover" and not _modern_error(parsed)
        expired = status == 404 and sent_session and not is_init
        if is_jsonrpc_error and not cut and not fallback and not expired:
            # The session records it, as the JSON-RPC error it is.
            self.receiver.feed(raw_body, {"http_status": status})
            if isinstance(parsed, dict) and parsed.get("id") is not None:
                return
        else:
            self.keep_error_body(response, "POST", self.url, raw_body, cut)
        if fallback:
            # The spec's HTTP era probe: a 4xx without a recognised modern
            # error body means a legacy server.
            raise EraFallback(f"server/discover answered HTTP {status} without a modern error")
        if is_init and self.allow_fallback and status in (400, 404, 405) and not is_jsonrpc_error:
            raise TransportFallback(f"POST {self.url} answered {status}")
        if expired:
            raise SessionExpired(
                f"the server no longer knows session {sent_session} (HTTP 404)", session_id=sent_session
            )
        raise self.http_failure(response, body)

    async def _post_answered(self, response: httpx2.Response, message: JSONObject, label: str) -> None:
        """A POST's answer to a request: an event stream read to its end, or one JSON body that must hold it."""
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        request_id = message.get("id")
        what = f"the answer to {label} (id {request_id})"
        if content_type == "text/event-stream":
            await self._read_request_stream(response, request_id, label)
            return
        if content_type != "application/json":
            await self.wrong_body(response, b"", response.aiter_bytes(), what, neither_json_nor_sse(response))
        body_bytes = await self.read_json_body(response, what)
        if not body_bytes.strip():
            raise HttpError(
                response.status_code, response.reason_phrase, "empty body where a JSON-RPC response was expected"
            )
        self.receiver.feed(body_bytes, {"http_status": response.status_code})
        if self.receiver.is_pending(request_id):
            # The one JSON body was the place for the answer: waiting on is waiting for nothing.
            raise UnusableAnswer(
                f"{what}: the JSON body holds no response to request {request_id} (see the traffic log); "
                f"it starts: {body_excerpt(body_bytes[:KEPT_PREFIX])}"
            )

    async def _read_request_stream(self, response: httpx2.Response, request_id: Any, label: str) -> None:
        state: dict[str, Any] = {}
        origin = f"POST stream for {label} (id {request_id})"
        try:
            await self.read_sse(response, origin, state)
        except httpx2.HTTPError as exc:
            self.traffic.event("local", "transport", note=f"{origin} broke: {exc!r}")
        resumes = 0
        while self.receiver.is_pending(request_id) and not self._closing:
            if self.modern:
                raise ConnectionClosed(
                    f"the server closed the response stream for request {request_id} before answering "
                    "(2026-07-28 streams are not resumable)"
                )
            last_id = state.get("last_event_id")
            if not last_id:
                raise ConnectionClosed(
                    f"the server closed the SSE stream for request {request_id} before answering, "
                    "and sent no event id to resume from"
                )
            if resumes >= MAX_RESUMES:
                raise ConnectionClosed(f"gave up resuming the stream for request {request_id} after {resumes} tries")
            resumes += 1
            delay = state.get("retry", DEFAULT_RETRY_MS) / 1000
            self.traffic.event(
                "local",
                "sse",
                note=f"{origin} ended before the response; resuming with Last-Event-ID {last_id} in {delay:g} s",
                meta={"last_event_id": last_id, "retry_ms": int(delay * 1000)},
            )
            await asyncio.sleep(delay)
            await self._resume(origin, state)

    async def _resume(self, origin: str, state: dict[str, Any]) -> bool:
        headers = self._headers("text/event-stream")
        headers["Last-Event-ID"] = str(state["last_event_id"])
        try:
            async with self.client.stream("GET", self.url, headers=headers) as response:
                self.record_response("GET", self.url, response, headers, resume=state["last_event_id"])
                if response.status_code >= 400:
                    body = await self.read_error_body(response, "GET", self.url)
                    raise HttpError(response.status_code, response.reason_phrase, body)
                await self.read_sse(response, f"{origin} (resumed)", state)
                return True
        except httpx2.HTTPError as exc:
            self.traffic.event("local", "transport", note=f"resuming {origin} failed: {exc!r}")
            return False

    def cancel_request(self, request_id: Any) -> bool:
        """Stop reading a request's answer (it timed out or was cancelled).

        Stateless era: closing the response stream is the cancellation.  The
        handshake era still sends `notifications/cancelled` (False), but the
        body is not read on: a server that trickles it or sends keep-alives
        forever holds nothing past the deadline.
        """
        task = self._request_tasks.pop(request_id, None)
        if task is None:
            return False
        task.cancel()
        if not self.modern:
            self.traffic.event("local", "http", note=f"stopped reading the answer to request {request_id}")
            return False
        self.traffic.event("local", "http", note=f"closed the response stream of request {request_id} (cancellation)")
        return True

    async def session_ready(self, timeout: float | None = None) -> None:
        """Open the GET stream and wait for its answer (its response headers).

        A server may send a request on that stream as soon as the session is
        initialised; one that has no stream to send on drops it (the official
        TypeScript server does, silently).  So the session is ready only once
        the stream is open, refused, or has failed; a stream that does not
        answer within the bound is noted and the session goes on.
        """
        if not self.open_get_stream or self.modern:
            return
        # One GET stream per session: after a re-initialisation the old one
        # (still on the old session id, or waiting to retry) is replaced.
        previous, self._get_task = self._get_task, None
        if previous is not None and not previous.done():
            previous.cancel()
            self.traffic.event("local", "sse", note="GET stream restarted for the new session")
        answered = asyncio.Event()
        task = self._get_task = self.spawn(self._get_stream(answered))
        wait = min(timeout, GET_STREAM_WAIT) if timeout else GET_STREAM_WAIT
        waiter = asyncio.get_running_loop().create_task(answered.wait())
        try:
            # The stream's task ending (405, 404, closed) is an answer too.
            await asyncio.wait({waiter, task}, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
        finally:
            await stop_task(waiter)
        if not answered.is_set() and not task.done():
            self.traffic.event(
                "local",
                "sse",
                note=f"the GET stream was not answered within {wait:g} s; going on without waiting for it "
                "(a request the server sends on it before it opens may be lost)",
            )

    async def _get_stream(self, answered: asyncio.Event | None = None) -> None:
        """The optional server-to-client stream, kept open and resumed;
        `answered` is set at the first attempt's outcome (headers or failure)."""
        failures: int | None = 0
        state = self.get_stream_state
        while not self._closing:
            failures = await self._get_attempt(state, answered, failures or 0)
            if failures is None or self._closing:
                return
            if failures >= GET_STREAM_MAX_FAILURES:
                self.traffic.event("local", "sse", note=f"GET stream failed {failures} times; giving up")
                return
            delay = state.get("retry", DEFAULT_RETRY_MS) / 1000 * (1 + failures)
            await asyncio.sleep(delay)

    async def _get_attempt(self, state: dict[str, Any], answered: asyncio.Event | None, failures: int) -> int | None:
        """One GET of the stream, read to its end: the failures in a row now, or None when it ends for good."""
        headers = self._headers("text/event-stream")
        if state.get("last_event_id"):
            headers["Last-Event-ID"] = str(state["last_event_id"])
        try:
            async with self.client.stream("GET", self.url, headers=headers) as response:
                self.record_response("GET", self.url, response, headers, stream="server")
                if answered is not None:
                    answered.set()
                if await self._get_refused(response, headers):
                    return None
                if response.status_code >= 400:
                    failures += 1
                    await self.read_error_body(response, "GET", self.url)
                else:
                    failures = 0
                    await self.read_sse(response, "GET stream", state)
        except httpx2.HTTPError as exc:
            failures += 1
            self.traffic.event("local", "transport", note=f"GET stream broke: {exc!r}")
            if answered is not None:
                answered.set()
        except InspectorError as exc:
            # A refused redirect, an oversized event, a body that is no
            # event stream: recorded already; asking again would get the same.
            self.traffic.event("local", "sse", note=f"GET stream closed for good: {exc}")
            if answered is not None:
                answered.set()
            return None
        return failures

    async def _get_refused(self, response: httpx2.Response, headers: dict[str, str]) -> bool:
        """True when the server has no GET stream (405), or no longer knows the session (404): not retried."""
        if response.status_code == 405:
            self.traffic.event("local", "sse", note="the server offers no GET stream (405); not retrying")
            return True
        sent_session = headers.get("Mcp-Session-Id")
        if response.status_code == 404 and sent_session:
            await response.aread()
            self.traffic.event(
                "local",
                "sse",
                note=f"GET stream: the server no longer knows session {sent_session} (404); "
                "it restarts once a new session is open",
            )
            if self.on_session_expired is not None:
                self.on_session_expired(sent_session)
            return True
        return False

    async def close(self) -> None:
        """End the tasks, end the session with a DELETE (when it has an id), then close the HTTP client."""
        if self._closing:
            return
        self._closing = True
        await self.cancel_tasks()
        if self.session_id and self._client is not None:
            headers = self._headers("application/json, text/event-stream")
            try:
                response = await asyncio.wait_for(self.client.delete(self.url, headers=headers), 3.0)
                self.record_response("DELETE", self.url, response, headers)
            except (TimeoutError, httpx2.HTTPError, InspectorError) as exc:
                self.traffic.event("local", "transport", note=f"DELETE of the session failed: {exc!r}")
        await self.close_client()

    def reset_session(self) -> None:
        """Forget the session id, before a fresh `initialize`.

        The GET stream's event ids belonged to the old session: the new
        session's stream starts without a `Last-Event-ID`.
        """
        self.session_id = None
        self.protocol_version = None
        # A new dict: the old stream, until it is replaced, writes to its own.
        self.get_stream_state = {}


def _modern_error(parsed: Any) -> bool:
    if not isinstance(parsed, dict) or not isinstance(parsed.get("error"), dict):
        return False
    return parsed["error"].get("code") in MODERN_ERRORS


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
