"""A DPoP-protected MCP server and its DPoP-capable authorization server
(RFC 9449, the MCP DPoP extension SEP-1932), in one process, for the DPoP
tests (no internet).

The MCP server (official Python SDK, `MCPServer`) sits behind a gate that
takes DPoP-bound tokens with the `DPoP` scheme and a valid proof (and plain
bearer tokens, which this server also issues to clients that send no proof).
Without a token it answers 401 `WWW-Authenticate: DPoP ...` naming the
protected resource metadata.  Every proof is checked on its own, with PyJWT:
`typ`, an asymmetric `alg`, a public `jwk`, the signature, `jti` never seen
before, `htm`, `htu`, `iat` within 300 s, `ath` (at the MCP server), the key's
thumbprint against the token's, and the nonce when one is required.

The authorization server has one pre-registered public client
(`dpop-client`), approves every authorization at once, checks PKCE S256, and
issues a DPoP-bound token (`token_type: DPoP`) when the token request carries
a valid proof, a bearer token otherwise; refresh tokens are bound the same way.

Nonces (RFC 9449 §8, §9) are required on request (`as_nonce`, `rs_nonce`):
a proof without the current nonce is answered `use_dpop_nonce` with a new
`DPoP-Nonce` (400 at the token endpoint, 401 at the MCP server); every
challenge hands out a new nonce.

    python tests/servers/dpop_server.py --port PORT

GET /_stats answers with counters and the errors found in proofs; POST
/_mode sets `as_nonce`, `rs_nonce`, `advertise` and `nonce_always` (the MCP
server answers every proof with a new nonce challenge: a client must give up);
every key left out goes back to its default (nonces off, DPoP advertised).
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import auth_base
import jwt
from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.types import Scope, Send

CLIENT = "dpop-client"
ASYMMETRIC = ["ES256", "ES384", "ES512", "RS256", "PS256", "EdDSA"]


def thumbprint(jwk: dict[str, Any]) -> str:
    """RFC 7638, for the key types a client may use."""
    members = {"EC": ("crv", "kty", "x", "y"), "RSA": ("e", "kty", "n"), "OKP": ("crv", "kty", "x")}
    needed = members.get(str(jwk.get("kty")), ())
    canonical = json.dumps({k: jwk[k] for k in needed}, sort_keys=True, separators=(",", ":"))
    return auth_base.s256(canonical)


@dataclass
class State(auth_base.Site):
    as_nonce: bool = False
    rs_nonce: bool = False
    advertise: bool = True
    # Hostile: every proof is answered use_dpop_nonce with yet another nonce.
    nonce_always: bool = False
    counter: int = 0
    current_as_nonce: str | None = None
    current_rs_nonce: str | None = None
    codes: dict[str, dict[str, Any]] = field(default_factory=dict)
    # token -> {"jkt": thumbprint or None, "scope": ...}
    tokens: dict[str, dict[str, Any]] = field(default_factory=dict)
    refresh: dict[str, dict[str, Any]] = field(default_factory=dict)
    jtis: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    schemes: list[str] = field(default_factory=list)
    stats: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            (
                "token",
                "refresh",
                "token_proofs",
                "dpop_tokens",
                "bearer_tokens",
                "as_nonce_challenges",
                "as_nonce_honoured",
                "rs_nonce_challenges",
                "rs_nonce_honoured",
                "mcp_ok",
                "mcp_401",
                "replays",
            ),
            0,
        )
    )

    def new_nonce(self) -> str:
        self.counter += 1
        return f"nonce-{self.counter}-{secrets.token_hex(4)}"


def check_proof(state: State, proof: str | None, method: str, url: str, access_token: str | None) -> dict[str, Any]:
    """The proof's claims and key thumbprint; ValueError names what is wrong."""
    if not proof or "," in proof:
        raise ValueError("exactly one DPoP header is required")
    header = jwt.get_unverified_header(proof)
    if header.get("typ") != "dpop+jwt":
        raise ValueError("typ must be dpop+jwt")
    if header.get("alg") not in ASYMMETRIC:
        raise ValueError("alg must be asymmetric")
    jwk = header.get("jwk")
    if not isinstance(jwk, dict) or "d" in jwk:
        raise ValueError("jwk must be a public key")
    key = jwt.PyJWK(jwk, header["alg"])
    claims = jwt.decode(proof, key.key, algorithms=[header["alg"]], options={"verify_aud": False})
    _check_claims(state, claims, method, url, access_token)
    return {"claims": claims, "jkt": thumbprint(jwk)}


