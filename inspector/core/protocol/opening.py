"""Opening a connection's era: which one the spec asks for (a pinned revision,
`--era`, or a probe), the stateless probe falling back to the handshake (and
back again when the probe's answer comes late), and a failure to connect told
in the terms the person acts on."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from inspector.core.protocol.eras import LegacyEra, ModernEra
from inspector.core.protocol.errors import (
    ConnectError,
    ConnectionClosed,
    ConnectTimeout,
    EraFallback,
    InspectorError,
    JsonRpcError,
    ProtocolError,
    RequestTimeout,
)
from inspector.core.protocol.versions import HANDSHAKE_VERSIONS, KNOWN_VERSIONS, MODERN_VERSIONS

if TYPE_CHECKING:
    from inspector.core.protocol.client import Client
    from inspector.core.servers.spec import ServerSpec
    from inspector.core.transports.base import Transport
    from inspector.forms.values import JSONObject

__all__ = ["connect_failure", "era_choice", "fallback_note", "open_era"]


def connect_failure(exc: InspectorError, stderr_tail: Callable[[], list[str]]) -> InspectorError:
    """The error a failed connection raises: a refusal, a timeout or a lost server, with stderr's last lines."""
    if isinstance(exc, (ConnectError, ProtocolError)):
        return exc
    tail = stderr_tail()
    detail = "\n".join(tail[-20:]) if tail else None
    if isinstance(exc, ConnectionClosed):
        return ConnectError(f"the server went away while connecting: {exc}", detail=detail)
    if isinstance(exc, ConnectTimeout):
        return exc
    if isinstance(exc, RequestTimeout):
        # A timeout, not a refusal: the scripting commands exit with the
        # timeout code, as `--timeout` documents.
        return ConnectTimeout(exc.method, exc.timeout, detail=detail)
    if isinstance(exc, JsonRpcError):
        return ConnectError(f"the server refused the connection: {exc}", detail=detail)
    return ConnectError(f"could not connect: {exc}", detail=detail)


def fallback_note(fallback: Exception) -> str:
    """The traffic log's note on falling back from Streamable HTTP to the legacy HTTP+SSE transport."""
    return f"Streamable HTTP refused ({fallback}); falling back to legacy HTTP+SSE as the spec describes"


def era_choice(spec: ServerSpec, transport: Transport) -> str:
    """legacy, modern, or auto (probe), from the pinned revision, the transport and `--era`."""
    pinned = spec.protocol_version
    if pinned in MODERN_VERSIONS:
        return "modern"
    if pinned in HANDSHAKE_VERSIONS or transport.kind == "sse":
        return "legacy"
    if pinned is not None:
        raise ConnectError(f"unknown protocol version {pinned!r}; known revisions: {', '.join(KNOWN_VERSIONS)}")
    if spec.era not in ("auto", "legacy", "modern"):
        raise ConnectError(f"unknown era {spec.era!r} (use auto, legacy or modern)")
    return spec.era


async def open_era(client: Client, transport: Transport) -> JSONObject:
    """Open the era the spec asks for on a started transport; the result that opened it."""
    choice = era_choice(client.spec, transport)
    if choice == "legacy":
        client.era_impl = LegacyEra(client)
        return await client.era_impl.open()
    modern = ModernEra(client, probe=choice == "auto")
    client.era_impl = modern
    try:
        return await modern.open()
    except EraFallback as fallback:
        client.traffic.event("local", "transport", note=f"era probe: a legacy server ({fallback}); using initialize")
    return await _fall_back(client, transport, modern)


async def _fall_back(client: Client, transport: Transport, modern: ModernEra) -> JSONObject:
    """The probe found a handshake server: initialize, unless the probe's late answer says stateless after all."""
    session, _transport = client.require()
    session.prepare_params = None
    session.inspect_result = None
    transport.modern = False
    transport.protocol_version = None
    client.era_impl = LegacyEra(client)
    try:
        result = await client.era_impl.open()
    except (JsonRpcError, ProtocolError) as refused:
        # A stateless server slow to start answers the probe late and
        # refuses initialize: it was modern after all.
        late = await modern.late_answer()
        if late is None:
            modern.forget_probe()
            raise
        client.traffic.event(
            "local", "transport", note=f"initialize refused ({refused}); the era probe's late answer says stateless"
        )
        client.era_impl = modern
        return await modern.adopt(late)
    except BaseException:
        # initialize timed out, the server went away, or we were cancelled:
        # the probe will never be answered now; stop waiting for it quietly.
        modern.forget_probe()
        raise
    modern.forget_probe()
    return result
