"""Enterprise-managed authorization (SEP-990) on this machine: an enterprise
identity provider, an MCP authorization server that takes only the
jwt-bearer grant, and a protected MCP server, in one process, for the
token-exchange tests (no internet).

- The IdP (`/idp`) publishes OpenID Connect metadata and answers RFC 8693
  token exchange: it verifies the ID token it issued (ES256, its own key;
  `GET /_id_token` hands the test a fresh one), requires every parameter the
  profile names, and returns an ID-JAG (`typ: oauth-id-jag+jwt`) carrying the
  requested `audience` and `resource` and the client id the person's client
  has at the authorization server.  `POST /_mode {"deny": true}` makes it
  refuse (`access_denied`).
- The authorization server (`/auth`) has one confidential client
  (`xaa-client`, client_secret_basic) and takes only
  `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`; it verifies the
  ID-JAG (signature with the IdP's key, `typ`, `aud` = its issuer, `resource`
  = the MCP server, `client_id` = the authenticated client, `exp`, a `jti`
  never seen before) and issues a bearer token.
- The MCP server (official Python SDK, `MCPServer`) takes only those tokens.

    python tests/servers/dpop_token_exchange.py --port PORT

GET /_stats: counters, the last token exchange's parameters (the subject
token replaced by whether it verified) and every error found.
"""

from __future__ import annotations

import argparse
import base64
import secrets
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import jwt
import uvicorn
from cryptography.hazmat.primitives.asymmetric import ec
from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CLIENT = "xaa-client"
CLIENT_SECRET = "xaa-secret-9d2e"
IDP_CLIENT = "idp-client"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"


@dataclass
class State:
    base: str
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    deny: bool = False
    tokens: set[str] = field(default_factory=set)
    jtis: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    last_exchange: dict[str, Any] = field(default_factory=dict)
    stats: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("exchange", "jwt_bearer", "mcp_ok", "mcp_401"), 0)
    )

    @property
    def idp(self) -> str:
        return f"{self.base}/idp"

    @property
    def issuer(self) -> str:
        return f"{self.base}/auth"

    @property
    def resource(self) -> str:
        return f"{self.base}/mcp"