def _check_claims(state: State, claims: dict[str, Any], method: str, url: str, access_token: str | None) -> None:
    """A signed proof's claims: a fresh jti, the request's method and URL, a recent iat, the token's hash."""
    if not isinstance(claims.get("jti"), str):
        raise ValueError("jti missing")
    if claims["jti"] in state.jtis:
        state.stats["replays"] += 1
        raise ValueError("jti replayed")
    state.jtis.add(claims["jti"])
    if claims.get("htm") != method:
        raise ValueError(f"htm {claims.get('htm')} is not {method}")
    if claims.get("htu") != url:
        raise ValueError(f"htu {claims.get('htu')} is not {url}")
    if not isinstance(claims.get("iat"), int) or abs(time.time() - claims["iat"]) > 300:
        raise ValueError("iat outside the window")
    if access_token is not None and claims.get("ath") != auth_base.s256(access_token):
        raise ValueError("ath does not match the token")


def build(state: State) -> Any:
    server = MCPServer("dpop-test-server")

    @server.tool()
    def whoami() -> str:
        """Say who is asking."""
        return "hello, proof-of-possession client"

    def metadata() -> dict[str, Any]:
        advertised: dict[str, Any] = {"dpop_signing_alg_values_supported": ["ES256"]} if state.advertise else {}
        return auth_base.authorization_server_metadata(
            state, ["authorization_code", "refresh_token"], ["none"], **advertised
        )

    auth_base.add_discovery(
        server, lambda: {"resource": state.resource, "authorization_servers": [state.issuer]}, metadata
    )

    @auth_base.route(server, "/auth/authorize", ["GET"])
    async def authorize(request: Request) -> Response:
        q = request.query_params
        if q.get("client_id") != CLIENT or q.get("code_challenge_method") != "S256":
            return JSONResponse({"error": "invalid_request"}, 400)
        code = "code-" + secrets.token_urlsafe(16)
        state.codes[code] = {"challenge": q.get("code_challenge"), "redirect_uri": q.get("redirect_uri")}
        params = {"code": code, "state": q.get("state", ""), "iss": state.issuer}
        return RedirectResponse(f"{q.get('redirect_uri')}?{urlencode(params)}", status_code=302)

    @auth_base.route(server, "/auth/token", ["POST"])
    async def token(request: Request) -> Response:
        return await issue_token(state, request)

    def set_mode(body: dict[str, Any]) -> None:
        state.as_nonce = bool(body.get("as_nonce", False))
        state.rs_nonce = bool(body.get("rs_nonce", False))
        state.advertise = bool(body.get("advertise", True))
        state.nonce_always = bool(body.get("nonce_always", False))

    auth_base.add_controls(server, lambda: {**state.stats, "errors": state.errors, "schemes": state.schemes}, set_mode)
    return auth_base.protected_app(server, DPoPGate, state)


async def issue_token(state: State, request: Request) -> Response:
    """The token endpoint: a DPoP-bound token for a request with a valid proof, a bearer token otherwise."""
    form = dict(await request.form())
    grant = form.get("grant_type")
    proof = request.headers.get("dpop")
    jkt: str | None = None
    if proof is not None:
        bound = _token_proof(state, proof)
        if isinstance(bound, Response):
            return bound
        jkt = bound
    refused = _redeem_grant(state, grant, form, jkt)
    if refused is not None:
        return refused
    access = "at-" + secrets.token_urlsafe(24)
    refresh = "rt-" + secrets.token_urlsafe(24)
    state.tokens[access] = {"jkt": jkt}
    state.refresh[refresh] = {"jkt": jkt}
    state.stats["dpop_tokens" if jkt else "bearer_tokens"] += 1
    return auth_base.token_response(access, "DPoP" if jkt else "Bearer", 3600, refresh_token=refresh)


