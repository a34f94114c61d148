"""DPoP (RFC 9449, the MCP DPoP extension SEP-1932): the proof-of-possession
key of one OAuth session and the proofs signed with it.

The key lives in memory only, one per session (per server): a token bound to
it is useless to anyone who copies it from the token store or the traffic.
Proofs are signed with PyJWT over `cryptography` (ES256, P-256), each with a
new `jti`; the servers' nonces (`DPoP-Nonce`) are kept per party, the
authorization server's apart from the resource server's, as RFC 9449 §8/§9
scope them.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from inspector.core.auth import clock

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["ALGORITHM", "DPoPKey", "DPoPState", "htu", "wants_nonce"]

ALGORITHM = "ES256"
# Nonce retries per request: a server that asks for a new nonce every time never gets a loop.
MAX_NONCE_RETRIES = 2


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def htu(url: str) -> str:
    """The `htu` claim: the request URL without query and fragment (RFC 9449 §4.2)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


class DPoPKey:
    """An ES256 key pair made for one session; signs proofs, never leaves memory."""

    def __init__(self) -> None:
        from cryptography.hazmat.primitives.asymmetric import ec
        from jwt.algorithms import ECAlgorithm

        self._private = ec.generate_private_key(ec.SECP256R1())
        jwk = json.loads(ECAlgorithm.to_jwk(self._private.public_key()))
        # Only the public members the thumbprint and the proof header need.
        self.public_jwk: dict[str, str] = {k: jwk[k] for k in ("kty", "crv", "x", "y")}
        canonical = json.dumps(self.public_jwk, sort_keys=True, separators=(",", ":"))
        # RFC 7638 thumbprint: what an authorization server binds the token to (cnf.jkt).
        self.thumbprint = _b64url(hashlib.sha256(canonical.encode()).digest())

    def proof(
        self, method: str, url: str, *, access_token: str | None = None, nonce: str | None = None
    ) -> tuple[str, JSONObject]:
        """A fresh proof for one request, and its claims (for the auth log)."""
        import jwt

        claims: JSONObject = {
            "jti": secrets.token_urlsafe(16),
            "htm": method.upper(),
            "htu": htu(url),
            "iat": int(clock.now()),
        }
        if access_token is not None:
            claims["ath"] = _b64url(hashlib.sha256(access_token.encode("ascii")).digest())
        if nonce is not None:
            claims["nonce"] = nonce
        headers = {"typ": "dpop+jwt", "jwk": self.public_jwk}
        return jwt.encode(claims, self._private, algorithm=ALGORITHM, headers=headers), claims


@dataclass
class DPoPState:
    """One session's DPoP key, the nonces the servers gave it, and whether its token is bound."""

    key: DPoPKey = field(default_factory=DPoPKey)
    # The last nonce each party handed out (RFC 9449 §8.2, §9: use it until a new one comes).
    server_nonce: str | None = None
    resource_nonce: str | None = None
    # Whether the authorization server advertised DPoP (dpop_signing_alg_values_supported
    # with our algorithm) or the resource server challenged with the DPoP scheme.
    advertised: bool = False
    # The current access token's type as issued (`DPoP` binds it to this key).
    token_type: str | None = None

    @property
    def bound(self) -> bool:
        """Whether the current access token is DPoP-bound to this key."""
        return (self.token_type or "").lower() == "dpop"


def wants_nonce(status: int, error: str | None, nonce: str | None) -> bool:
    """Whether an answer asks for a proof with a server-provided nonce (RFC 9449 §8, §9)."""
    return status in (400, 401) and error == "use_dpop_nonce" and bool(nonce)
