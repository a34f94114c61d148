"""What the OAuth flow checks before it trusts the authorization server with
anything: PKCE S256 advertised, a pre-registered client used with its own
issuer only, endpoints on other origins shown to the person, and the redirect's
answer (RFC 9207 issuer, state, error) before its code is used."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcp.shared.auth import AuthorizationCodeResult

from inspector.core.auth.endpoints import ENDPOINT_NAMES, other_origins
from inspector.core.auth.errors import AuthError, LoginAborted

if TYPE_CHECKING:
    from mcp.shared.auth import OAuthMetadata

    from inspector.core.auth.flow_state import FlowState
    from inspector.core.auth.session import OAuthSession
    from inspector.forms.values import JSONObject

__all__ = ["check_client_binding", "check_origins", "check_pkce", "checked_redirect"]


def check_pkce(metadata: OAuthMetadata | None) -> None:
    """Refuse an authorization server that does not advertise PKCE S256 (the spec's MUST)."""
    if metadata is None:
        return
    methods = metadata.code_challenge_methods_supported
    if not methods or "S256" not in methods:
        shown = ", ".join(methods) if methods else "absent"
        raise AuthError(
            f"the authorization server does not advertise PKCE S256 (code_challenge_methods_supported: {shown}); "
            "the MCP spec requires the client to refuse to proceed",
            step="server-metadata",
        )


def check_client_binding(bound: str | None, client_kind: str | None, metadata: OAuthMetadata | None) -> None:
    """A pre-registered client named with its issuer is used with that authorization server only (SEP-2352)."""
    if client_kind != "pre-registered" or not bound or metadata is None:
        return
    if str(metadata.issuer) != bound:
        raise AuthError(
            f"the pre-registered client belongs to issuer {bound}, but this server's authorization server is "
            f"{metadata.issuer}; not sending its credentials there",
            step="registration",
        )


async def check_origins(flow: FlowState, metadata: OAuthMetadata | None, session: OAuthSession) -> None:
    """Endpoints on another origin than the issuer: shown to the person before they are used."""
    if flow.origins_checked or metadata is None:
        return
    flow.origins_checked = True
    endpoints = {
        label: str(getattr(metadata, attr)) if getattr(metadata, attr, None) else None
        for attr, label in ENDPOINT_NAMES.items()
    }
    others = other_origins(str(metadata.issuer), endpoints)
    if not others:
        return
    listed = ", ".join(f"{label} {session.secrets.scrub(url)}" for label, url in others)
    text = f"the authorization server {metadata.issuer} has endpoints on other origins than its own: {listed}"
    config = session.config
    data: JSONObject = {"issuer": str(metadata.issuer), "other_origins": dict(others)}
    notify = config.notify
    if config.allow_cross_origin:
        session.log.emit(flow.step, "info", f"{text}; allowed (--allow-cross-origin-auth)", data=data)
        if notify is not None:
            notify(f"warning: {text}; allowed by --allow-cross-origin-auth")
        return
    if config.confirm is not None:
        session.log.emit(flow.step, "waiting", f"{text}; asking the person", data=data)
        if await config.confirm(text):
            session.log.emit(flow.step, "info", "the person allowed the endpoints on other origins", data=data)
            return
        raise LoginAborted(f"login refused: {text}", step=flow.step)
    raise AuthError(
        f"{text}: refused, as nobody is here to confirm them (--allow-cross-origin-auth, or the config's "
        "oauth.allowCrossOrigin, allows them)",
        step=flow.step,
    )


def checked_redirect(
    params: dict[str, str], flow: FlowState | None, metadata: OAuthMetadata | None, session: OAuthSession
) -> AuthorizationCodeResult:
    """The redirect's parameters, checked (issuer, state, error) before its code is used."""
    expected = str(metadata.issuer) if metadata is not None else None
    advertised = bool(metadata and metadata.authorization_response_iss_parameter_supported)
    iss = params.get("iss")
    shown = {k: ("***" if k == "code" else v) for k, v in params.items()}
    if "code" in params:
        session.secrets.add(params["code"])
    data: JSONObject = {"params": shown, "expected_issuer": expected, "iss_advertised": advertised}
    _check_issuer(iss, expected, advertised)
    if flow is not None and flow.state is not None and params.get("state") != flow.state:
        raise AuthError("authorization response rejected: state does not match the request", step="callback")
    if "error" in params:
        description = params.get("error_description")
        text = params["error"] + (f": {description}" if description else "")
        session.log.emit("callback", "failed", f"the authorization server answered with an error: {text}", data=data)
        if flow is not None:
            flow.failed_logged = True
        raise LoginAborted(f"authorization refused: {text}", step="callback")
    code = params.get("code")
    if not code:
        raise AuthError("the redirect carried neither a code nor an error", step="callback")
    checked = "iss checked" if iss is not None else "no iss (not advertised)"
    session.log.emit("callback", "ok", f"authorization code received; state matches; {checked}", data=data)
    if flow is not None:
        flow.step = "token"
    return AuthorizationCodeResult(code=code, state=params.get("state"), iss=iss)


def _check_issuer(iss: str | None, expected: str | None, advertised: bool) -> None:
    """RFC 9207 §2.4, as the 2026-07-28 revision tabulates it; simple string comparison.

    On a mismatch the response's error fields are neither acted on nor shown.
    """
    problem = None
    if iss is not None and iss != expected:
        problem = f"the response names issuer {iss!r}, but the authorization went to {expected!r} (RFC 9207)"
    elif iss is None and advertised:
        problem = "the server advertises iss in authorization responses, and this one has none (RFC 9207)"
    if problem is not None:
        raise AuthError(f"authorization response rejected: {problem}", step="callback")
