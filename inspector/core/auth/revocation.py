"""Token revocation (RFC 7009) when a login is given up: logout, or a new login.

Tokens forgotten only on this machine stay valid at the authorization
server until they expire; a refresh token, for months.  So before the stored
tokens are dropped they are sent to the `revocation_endpoint` the
authorization server's metadata (RFC 8414) names: the refresh token first
(RFC 7009 §2.1: its revocation may take the access tokens of the same grant
with it), then the access token.  The client authenticates as it does at the
token endpoint (RFC 7009 §2.1): a public client names itself with
`client_id`, a confidential one uses its secret (basic or post, as the
server lists in `revocation_endpoint_auth_methods_supported`) or a signed
assertion.

Revocation is a courtesy to the server: a failure is reported in the auth
log (step `revoked`) and never stops the logout or the login.  The rules
that guard every other credential still hold: HTTPS unless loopback, no
redirects followed, no endpoint on another origin than the issuer unless
the person allowed that (`--allow-cross-origin-auth`), bodies read within
the message size limit.
"""

from __future__ import annotations

import base64
import copy
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from inspector.core.auth.endpoints import insecure, origin
from inspector.core.auth.log import HttpExchange

if TYPE_CHECKING:
    import httpx2

    from inspector.core.auth.session import OAuthSession
    from inspector.forms.values import JSONObject

__all__ = ["REVOCATION_TIMEOUT", "Revocation", "revoke_record", "stored_record"]

# Seconds for each revocation request: a dead endpoint must not hold up a logout for long.
REVOCATION_TIMEOUT = 15.0
# Refresh token first: its revocation may end the access token too (RFC 7009 §2.1).
TOKEN_ORDER = ("refresh_token", "access_token")


@dataclass
class Revocation:
    """What became of one token: revoked, failed (with why), or skipped (with why)."""

    issuer: str
    token_type_hint: str
    outcome: str
    detail: str
    status: int | None = None

    def to_dict(self) -> JSONObject:
        """The outcome as JSON, without the members that are None."""
        return {k: v for k, v in asdict(self).items() if v is not None}


def stored_record(session: OAuthSession) -> JSONObject | None:
    """A copy of what is stored for the session's server (tokens, clients, metadata)."""
    if not session.store.has(session.server_url):
        return None
    record = session.store.load(session.server_url)
    return copy.deepcopy(record) if isinstance(record, dict) else None


async def revoke_record(
    session: OAuthSession, record: JSONObject | None, *, keep: set[str] | None = None
) -> list[Revocation]:
    """Revoke every token in `record` (all issuers), except those in `keep` (the new login's)."""
    import httpx2

    results: list[Revocation] = []
    issuers = record.get("issuers") if isinstance(record, dict) else None
    if not isinstance(issuers, dict):
        return results
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(REVOCATION_TIMEOUT), follow_redirects=False) as http:
        for issuer, entry in issuers.items():
            if isinstance(entry, dict):
                results += await _revoke_entry(session, http, str(issuer), entry, keep or set())
    return results


async def _revoke_entry(
    session: OAuthSession, http: httpx2.AsyncClient, issuer: str, entry: JSONObject, keep: set[str]
) -> list[Revocation]:
    token = entry.get("token")
    if not isinstance(token, dict):
        return []
    tokens = [
        (hint, value)
        for hint in TOKEN_ORDER
        if isinstance(value := token.get(hint), str) and value and value not in keep
    ]
    if not tokens:
        return []
    session.secrets.update([value for _hint, value in tokens])
    metadata: JSONObject = _mapping(entry.get("server_metadata"))
    endpoint = metadata.get("revocation_endpoint")
    refusal = _refusal(session, issuer, endpoint)
    if refusal is not None:
        session.log.emit("revoked", "info", f"not revoked at {issuer}: {refusal}", data={"issuer": issuer})
        return [Revocation(issuer, hint, "skipped", refusal) for hint, _value in tokens]
    assert isinstance(endpoint, str)
    client: JSONObject = _mapping(entry.get("client"))
    results = []
    for hint, value in tokens:
        results.append(await _revoke_one(session, http, issuer, endpoint, metadata, client, hint, value))
    return results


def _mapping(value: Any) -> JSONObject:
    return value if isinstance(value, dict) else {}


def _refusal(session: OAuthSession, issuer: str, endpoint: Any) -> str | None:
    """Why the tokens of `issuer` are not sent to `endpoint` (None: they may be)."""
    if not isinstance(endpoint, str) or not endpoint:
        return "the authorization server's metadata names no revocation_endpoint; the tokens were only forgotten here"
    why = insecure(endpoint)
    if why is not None:
        return f"the revocation endpoint {endpoint} is refused: {why}"
    if origin(endpoint) != origin(issuer) and not session.config.allow_cross_origin:
        return (
            f"the revocation endpoint {endpoint} is on another origin than the issuer "
            "(--allow-cross-origin-auth sends the tokens there)"
        )
    return None


