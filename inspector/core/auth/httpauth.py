"""The `httpx2.Auth` the HTTP transports use.

While no token is stored for the server it only watches: a request goes out
as it is, and only an answer of 401 (or 403 `insufficient_scope`) loads the
OAuth client and hands it the flow, starting from that very response.  Once
a token exists every request goes through the OAuth client, which adds the
token, refreshes it when it expires, and re-authorizes on a new challenge.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

import httpx2

from inspector.core.auth.log import HttpExchange
from inspector.core.auth.www_authenticate import parse_www_authenticate

if TYPE_CHECKING:
    from inspector.core.auth.session import OAuthSession

__all__ = ["InspectorAuth"]


class InspectorAuth(httpx2.Auth):
    """The session's authorization for an HTTP client: requests go out as they are until the server
    asks for authorization, then (and once a token is stored, always) through the OAuth client."""

    def __init__(self, session: OAuthSession) -> None:
        self.session = session

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """Send `request`, through the OAuth client when the session is active or the answer is a challenge;
        the MCP request's clock waits while a login runs (with OAuth off, a challenge is only logged)."""
        session = self.session
        held: tuple[Any, Any] | None = None
        # With OAuth off (static credentials) a stored token must never replace the given one.
        if session.active and session.config.oauth:
            # Loading the OAuth client (the SDK, about a second) is not the server's time either.
            loading = hold_request_clock()
            try:
                flow = session.provider().async_auth_flow(request)
            finally:
                restart_request_clock(loading)
            response: httpx2.Response | None = None
        else:
            response = yield request
            if not _is_challenge(response):
                return
            await response.aread()
            if session.config.oauth:
                # From here the time is the login's (its own deadline), starting
                # before the OAuth client is even loaded: the request's clock waits.
                held = hold_request_clock()
            else:
                challenge = parse_www_authenticate(response.headers.get("www-authenticate"))
                exchange = HttpExchange.capture(request, response, session.secrets)
                session.log.emit(
                    "challenge",
                    "failed",
                    f"HTTP {response.status_code}: the server asks for authorization, and OAuth is off for this server",
                    detail="static credentials were given (or --no-oauth); check them, or drop them to log in",
                    http=exchange,
                    data={"challenge": challenge},
                )
                return
            try:
                flow = session.provider().async_auth_flow(request)
            except BaseException:
                restart_request_clock(held)
                raise
        try:
            outgoing = await flow.__anext__()
            if response is not None and (outgoing is not request or "authorization" in outgoing.headers):
                # The OAuth client changed the request: the answer we hold is not for it.
                response = None
            while True:
                if response is None:
                    response = yield outgoing
                outgoing = await flow.asend(response)
                response = None
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()
            restart_request_clock(held)


def hold_request_clock() -> tuple[Any, Any] | None:
    """Stop the clock of the MCP request being sent here (if any); what to restart."""
    from inspector.core.protocol.session import SENDING

    sending = SENDING.get()
    if sending is not None:
        sending[0].hold_deadline(sending[1])
    return sending


def restart_request_clock(held: tuple[Any, Any] | None) -> None:
    """Start a held request's clock afresh (a no-op when it is not held any more)."""
    if held is not None:
        held[0].restart_deadline(held[1])


def _is_challenge(response: httpx2.Response) -> bool:
    if response.status_code == 401:
        return True
    if response.status_code == 403:
        return parse_www_authenticate(response.headers.get("www-authenticate")).get("error") == "insufficient_scope"
    return False
