"""What the protected test servers (auth_server.py, dpop_server.py,
dpop_token_exchange.py, revoke_auth_server.py) have in common: one origin
serving an MCP server at /mcp, its protected resource metadata and its
authorization server under /auth; the gate in front of /mcp; the discovery
documents; and how each is started from the command line.

Each server keeps only what makes it different: the tokens it takes, the
grants its token endpoint answers, and its test controls.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PRM_PATH = "/.well-known/oauth-protected-resource/mcp"
METADATA_PATH = "/.well-known/oauth-authorization-server/auth"


@dataclass
class Site:
    """One origin: the MCP server is its /mcp, the authorization server its /auth."""

    base: str

    @property
    def issuer(self) -> str:
        return f"{self.base}/auth"

    @property
    def resource(self) -> str:
        return f"{self.base}/mcp"

    def prm_url(self) -> str:
        return f"{self.base}{PRM_PATH}"


Handler = Callable[[Request], Awaitable[Response]]


def route(server: MCPServer, path: str, methods: list[str]) -> Callable[[Handler], Handler]:
    """`server.custom_route(path, methods)`, with the type the SDK leaves out (it hands the handler back)."""
    register: Callable[[Handler], Handler] = server.custom_route(path, methods=methods)
    return register


def authorization_server_metadata(
    site: Site,
    grant_types: list[str],
    auth_methods: list[str],
    *,
    issuer: str | None = None,
    endpoints: str | None = None,
    **more: Any,
) -> dict[str, Any]:
    """RFC 8414 metadata for the authorization server at `site.issuer` (naming `issuer` instead when
    given), its endpoints under `endpoints` (the issuer unless named), with `more` members after the
    ones every test server has."""
    under = endpoints or site.issuer
    return {
        "issuer": issuer or site.issuer,
        "authorization_endpoint": f"{under}/authorize",
        "token_endpoint": f"{under}/token",
        "response_types_supported": ["code"],
        "grant_types_supported": grant_types,
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": auth_methods,
        **more,
    }


def add_discovery(
    server: MCPServer,
    resource_metadata: Callable[[], dict[str, Any]],
    metadata: Callable[[], dict[str, Any]],
    before_prm: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Serve the protected resource metadata and the authorization server metadata, made afresh per
    request (so a test's /_mode change shows in the next one); `before_prm` is awaited before the
    resource metadata is answered (a server that keeps a client waiting for it)."""

    @route(server, PRM_PATH, ["GET"])
    async def prm(request: Request) -> Response:
        if before_prm is not None:
            await before_prm()
        return JSONResponse(resource_metadata())

    @route(server, METADATA_PATH, ["GET"])
    async def as_metadata(request: Request) -> Response:
        return JSONResponse(metadata())


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def s256(text: str) -> str:
    """The base64url SHA-256 of a text: a PKCE S256 challenge of its verifier, a DPoP `ath` of its token."""
    return b64url(hashlib.sha256(text.encode()).digest())


def basic_credentials(request: Request) -> tuple[str, str] | None:
    """The client id and secret of an `Authorization: Basic` header (each form-urlencoded, RFC 6749
    §2.3.1), or None without one."""
    header = request.headers.get("authorization", "")
    if not header.startswith("Basic "):
        return None
    client_id, _, secret = base64.b64decode(header[6:]).decode().partition(":")
    return unquote(client_id), unquote(secret)


def token_response(access: str, token_type: str, expires_in: int, **more: Any) -> JSONResponse:
    """A successful token endpoint answer (RFC 6749 §5.1)."""
    return JSONResponse({"access_token": access, "token_type": token_type, "expires_in": expires_in, **more})


def add_controls(
    server: MCPServer, stats: Callable[[], dict[str, Any]], set_mode: Callable[[dict[str, Any]], str | None]
) -> None:
    """The test's controls: GET /_stats answers `stats()`; POST /_mode hands its JSON body to
    `set_mode`, which returns why it refuses the body (answered 400), or None."""

    @route(server, "/_stats", ["GET"])
    async def stats_route(request: Request) -> Response:
        return JSONResponse(stats())

    @route(server, "/_mode", ["POST"])
    async def mode_route(request: Request) -> Response:
        refused = set_mode(await request.json())
        if refused is not None:
            return JSONResponse({"error": refused}, 400)
        return JSONResponse({"ok": True})


def protected_app(server: MCPServer, gate: type[Gate], state: Any) -> Any:
    """The MCP server's Streamable HTTP app (JSON responses at /mcp), behind `gate`."""
    app = server.streamable_http_app(streamable_http_path="/mcp", json_response=True, host="127.0.0.1")
    app.add_middleware(gate, state=state)
    return app


class Gate:
    """In front of /mcp: reads the whole request, lets `admit` decide on it (a refused request is
    answered there), then hands the request, body and all, to the MCP server."""

    def __init__(self, app: ASGIApp, state: Any) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != "/mcp":
            await self.app(scope, receive, send)
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        if not await self.admit(scope, headers, body, send):
            return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def admit(self, scope: Scope, headers: dict[str, str], body: bytes, send: Send) -> bool:
        """True to let the request through; otherwise answer it (see `refuse`) and return False."""
        raise NotImplementedError


async def refuse(send: Send, status: int, challenge: str, *headers: tuple[bytes, bytes]) -> None:
    """Answer a request the gate does not let through, with its WWW-Authenticate challenge."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"www-authenticate", challenge.encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": b'{"error": "unauthorized"}'})


def main(build: Callable[[Any], ASGIApp], new_state: Callable[[str], Any]) -> None:
    """Serve `build(new_state(base URL))` on the port the command line names (`--port`)."""
    port = port_parser().parse_args().port
    serve(build(new_state(loopback(port))), port)


def port_parser() -> argparse.ArgumentParser:
    """The command line every protected test server takes (some add to it)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    return parser


def loopback(port: int) -> str:
    return f"http://127.0.0.1:{port}"


def serve(app: ASGIApp, *ports: int) -> None:
    """Serve the app on these loopback ports until killed (one app: several origins of one server)."""
    sockets = []
    for port in ports:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sockets.append(sock)
    uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False)).run(sockets=sockets)