def _token_proof(state: State, proof: str) -> str | Response:
    """The key thumbprint of the token request's proof, or the answer refusing it (a bad proof, no nonce)."""
    try:
        checked = check_proof(state, proof, "POST", f"{state.issuer}/token", None)
    except (ValueError, jwt.PyJWTError) as exc:
        state.errors.append(f"token: {exc}")
        return JSONResponse({"error": "invalid_dpop_proof", "error_description": str(exc)}, 400)
    state.stats["token_proofs"] += 1
    if state.as_nonce:
        nonce = checked["claims"].get("nonce")
        if nonce is None or nonce != state.current_as_nonce:
            state.stats["as_nonce_challenges"] += 1
            state.current_as_nonce = state.new_nonce()
            return JSONResponse(
                {"error": "use_dpop_nonce", "error_description": "a nonce is required"},
                400,
                headers={"DPoP-Nonce": state.current_as_nonce},
            )
        state.stats["as_nonce_honoured"] += 1
    jkt: str = checked["jkt"]
    return jkt


def _redeem_grant(state: State, grant: Any, form: dict[str, Any], jkt: str | None) -> Response | None:
    """The code (with its PKCE verifier) or the refresh token (with the key it is bound to); None when good."""
    if grant == "authorization_code":
        state.stats["token"] += 1
        data = state.codes.pop(str(form.get("code")), None)
        verifier = str(form.get("code_verifier", ""))
        if data is None or auth_base.s256(verifier) != data["challenge"]:
            return JSONResponse({"error": "invalid_grant"}, 400)
    elif grant == "refresh_token":
        state.stats["refresh"] += 1
        old = state.refresh.pop(str(form.get("refresh_token")), None)
        if old is None or old["jkt"] != jkt:
            # A bound refresh token needs a proof with the same key (RFC 9449 §5).
            return JSONResponse({"error": "invalid_grant"}, 400)
    else:
        return JSONResponse({"error": "unsupported_grant_type"}, 400)
    return None


class DPoPGate(auth_base.Gate):
    """/mcp takes a DPoP-bound token with the DPoP scheme and a valid proof, or a bearer token."""

    state: State

    async def admit(self, scope: Scope, headers: dict[str, str], body: bytes, send: Send) -> bool:
        state = self.state
        scheme, _, token = headers.get("authorization", "").partition(" ")
        info = state.tokens.get(token)
        if not scheme or info is None:
            state.stats["mcp_401"] += 1
            await auth_base.refuse(send, 401, f'DPoP algs="ES256", resource_metadata="{state.prm_url()}"')
            return False
        state.schemes.append(scheme)
        if info["jkt"] is not None:
            try:
                if scheme != "DPoP":
                    raise ValueError(f"a DPoP-bound token presented with the {scheme} scheme")
                checked = check_proof(state, headers.get("dpop"), scope["method"], state.resource, token)
                if checked["jkt"] != info["jkt"]:
                    raise ValueError("the proof's key is not the one the token is bound to")
            except (ValueError, jwt.PyJWTError) as exc:
                state.errors.append(f"mcp: {exc}")
                await auth_base.refuse(send, 401, f'DPoP error="invalid_dpop_proof", error_description="{exc}"')
                return False
            if state.rs_nonce or state.nonce_always:
                stale = checked["claims"].get("nonce") != state.current_rs_nonce or state.current_rs_nonce is None
                if stale or state.nonce_always:
                    state.stats["rs_nonce_challenges"] += 1
                    state.current_rs_nonce = state.new_nonce()
                    nonce = (b"dpop-nonce", state.current_rs_nonce.encode())
                    await auth_base.refuse(send, 401, 'DPoP error="use_dpop_nonce"', nonce)
                    return False
                state.stats["rs_nonce_honoured"] += 1
        elif scheme != "Bearer":
            state.errors.append(f"mcp: a bearer token presented with the {scheme} scheme")
        state.stats["mcp_ok"] += 1
        return True


if __name__ == "__main__":
    auth_base.main(build, State)
