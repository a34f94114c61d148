"""A protected MCP server and its authorization server, in one process, for
the authorization tests (no internet, nothing shared with other tests).

The MCP server (official Python SDK, `MCPServer`) sits behind a bearer-token
gate: without a valid token every POST to /mcp is answered 401 with a
WWW-Authenticate challenge naming the protected resource metadata and the
scope `mcp:read`; the `admin_tool` call needs `mcp:admin` as well and is
answered 403 insufficient_scope (challenging only the missing scope, so a
client must unite it with what it already had).  The step-up can misbehave
on request (`step_up` mode): `always` keeps answering insufficient_scope
whatever the token holds; `carousel` asks for a new scope every time
(`mcp:extra-1`, `mcp:extra-2`, ...); `once` makes `mcp:admin` good for one
`admin_tool` call per token (like sudo), so each call needs a new step-up
that succeeds.

The authorization server is hand-written to be small and to misbehave on
request: it registers clients dynamically (issuing a client secret), approves
every authorization request at once (a headless user agent completes the
flow by following the redirect), checks PKCE S256, the redirect URI and the
client secret, issues short-lived tokens when asked, rotates refresh tokens,
and can name the wrong issuer in its redirect or in its metadata, or deny the
request.  The MCP server can keep its protected resource metadata to itself
(`silent_prm`): such a request is answered only when the mode changes.

    python tests/servers/auth_server.py --port PORT [--second-port PORT] [--token-ttl S] [--wrong-iss] [--deny]

GET /_stats answers with counters of what the authorization server did (and
the secrets it issued, and the redirect URIs it was asked to use); POST
/_mode switches the misbehaviours at run time (every key left out goes back
to its default).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import auth_base
from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.types import Scope, Send

READ = "mcp:read"
ADMIN = "mcp:admin"
STEP_UP_MODES = ("normal", "always", "carousel", "once")
# A pre-registered machine client for the client credentials grant (SEP-1046).
MACHINE_CLIENT = "machine-client"
MACHINE_SECRET = "machine-secret-4f1c"


@dataclass
class State(auth_base.Site):
    token_ttl: int = 3600
    wrong_iss: bool = False
    deny: bool = False
    # The issuer its metadata names, when it is not its own (RFC 8414 §3.3).
    metadata_issuer: str | None = None
    step_up: str = "normal"
    # The authorization server the protected resource metadata names, when it is not this one.
    prm_server: str | None = None
    # Where the metadata puts the authorization, token and registration endpoints
    # (another origin than the issuer: the second port), when not under the issuer.
    endpoint_base: str | None = None
    # The protected resource metadata is not answered until the mode changes (`released` is set).
    silent_prm: bool = False
    released: asyncio.Event = field(default_factory=asyncio.Event)
    carousel: int = 0
    redirect_uris: list[str] = field(default_factory=list)
    clients: dict[str, dict[str, Any]] = field(default_factory=dict)
    codes: dict[str, dict[str, Any]] = field(default_factory=dict)
    tokens: dict[str, dict[str, Any]] = field(default_factory=dict)
    refresh: dict[str, dict[str, Any]] = field(default_factory=dict)
    issued: list[str] = field(default_factory=list)
    stats: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ("register", "authorize", "token", "refresh", "client_credentials", "mcp_ok", "mcp_401", "mcp_403"), 0
        )
    )

    def __post_init__(self) -> None:
        self.clients[MACHINE_CLIENT] = {"client_id": MACHINE_CLIENT, "client_secret": MACHINE_SECRET}
        self.issued.append(MACHINE_SECRET)

    async def hold_prm(self) -> None:
        """Keep a request for the protected resource metadata waiting while `silent_prm` holds."""
        if self.silent_prm:
            await self.released.wait()

    @property
    def endpoints(self) -> str:
        return f"{self.endpoint_base}/auth" if self.endpoint_base else self.issuer


def build(state: State) -> Any:
    server = MCPServer("auth-test-server")

    @server.tool()
    def whoami() -> str:
        """Say who is asking (any token with mcp:read)."""
        return "hello, authorized client"

    @server.tool()
    def admin_tool() -> str:
        """Needs mcp:admin too (step-up)."""
        return "admin ok"

    def resource_metadata() -> dict[str, Any]:
        servers = [state.prm_server or state.issuer]
        return {"resource": state.resource, "authorization_servers": servers, "scopes_supported": [READ]}

    def metadata() -> dict[str, Any]:
        return auth_base.authorization_server_metadata(
            state,
            ["authorization_code", "refresh_token"],
            ["client_secret_basic", "client_secret_post", "none"],
            issuer=state.metadata_issuer,
            endpoints=state.endpoints,
            registration_endpoint=f"{state.endpoints}/register",
            scopes_supported=[READ, ADMIN],
            authorization_response_iss_parameter_supported=True,
        )

    auth_base.add_discovery(server, resource_metadata, metadata, state.hold_prm)

    @auth_base.route(server, "/auth/register", ["POST"])
    async def register(request: Request) -> Response:
        return await register_client(state, request)

    @auth_base.route(server, "/auth/authorize", ["GET"])
    async def authorize(request: Request) -> Response:
        return await authorize_at_once(state, request)

    @auth_base.route(server, "/auth/token", ["POST"])
    async def token(request: Request) -> Response:
        return await issue_token(state, request)

    def stats() -> dict[str, Any]:
        """Counters, every secret issued or received so far (so a test can look for them in a
        recording), and the redirect URIs authorization requests named."""
        return {**state.stats, "issued": state.issued, "redirect_uris": state.redirect_uris}

    def set_mode(body: dict[str, Any]) -> str | None:
        """Switch misbehaviours for the next flows: token_ttl, wrong_iss, deny, metadata_issuer, step_up,
        prm_server (the authorization server the resource metadata names), endpoint_base (the origin
        of the endpoints in the authorization server metadata), silent_prm (the resource metadata
        kept waiting for until the next change)."""
        return apply_mode(state, body)

    auth_base.add_controls(server, stats, set_mode)
    return auth_base.protected_app(server, BearerGate, state)


def apply_mode(state: State, body: dict[str, Any]) -> str | None:
    """The misbehaviours `body` names (every one left out back to its default); why not, when it cannot."""
    step_up = str(body.get("step_up", "normal"))
    if step_up not in STEP_UP_MODES:
        return f"step_up must be one of {STEP_UP_MODES}"
    state.token_ttl = int(body.get("token_ttl", 3600))
    state.wrong_iss = bool(body.get("wrong_iss", False))
    state.deny = bool(body.get("deny", False))
    state.metadata_issuer = body.get("metadata_issuer") or None
    state.prm_server = body.get("prm_server") or None
    state.endpoint_base = body.get("endpoint_base") or None
    state.step_up = step_up
    # The requests held so far are answered now (their clients have long given up).
    state.released.set()
    state.released = asyncio.Event()
    state.silent_prm = bool(body.get("silent_prm", False))
    return None


async def register_client(state: State, request: Request) -> Response:
    """Dynamic client registration (RFC 7591): every client is taken, with a client secret."""
    body = await request.json()
    state.stats["register"] += 1
    client_id = "client-" + secrets.token_hex(6)
    client = {
        "client_id": client_id,
        "client_secret": "cs-" + secrets.token_urlsafe(24),
        "redirect_uris": body.get("redirect_uris") or [],
        "token_endpoint_auth_method": "client_secret_basic",
        "grant_types": ["authorization_code", "refresh_token"],
        "client_name": body.get("client_name"),
    }
    state.clients[client_id] = client
    state.issued.append(client["client_secret"])
    return JSONResponse(client, status_code=201)


async def authorize_at_once(state: State, request: Request) -> Response:
    """The authorization endpoint: approved at once (or denied, when told), the issuer named (or a wrong one)."""
    q = request.query_params
    state.stats["authorize"] += 1
    client = state.clients.get(q.get("client_id", ""))
    redirect_uri = q.get("redirect_uri", "")
    state.redirect_uris.append(redirect_uri)
    if client is None or redirect_uri not in client["redirect_uris"]:
        return JSONResponse({"error": "invalid_request", "error_description": "unknown client or redirect"}, 400)
    if q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
        return JSONResponse({"error": "invalid_request", "error_description": "PKCE S256 required"}, 400)
    params: dict[str, str] = {}
    if state.deny:
        params["error"] = "access_denied"
        params["error_description"] = "the person said no"
    else:
        code = "code-" + secrets.token_urlsafe(16)
        state.codes[code] = {
            "client_id": client["client_id"],
            "redirect_uri": redirect_uri,
            "challenge": q["code_challenge"],
            "scope": q.get("scope") or READ,
            "resource": q.get("resource"),
        }
        params["code"] = code
        state.issued.append(code)
    if q.get("state"):
        params["state"] = q["state"]
    params["iss"] = "https://evil.example.com" if state.wrong_iss else state.issuer
    return RedirectResponse(f"{redirect_uri}?{urlencode(params)}", status_code=302)


async def issue_token(state: State, request: Request) -> Response:
    """The token endpoint: an authorization code (PKCE, redirect URI, resource checked), client
    credentials (the machine client) or a refresh token, for a new access and refresh token."""
    form = dict(await request.form())
    client = _authenticate(state, request, form)
    if client is None:
        return JSONResponse({"error": "invalid_client"}, 401)
    grant = form.get("grant_type")
    if grant == "authorization_code":
        state.stats["token"] += 1
        redeemed = _redeem_code(state, client, form)
        if isinstance(redeemed, Response):
            return redeemed
        scope = redeemed
    elif grant == "client_credentials" and client["client_id"] == MACHINE_CLIENT:
        state.stats["client_credentials"] += 1
        scope = str(form.get("scope") or READ)
    elif grant == "refresh_token":
        state.stats["refresh"] += 1
        old = state.refresh.pop(str(form.get("refresh_token")), None)
        if old is None or old["client_id"] != client["client_id"]:
            return JSONResponse({"error": "invalid_grant"}, 400)
        scope = old["scope"]
    else:
        return JSONResponse({"error": "unsupported_grant_type"}, 400)
    access = "at-" + secrets.token_urlsafe(24)
    refresh = "rt-" + secrets.token_urlsafe(24)
    state.tokens[access] = {"scope": scope, "expires": time.time() + state.token_ttl, "admin_used": False}
    state.refresh[refresh] = {"client_id": client["client_id"], "scope": scope}
    state.issued += [access, refresh]
    return auth_base.token_response(access, "Bearer", state.token_ttl, refresh_token=refresh, scope=scope)


def _redeem_code(state: State, client: dict[str, Any], form: dict[str, Any]) -> str | Response:
    """The scope an authorization code was granted, or the answer refusing it."""
    grant_data = state.codes.pop(str(form.get("code")), None)
    if grant_data is None or grant_data["client_id"] != client["client_id"]:
        return JSONResponse({"error": "invalid_grant"}, 400)
    if form.get("redirect_uri") != grant_data["redirect_uri"]:
        return JSONResponse({"error": "invalid_grant", "error_description": "redirect_uri"}, 400)
    verifier = str(form.get("code_verifier", ""))
    state.issued.append(verifier)
    if auth_base.s256(verifier) != grant_data["challenge"]:
        return JSONResponse({"error": "invalid_grant", "error_description": "PKCE"}, 400)
    if form.get("resource") != state.resource:
        return JSONResponse({"error": "invalid_target"}, 400)
    scope: str = grant_data["scope"]
    return scope


def _authenticate(state: State, request: Request, form: dict[str, Any]) -> dict[str, Any] | None:
    posted = str(form.get("client_id", "")), str(form.get("client_secret", ""))
    client_id, secret = auth_base.basic_credentials(request) or posted
    client = state.clients.get(client_id)
    if client is None or client["client_secret"] != secret:
        return None
    return client


class BearerGate(auth_base.Gate):
    """Bearer tokens for /mcp: 401 without a valid one, 403 for admin_tool without mcp:admin."""

    state: State

    async def admit(self, scope: Scope, headers: dict[str, str], body: bytes, send: Send) -> bool:
        token = headers.get("authorization", "")
        granted = None
        info = None
        if token.startswith("Bearer "):
            info = self.state.tokens.get(token[7:])
            if info is not None and info["expires"] > time.time():
                granted = set(info["scope"].split())
        if granted is None or READ not in granted:
            self.state.stats["mcp_401"] += 1
            error = ', error="invalid_token"' if token else ""
            challenge = f'Bearer resource_metadata="{self.state.prm_url()}", scope="{READ}"{error}'
            await auth_base.refuse(send, 401, challenge)
            return False
        if b'"admin_tool"' in body and b"tools/call" in body:
            needed = self._needed_for_admin(granted, info)
            if needed is not None:
                self.state.stats["mcp_403"] += 1
                challenge = (
                    f'Bearer error="insufficient_scope", scope="{needed}", '
                    f'resource_metadata="{self.state.prm_url()}", error_description="admin_tool needs {needed}"'
                )
                await auth_base.refuse(send, 403, challenge)
                return False
            if self.state.step_up == "once" and info is not None:
                info["admin_used"] = True
        self.state.stats["mcp_ok"] += 1
        return True

    def _needed_for_admin(self, granted: set[str], info: dict[str, Any] | None) -> str | None:
        """The scope to challenge for an admin_tool call, or None when the token may make it."""
        mode = self.state.step_up
        if mode == "always":
            return ADMIN
        if mode == "carousel":
            self.state.carousel += 1
            return f"mcp:extra-{self.state.carousel}"
        if ADMIN not in granted:
            return ADMIN
        if mode == "once" and info is not None and info["admin_used"]:
            return ADMIN
        return None


def main() -> None:
    parser = auth_base.port_parser()
    parser.add_argument("--token-ttl", type=int, default=3600)
    parser.add_argument("--wrong-iss", action="store_true")
    parser.add_argument("--deny", action="store_true")
    parser.add_argument(
        "--second-port",
        type=int,
        default=0,
        help="serve the same app here too: another origin for endpoint_base",
    )
    args = parser.parse_args()
    state = State(auth_base.loopback(args.port), args.token_ttl, args.wrong_iss, args.deny)
    auth_base.serve(build(state), args.port, *([args.second_port] if args.second_port else []))


if __name__ == "__main__":
    main()
