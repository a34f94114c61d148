"""The transport a server's spec asks for, made: stdio, Streamable HTTP (with the
fallback to legacy HTTP+SSE when `auto`), or legacy HTTP+SSE; an HTTP transport
gets the spec's credentials and OAuth through `http_auth`.  Each module is
imported only when chosen (a stdio run loads no HTTP client)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from inspector.core.protocol.errors import ConnectError

if TYPE_CHECKING:
    from subprocess import Popen

    from inspector.core.record.traffic import TrafficLog
    from inspector.core.servers.spec import ServerSpec
    from inspector.core.transports.base import Transport

__all__ = ["make_transport"]


def make_transport(
    spec: ServerSpec, traffic: TrafficLog, transport: str | None = None, process: Popen[bytes] | None = None
) -> Transport:
    """The transport for `spec` (`transport` overrides its kind; `process`: a stdio server already started)."""
    kind = transport or spec.transport
    if kind == "stdio":
        from inspector.core.transports.stdio import StdioTransport

        if not spec.command:
            raise ConnectError("no command given for a stdio server")
        return StdioTransport(
            traffic,
            spec.command,
            spec.args,
            spec.env,
            spec.cwd,
            spec.inherit_env,
            process,
            max_message_size=spec.max_message_size,
        )
    if not spec.url:
        raise ConnectError(f"no URL given for an {kind} server")
    from inspector.core.auth.session import http_auth

    auth = http_auth(spec, traffic)
    max_size = spec.max_message_size
    if kind in ("http", "auto"):
        from inspector.core.transports.streamable_http import StreamableHttpTransport

        return StreamableHttpTransport(
            traffic,
            spec.url,
            spec.headers,
            spec.secret_names,
            allow_fallback=(kind == "auto"),
            open_get_stream=spec.get_stream,
            auth=auth,
            max_message_size=max_size,
            request_timeout=spec.timeout,
        )
    if kind == "sse":
        from inspector.core.transports.legacy_sse import LegacySseTransport

        return LegacySseTransport(
            traffic,
            spec.url,
            spec.headers,
            spec.secret_names,
            auth=auth,
            max_message_size=max_size,
            request_timeout=spec.timeout,
        )
    raise ConnectError(f"unknown transport {kind!r} (use stdio, http or sse)")
