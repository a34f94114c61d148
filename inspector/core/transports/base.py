"""What every transport offers the session, and what the session offers back."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any, Protocol

from inspector.core.record.traffic import TrafficLog

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["Receiver", "Transport"]


class Receiver(Protocol):
    """The session side: raw inbound frames and the end of the connection."""

    def feed(self, raw: bytes, meta: JSONObject | None = None) -> None:
        """Take one raw inbound frame (`meta`: what the transport knows of it, such as an SSE event id)."""

    def connection_lost(self, reason: str) -> None:
        """The connection is over, for `reason`."""

    def fail_request(self, request_id: Any, error: Exception) -> None:
        """The transport could not deliver a request or its answer: the request fails with `error`."""

    def is_pending(self, request_id: Any) -> bool:
        """Whether the request is still waiting for its answer."""


class Transport(abc.ABC):
    """Moves raw JSON-RPC frames.  It records transport events, never messages.

    The session records every message frame itself (so all transports log the
    same way); a transport adds what only it knows, such as HTTP status lines,
    SSE event ids, stderr lines and process exits.
    """

    kind: str = "?"

    def __init__(self, traffic: TrafficLog) -> None:
        self.traffic = traffic
        self._receiver: Receiver | None = None
        self.protocol_version: str | None = None
        # Stateless era (2026-07-28) and the era probe; only HTTP acts on them.
        self.modern = False
        self.probing = False

    def bind(self, receiver: Receiver) -> None:
        """Give the transport the session it delivers to (before `start`)."""
        self._receiver = receiver

    @property
    def receiver(self) -> Receiver:
        """The session it delivers to (only once bound)."""
        assert self._receiver is not None, "transport used before bind()"
        return self._receiver

    @abc.abstractmethod
    async def start(self) -> None:
        """Open the connection (spawn the process, open the stream)."""

    @abc.abstractmethod
    async def send(self, raw: bytes, message: JSONObject) -> None:
        """Deliver one serialised message."""

    @abc.abstractmethod
    async def close(self) -> None:
        """End the connection politely, then firmly; bounded in time."""

    def describe(self) -> str:
        """The transport and where it goes, in a few words for people."""
        return self.kind

    def after_initialize(self, protocol_version: str) -> None:
        """Called once the handshake has agreed a revision."""
        self.protocol_version = protocol_version

    async def session_ready(self, timeout: float | None = None) -> None:  # noqa: B027 - optional hook
        """Called once the handshake is answered, before `notifications/initialized`:
        Streamable HTTP opens its GET stream here (waiting at most `timeout`)."""

    def cancel_request(self, request_id: Any) -> bool:
        """Drop a request at the transport level; True when that is the cancellation."""
        return False

    def stderr_tail(self) -> list[str]:
        """The server's last stderr lines, for an error's detail (only stdio has any)."""
        return []
