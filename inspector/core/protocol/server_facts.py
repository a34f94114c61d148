"""What a client knows of its server and connection: read-only facts the faces show."""

from __future__ import annotations

from typing import TYPE_CHECKING

from inspector.core.protocol.eras import Era, ModernEra

if TYPE_CHECKING:
    from inspector.core.protocol.session import Session
    from inspector.core.record.traffic import TrafficLog
    from inspector.core.servers.spec import ServerSpec
    from inspector.core.transports.base import Transport
    from inspector.forms.values import JSONObject


class ServerFacts:
    """The server's own account of itself (from the era that opened the connection) and the connection's state;
    `Client` sets the attributes."""

    spec: ServerSpec
    traffic: TrafficLog
    era_impl: Era | None
    session: Session | None
    transport: Transport | None

    @property
    def server_info(self) -> JSONObject:
        """The server's ``serverInfo`` (empty before a connection opens)."""
        return self.era_impl.server_info if self.era_impl is not None else {}

    @property
    def server_capabilities(self) -> JSONObject:
        """The capabilities the server declared (empty before a connection opens)."""
        return self.era_impl.capabilities if self.era_impl is not None else {}

    @property
    def instructions(self) -> str | None:
        """The server's instructions, if it gave any."""
        return self.era_impl.instructions if self.era_impl is not None else None

    @property
    def initialize_result(self) -> JSONObject:
        """What opened the connection: the initialize result, or the discover result."""
        return self.era_impl.result if self.era_impl is not None else {}

    @property
    def protocol_version(self) -> str | None:
        """The revision in use (None before a connection opens)."""
        return self.era_impl.protocol_version if self.era_impl is not None else None

    @property
    def offered_version(self) -> str | None:
        """The revision the client offered when the connection opened."""
        return self.era_impl.offered_version if self.era_impl is not None else None

    @property
    def era(self) -> str:
        """The era in use, ``legacy`` (handshake) or ``modern`` (stateless); before a connection, the spec's choice."""
        return self.era_impl.name if self.era_impl is not None else self.spec.era

    @property
    def modern(self) -> ModernEra | None:
        """The stateless era's state, when the connection is in that era."""
        return self.era_impl if isinstance(self.era_impl, ModernEra) else None

    @property
    def transport_kind(self) -> str:
        """The transport in use (the spec's choice before a connection opens)."""
        return self.transport.kind if self.transport is not None else self.spec.transport

    @property
    def in_flight(self) -> int:
        """How many requests wait for their answer."""
        return self.session.in_flight if self.session is not None else 0

    def has_capability(self, name: str) -> bool:
        """Whether the server declared the capability `name`."""
        return name in self.server_capabilities

    def stderr_tail(self) -> list[str]:
        """The server's last stderr lines, with secrets masked."""
        tail = self.transport.stderr_tail() if self.transport is not None else []
        # The log's frames are masked; the tail the transport keeps for messages is not.
        mask = self.traffic.mask
        text = getattr(mask, "raw_text", None)
        return [text(line) for line in tail] if text is not None else tail
