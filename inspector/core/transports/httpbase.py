"""What both HTTP transports share: the client, header masking, HTTP frames,
redirects, bounded body reads, and reading an SSE response into the session."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import httpx2

from inspector.core.background import BackgroundTasks
from inspector.core.protocol.errors import (
    ConnectError,
    HttpError,
    InspectorError,
    MessageTooLarge,
    RequestTimeout,
    UnusableAnswer,
    body_excerpt,
)
from inspector.core.record.traffic import TrafficLog
from inspector.core.servers.spec import DEFAULT_MAX_MESSAGE_SIZE
from inspector.core.transports.base import Transport
from inspector.core.transports.http_redirects import origin_text, redirect_refused, redirect_target

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["DEFAULT_MAX_MESSAGE_SIZE", "HttpTransportBase", "mask_headers", "read_bounded"]

# What is kept of a body that cannot be used (a login page, a body past the
# size limit): enough to see what it was, not enough to hurt.
KEPT_PREFIX = 64 * 1024
# A body of the wrong kind is quoted as it arrives; this long at most is
# spent collecting its first bytes, so that a trickling one still fails at once.
SNIFF_SECONDS = 1.0
MAX_REDIRECTS = 5
# An SSE stream's first line is a field (`data:`, `id:`, ...), a comment or
# empty; anything else (JSON, HTML) means the body is not an event stream.
_SSE_FIELD = re.compile(r"[A-Za-z_-]{1,64}")
SSE_SNIFF_CHARS = 1024
# How long close() waits for cancelled stream and request tasks to end.
TASKS_END_WAIT = 2.0

T = TypeVar("T")

# A DPoP proof is a credential too (short-lived, but replayable within its window).
_SECRET_HEADER = re.compile(r"(?i)^(authorization|proxy-authorization|dpop|cookie|set-cookie|x-api-key|api-key)$")
_SECRET_WORD = re.compile(r"(?i)(token|secret|password|api[-_]?key)")


def mask_value(value: str) -> str:
    """A secret header value masked, keeping a known auth scheme's name (``Bearer ***``)."""
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
    """What both HTTP transports share: the client, header masking, HTTP frames on the traffic log,
    redirects, bounded body reads, SSE responses and the tasks they start."""

    def __init__(
        self,
        traffic: TrafficLog,
        url: str,
        headers: Mapping[str, str] | None = None,
        secret_names: set[str] | None = None,
        connect_timeout: float = 10.0,
        auth: httpx2.Auth | None = None,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        request_timeout: float | None = None,
    ) -> None:
        super().__init__(traffic)
        self.url = url
        self.headers = dict(headers or {})
        self.secret_names = set(secret_names or ())
        self.connect_timeout = connect_timeout
        self.max_message_size = max_message_size
        # Bounds a POST that is not a request (a notification, our answer to
        # the server): requests are bounded by their own deadline.
        self.request_timeout = request_timeout
        # Authorization (inspector.core.auth): adds tokens, and answers the
        # server's 401/403 challenges with the OAuth flow.
        self.auth = auth
        self._client: httpx2.AsyncClient | None = None
        # The streams and the requests' POSTs, ended by close().
        self._tasks = BackgroundTasks()
        self._closing = False

    @property
    def client(self) -> httpx2.AsyncClient:
        """The HTTP client, made on first use (redirects vetted, reads without a timeout)."""
        if self._client is None:
            # Reads have no timeout: the session times requests out itself,
            # and SSE streams are long-lived by design.
            self._client = httpx2.AsyncClient(
                timeout=httpx2.Timeout(30.0, connect=self.connect_timeout, read=None, pool=None),
                follow_redirects=True,
                max_redirects=MAX_REDIRECTS,
                auth=self.auth,
                event_hooks={"response": [self._vet_redirect]},
            )
        return self._client

    async def _vet_redirect(self, response: httpx2.Response) -> None:
        """Follow a redirect within the origin; refuse one to another origin.

        httpx drops Authorization on a cross-origin redirect but keeps every
        other header (an `X-Api-Key` from --header or a config file) and the
        session id; and each later request is redirected again.  The person
        gave those headers for one origin: a redirect elsewhere is an error
        they decide on, by connecting to the new URL themselves.
        """
        target = redirect_target(response)
        if target is None:
            return
        request = response.request
        move = f"{request.method} {request.url} → {response.status_code} {target}"
        if target.origin == request.url.origin:
            self.traffic.event(
                "in", "http", note=f"{move}: redirect within the origin, followed", meta={"redirect": str(target)}
            )
            return
        withheld = sorted(
            {name for name in self.headers}
            | {name for name in ("Authorization", "Cookie") if name in request.headers}
            | ({"Mcp-Session-Id"} if "mcp-session-id" in request.headers else set())
        )
        if not withheld and not self._is_mcp_request(request):
            # The OAuth flow's own requests (metadata, registration, tokens)
            # go through this client too; they carry nothing of the person's.
            self.traffic.event(
                "in",
                "http",
                note=f"{move}: redirect of an authorization request, followed",
                meta={"redirect": str(target)},
            )
            return
        note = f"{move}: redirect to another origin refused"
        if withheld:
            note += f" (it would carry {', '.join(withheld)} to {origin_text(target)})"
        self.traffic.event(
            "local",
            "http",
            note=note,
            meta={"redirect_refused": str(target), "from": str(request.url), "withheld_headers": withheld},
        )
        raise redirect_refused(request.url, target)

    def _is_mcp_request(self, request: httpx2.Request) -> bool:
        endpoints = {self.url, getattr(self, "endpoint", None)}
        return "text/event-stream" in request.headers.get("accept", "") or str(request.url) in endpoints

    def spawn(self, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """Run `coro` as a background task the transport owns (ended by `close`)."""
        return self._tasks.start(coro)

    async def cancel_tasks(self) -> None:
        """Cancel the background tasks and wait for them (for good once closing), a bounded time."""
        end = self._tasks.close if self._closing else self._tasks.cancel_all
        if not await end(timeout=TASKS_END_WAIT):
            note = f"a stream or request task still runs {TASKS_END_WAIT:g} s after it was cancelled"
            self.traffic.event("local", "transport", note=note)

    async def close_client(self) -> None:
        """Close the HTTP client, a bounded time; a failure is noted on the traffic log."""
        if self._client is not None:
            client, self._client = self._client, None
            try:
                await asyncio.wait_for(client.aclose(), 2.0)
            except (TimeoutError, httpx2.HTTPError, OSError) as exc:
                self.traffic.event("local", "transport", note=f"closing the HTTP client failed: {exc!r}")

    def record_response(
        self, verb: str, url: str, response: httpx2.Response, request_headers: Mapping[str, str], **extra: Any
    ) -> None:
        """Record an HTTP answer's status line on the traffic log, with both sides' headers masked."""
        note = f"{verb} {url} → {response.status_code} {response.reason_phrase}".rstrip()
        content_type = response.headers.get("content-type")
        if content_type:
            note += f" ({content_type})"
        meta: JSONObject = {
            "http": verb,
            "url": url,
            "status": response.status_code,
            "request_headers": mask_headers(request_headers, self.secret_names),
            "response_headers": mask_headers(dict(response.headers.multi_items()), self.secret_names),
        }
        meta.update(extra)
        self.traffic.event("in", "http", note=note, meta=meta)

    def http_failure(self, response: httpx2.Response, body: str) -> InspectorError:
        """The error for a refused request; a 401/403 says what the server asked
        for, and every one quotes what the server said in its body."""
        if response.status_code not in (401, 403):
            return HttpError(response.status_code, response.reason_phrase, body)
        from inspector.core.auth.errors import AuthError

        challenge = response.headers.get("www-authenticate")
        message = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
        message += f": the server requires authorization ({challenge})" if challenge else ": not authorized"
        if body.strip():
            message += f"; the server said: {body_excerpt(body)}"
        log = getattr(getattr(self.auth, "session", None), "log", None)
        last = log.events[-1] if log is not None and log.events and log.events[-1].failed else None
        if last is not None:
            message += f"; the auth flow failed at {last.step}: {last.title}"
        elif self.auth is None:
            message += "; pass --bearer TOKEN, or log in with `inspector auth login`"
        return AuthError(message, step=last.step if last is not None else "challenge")

    def connect_failure(self, verb: str, url: str, exc: Exception) -> ConnectError:
        """The error for a request that reached no server, noted on the traffic log."""
        note = f"{verb} {url} failed: {exc.__class__.__name__}: {exc}"
        self.traffic.event("local", "transport", note=note)
        return ConnectError(f"cannot reach {url}: {exc}")

    async def read_error_body(self, response: httpx2.Response, verb: str, url: str) -> str:
        """The body of a 4xx/5xx answer, kept in the traffic log (bounded by
        the message size limit) and returned as text for the error."""
        body, cut = await read_bounded(response, self.max_message_size)
        self.keep_error_body(response, verb, url, body, cut)
        return body.decode("utf-8", errors="replace")

    def keep_error_body(self, response: httpx2.Response, verb: str, url: str, body: bytes, cut: bool) -> None:
        """Keep the body of an HTTP error answer on the traffic log (`cut`: it stopped at the size limit)."""
        if not body:
            return
        note = f"body of the HTTP {response.status_code} answer to {verb} {url}: {len(body)} bytes"
        if cut:
            note += f", cut at the message size limit ({self.max_message_size} bytes)"
        content_type = response.headers.get("content-type", "")
        meta = {"http_body": response.status_code, "content_type": content_type, "truncated": cut}
        self.traffic.add("in", "http", raw=body, note=note, meta=meta)

    async def read_json_body(self, response: httpx2.Response, what: str) -> bytes:
        """A JSON body, read with a running count: past the message size
        limit the request fails, and a body that is plainly not JSON (HTML,
        text) fails as soon as its first bytes are in."""
        chunks: list[bytes] = []
        size = 0
        checked = False
        stream = response.aiter_bytes()
        async for chunk in stream:
            size += len(chunk)
            if size > self.max_message_size:
                kept = _prefix([*chunks, chunk], KEPT_PREFIX)
                note = f"{what}: body larger than the message size limit ({self.max_message_size} bytes); not read on"
                self.traffic.add("in", "http", raw=kept, note=note, meta={"truncated": True, "read": size})
                raise MessageTooLarge(
                    f"{what}: the JSON body is larger than the message size limit of {self.max_message_size} bytes; "
                    f"stopped reading after {size} bytes",
                    self.max_message_size,
                )
            chunks.append(chunk)
            if not checked and chunk.strip():
                # Whatever came before was whitespace: the first byte that counts is here.
                checked = True
                if not chunk.lstrip().startswith((b"{", b"[")):
                    await self.wrong_body(response, b"".join(chunks), stream, what, _says(response, "JSON"))
        return b"".join(chunks)

    async def wrong_body(
        self,
        response: httpx2.Response,
        start: bytes,
        more: AsyncIterator[bytes],
        what: str,
        why: str,
    ) -> None:
        """Fail an answer whose body cannot be JSON-RPC: keep what arrived (its
        first bytes, collected for at most a second) in the traffic log, and
        name the content type and the first bytes in the error."""
        body = bytearray(start)
        with contextlib.suppress(TimeoutError, httpx2.HTTPError):
            async with asyncio.timeout(SNIFF_SECONDS):
                async for chunk in more:
                    body += chunk
                    if len(body) >= KEPT_PREFIX:
                        break
        kept = bytes(body[:KEPT_PREFIX])
        content_type = response.headers.get("content-type") or "no content type"
        self.traffic.add(
            "in",
            "http",
            raw=kept,
            note=f"{what}: {why}",
            meta={"unusable_body": True, "content_type": content_type, "truncated": len(body) > KEPT_PREFIX},
        )
        excerpt = body_excerpt(kept) or "(empty)"
        raise UnusableAnswer(f"{what}: the server answered {why}; the body starts: {excerpt}")

    async def bounded_post(self, post: Any, method: str) -> None:
        """A POST that is not a request (a notification, our answer to the
        server), bounded by the request timeout: nothing else bounds it."""
        if self.request_timeout is None:
            await post
            return
        try:
            async with asyncio.timeout(self.request_timeout):
                await post
        except TimeoutError as exc:
            note = f"POST of {method}: the server did not finish answering within {self.request_timeout:g} s"
            self.traffic.event("local", "transport", note=note)
            raise RequestTimeout(f"POST of {method}", self.request_timeout) from exc

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
        content_type = response.headers.get("content-type", "").partition(";")[0].strip().lower()
        if content_type != "text/event-stream":
            await self.wrong_body(
                response, b"", response.aiter_bytes(), origin, _not_expected(response, "an SSE stream")
            )
        source = httpx2.EventSource(_SniffedStream(self, response, origin), max_event_size=self.max_message_size)  # type: ignore[arg-type]
        try:
            async for event in source.__aiter__():
                self._on_sse_event(event, origin, state, on_other)
        except httpx2.SSEError as exc:
            note = f"{origin}: an SSE event larger than the message size limit ({self.max_message_size} bytes); "
            note += "the stream is closed"
            self.traffic.event("in", "sse", note=note, meta={"limit": self.max_message_size})
            raise MessageTooLarge(
                f"{origin}: an SSE event is larger than the message size limit of {self.max_message_size} bytes",
                self.max_message_size,
            ) from exc

    def _on_sse_event(
        self,
        event: httpx2.ServerSentEvent,
        origin: str,
        state: dict[str, Any],
        on_other: Callable[[httpx2.ServerSentEvent], None] | None,
    ) -> None:
        meta: JSONObject = {"stream": origin}
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
            return
        if event.event not in ("message", ""):
            if on_other is not None:
                on_other(event)
                return
            self.traffic.event(
                "in",
                "sse",
                note=f"SSE event of type {event.event!r} on {origin}",
                meta={**meta, "data": event.data},
            )
            return
        self.receiver.feed(event.data.encode("utf-8", errors="surrogatepass"), meta)


async def read_bounded(response: httpx2.Response, limit: int) -> tuple[bytes, bool]:
    """Up to `limit` bytes of a body, counted as they arrive; True when
    there was more (the rest is not read)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            chunks.append(chunk[: len(chunk) - (size - limit)])
            return b"".join(chunks), True
        chunks.append(chunk)
    return b"".join(chunks), False


def _says(response: httpx2.Response, expected: str) -> str:
    content_type = response.headers.get("content-type")
    return f"HTTP {response.status_code} saying {content_type!r}, but the body is not {expected}"


def _not_expected(response: httpx2.Response, expected: str) -> str:
    content_type = response.headers.get("content-type") or "no content type"
    return f"HTTP {response.status_code} with content type {content_type!r} where {expected} was expected"


def neither_json_nor_sse(response: httpx2.Response) -> str:
    """The problem with an answer whose content type is neither JSON nor an event stream."""
    content_type = response.headers.get("content-type") or "no content type"
    return (
        f"HTTP {response.status_code} with content type {content_type!r}, "
        "which is neither application/json nor text/event-stream"
    )


def _prefix(chunks: list[bytes], limit: int) -> bytes:
    """The first `limit` bytes of `chunks`, without joining them all."""
    kept = bytearray()
    for chunk in chunks:
        kept += chunk[: limit - len(kept)]
        if len(kept) >= limit:
            break
    return bytes(kept)


class _SniffedStream:
    """The response as `EventSource` reads it, after a look at its first line.

    A body that says text/event-stream but starts with JSON or HTML would
    otherwise be parsed as unknown fields and ignored, and the request would
    wait for its deadline; here it fails at once, quoting what arrived.
    """

    def __init__(self, transport: HttpTransportBase, response: httpx2.Response, origin: str) -> None:
        self._transport = transport
        self._response = response
        self._origin = origin
        self.headers = response.headers
        self.request = response.request

    async def aiter_text(self) -> AsyncIterator[str]:
        seen = ""
        sniffing = True
        stream = self._response.aiter_text()
        async for chunk in stream:
            if sniffing:
                seen += chunk
                verdict = _sse_start(seen)
                if verdict is None and len(seen) > SSE_SNIFF_CHARS:
                    verdict = True  # nothing but empty lines so far: an event stream
                if verdict is None:
                    continue
                sniffing = False
                if not verdict:
                    start = seen.encode("utf-8", errors="replace")
                    more = (text.encode("utf-8", errors="replace") async for text in stream)
                    why = _says(self._response, "an event stream")
                    await self._transport.wrong_body(self._response, start, more, self._origin, why)
                chunk, seen = seen, ""
            yield chunk
        if sniffing and seen:
            yield seen


def _sse_start(text: str) -> bool | None:
    """Whether `text` starts like an event stream; None: too early to say."""
    body = text.lstrip("\ufeff\r\n")
    if not body:
        return None
    line, newline, _ = body.partition("\n")
    line = line.rstrip("\r")
    if line.startswith(":"):
        return True
    name, colon, _ = line.partition(":")
    if colon:
        return _SSE_FIELD.fullmatch(name) is not None
    if newline or len(body) >= SSE_SNIFF_CHARS:
        # A whole line with no colon, or a long start without one.
        return False
    return None if _SSE_FIELD.fullmatch(line) else False
