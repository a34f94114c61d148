"""The MCP server's 401 and 403 answers, as the OAuth flow meets them: a challenge
a new login answers, a step-up for insufficient_scope (bounded per request and
per scope set), and how the retry with the new token was answered."""

from __future__ import annotations

from typing import TYPE_CHECKING

from inspector.core.auth.flow_state import scope_note
from inspector.core.auth.log import HttpExchange
from inspector.core.auth.www_authenticate import parse_www_authenticate

if TYPE_CHECKING:
    import httpx2

    from inspector.core.auth.flow_state import FlowState
    from inspector.core.auth.session import OAuthSession
    from inspector.forms.values import JSONObject

__all__ = ["MAX_STEP_UPS", "refuses_challenge", "retry_answered"]

# Step-up authorizations for one request (any scope sets) before its 403 is
# final; also how many failed step-ups for one scope set end the asking for it
# (until a request succeeds after a step-up, or a new login).
MAX_STEP_UPS = 2


def refuses_challenge(
    session: OAuthSession, request: httpx2.Request, response: httpx2.Response, flow: FlowState
) -> bool:
    """Log the MCP server's 401 or 403; True when no new token can answer it (the flow ends)."""
    log = session.log
    exchange = HttpExchange.capture(request, response, log.secrets)
    challenge = parse_www_authenticate(response.headers.get("www-authenticate"))
    flow.challenge = challenge
    offered = parse_www_authenticate(response.headers.get("www-authenticate"), "DPoP").get("scheme", "")
    if offered.lower() == "dpop" and session.config.dpop != "off":
        # The resource server takes DPoP-bound tokens (RFC 9449 §7.1).
        session.dpop().advertised = True
    flow.resource_metadata_url = challenge.get("resource_metadata")
    had_token = "authorization" in request.headers
    status = response.status_code
    data: JSONObject = {"challenge": challenge, "had_token": had_token}
    refused = _unanswerable(session, status, challenge)
    if refused is not None:
        title, detail = refused
        log.emit("challenge", "failed", title, detail=detail, http=exchange, data=data)
        flow.failed_logged = True
        return True
    if status == 403:
        step_up = _step_up(session, challenge, exchange, data, flow)
        if step_up is None:
            return True
        title = step_up
    elif had_token:
        title = "HTTP 401: the server refused the token (expired or revoked); authorizing again"
    else:
        title = "HTTP 401: the server requires authorization"
    if not response.extensions.get("inspector_synthetic_challenge"):
        log.emit("challenge", "info", title, detail=scope_note(challenge), http=exchange, data=data)
    flow.challenged = True
    return False


def _unanswerable(session: OAuthSession, status: int, challenge: dict[str, str]) -> tuple[str, str | None] | None:
    """Why a challenge is not one a new token can answer (title, detail); None when it is."""
    if status == 403 and challenge.get("error") != "insufficient_scope":
        return "HTTP 403 without error=insufficient_scope: not something a new token can fix", None
    if not session.config.oauth:
        return (
            f"HTTP {status}: the server asks for authorization, and OAuth is off for this server",
            "static credentials were given (or --no-oauth); check them, or drop them to log in",
        )
    return None


def _step_up(
    session: OAuthSession, challenge: dict[str, str], exchange: HttpExchange, data: JSONObject, flow: FlowState
) -> str | None:
    """Count a step-up for insufficient_scope: the challenge's title, or None once the limits are reached."""
    key = " ".join(sorted((challenge.get("scope") or "").split()))
    failed_before = session.step_ups.get(key, 0)
    problem = _step_up_refused(flow.step_ups, failed_before, key or "(none given)")
    if problem is not None:
        data["step_ups"] = {"request": flow.step_ups, "scope_set": failed_before, "limit": MAX_STEP_UPS}
        session.log.emit("challenge", "failed", problem, detail=scope_note(challenge), http=exchange, data=data)
        flow.failed_logged = True
        return None
    flow.step_ups += 1
    session.step_ups[key] = failed_before + 1
    data["step_ups"] = {"request": flow.step_ups, "scope_set": failed_before + 1, "limit": MAX_STEP_UPS}
    again = " again" if flow.step_ups > 1 else ""
    return (
        f"insufficient_scope{again}: step-up authorization {flow.step_ups} of at most {MAX_STEP_UPS} "
        f"for scope {challenge.get('scope') or '(none given)'}"
    )


def _step_up_refused(request_step_ups: int, failed_before: int, shown: str) -> str | None:
    """Why no further step-up is made for this request or this scope set; None while one may be."""
    if request_step_ups >= MAX_STEP_UPS:
        return (
            f"insufficient_scope again (scope {shown}) after {request_step_ups} step-up authorizations for this "
            "request: giving up; the server does not accept the scopes it asks for"
        )
    if failed_before >= MAX_STEP_UPS:
        return (
            f"insufficient_scope for scope {shown}, and the last {failed_before} step-up authorizations "
            "for it were refused all the same: not asking again (`inspector auth login`, or a login "
            "from the Auth view, starts over)"
        )
    return None


def retry_answered(session: OAuthSession, exchange: HttpExchange, response: httpx2.Response, flow: FlowState) -> None:
    """The MCP request sent again with the new token: accepted, refused, or asking for another step-up."""
    status = response.status_code
    if status < 400:
        session.log.emit("retry", "ok", f"the server accepted the token ({exchange.summary()})", http=exchange)
        if flow.step_ups and session.step_ups:
            # The limit is per failing request, not per session.
            session.step_ups.clear()
    elif _asks_again(session, response):
        # insufficient_scope once more: the next round answers it as a new challenge.
        flow.again = response
    else:
        challenge = parse_www_authenticate(response.headers.get("www-authenticate"))
        why = challenge.get("error_description") or challenge.get("error") or f"HTTP {status}"
        flow.step = "retry"
        flow.failed_logged = True
        session.log.emit(
            "retry",
            "failed",
            f"the server still refuses after authorization: {why}",
            detail=scope_note(challenge),
            http=exchange,
            data={"challenge": challenge} if challenge else None,
        )


def _asks_again(session: OAuthSession, response: httpx2.Response) -> bool:
    """A retry answered 403 insufficient_scope, to be answered with another step-up."""
    if response.status_code != 403 or not session.config.oauth:
        return False
    return parse_www_authenticate(response.headers.get("www-authenticate")).get("error") == "insufficient_scope"
