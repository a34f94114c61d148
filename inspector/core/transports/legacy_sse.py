"""Legacy HTTP+SSE (2024-11-05): one long GET stream carries every server
message; the first event, `endpoint`, names the URL to POST messages to."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

import httpx2

from inspector.core.protocol.errors import ConnectError, HttpError, InspectorError, RedirectRefused
from inspector.core.record.traffic import TrafficLog
from inspector.core.transports.httpbase import DEFAULT_MAX_MESSAGE_SIZE, HttpTransportBase, read_bounded

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["LegacySseTransport"]


class LegacySseTransport(HttpTransportBase):
    """The HTTP+SSE transport of 2024-11-05: one GET event stream for what the server sends,
    and a POST to the endpoint its first event names for what the client sends."""

    kind = "sse"

    def __init__(
        self,
        traffic: TrafficLog,
        url: str,
        headers: Mapping[str, str] | None = None,
        secret_names: set[str] | None = None,
        endpoint_timeout: float = 10.0,
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
        self.endpoint: str | None = None
        self.endpoint_timeout = endpoint_timeout
        self._endpoint_ready: asyncio.Future[str] | None = None
        self._state: dict[str, Any] = {}

    def describe(self) -> str:
        """``HTTP+SSE (legacy):`` and the URL."""
        return f"HTTP+SSE (legacy): {self.url}"

    async def start(self) -> None:
        """Open the event stream and wait for its endpoint (at most `endpoint_timeout`)."""
        loop = asyncio.get_running_loop()
        self._endpoint_ready = loop.create_future()
        self.spawn(self._stream())
        try:
            self.endpoint = await asyncio.wait_for(asyncio.shield(self._endpoint_ready), self.endpoint_timeout)
        except TimeoutError as exc:
            await self.cancel_tasks()
            note = f"no `endpoint` event on {self.url} within {self.endpoint_timeout:g} s"
            self.traffic.event("local", "transport", note=note)
            raise ConnectError(note) from exc

    async def _stream(self) -> None:
        ready = self._endpoint_ready
        assert ready is not None
        closed = "the server closed the SSE stream"
        try:
            opened = await self._read_stream(ready)
        except asyncio.CancelledError:
            raise
        except httpx2.HTTPError as exc:
            error_note = f"SSE stream failed: {exc.__class__.__name__}: {exc}"
            self.traffic.event("local", "transport", note=error_note)
            self._stream_over(ready, ConnectError(f"cannot reach {self.url}: {exc}"), closed)
        except InspectorError as exc:
            # A refused redirect, an oversized event, a body that is no event stream.
            self._stream_over(ready, exc, str(exc))
        else:
            if opened:
                ended = ConnectError(f"the SSE stream at {self.url} ended before sending its endpoint")
                self._stream_over(ready, ended, closed)

    async def _read_stream(self, ready: asyncio.Future[str]) -> bool:
        """Read the event stream to its end; False when the GET did not open one."""
        headers = dict(self.headers)
        headers["Accept"] = "text/event-stream"
        async with self.client.stream("GET", self.url, headers=headers) as response:
            self.record_response("GET", self.url, response, headers, stream="legacy SSE")
            if response.status_code >= 400 or "text/event-stream" not in response.headers.get("content-type", ""):
                body = await self.read_error_body(response, "GET", self.url)
                error = self.http_failure(response, body)
                if isinstance(error, HttpError):
                    error = ConnectError(f"GET {self.url} did not open an SSE stream: {error}")
                if not ready.done():
                    ready.set_exception(error)
                return False
            await self.read_sse(response, "SSE stream", self._state, on_other=self._on_event)
        return True

    def _stream_over(self, ready: asyncio.Future[str], before_endpoint: BaseException, after: str) -> None:
        """The stream is over: before its endpoint came the transport fails to
        start with `before_endpoint`; after, the connection is lost (unless we closed it)."""
        if not ready.done():
            ready.set_exception(before_endpoint)
        elif not self._closing:
            self.receiver.connection_lost(after)

    def _on_event(self, event: httpx2.ServerSentEvent) -> None:
        if event.event == "endpoint":
            endpoint = urljoin(self.url, event.data.strip())
            meta: JSONObject = {"sse_event": "endpoint", "endpoint": endpoint}
            if not _same_origin(endpoint, self.url):
                # Every POST would carry the person's headers there: the same
                # refusal as a redirect to another origin.
                meta["refused"] = True
                self.traffic.event(
                    "in", "sse", note=f"endpoint: {endpoint}: on another origin than {self.url}; refused", meta=meta
                )
                error = RedirectRefused(
                    f"the SSE stream at {self.url} named its message endpoint on another origin: {endpoint}; "
                    "not used, so that headers and credentials given for the SSE URL are not sent there. "
                    "If you trust it, connect to that server directly",
                    source=self.url,
                    target=endpoint,
                )
                if self._endpoint_ready is not None and not self._endpoint_ready.done():
                    self._endpoint_ready.set_exception(error)
                return
            self.traffic.event("in", "sse", note=f"endpoint: {endpoint}", meta=meta)
            if self._endpoint_ready is not None and not self._endpoint_ready.done():
                self._endpoint_ready.set_result(endpoint)
            else:
                self.endpoint = endpoint
            return
        self.traffic.event("in", "sse", note=f"SSE event of type {event.event!r}", meta={"data": event.data})

    async def send(self, raw: bytes, message: JSONObject) -> None:
        """POST the message to the endpoint."""
        if self.endpoint is None:
            raise ConnectError("the legacy SSE transport has no endpoint yet")
        label = str(message.get("method") or "response")
        # Requests are bounded by their deadline in the session; this bounds the rest too.
        await self.bounded_post(self._post(self.endpoint, raw, message, label), label)

    async def _post(self, endpoint: str, raw: bytes, message: JSONObject, label: str) -> None:
        headers = dict(self.headers)
        headers["Content-Type"] = "application/json"
        try:
            async with self.client.stream("POST", endpoint, content=raw, headers=headers) as response:
                self.record_response("POST", endpoint, response, headers, for_method=label, for_id=message.get("id"))
                if response.status_code >= 400:
                    raise self.http_failure(response, await self.read_error_body(response, "POST", endpoint))
                # The answer comes on the SSE stream; this body is an acknowledgement.
                await read_bounded(response, self.max_message_size)
        except httpx2.HTTPError as exc:
            raise self.connect_failure("POST", endpoint, exc) from exc

    async def close(self) -> None:
        """End the stream's and the POSTs' tasks, then close the HTTP client."""
        if self._closing:
            return
        self._closing = True
        await self.cancel_tasks()
        await self.close_client()


def _same_origin(one: str, other: str) -> bool:
    try:
        return httpx2.URL(one).origin == httpx2.URL(other).origin
    except httpx2.InvalidURL:
        return False
