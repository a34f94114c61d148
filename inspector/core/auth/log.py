"""The auth debugger's record: one event per step of an authorization flow.

Every step (the server's challenge, each metadata request, registration, the
authorization URL, the callback, the token exchange, refreshes, what was
stored) becomes an `AuthEvent` with a status and, for HTTP steps, the masked
exchange.  An `AuthLog` keeps them, tells its subscribers (a UI pane) as they
happen, and writes each one into the traffic log as an `auth` frame, so a
`--record` file holds the whole story and `events_from_frames` rebuilds it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.core.auth.oauth_secrets import SecretSet, mask_body, mask_text, mask_url

if TYPE_CHECKING:
    import httpx2

    from inspector.core.record.traffic import Frame, TrafficLog
    from inspector.forms.values import JSONObject

__all__ = [
    "STATUSES",
    "STEPS",
    "AuthEvent",
    "AuthLog",
    "HttpExchange",
    "events_from_frames",
]

# The step names a flow reports, in the order a full flow meets them.
STEPS = {
    "challenge": "the server asked for authorization (401/403 and WWW-Authenticate)",
    "resource-metadata": "protected resource metadata (RFC 9728)",
    "server-metadata": "authorization server metadata (RFC 8414 / OpenID Connect discovery)",
    "registration": "client registration (pre-registered, Client ID Metadata Document, or RFC 7591)",
    "scope": "scope selection",
    "authorization": "the authorization request (browser)",
    "callback": "the redirect back to the loopback listener (state, iss)",
    "token-exchange": "token exchange at the enterprise identity provider for an ID-JAG (RFC 8693, SEP-990)",
    "token": "token request",
    "dpop-proof": "a DPoP proof signed with this session's key (RFC 9449, SEP-1932)",
    "dpop-nonce": "a server-provided DPoP nonce (use_dpop_nonce), and the request retried with it",
    "refresh": "token refresh",
    "retry": "the original request, retried with the token",
    "stored": "token storage",
    "login": "the login as a whole",
    "logout": "tokens removed",
    "revoked": "token revocation at the authorization server (RFC 7009): on logout and on a new login",
}

# ok: done; failed: the flow stops here (the detail says why); waiting: for a
# person or a redirect; info: a decision or a fact worth seeing.
STATUSES = ("ok", "failed", "waiting", "info")

BODY_LIMIT = 8192


@dataclass
class HttpExchange:
    """One HTTP request and its response, as they may be shown (secrets masked)."""

    method: str
    url: str
    request_headers: dict[str, str] = field(default_factory=dict)
    request_body: str | None = None
    status: int | None = None
    reason: str | None = None
    response_headers: dict[str, str] = field(default_factory=dict)
    response_body: str | None = None
    error: str | None = None

    def to_dict(self) -> JSONObject:
        """The exchange as JSON, without the members that are empty."""
        return {k: v for k, v in asdict(self).items() if v not in (None, {}, "")}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HttpExchange:
        """The exchange a `to_dict` record describes (unknown members ignored)."""
        known = {f: data[f] for f in cls.__dataclass_fields__ if f in data}
        return cls(**known)

    def summary(self) -> str:
        """One line: the method and URL, and the status or what failed."""
        path = self.url
        if self.status is None:
            return f"{self.method} {path}" + (f" failed: {self.error}" if self.error else "")
        return f"{self.method} {path} → {self.status} {self.reason or ''}".rstrip()

    @classmethod
    def capture(
        cls,
        request: httpx2.Request,
        response: httpx2.Response | None,
        secrets: SecretSet,
        *,
        response_body: bool = True,
    ) -> HttpExchange:
        """Mask and copy an exchange.  Response bodies must already be read."""
        from inspector.core.auth.oauth_secrets import header_secrets
        from inspector.core.transports.httpbase import mask_headers

        request_headers = dict(request.headers.multi_items())
        header_secrets(request_headers, secrets)
        body: str | None = None
        try:
            content = request.content
        except Exception:  # a streaming request body cannot be shown  # noqa: BLE001
            content = b""
        if content:
            body = mask_body(content, request.headers.get("content-type"), secrets)
        exchange = cls(
            method=request.method,
            url=mask_url(str(request.url), secrets),
            request_headers=mask_headers(request_headers),
            request_body=_clip(body),
        )
        if response is not None:
            exchange.status = response.status_code
            exchange.reason = response.reason_phrase
            headers = dict(response.headers.multi_items())
            location = headers.get("location")
            if location:
                headers["location"] = mask_url(location, secrets)
            exchange.response_headers = mask_headers(headers)
            if response_body:
                try:
                    raw = response.content
                except Exception:  # not read: a stream we must not consume  # noqa: BLE001
                    raw = None
                if raw:
                    exchange.response_body = _clip(mask_body(raw, response.headers.get("content-type"), secrets))
        return exchange


def _clip(text: str | None) -> str | None:
    if text is None or len(text) <= BODY_LIMIT:
        return text
    return text[:BODY_LIMIT] + f"… ({len(text) - BODY_LIMIT} more characters)"


@dataclass
class AuthEvent:
    """One step of an authorization flow."""

    seq: int
    time: float
    step: str
    status: str
    title: str
    detail: str | None = None
    http: HttpExchange | None = None
    data: JSONObject | None = None

    @property
    def failed(self) -> bool:
        """Whether the flow stopped at this step."""
        return self.status == "failed"

    def to_dict(self) -> JSONObject:
        """The event as JSON (how it is kept in an ``auth`` traffic frame)."""
        out: JSONObject = {
            "seq": self.seq,
            "time": round(self.time, 6),
            "step": self.step,
            "status": self.status,
            "title": self.title,
        }
        if self.detail:
            out["detail"] = self.detail
        if self.http is not None:
            out["http"] = self.http.to_dict()
        if self.data:
            out["data"] = self.data
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AuthEvent:
        """The event a `to_dict` record describes (missing members take their defaults)."""
        http = data.get("http")
        return cls(
            seq=int(data.get("seq", 0)),
            time=float(data.get("time", 0.0)),
            step=str(data.get("step", "?")),
            status=str(data.get("status", "info")),
            title=str(data.get("title", "")),
            detail=data.get("detail"),
            http=HttpExchange.from_dict(http) if isinstance(http, Mapping) else None,
            data=dict(data["data"]) if isinstance(data.get("data"), Mapping) else None,
        )


AuthObserver = Callable[[AuthEvent], None]


class AuthLog:
    """The observable list of auth events for one server.

    `subscribe(callback)` gets every new event (synchronously, in order, on
    the thread that runs the flow: the event loop).  Each event is also
    written to the attached traffic log as an `auth` frame: direction `in`
    for an HTTP exchange, `local` for everything else.
    """

    def __init__(self, secrets: SecretSet | None = None, traffic: TrafficLog | None = None) -> None:
        self.secrets = secrets if secrets is not None else SecretSet()
        self.events: list[AuthEvent] = []
        self._observers: list[AuthObserver] = []
        self._traffic: list[TrafficLog] = [traffic] if traffic is not None else []
        self._seq = 0

    def attach(self, traffic: TrafficLog) -> None:
        """Write future events into `traffic` too (one log per connection's client)."""
        if all(t is not traffic for t in self._traffic):
            self._traffic.append(traffic)

    def detach(self, traffic: TrafficLog) -> None:
        """Stop writing events into `traffic`."""
        self._traffic = [t for t in self._traffic if t is not traffic]

    def subscribe(self, observer: AuthObserver) -> Callable[[], None]:
        """Call `observer` with each new event; returns the function that stops it."""
        self._observers.append(observer)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._observers.remove(observer)

        return unsubscribe

    def emit(
        self,
        step: str,
        status: str,
        title: str,
        *,
        detail: str | None = None,
        http: HttpExchange | None = None,
        data: JSONObject | None = None,
    ) -> AuthEvent:
        """Add an event (title and detail masked), write it to the attached traffic logs and tell the observers
        (one that raises is dropped)."""
        self._seq += 1
        event = AuthEvent(
            self._seq,
            time.time(),
            step,
            status,
            mask_text(title, self.secrets),
            mask_text(detail, self.secrets) if detail else None,
            http,
            data,
        )
        self.events.append(event)
        note = f"auth {step}: {event.title}"
        if event.detail and status == "failed":
            note += f" — {event.detail}"
        for traffic in list(self._traffic):
            traffic.event(
                "in" if http is not None and http.status is not None else "local",
                "auth",
                note=note,
                meta={"auth": event.to_dict()},
            )
        for observer in list(self._observers):
            try:
                observer(event)
            except Exception:  # a failing view must not break the flow  # noqa: BLE001
                self._observers.remove(observer)
        return event

    def last_failure(self) -> AuthEvent | None:
        """The latest failed event (None when none failed)."""
        for event in reversed(self.events):
            if event.failed:
                return event
        return None

    def since(self, seq: int) -> list[AuthEvent]:
        """The events after sequence number `seq`."""
        return [event for event in self.events if event.seq > seq]


def events_from_frames(frames: Iterable[Frame]) -> list[AuthEvent]:
    """The auth events recorded in a traffic log (live or reloaded from a recording)."""
    out = []
    for frame in frames:
        if frame.kind == "auth" and isinstance(frame.meta, Mapping) and isinstance(frame.meta.get("auth"), Mapping):
            out.append(AuthEvent.from_dict(frame.meta["auth"]))
    return out