def build(state: State) -> Any:
    server = MCPServer("token-exchange-test-server")

    @server.tool()
    def whoami() -> str:
        """Say who is asking."""
        return "hello, enterprise user"

    @server.custom_route("/_id_token", methods=["GET"])
    async def id_token(request: Request) -> Response:
        now = int(time.time())
        claims = {"iss": state.idp, "sub": "user-42", "aud": IDP_CLIENT, "iat": now, "exp": now + 3600}
        return JSONResponse({"id_token": jwt.encode(claims, state.key, algorithm="ES256")})

    @server.custom_route("/idp/.well-known/openid-configuration", methods=["GET"])
    async def idp_metadata(request: Request) -> Response:
        return JSONResponse(
            {
                "issuer": state.idp,
                "authorization_endpoint": f"{state.idp}/authorize",
                "token_endpoint": f"{state.idp}/token",
                "grant_types_supported": [TOKEN_EXCHANGE],
            }
        )

    @server.custom_route("/idp/token", methods=["POST"])
    async def exchange(request: Request) -> Response:
        form = {k: str(v) for k, v in (await request.form()).items()}
        state.stats["exchange"] += 1
        shown = {k: v for k, v in form.items() if k != "subject_token"}
        state.last_exchange = shown
        if state.deny:
            return JSONResponse({"error": "access_denied", "error_description": "policy says no"}, 400)
        wanted = {
            "grant_type": TOKEN_EXCHANGE,
            "requested_token_type": ID_JAG,
            "subject_token_type": ID_TOKEN,
            "client_id": IDP_CLIENT,
        }
        wrong = [k for k, v in wanted.items() if form.get(k) != v]
        wrong += [k for k in ("audience", "resource", "subject_token") if not form.get(k)]
        if wrong:
            state.errors.append(f"exchange: wrong or missing {wrong}")
            return JSONResponse({"error": "invalid_request", "error_description": f"{wrong}"}, 400)
        try:
            subject = jwt.decode(
                form["subject_token"], state.key.public_key(), algorithms=["ES256"], audience=IDP_CLIENT
            )
        except jwt.PyJWTError as exc:
            state.errors.append(f"exchange: id token: {exc}")
            return JSONResponse({"error": "invalid_grant"}, 400)
        shown["subject_token_verified"] = "yes"
        now = int(time.time())
        claims = {
            "iss": state.idp,
            "sub": subject["sub"],
            "aud": form["audience"],
            "resource": form["resource"],
            "client_id": CLIENT,
            "jti": secrets.token_hex(8),
            "iat": now,
            "exp": now + 300,
        }
        id_jag = jwt.encode(claims, state.key, algorithm="ES256", headers={"typ": "oauth-id-jag+jwt"})
        return JSONResponse({"access_token": id_jag, "issued_token_type": ID_JAG, "token_type": "N_A"})

    @server.custom_route("/.well-known/oauth-protected-resource/mcp", methods=["GET"])
    async def prm(request: Request) -> Response:
        return JSONResponse({"resource": state.resource, "authorization_servers": [state.issuer]})

    @server.custom_route("/.well-known/oauth-authorization-server/auth", methods=["GET"])
    async def metadata(request: Request) -> Response:
        return JSONResponse(
            {
                "issuer": state.issuer,
                "authorization_endpoint": f"{state.issuer}/authorize",
                "token_endpoint": f"{state.issuer}/token",
                "response_types_supported": ["code"],
                "grant_types_supported": [JWT_BEARER],
                "token_endpoint_auth_methods_supported": ["client_secret_basic"],
                "code_challenge_methods_supported": ["S256"],
            }
        )

    @server.custom_route("/auth/token", methods=["POST"])
    async def token(request: Request) -> Response:
        form = {k: str(v) for k, v in (await request.form()).items()}
        header = request.headers.get("authorization", "")
        client_id, _, secret = base64.b64decode(header[6:] or b"").decode().partition(":")
        if not header.startswith("Basic ") or (unquote(client_id), unquote(secret)) != (CLIENT, CLIENT_SECRET):
            state.errors.append("jwt-bearer: client authentication failed")
            return JSONResponse({"error": "invalid_client"}, 401)
        if form.get("grant_type") != JWT_BEARER:
            state.errors.append(f"jwt-bearer: grant {form.get('grant_type')}")
            return JSONResponse({"error": "unsupported_grant_type"}, 400)
        state.stats["jwt_bearer"] += 1
        assertion = form.get("assertion", "")
        try:
            if jwt.get_unverified_header(assertion).get("typ") != "oauth-id-jag+jwt":
                raise jwt.InvalidTokenError("typ is not oauth-id-jag+jwt")
            claims = jwt.decode(
                assertion, state.key.public_key(), algorithms=["ES256"], audience=state.issuer, issuer=state.idp
            )
            if claims.get("resource") != state.resource or claims.get("client_id") != CLIENT:
                raise jwt.InvalidTokenError("resource or client_id does not match")
            if claims.get("jti") in state.jtis:
                raise jwt.InvalidTokenError("ID-JAG replayed")
            state.jtis.add(claims["jti"])
        except jwt.PyJWTError as exc:
            state.errors.append(f"jwt-bearer: {exc}")
            return JSONResponse({"error": "invalid_grant", "error_description": str(exc)}, 400)
        access = "at-" + secrets.token_urlsafe(24)
        state.tokens.add(access)
        return JSONResponse({"access_token": access, "token_type": "Bearer", "expires_in": 3600})

    @server.custom_route("/_stats", methods=["GET"])
    async def stats(request: Request) -> Response:
        return JSONResponse({**state.stats, "errors": state.errors, "last_exchange": state.last_exchange})

    @server.custom_route("/_mode", methods=["POST"])
    async def mode(request: Request) -> Response:
        state.deny = bool((await request.json()).get("deny", False))
        return JSONResponse({"ok": True})

    app = server.streamable_http_app(streamable_http_path="/mcp", json_response=True, host="127.0.0.1")
    app.add_middleware(Gate, state=state)
    return app


class Gate:
    """/mcp takes only the tokens the authorization server issued."""

    def __init__(self, app: ASGIApp, state: State) -> None:
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
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme != "Bearer" or token not in self.state.tokens:
            self.state.stats["mcp_401"] += 1
            challenge = f'Bearer resource_metadata="{self.state.base}/.well-known/oauth-protected-resource/mcp"'
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"www-authenticate", challenge.encode())],
                }
            )
            await send({"type": "http.response.body", "body": b'{"error": "unauthorized"}'})
            return
        self.state.stats["mcp_ok"] += 1
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    state = State(f"http://127.0.0.1:{args.port}")
    config = uvicorn.Config(build(state), host="127.0.0.1", port=args.port, log_config=None, access_log=False)
    uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
