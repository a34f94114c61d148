"""The auth log's account of the flow: each answer of the authorization server,
the client used, the scope asked for, a failure logged once.

Events only: nothing here decides anything about the flow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inspector.core.auth.flow_state import FlowState, response_json

if TYPE_CHECKING:
    import httpx2
    from mcp.shared.auth import OAuthClientInformationFull, ProtectedResourceMetadata

    from inspector.core.auth.config import AuthConfig
    from inspector.core.auth.log import AuthLog, HttpExchange
    from inspector.core.auth.token_storage import RecordStorage
    from inspector.forms.values import JSONObject

__all__ = [
    "log_failure",
    "log_metadata",
    "log_registration",
    "log_registration_answer",
    "log_scope",
    "log_token",
]

# The authorization server metadata fields the log keeps.
_SERVER_METADATA_KEYS = (
    "issuer",
    "authorization_endpoint",
    "token_endpoint",
    "registration_endpoint",
    "code_challenge_methods_supported",
    "scopes_supported",
    "client_id_metadata_document_supported",
    "authorization_response_iss_parameter_supported",
    "token_endpoint_auth_methods_supported",
)


def log_failure(log: AuthLog, flow: FlowState, message: str) -> None:
    """The flow's failure, once (an earlier, more precise event may have said it)."""
    if not flow.failed_logged:
        flow.failed_logged = True
        log.emit(flow.step, "failed", message)


def log_metadata(log: AuthLog, kind: str, exchange: HttpExchange, response: httpx2.Response, flow: FlowState) -> None:
    """A metadata answer: absent (the next location follows), a redirect, or what it says."""
    status = response.status_code
    label = "protected resource metadata" if kind == "resource-metadata" else "authorization server metadata"
    if status >= 400 or status < 200:
        log.emit(kind, "info", f"no {label} at {exchange.url} (HTTP {status}); trying the next location", http=exchange)
        return
    if 300 <= status < 400:
        log.emit(kind, "info", f"{exchange.summary()} (redirect)", http=exchange)
        return
    body = response_json(response)
    if not isinstance(body, dict):
        log.emit(kind, "failed", f"{label} at {exchange.url} is not a JSON object", http=exchange)
        return
    if kind == "resource-metadata":
        flow.prm_found = True
        flow.prm_url = exchange.url
        title, detail, data = _resource_metadata(label, body)
    else:
        title, detail, data = _server_metadata(label, body)
    log.emit(kind, "ok", title, detail=detail or None, http=exchange, data=data)


def _resource_metadata(label: str, body: dict[str, Any]) -> tuple[str, str | None, JSONObject]:
    servers = body.get("authorization_servers")
    title = f"{label}: resource {body.get('resource')}, authorization servers {servers}"
    detail = f"scopes_supported: {body.get('scopes_supported')}" if "scopes_supported" in body else None
    data: JSONObject = {k: body.get(k) for k in ("resource", "authorization_servers", "scopes_supported") if k in body}
    return title, detail, data


def _server_metadata(label: str, body: dict[str, Any]) -> tuple[str, str | None, JSONObject]:
    title = f"{label}: issuer {body.get('issuer')}"
    facts = {
        "PKCE": body.get("code_challenge_methods_supported"),
        "registration": body.get("registration_endpoint"),
        "Client ID Metadata Documents": body.get("client_id_metadata_document_supported"),
        "iss in responses": body.get("authorization_response_iss_parameter_supported"),
        "token endpoint auth": body.get("token_endpoint_auth_methods_supported"),
    }
    detail = "; ".join(f"{k}: {v}" for k, v in facts.items() if v is not None)
    data = {k: body.get(k) for k in _SERVER_METADATA_KEYS if k in body}
    return title, detail, data


