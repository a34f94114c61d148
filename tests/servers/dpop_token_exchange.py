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

import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import auth_base
import jwt
from cryptography.hazmat.primitives.asymmetric import ec
from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Scope, Send

CLIENT = "xaa-client"
CLIENT_SECRET = "xaa-secret-9d2e"
IDP_CLIENT = "idp-client"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"


@dataclass
class State(auth_base.Site):
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


def build(state: State) -> Any:
    server = MCPServer("token-exchange-test-server")

    @server.tool()
    def whoami() -> str:
        """Say who is asking."""
        return "hello, enterprise user"

    @auth_base.route(server, "/_id_token", ["GET"])
    async def id_token(request: Request) -> Response:
        now = int(time.time())
        claims = {"iss": state.idp, "sub": "user-42", "aud": IDP_CLIENT, "iat": now, "exp": now + 3600}
        return JSONResponse({"id_token": jwt.encode(claims, state.key, algorithm="ES256")})

    @auth_base.route(server, "/idp/.well-known/openid-configuration", ["GET"])
    async def idp_metadata(request: Request) -> Response:
        return JSONResponse(
            {
                "issuer": state.idp,
                "authorization_endpoint": f"{state.idp}/authorize",
                "token_endpoint": f"{state.idp}/token",
                "grant_types_supported": [TOKEN_EXCHANGE],
            }
        )

    @auth_base.route(server, "/idp/token", ["POST"])
    async def exchange(request: Request) -> Response:
        return await exchange_token(state, request)

    auth_base.add_discovery(
        server,
        lambda: {"resource": state.resource, "authorization_servers": [state.issuer]},
        lambda: auth_base.authorization_server_metadata(state, [JWT_BEARER], ["client_secret_basic"]),
    )

    @auth_base.route(server, "/auth/token", ["POST"])
    async def token(request: Request) -> Response:
        return await jwt_bearer_token(state, request)

    def set_mode(body: dict[str, Any]) -> None:
        state.deny = bool(body.get("deny", False))

    auth_base.add_controls(
        server, lambda: {**state.stats, "errors": state.errors, "last_exchange": state.last_exchange}, set_mode
    )
    return auth_base.protected_app(server, IssuedTokensGate, state)


async def exchange_token(state: State, request: Request) -> Response:
    """The IdP's token endpoint: an ID token exchanged (RFC 8693) for an ID-JAG, unless told to deny."""
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
        subject = jwt.decode(form["subject_token"], state.key.public_key(), algorithms=["ES256"], audience=IDP_CLIENT)
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


async def jwt_bearer_token(state: State, request: Request) -> Response:
    """The authorization server's token endpoint: an ID-JAG (RFC 7523 jwt-bearer) for an access token."""
    form = {k: str(v) for k, v in (await request.form()).items()}
    if auth_base.basic_credentials(request) != (CLIENT, CLIENT_SECRET):
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
    return auth_base.token_response(access, "Bearer", 3600)


class IssuedTokensGate(auth_base.Gate):
    """/mcp takes only the tokens the authorization server issued."""

    state: State

    async def admit(self, scope: Scope, headers: dict[str, str], body: bytes, send: Send) -> bool:
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme != "Bearer" or token not in self.state.tokens:
            self.state.stats["mcp_401"] += 1
            await auth_base.refuse(send, 401, f'Bearer resource_metadata="{self.state.prm_url()}"')
            return False
        self.state.stats["mcp_ok"] += 1
        return True


if __name__ == "__main__":
    auth_base.main(build, State)
