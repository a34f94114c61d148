"""The OAuth client proper: the official SDK's `OAuthClientProvider`, observed.

The SDK does the protocol (RFC 9728 and RFC 8414 discovery in the spec's
order, Client ID Metadata Documents, RFC 7591 registration, PKCE S256, RFC
8707 resource indicators, scope selection and step-up, refresh, RFC 9207 and
RFC 8414 §3.3 issuer checks, the 2025-03-26 fallbacks).  `ObservedProvider`
adds what a debugger needs and what an inspector user needs around it:

- every request of the flow and its answer becomes a masked `AuthEvent`
  (flow_log.py);
- the loopback redirect listener and the browser (or a headless user agent);
- tokens stored per server and issuer, with their absolute expiry, so a
  second run reuses them and refreshes an expired one (token_storage.py);
- PKCE support is required of the authorization server (the spec's MUST),
  and the redirect's answer is checked before its code is used (flow_checks.py);
- DPoP proofs and nonces (flow_dpop.py);
- step-up is retried within one request (the SDK retries once): a retry
  answered insufficient_scope again starts another step-up, up to
  MAX_STEP_UPS per request whatever scopes are asked for (challenges.py); a scope set whose
  step-ups failed that often is not asked for again until a request
  succeeds after a step-up, or the person logs in again.

The grants' own providers, and the choice among them, are in grants.py.
Importing this module loads the SDK (about a second): the session does it
only when a server actually asks for authorization or a token is stored.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator
from dataclasses import fields
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, parse_qsl, urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError, OAuthRegistrationError, OAuthTokenError
from pydantic import ValidationError

from inspector.core.auth import clock
from inspector.core.auth.callback import RedirectCallback
from inspector.core.auth.challenges import refuses_challenge, retry_answered
from inspector.core.auth.dpop import ALGORITHM as DPOP_ALGORITHM
from inspector.core.auth.endpoints import insecure
from inspector.core.auth.errors import AuthError, LoginAborted, LoginTimedOut
from inspector.core.auth.flow_checks import check_client_binding, check_origins, check_pkce, checked_redirect
from inspector.core.auth.flow_dpop import FlowDpop
from inspector.core.auth.flow_log import (
    log_failure,
    log_metadata,
    log_registration,
    log_registration_answer,
    log_scope,
    log_token,
)
from inspector.core.auth.flow_state import FlowState, credential, response_json
from inspector.core.auth.httpauth import hold_request_clock, restart_request_clock
from inspector.core.auth.log import HttpExchange
from inspector.core.auth.loopback import LoginCancelled, LoginTimeout
from inspector.core.auth.token_storage import InspectorOAuthContext, RecordStorage

if TYPE_CHECKING:
    from mcp.shared.auth import AuthorizationCodeResult

    from inspector.core.auth.session import OAuthSession

__all__ = ["ObservedProvider"]

# Failures of the flow that become the inspector's AuthError (named after the step they happened at).
_FLOW_FAILURES = (
    LoginTimeout,
    LoginCancelled,
    OAuthFlowError,
    OAuthTokenError,
    OAuthRegistrationError,
    ValidationError,
    ValueError,
    OSError,
    RuntimeError,
    httpx2.HTTPError,
)
# Those whose message is shown as it is; the others are named by their class too.
_SAID_FAILURES = (OAuthFlowError, OAuthTokenError, OAuthRegistrationError, ValidationError, ValueError)

_ENDPOINT_OF = {
    "token-exchange": "identity provider endpoint",
    "registration": "registration endpoint",
    "token": "token endpoint",
    "refresh": "token endpoint",
    "authorization": "authorization endpoint",
}

# Who answers a step of the flow that is not the authorization server's: the protected
# resource's metadata is the MCP server's own (RFC 9728), the token exchange an identity provider's.
_PARTY_OF = {
    "resource-metadata": "the MCP server",
    "token-exchange": "the identity provider",
}


class ObservedProvider(OAuthClientProvider):
    """The observation and the inspector's additions, over any of the SDK's providers."""

    # Whether the flow needs a person with a browser (the authorization-code grant).
    uses_browser = False
    session: OAuthSession
    storage: RecordStorage

    def _setup(self, session: OAuthSession, storage: RecordStorage) -> None:
        base = self.context
        self.context = InspectorOAuthContext(**{f.name: getattr(base, f.name) for f in fields(base) if f.init})
        self.session = session
        self.log = session.log
        self.storage = storage
        storage.context = self.context
        self._proofs = FlowDpop(session)
        # The redirect's listener (the authorization-code grant), from a challenge to the end of the flow.
        self._callback = RedirectCallback(session, self.context, storage)
        self._flow: FlowState | None = None

    # -- what the session asks ---------------------------------------------------------

    @property
    def issuer(self) -> str | None:
        """The authorization server in use: from its metadata, else its URL, else the stored issuer."""
        metadata = self.context.oauth_metadata
        if metadata is not None:
            return str(metadata.issuer)
        return self.context.auth_server_url or self.storage.issuer

    async def ensure_loaded(self) -> None:
        """Tokens and client from the store, with the stored absolute expiry (once)."""
        if self._initialized:
            return
        self.context.current_tokens = await self.storage.get_tokens()
        fixed = getattr(self, "_fixed_client_info", None)  # the client-credentials providers' own client
        self.context.client_info = fixed if fixed is not None else await self.storage.get_client_info()
        self.context.token_expiry_time = self.storage.expires_at
        if self.context.current_tokens is not None and self.context.oauth_metadata is None:
            oauth, prm = self.storage.discovered()
            if oauth is not None:
                self.context.oauth_metadata = oauth
                self.context.auth_server_url = self.storage.issuer
            if prm is not None:
                self.context.protected_resource_metadata = prm
        self._initialized = True
        tokens = self.context.current_tokens
        if tokens is not None:
            expiry = self.storage.expires_at
            when = "no expiry known" if expiry is None else clock.expiry_text(expiry)
            self.log.emit(
                "stored",
                "info",
                f"using the stored token for issuer {self.storage.issuer} ({when})",
                data={"issuer": self.storage.issuer, "scope": tokens.scope, "expires_at": expiry},
            )

    def has_usable_token(self) -> bool:
        """Whether a token is valid now, or can be refreshed."""
        return self.context.is_token_valid() or self.context.can_refresh_token()

    def forget(self, *, keep_client: bool = True) -> None:
        """Drop the tokens in memory; without `keep_client`, also the client and what discovery found."""
        self.context.clear_tokens()
        if not keep_client:
            self.context.client_info = None
            self.context.oauth_metadata = None
            self.context.protected_resource_metadata = None
            self.context.auth_server_url = None

    async def close(self) -> None:
        """Close the redirect's listener."""
        await self._callback.close()

    def cancel(self, reason: str) -> bool:
        """Stop a login that waits for the redirect; True when one was waiting."""
        return self._callback.cancel(reason)

    # -- the observed flow ---------------------------------------------------------------

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """The SDK's flow, with the requests for the MCP server yielded to the caller (httpx)
        and the authorization server's sent here (see `_advance`)."""
        await self.ensure_loaded()
        flow = FlowState(request)
        try:
            step = await self._advance(flow, await self._new_round(flow))
            while step is not None:
                outgoing, kind = step
                # The request goes to the MCP server now: its own clock (held while
                # the flow talked to the authorization server) starts here.
                self._restart_clock(flow)
                retries = 0
                while True:
                    self._proofs.present(outgoing, retry=retries > 0)
                    flow.pending = outgoing
                    response = yield outgoing
                    flow.pending = None
                    if not await self._nonce_again(outgoing, response, retries):
                        break
                    retries += 1
                step = await self._advance(flow, await self._answer_sdk(flow, kind, outgoing, response))
        except StopAsyncIteration:
            return
        except AuthError as exc:
            log_failure(self.log, flow, str(exc))
            raise
        except _FLOW_FAILURES as exc:
            raise self._failure(flow, exc) from exc
        finally:
            await self._end_flow(flow)

    async def _new_round(self, flow: FlowState) -> httpx2.Request:
        """One round per pass of the SDK's flow: its first request."""
        flow.sdk = super().async_auth_flow(flow.request)
        outgoing = await flow.sdk.__anext__()
        self._flow = flow
        flow.main_sent = False
        return outgoing

    async def _advance(self, flow: FlowState, outgoing: httpx2.Request | None) -> tuple[httpx2.Request, str] | None:
        """From a request of the SDK's flow on to the next one for the MCP server, and its kind.

        The authorization server's requests are ours to send on the way: checked
        first, bounded by the login's deadline, their failures naming their URL.
        A retry answered insufficient_scope again starts another round with that
        answer (see `_retry_answered`).  None: the flow is over.
        """
        while True:
            if outgoing is None:
                if flow.over or flow.again is None:
                    return None
                outgoing = await self._next_round(flow)
            kind = self._classify(outgoing, flow)
            replay, flow.replay = flow.replay, None
            if replay is not None and kind == "main" and credential(outgoing) == flow.replay_credential:
                # The request as the retry sent it: the answer is the one the retry got.
                response = replay
            elif kind in ("main", "retry"):
                return outgoing, kind
            else:
                self._hold_clock(flow)
                await self._before_send(kind, flow, outgoing)
                response = await self._send_to_server(kind, outgoing, flow)
            outgoing = await self._answer_sdk(flow, kind, outgoing, response)

    async def _next_round(self, flow: FlowState) -> httpx2.Request:
        flow.replay, flow.again = flow.again, None
        flow.replay_credential = credential(flow.request)
        if flow.sdk is not None:
            await flow.sdk.aclose()
        return await self._new_round(flow)

    async def _answer_sdk(
        self, flow: FlowState, kind: str, outgoing: httpx2.Request, response: httpx2.Response
    ) -> httpx2.Request | None:
        """Log the answer and hand it to the SDK's flow; its next request, or None when the round is over."""
        if await self._after_response(kind, outgoing, response, flow):
            # The flow ends here: the response goes to the caller as it is.
            flow.over = True
            return None
        if kind in ("token", "refresh"):
            response = self._proofs.token_for_sdk(response)
        assert flow.sdk is not None
        try:
            return await flow.sdk.asend(response)
        except StopAsyncIteration:
            return None

    async def _nonce_again(self, outgoing: httpx2.Request, response: httpx2.Response, retries: int) -> bool:
        """Whether the MCP server asked for a DPoP nonce, so the request goes again with it."""
        if response.status_code in (401, 403):
            await response.aread()
        return self._proofs.resource_nonce(outgoing, response, retries)

    def _failure(self, flow: FlowState, exc: BaseException) -> AuthError:
        """A failure of the flow, logged once and named after the step it happened at."""
        if isinstance(exc, LoginTimeout):
            message = f"login timed out after {self.session.config.timeout:g} s (--oauth-timeout): {exc}"
            log_failure(self.log, flow, message)
            return LoginTimedOut(message, step=flow.step)
        if isinstance(exc, LoginCancelled):
            message = f"login cancelled: {exc}"
            log_failure(self.log, flow, message)
            return LoginAborted(message, step=flow.step)
        said = str(exc) if isinstance(exc, _SAID_FAILURES) else f"{exc.__class__.__name__}: {exc}"
        message = self.session.secrets.scrub(said)
        log_failure(self.log, flow, message)
        return AuthError(f"authorization failed at {flow.step}: {message}", step=flow.step)

    async def _end_flow(self, flow: FlowState) -> None:
        """However the flow ended: the request's clock given back, what was left unanswered logged,
        the SDK's flow and the flow's client closed, the listener closed after a challenge."""
        self._restart_clock(flow)
        pending = flow.pending
        if pending is not None and pending is not flow.request:
            exchange = HttpExchange.capture(pending, None, self.log.secrets)
            exchange.error = "no answer (the connection failed or the request was abandoned)"
            self.log.emit(flow.step, "failed", exchange.summary(), http=exchange)
        if flow.sdk is not None:
            await flow.sdk.aclose()
        if flow.http is not None:
            await flow.http.aclose()
        if self._flow is flow:
            self._flow = None
        if flow.challenged:
            await self.close()

    def _classify(self, outgoing: httpx2.Request, flow: FlowState) -> str:
        if outgoing is flow.request:
            kind = "retry" if flow.main_sent else "main"
            flow.main_sent = True
            return kind
        if outgoing.method == "POST":
            content_type = outgoing.headers.get("content-type", "")
            if "x-www-form-urlencoded" in content_type:
                grant = dict(parse_qsl(outgoing.content.decode("utf-8", "replace"))).get("grant_type")
                return "refresh" if grant == "refresh_token" else "token"
            return "registration"
        path = outgoing.url.path
        url = str(outgoing.url)
        if url == flow.resource_metadata_url or "/.well-known/oauth-protected-resource" in path:
            return "resource-metadata"
        if "/.well-known/oauth-authorization-server" in path or "/.well-known/openid-configuration" in path:
            return "server-metadata"
        # A redirect hop continues the step it belongs to.
        return flow.step if flow.step in ("resource-metadata", "server-metadata") else "server-metadata"

    async def _before_send(self, kind: str, flow: FlowState, outgoing: httpx2.Request) -> None:
        flow.step = kind
        if kind != "resource-metadata":
            # The resource's own metadata lives with the MCP server; the rule is the authorization server's.
            self._require_https(kind, str(outgoing.url), flow)
        if kind in ("registration", "token"):
            # Where the client's credentials (or the person's code) are about to go.
            await self._check_origins(flow)
        if kind == "registration":
            check_pkce(self.context.oauth_metadata)
        if kind == "token" and not flow.registered:
            flow.registered = True
            self._log_registration()

    # -- the authorization server's requests -------------------------------------------------

    async def _send_to_server(self, kind: str, outgoing: httpx2.Request, flow: FlowState) -> httpx2.Response:
        """Send one request to the authorization server; with DPoP, sign it and answer use_dpop_nonce."""
        if kind not in ("token", "refresh") or not self._proofs.on_token_requests(
            self.context.protected_resource_metadata
        ):
            return await self._fetch(outgoing, flow)
        return await self._proofs.send_signed(kind, outgoing, lambda request: self._fetch(request, flow))

    def _hold_clock(self, flow: FlowState) -> None:
        """The flow starts: its own deadline (--oauth-timeout) replaces the request's clock."""
        if flow.deadline is None:
            flow.deadline = time.monotonic() + self.session.config.timeout
        if flow.held is None:
            flow.held = hold_request_clock()

    def _restart_clock(self, flow: FlowState) -> None:
        held, flow.held = flow.held, None
        restart_request_clock(held)

    def _remaining(self, flow: FlowState | None) -> float:
        if flow is None or flow.deadline is None:
            return self.session.config.timeout
        return max(0.0, flow.deadline - time.monotonic())

    async def _fetch(self, outgoing: httpx2.Request, flow: FlowState) -> httpx2.Response:
        """Send one request of the flow to the authorization server (redirects are the SDK's to follow)."""
        if flow.http is None:
            flow.http = httpx2.AsyncClient(timeout=httpx2.Timeout(30.0), follow_redirects=False)
        where = f"{outgoing.method} {self._shown_url(outgoing)}"
        left = self._remaining(flow)
        try:
            async with asyncio.timeout(left):
                return await flow.http.send(outgoing)
        except TimeoutError as exc:
            # Who was asked, and how long it had: the login's earlier steps may have used most of it.
            party = _PARTY_OF.get(flow.step, "the authorization server")
            had = f"within the {clock.seconds_text(left)} s the login had left"
            raise LoginTimeout(f"{party} did not answer {where} {had}") from exc
        except httpx2.HTTPError as exc:
            exchange = HttpExchange.capture(outgoing, None, self.log.secrets)
            exchange.error = f"{exc.__class__.__name__}: {exc}"
            self.log.emit(flow.step, "failed", exchange.summary(), http=exchange)
            flow.failed_logged = True
            reason = self.session.secrets.scrub(str(exc) or exc.__class__.__name__)
            raise AuthError(f"authorization failed at {flow.step}: {where}: {reason}", step=flow.step) from exc

    def _shown_url(self, request: httpx2.Request) -> str:
        return self.session.secrets.scrub(str(request.url.copy_with(query=None)))

    def _require_https(self, kind: str, url: str, flow: FlowState) -> None:
        """Refuse a plain-http authorization server before any connection to it."""
        why = insecure(url)
        if why is None:
            return
        shown = self.session.secrets.scrub(url.split("?", 1)[0])
        if kind == "server-metadata" and self.context.oauth_metadata is None:
            server = self.context.auth_server_url or shown
            named = f" (named by the protected resource metadata at {flow.prm_url})" if flow.prm_url else ""
            message = f"refused the authorization server {server}{named}: {why}"
        elif kind == "server-metadata":
            message = f"refused {shown}: {why}"
        else:
            metadata = f" (from the authorization server metadata of {self.issuer})" if self.issuer else ""
            message = f"refused the {_ENDPOINT_OF.get(kind, kind)} {shown}{metadata}: {why}"
        raise AuthError(message, step=kind)

    async def _check_origins(self, flow: FlowState) -> None:
        await check_origins(flow, self.context.oauth_metadata, self.session)

    # -- the answers ---------------------------------------------------------------------------

    async def _after_response(
        self, kind: str, request: httpx2.Request, response: httpx2.Response, flow: FlowState
    ) -> bool:
        """Log the exchange; True ends the flow here (the response goes to the caller as it is)."""
        if kind == "main":
            if response.status_code not in (401, 403):
                return False
            if refuses_challenge(self.session, request, response, flow):
                return True
            if self.uses_browser:
                await self._callback.prepare(self._flow)
            return False
        exchange = HttpExchange.capture(request, response, self.log.secrets)
        if kind == "retry":
            retry_answered(self.session, exchange, response, flow)
        elif kind in ("resource-metadata", "server-metadata"):
            self._metadata_answered(kind, exchange, response, flow)
        elif kind == "registration":
            log_registration_answer(self.log, exchange, response, flow)
        elif kind in ("token", "refresh"):
            log_token(self.log, self.storage, kind, exchange, response, flow)
        return False

    def _metadata_answered(self, kind: str, exchange: HttpExchange, response: httpx2.Response, flow: FlowState) -> None:
        log_metadata(self.log, kind, exchange, response, flow)
        if kind == "server-metadata" and response.status_code == 200:
            body = response_json(response)
            algs = body.get("dpop_signing_alg_values_supported") if isinstance(body, dict) else None
            if isinstance(algs, list) and DPOP_ALGORITHM in algs:
                self.session.dpop().advertised = True

    def _log_registration(self) -> None:
        log_registration(
            self.log, self.context.client_info, self.storage.client_kind, self.uses_browser, self.session.config
        )

    # -- the person's part ---------------------------------------------------------------

    async def _open_authorization(self, url: str) -> None:
        flow = self._flow
        metadata = self.context.oauth_metadata
        check_pkce(metadata)
        check_client_binding(self.session.config.issuer, self.storage.client_kind, metadata)
        if flow is not None:
            flow.step = "authorization"
            self._require_https("authorization", url, flow)
            await self._check_origins(flow)
            flow.authorization_url = url
            states = parse_qs(urlsplit(url).query).get("state")
            flow.state = states[0] if states else None
            if not flow.registered:
                flow.registered = True
                self._log_registration()
        query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
        scope = query.get("scope")
        log_scope(self.log, scope, flow, self.context.protected_resource_metadata)
        listener = self._callback.listener
        self.log.emit(
            "authorization",
            "waiting",
            "waiting for the authorization in the browser",
            detail=url,
            data={
                "url": url,
                "redirect_uri": listener.redirect_uri if listener is not None else None,
                "scope": scope,
                "resource": query.get("resource"),
                "client_id": query.get("client_id"),
                "timeout": self.session.config.timeout,
            },
        )
        try:
            async with asyncio.timeout(self._remaining(flow)):
                await self.session.open_url(url)
        except TimeoutError as exc:
            raise LoginTimeout("the authorization in the browser (or the headless user agent) did not finish") from exc

    async def _await_callback(self) -> AuthorizationCodeResult:
        params = await self._callback.wait(self._remaining(self._flow))
        flow = self._flow
        if flow is not None:
            flow.step = "callback"
        return checked_redirect(params, flow, self.context.oauth_metadata, self.session)
