"""DPoP inside the OAuth flow (RFC 9449, SEP-1932): proofs on token requests and on
MCP requests with a bound token, the servers' nonces, and the SDK (which models
bearer tokens only) handed a bearer-typed copy of a DPoP-bound token."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import httpx2

from inspector.core.auth.dpop import MAX_NONCE_RETRIES, wants_nonce
from inspector.core.auth.flow_state import response_json
from inspector.core.auth.log import HttpExchange
from inspector.core.auth.www_authenticate import parse_www_authenticate

if TYPE_CHECKING:
    from mcp.shared.auth import ProtectedResourceMetadata

    from inspector.core.auth.session import OAuthSession

__all__ = ["FlowDpop"]

_BODY_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


class FlowDpop:
    """The session's DPoP key and nonces, applied to the flow's requests and answers."""

    def __init__(self, session: OAuthSession) -> None:
        self.session = session
        self.log = session.log

    def on_token_requests(self, prm: ProtectedResourceMetadata | None) -> bool:
        """Whether token requests carry a proof: asked for, or advertised by either server."""
        mode = self.session.config.dpop
        if mode == "off":
            return False
        if mode == "on":
            return True
        if prm is not None and (prm.dpop_bound_access_tokens_required or prm.dpop_signing_alg_values_supported):
            self.session.dpop().advertised = True
        # The key is made only once some server has asked for DPoP.
        state = self.session._dpop
        return state is not None and state.advertised

    def sign(self, request: httpx2.Request, step: str, nonce: str | None, access_token: str | None = None) -> None:
        """Put a fresh proof on `request`, and log its claims (the token's hash shown as such)."""
        state = self.session.dpop()
        proof, claims = state.key.proof(request.method, str(request.url), access_token=access_token, nonce=nonce)
        request.headers["DPoP"] = proof
        self.session.secrets.add(proof)
        shown = {k: v for k, v in claims.items() if k != "ath"}
        if "ath" in claims:
            shown["ath"] = "(hash of the access token)"
        self.log.emit(
            "dpop-proof",
            "info",
            f"DPoP proof for {step}: {claims['htm']} {claims['htu']}"
            + (" with the server's nonce" if nonce else "")
            + f" (key thumbprint {state.key.thumbprint})",
            data={"claims": shown, "alg": "ES256", "jkt": state.key.thumbprint, "for": step},
        )

    async def send_signed(
        self,
        kind: str,
        outgoing: httpx2.Request,
        fetch: Callable[[httpx2.Request], Awaitable[httpx2.Response]],
    ) -> httpx2.Response:
        """Send a token request with a proof, again with the server's nonce when it answers use_dpop_nonce."""
        state = self.session.dpop()
        retries = 0
        while True:
            self.sign(outgoing, kind, state.server_nonce)
            response = await fetch(outgoing)
            nonce = response.headers.get("dpop-nonce")
            if nonce:
                state.server_nonce = nonce
            body = response_json(response)
            error = body.get("error") if isinstance(body, dict) else None
            if not wants_nonce(response.status_code, error, nonce) or retries >= MAX_NONCE_RETRIES:
                return response
            retries += 1
            self.nonce_asked("authorization server", outgoing, response, nonce)

    def token_for_sdk(self, response: httpx2.Response) -> httpx2.Response:
        """Note a DPoP-bound token, and hand the SDK (which models bearer tokens only) a bearer-typed copy."""
        body = response_json(response)
        if response.status_code not in (200, 201) or not isinstance(body, dict):
            return response
        token_type = body.get("token_type")
        self.session.dpop().token_type = token_type if isinstance(token_type, str) else None
        if not isinstance(token_type, str) or token_type.lower() != "dpop":
            return response
        headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _BODY_HEADERS]
        content = json.dumps({**body, "token_type": "Bearer"}).encode()
        return httpx2.Response(response.status_code, headers=headers, content=content, request=response.request)

    def present(self, request: httpx2.Request, *, retry: bool) -> None:
        """A DPoP-bound token goes with the DPoP scheme and a fresh proof (RFC 9449 §7.1)."""
        state = self.session._dpop
        header = request.headers.get("authorization")
        if state is None:
            return
        if not state.bound or not header:
            # A proof of ours left from before the token changed; a session without a key added none.
            request.headers.pop("DPoP", None)
            return
        token = header.partition(" ")[2].strip()
        request.headers["Authorization"] = f"DPoP {token}"
        self.sign(request, "the MCP request (retried)" if retry else "the MCP request", state.resource_nonce, token)

    def resource_nonce(self, request: httpx2.Request, response: httpx2.Response, retries: int) -> bool:
        """Keep the MCP server's nonce; True when the request must be sent again with it."""
        state = self.session._dpop
        if state is None or not state.bound:
            return False
        nonce = response.headers.get("dpop-nonce")
        if nonce:
            state.resource_nonce = nonce
        error = parse_www_authenticate(response.headers.get("www-authenticate"), "DPoP").get("error")
        if not wants_nonce(response.status_code, error, nonce) or retries >= MAX_NONCE_RETRIES:
            return False
        self.nonce_asked("MCP server", request, response, nonce)
        return True

    def nonce_asked(self, party: str, request: httpx2.Request, response: httpx2.Response, nonce: str | None) -> None:
        """Log that `party` answered use_dpop_nonce, with the exchange that said so."""
        exchange = HttpExchange.capture(request, response, self.log.secrets)
        self.log.emit(
            "dpop-nonce",
            "info",
            f"the {party} asks for a DPoP nonce (use_dpop_nonce); retrying with a new proof",
            http=exchange,
            data={"nonce": nonce, "party": party},
        )
