"""What both HTTP transports share: the client, header masking, HTTP frames,
and reading an SSE response into the session."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping
from typing import Any

import httpx2

from ..errors import ConnectError, HttpError, InspectorError
from ..traffic import TrafficLog
from .base import Transport

__all__ = ["HttpTransportBase", "mask_headers"]

_SECRET_HEADER = re.compile(r"(?i)^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key)$")
_SECRET_WORD = re.compile(r"(?i)(token|secret|password|api[-_]?key)")


def mask_value(value: str) -> str:
    scheme, _, rest = value.partition(" ")
    if rest and scheme.lower() in ("bearer", "basic", "token", "dpop"):
        return f"{scheme} ***"
    return "***"


def mask_headers(headers: Mapping[str, str], extra_secret: set[str] | frozenset[str] = frozenset()) -> dict[str, str]:
    """Headers as they may be shown and recorded: secret values replaced."""
    lowered = {name.lower() for name in extra_secret}
    out = {}
    for name, value in headers.items():
        if _SECRET_HEADER.match(name) or _SECRET_WORD.search(name) or name.lower() in lowered:
            out[name] = mask_value(value)
        else:
            out[name] = value
    return out


class HttpTransportBase(Transport):
    def __init__(
        self,
        traffic: TrafficLog,
        url: str,
        headers: Mapping[str, str] | None = None,
        secret_names: set[str] | None = None,
        connect_timeout: float = 10.0,
        auth: httpx2.Auth | None = None,
    ) -> None:
        super().__init__(traffic)
        self.url = url
        self.headers = dict(headers or {})
        self.secret_names = set(secret_names or ())
        self.connect_timeout = connect_timeout
        # Authorization (inspector.core.auth): adds tokens, and answers the
        # server's 401/403 challenges with the OAuth flow.
        self.auth = auth
        self._client: httpx2.AsyncClient | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closing = False

    @property
    def client(self) -> httpx2.AsyncClient:
        if self._client is None:
            # Reads have no timeout: the session times requests out itself,
            # and SSE streams are long-lived by design.
            self._client = httpx2.AsyncClient(
                timeout=httpx2.Timeout(30.0, connect=self.connect_timeout, read=None, pool=None),
                follow_redirects=True,
                auth=self.auth,
            )
        return self._client

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def cancel_tasks(self) -> None:
        tasks = [t for t in self._tasks if not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=2.0)

    async def close_client(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            try:
                await asyncio.wait_for(client.aclose(), 2.0)
            except (TimeoutError, httpx2.HTTPError, OSError) as exc:
                self.traffic.event("local", "transport", note=f"closing the HTTP client failed: {exc!r}")

    def record_response(
        self, verb: str, url: str, response: httpx2.Response, request_headers: Mapping[str, str], **extra: Any
    ) -> None:
        note = f"{verb} {url} → {response.status_code} {response.reason_phrase}".rstrip()
        content_type = response.headers.get("content-type")
        if content_type:
            note += f" ({content_type})"
        meta: dict[str, Any] = {
            "http": verb,
            "url": url,
            "status": response.status_code,
            "request_headers": mask_headers(request_headers, self.secret_names),
            "response_headers": mask_headers(dict(response.headers.multi_items()), self.secret_names),
        }
        meta.update(extra)
        self.traffic.event("in", "http", note=note, meta=meta)

    def http_failure(self, response: httpx2.Response, body: str) -> InspectorError:
        """The error for a refused request; a 401/403 says what the server asked for."""
        if response.status_code not in (401, 403):
            return HttpError(response.status_code, response.reason_phrase, body)
        from ..auth.errors import AuthError

        challenge = response.headers.get("www-authenticate")
        message = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
        message += f": the server requires authorization ({challenge})" if challenge else ": not authorized"
        log = getattr(getattr(self.auth, "session", None), "log", None)
        last = log.events[-1] if log is not None and log.events and log.events[-1].failed else None
        if last is not None:
            message += f"; the auth flow failed at {last.step}: {last.title}"
        elif self.auth is None:
            message += "; pass --bearer TOKEN, or log in with `inspector auth login`"
        return AuthError(message, step=last.step if last is not None else "challenge")

    def connect_failure(self, verb: str, url: str, exc: Exception) -> ConnectError:
        note = f"{verb} {url} failed: {exc.__class__.__name__}: {exc}"
        self.traffic.event("local", "transport", note=note)
        return ConnectError(f"cannot reach {url}: {exc}")

    async def read_sse(
        self,
        response: httpx2.Response,
        origin: str,
        state: dict[str, Any],
        on_other: Callable[[httpx2.ServerSentEvent], None] | None = None,
    ) -> None:
        """Feed every event of an SSE response to the session.

        `state` keeps `last_event_id` and `retry` (ms) across reconnections.
        """
        source = httpx2.EventSource(response, max_event_size=None)
        async for event in source.__aiter__():
            meta: dict[str, Any] = {"stream": origin}
            if event.id:
                state["last_event_id"] = event.id
                meta["sse_id"] = event.id
            if event.retry is not None:
                state["retry"] = event.retry
                meta["sse_retry"] = event.retry
            if event.event != "message":
                meta["sse_event"] = event.event
            if not event.data.strip():
                # A priming event (id and maybe retry, no data) or a keep-alive.
                detail = ", ".join(f"{k}={v}" for k, v in meta.items() if k != "stream")
                self.traffic.event("in", "sse", note=f"SSE event without data on {origin} ({detail})", meta=meta)
                continue
            if event.event not in ("message", ""):
                if on_other is not None:
                    on_other(event)
                    continue
                self.traffic.event(
                    "in",
                    "sse",
                    note=f"SSE event of type {event.event!r} on {origin}",
                    meta={**meta, "data": event.data},
                )
                continue
            self.receiver.feed(event.data.encode("utf-8", errors="surrogatepass"), meta)
