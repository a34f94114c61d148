"""tests/servers/auth_server.py with token revocation (RFC 7009), for the revocation tests.

The same protected MCP server and authorization server, plus a
`revocation_endpoint` in the authorization server metadata (with
`revocation_endpoint_auth_methods_supported`) and the endpoint itself: it
authenticates the client as the token endpoint does, revokes a refresh or an
access token (the MCP server then refuses a revoked access token with 401),
and answers 200 for a token it does not know (RFC 7009 §2.2).

    python tests/servers/revoke_auth_server.py --port PORT

GET /_revocations lists every revocation request it received (the token,
its hint, the client and how it authenticated, the outcome).  POST
/_revoke_mode {"mode": M} chooses how it behaves: `ok` (the default),
`unavailable` (503 with Retry-After to every revocation), `absent` (the
metadata names no revocation endpoint), `insecure` (the metadata names a
plain-http endpoint on a host that is not loopback, which a client must not
use).  POST /_mode is auth_server.py's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import auth_server  # the sibling file: this server extends it
from auth_base import METADATA_PATH, main
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MODES = ("ok", "unavailable", "absent", "insecure")


@dataclass
class Revocations:
    mode: str = "ok"
    seen: list[dict[str, Any]] = field(default_factory=list)


class RevocationLayer:
    """The revocation endpoint, its metadata, and the test controls, in front of auth_server's app."""

    def __init__(self, app: ASGIApp, state: auth_server.State) -> None:
        self.app = app
        self.state = state
        self.revocations = Revocations()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path, method = scope["path"], scope["method"]
        request = Request(scope, receive)
        response: Response | None = None
        if path == "/auth/revoke" and method == "POST":
            response = await self.revoke(request)
        elif path == "/_revocations" and method == "GET":
            response = JSONResponse({"revocations": self.revocations.seen})
        elif path == "/_revoke_mode" and method == "POST":
            body = await request.json()
            mode = str(body.get("mode", "ok"))
            if mode not in MODES:
                response = JSONResponse({"error": f"mode must be one of {MODES}"}, 400)
            else:
                self.revocations.mode = mode
                response = JSONResponse({"ok": True})
        elif path == METADATA_PATH and method == "GET":
            await self.metadata(scope, receive, send)
            return
        if response is not None:
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def metadata(self, scope: Scope, receive: Receive, send: Send) -> None:
        """auth_server's metadata document, with the revocation endpoint the mode asks for."""
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            else:
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, capture)
        document = json.loads(b"".join(chunks))
        mode = self.revocations.mode
        if mode != "absent":
            endpoint = f"{self.state.endpoints}/revoke"
            if mode == "insecure":
                endpoint = "http://revoke.example.com/auth/revoke"
            document["revocation_endpoint"] = endpoint
            document["revocation_endpoint_auth_methods_supported"] = ["client_secret_basic", "client_secret_post"]
        await JSONResponse(document, status_code=start.get("status", 200))(scope, receive, send)

    async def revoke(self, request: Request) -> Response:
        form = dict(await request.form())
        token = str(form.get("token", ""))
        hint = form.get("token_type_hint")
        how = "basic" if request.headers.get("authorization", "").startswith("Basic ") else "post"
        seen: dict[str, Any] = {"token": token, "hint": hint, "auth": how}
        self.revocations.seen.append(seen)
        if self.revocations.mode == "unavailable":
            seen["outcome"] = "unavailable"
            return JSONResponse({"error": "temporarily_unavailable"}, 503, headers={"Retry-After": "30"})
        client = auth_server._authenticate(self.state, request, form)
        if client is None:
            seen["outcome"] = "invalid_client"
            return JSONResponse({"error": "invalid_client"}, 401)
        seen["client_id"] = client["client_id"]
        if not token:
            seen["outcome"] = "invalid_request"
            return JSONResponse({"error": "invalid_request", "error_description": "no token"}, 400)
        refresh = self.state.refresh.get(token)
        if refresh is not None:
            if refresh["client_id"] != client["client_id"]:
                seen["outcome"] = "other_client"
                return JSONResponse({"error": "invalid_request", "error_description": "not your token"}, 400)
            del self.state.refresh[token]
            seen["outcome"] = "refresh_token revoked"
        elif token in self.state.tokens:
            del self.state.tokens[token]
            seen["outcome"] = "access_token revoked"
        else:
            seen["outcome"] = "unknown"
        return Response(status_code=200)


def build(state: auth_server.State) -> RevocationLayer:
    return RevocationLayer(auth_server.build(state), state)


if __name__ == "__main__":
    main(build, auth_server.State)