def log_token(
    log: AuthLog,
    storage: RecordStorage,
    kind: str,
    exchange: HttpExchange,
    response: httpx2.Response,
    flow: FlowState,
) -> None:
    """A token or refresh answer; a refused refresh drops the stored token (a new login follows)."""
    status = response.status_code
    body = response_json(response)
    if status in (200, 201) and isinstance(body, dict):
        scope = body.get("scope")
        expires = body.get("expires_in")
        what = "token refreshed" if kind == "refresh" else "token issued"
        title = f"{what} (type {body.get('token_type')}, scope {scope or 'not stated'}, expires in {expires} s)"
        log.emit(
            kind,
            "ok",
            title,
            http=exchange,
            data={"scope": scope, "expires_in": expires, "refresh_token": "refresh_token" in body},
        )
        return
    error = body.get("error") if isinstance(body, dict) else None
    if kind == "refresh":
        storage.forget_tokens()
        log.emit(
            "refresh",
            "info",
            f"refresh refused ({error or f'HTTP {status}'}); the stored token is dropped and a new login follows "
            "when the server asks",
            http=exchange,
        )
        return
    flow.failed_logged = True
    log.emit("token", "failed", f"token request refused: {error or f'HTTP {status}'}", http=exchange)


def log_registration_answer(log: AuthLog, exchange: HttpExchange, response: httpx2.Response, flow: FlowState) -> None:
    """The answer to a dynamic registration (RFC 7591)."""
    flow.registered = True
    if response.status_code >= 300:
        flow.failed_logged = True
        log.emit("registration", "failed", f"registration refused: {exchange.summary()}", http=exchange)
        return
    body = response_json(response)
    client_id = body.get("client_id") if isinstance(body, dict) else None
    method = body.get("token_endpoint_auth_method") if isinstance(body, dict) else None
    log.emit(
        "registration",
        "ok",
        f"registered dynamically (RFC 7591) as client {client_id}",
        detail=f"token endpoint auth method: {method or 'not stated'}",
        http=exchange,
        data={"client_id": client_id, "token_endpoint_auth_method": method},
    )


def log_registration(
    log: AuthLog,
    info: OAuthClientInformationFull | None,
    client_kind: str | None,
    uses_browser: bool,
    config: AuthConfig,
) -> None:
    """Which client the flow goes on as (a registration made earlier, pre-registered, a CIMD URL, a grant's own)."""
    if info is None:
        return
    kind = client_kind
    if not uses_browser:
        kind = "pre-registered"
        title = _grant_client_title(info, config)
    elif kind == "pre-registered":
        title = f"using the pre-registered client {info.client_id}"
    elif info.client_id == config.client_metadata_url:
        title = f"using the Client ID Metadata Document {info.client_id} as client id"
    else:
        title = f"using the stored registration (client {info.client_id})"
    log.emit("registration", "info", title, data={"client_id": info.client_id, "kind": kind})


def _grant_client_title(info: OAuthClientInformationFull, config: AuthConfig) -> str:
    """The client of a grant without a browser, and how it authenticates."""
    if config.grant == "jwt_bearer":
        return f"jwt-bearer grant with the workload identity JWT, as client {info.client_id}"
    if config.grant == "enterprise":
        method = info.token_endpoint_auth_method or "none"
        return f"jwt-bearer grant with the ID-JAG from the identity provider, as client {info.client_id} ({method})"
    method = info.token_endpoint_auth_method or "client_secret_basic"
    return f"client credentials grant as client {info.client_id} ({method})"


def log_scope(log: AuthLog, scope: str | None, flow: FlowState | None, prm: ProtectedResourceMetadata | None) -> None:
    """The scope asked for, and where it came from."""
    challenged = flow.challenge.get("scope") if flow is not None else None
    if challenged:
        why = "from the WWW-Authenticate challenge"
        if flow is not None and flow.challenge.get("error") == "insufficient_scope":
            why += ", united with the scopes requested before (step-up)"
    elif prm is not None and prm.scopes_supported is not None:
        why = "all of scopes_supported in the protected resource metadata"
    elif scope:
        why = "from the authorization server's scopes_supported"
    else:
        why = "no scope parameter: neither the challenge nor the metadata name scopes"
    log.emit("scope", "info", f"scope: {scope or '(omitted)'} — {why}", data={"scope": scope})