async def _client_authentication(
    session: OAuthSession, issuer: str, metadata: JSONObject, client: JSONObject
) -> tuple[dict[str, str], dict[str, str]]:
    """(form fields, headers) that authenticate the client, as at the token endpoint (RFC 7009 §2.1)."""
    config = session.config
    client_id = client.get("client_id") or config.client_id
    secret = client.get("client_secret") or (config.client_secret if client_id == config.client_id else None)
    if not isinstance(client_id, str) or not client_id:
        return {}, {}
    if config.client_key and client_id == config.client_id and not secret:
        from mcp.client.auth.extensions.client_credentials import SignedJWTParameters

        signer = SignedJWTParameters(
            issuer=client_id,
            subject=client_id,
            signing_key=config.client_key,
            signing_algorithm=config.client_key_algorithm,
        )
        assertion = await signer.create_assertion_provider()(issuer)
        session.secrets.add(assertion)
        return {
            "client_id": client_id,
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": assertion,
        }, {}
    if not isinstance(secret, str) or not secret:
        return {"client_id": client_id}, {}
    session.secrets.add(secret)
    from inspector.core.auth.token_storage import choose_token_auth_method

    supported = metadata.get("revocation_endpoint_auth_methods_supported")
    method = client.get("token_endpoint_auth_method")
    if method not in ("client_secret_basic", "client_secret_post") or (
        isinstance(supported, list) and method not in supported
    ):
        method = choose_token_auth_method(supported if isinstance(supported, list) else None)
    if method == "client_secret_post":
        return {"client_id": client_id, "client_secret": secret}, {}
    # RFC 6749 §2.3.1: each part form-encoded before the base64.
    pair = f"{quote(client_id, safe='')}:{quote(secret, safe='')}".encode()
    return {}, {"Authorization": "Basic " + base64.b64encode(pair).decode()}


async def _revoke_one(
    session: OAuthSession,
    http: httpx2.AsyncClient,
    issuer: str,
    endpoint: str,
    metadata: JSONObject,
    client: JSONObject,
    hint: str,
    value: str,
) -> Revocation:
    import httpx2

    from inspector.core.transports.httpbase import read_bounded

    what = hint.replace("_", " ")
    fields, headers = await _client_authentication(session, issuer, metadata, client)
    request = http.build_request(
        "POST",
        endpoint,
        data={"token": value, "token_type_hint": hint, **fields},
        headers={**headers, "Accept": "application/json"},
    )
    try:
        response = await http.send(request, stream=True)
    except httpx2.HTTPError as exc:
        detail = f"{exc.__class__.__name__}: {exc}"
        exchange = HttpExchange.capture(request, None, session.secrets)
        exchange.error = detail
        session.log.emit("revoked", "failed", f"the {what} was not revoked", detail=detail, http=exchange)
        return Revocation(issuer, hint, "failed", detail)
    try:
        body, _cut = await read_bounded(response, session.max_message_size)
    finally:
        await response.aclose()
    shown = httpx2.Response(
        response.status_code, headers=response.headers, content=body, request=request, extensions=response.extensions
    )
    exchange = HttpExchange.capture(request, shown, session.secrets)
    if response.status_code == 200:
        # RFC 7009 §2.2: 200 also for a token the server no longer knew; either way it is gone.
        session.log.emit("revoked", "ok", f"{what} revoked at {endpoint}", http=exchange, data={"issuer": issuer})
        return Revocation(issuer, hint, "revoked", f"revoked at {endpoint}", response.status_code)
    detail = f"{exchange.summary()}{_error_text(body)}"
    if response.status_code == 503 and response.headers.get("retry-after"):
        detail += f" (Retry-After: {response.headers['retry-after']})"
    session.log.emit("revoked", "failed", f"the {what} was not revoked", detail=detail, http=exchange)
    return Revocation(issuer, hint, "failed", detail, response.status_code)


def _error_text(body: bytes) -> str:
    """`: error (description)` from an RFC 6749 §5.2 error body, when it is one."""
    import json

    try:
        value = json.loads(body)
    except ValueError:
        return ""
    if not isinstance(value, dict) or not isinstance(value.get("error"), str):
        return ""
    text = f": {value['error']}"
    if isinstance(value.get("error_description"), str):
        text += f" ({value['error_description']})"
    return text
