"""The OAuth client proper: the official SDK's `OAuthClientProvider`, observed.

The SDK does the protocol (RFC 9728 and RFC 8414 discovery in the spec's
order, Client ID Metadata Documents, RFC 7591 registration, PKCE S256, RFC
8707 resource indicators, scope selection and step-up, refresh, RFC 9207 and
RFC 8414 §3.3 issuer checks, the 2025-03-26 fallbacks).  This subclass adds
what a debugger needs and what an inspector user needs around it:

- every request of the flow and its answer becomes a masked `AuthEvent`;
- the loopback redirect listener and the browser (or a headless user agent);
- tokens stored per server and issuer, with their absolute expiry, so a
  second run reuses them and refreshes an expired one;
- PKCE support is required of the authorization server (the spec's MUST);
- a pre-registered client picks its token endpoint auth method from the
  server's metadata;
- step-up is retried within one request (the SDK retries once): a retry
  answered insufficient_scope again starts another step-up, up to
  MAX_STEP_UPS per request whatever scopes are asked for; a scope set whose
  step-ups failed that often is not asked for again until a request
  succeeds after a step-up, or the person logs in again.

Importing this module loads the SDK (about a second): the session does it
only when a server actually asks for authorization or a token is stored.
"""

from __future__ import annotations

import asyncio
import json
import time
import warnings
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, parse_qsl, urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError, OAuthRegistrationError, OAuthTokenError
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.client.auth.oauth2 import OAuthContext
from mcp.shared.auth import (
    JWT_BEARER_GRANT_TYPE,
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)
from pydantic import AnyUrl, ValidationError

from inspector.core.auth import clock
from inspector.core.auth.dpop import ALGORITHM as DPOP_ALGORITHM
from inspector.core.auth.dpop import MAX_NONCE_RETRIES, wants_nonce
from inspector.core.auth.endpoints import ENDPOINT_NAMES, insecure, other_origins
from inspector.core.auth.errors import AuthError, LoginAborted, LoginTimedOut
from inspector.core.auth.handoff import PasteRefused, pasted_params
from inspector.core.auth.httpauth import hold_request_clock, restart_request_clock
from inspector.core.auth.log import HttpExchange
from inspector.core.auth.loopback import LoginCancelled, LoginTimeout, LoopbackListener
from inspector.core.auth.www_authenticate import parse_www_authenticate
from inspector.core.background import stop_task

if TYPE_CHECKING:
    from inspector.core.auth.session import OAuthSession
    from inspector.forms.values import JSONObject

__all__ = [
    "MAX_STEP_UPS",
    "ObservedClientCredentialsProvider",
    "ObservedJwtBearerProvider",
    "ObservedOAuthProvider",
    "ObservedPrivateKeyJWTProvider",
    "RecordStorage",
    "provider_for",
]

CLIENT_NAME = "inspector (MCP terminal inspector)"
PLACEHOLDER_REDIRECT = "http://127.0.0.1/callback"
# Step-up authorizations for one request (any scope sets) before its 403 is
# final; also how many failed step-ups for one scope set end the asking for it
# (until a request succeeds after a step-up, or a new login).
MAX_STEP_UPS = 2


def choose_token_auth_method(supported: list[str] | None) -> str:
    """For a client with a secret: client_secret_basic unless the server only lists client_secret_post.

    RFC 8414 §2: an absent list means client_secret_basic.
    """
    methods = supported or ["client_secret_basic"]
    if "client_secret_basic" in methods:
        return "client_secret_basic"
    if "client_secret_post" in methods:
        return "client_secret_post"
    return "client_secret_basic"


class InspectorOAuthContext(OAuthContext):
    # The SDK reads time.time() for these two; ours read the auth clock, so
    # that every expiry decision follows one clock.
    def update_token_expiry(self, token: OAuthToken) -> None:
        self.token_expiry_time = None if token.expires_in is None else clock.now() + token.expires_in

    def is_token_valid(self) -> bool:
        tokens = self.current_tokens
        expiry = self.token_expiry_time
        return bool(tokens and tokens.access_token and (not expiry or clock.now() <= expiry))

    def prepare_token_auth(
        self, data: dict[str, str], headers: dict[str, str] | None = None
    ) -> tuple[dict[str, str], dict[str, str]]:
        info = self.client_info
        if info is not None and info.token_endpoint_auth_method is None and info.client_secret:
            supported = self.oauth_metadata.token_endpoint_auth_methods_supported if self.oauth_metadata else None
            info.token_endpoint_auth_method = choose_token_auth_method(supported)
        return super().prepare_token_auth(data, headers)


class RecordStorage:
    """The SDK's `TokenStorage`, over the inspector's token store.

    One record per server; inside it one entry per issuer (tokens with their
    absolute expiry, the client registration and how it was obtained).  A
    pre-registered client from the settings always wins over a stored one.
    """

    def __init__(self, session: OAuthSession) -> None:
        self.session = session
        # The provider's context, once it exists (to keep discovered metadata).
        self.context: OAuthContext | None = None
        self.issuer: str | None = None
        self.expires_at: float | None = None
        self.client_kind: str | None = None
        config = session.config
        self.preregistered: OAuthClientInformationFull | None = None
        if config.client_id:
            self.preregistered = OAuthClientInformationFull(
                client_id=config.client_id,
                client_secret=config.client_secret,
                redirect_uris=None,
                token_endpoint_auth_method=None if config.client_secret else "none",
            )

    def _load(self) -> JSONObject:
        store = self.session.store
        record = store.load(self.session.server_url) if store.has(self.session.server_url) else None
        if not isinstance(record, dict):
            record = {}
        if not isinstance(record.get("issuers"), dict):
            record["issuers"] = {}
        return record

    def _entry(self, record: JSONObject, issuer: str | None = None, create: bool = False) -> JSONObject | None:
        key = issuer or record.get("current_issuer")
        if not isinstance(key, str):
            return None
        entry = record["issuers"].get(key)
        if entry is None and create:
            entry = record["issuers"][key] = {}
        return entry if isinstance(entry, dict) else None

    def _save(self, record: JSONObject) -> None:
        self.session.store.save(self.session.server_url, record)

    async def get_tokens(self) -> OAuthToken | None:
        record = self._load()
        entry = self._entry(record)
        token = entry.get("token") if entry else None
        if not isinstance(token, dict) or not token.get("access_token"):
            return None
        assert entry is not None
        bound_to = entry.get("dpop_jkt")
        try:
            # The SDK models bearer tokens only; how a bound token is presented is ours to decide.
            parsed = OAuthToken.model_validate({**token, "token_type": "Bearer"} if bound_to else token)
        except ValidationError:
            return None
        if bound_to is not None:
            state = self.session._dpop
            if state is None or state.key.thumbprint != bound_to:
                # The key it is bound to lived in an earlier session's memory only.
                self.session.log.emit(
                    "stored",
                    "info",
                    "the stored token is DPoP-bound to the key of an earlier session; it cannot be used, "
                    "a new login follows when the server asks",
                    data={"jkt": bound_to},
                )
                return None
            state.token_type = "DPoP"
        self.issuer = record.get("current_issuer")
        expires_at = entry.get("expires_at")
        self.expires_at = float(expires_at) if isinstance(expires_at, (int, float)) else None
        self.session.secrets.update([parsed.access_token, parsed.refresh_token])
        return parsed

    async def set_tokens(self, tokens: OAuthToken) -> None:
        issuer = self.session.current_issuer() or self.issuer or "unknown"
        record = self._load()
        entry = self._entry(record, issuer, create=True)
        assert entry is not None
        now = clock.now()
        entry["token"] = tokens.model_dump(mode="json", exclude_none=True)
        entry["obtained_at"] = int(now)
        entry["expires_at"] = now + tokens.expires_in if tokens.expires_in else None
        entry["scope"] = tokens.scope
        state = self.session._dpop
        if state is not None and state.bound:
            # Saved as issued, with the thumbprint of the key it is bound to (cnf.jkt).
            entry["token"]["token_type"] = "DPoP"
            entry["dpop_jkt"] = state.key.thumbprint
        else:
            entry.pop("dpop_jkt", None)
        # What discovery found, so a later run can refresh before any new challenge.
        context = self.context
        if context is not None and context.oauth_metadata is not None:
            entry["server_metadata"] = context.oauth_metadata.model_dump(mode="json", exclude_none=True)
        if context is not None and context.protected_resource_metadata is not None:
            record["resource_metadata"] = context.protected_resource_metadata.model_dump(mode="json", exclude_none=True)
        record["current_issuer"] = issuer
        self.issuer = issuer
        self.expires_at = entry["expires_at"]
        self.session.secrets.update([tokens.access_token, tokens.refresh_token])
        self._save(record)
        expiry = f", expires in {tokens.expires_in} s" if tokens.expires_in else ""
        self.session.log.emit(
            "stored",
            "ok",
            f"token saved ({self.session.store.backend}) for issuer {issuer}{expiry}",
            data={"issuer": issuer, "scope": tokens.scope, "refresh_token": bool(tokens.refresh_token)},
        )

    def discovered(self) -> tuple[OAuthMetadata | None, ProtectedResourceMetadata | None]:
        """The metadata stored with the current issuer's tokens (None when absent or stale)."""
        record = self._load()
        entry = self._entry(record)
        server = entry.get("server_metadata") if entry else None
        resource = record.get("resource_metadata")
        try:
            oauth = OAuthMetadata.model_validate(server) if isinstance(server, dict) else None
            prm = ProtectedResourceMetadata.model_validate(resource) if isinstance(resource, dict) else None
        except ValidationError:
            return None, None
        return oauth, prm

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        if self.preregistered is not None:
            self.client_kind = "pre-registered"
            return self.preregistered
        record = self._load()
        entry = self._entry(record)
        client = entry.get("client") if entry else None
        if not isinstance(client, dict):
            return None
        try:
            info = OAuthClientInformationFull.model_validate(client)
        except ValidationError:
            return None
        assert entry is not None
        self.client_kind = entry.get("client_kind") if isinstance(entry.get("client_kind"), str) else "dynamic"
        self.session.secrets.add(info.client_secret)
        return info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        if self.preregistered is not None and client_info.client_id == self.preregistered.client_id:
            return
        issuer = client_info.issuer or self.session.current_issuer() or "unknown"
        kind = "cimd" if client_info.client_id == self.session.config.client_metadata_url else "dynamic"
        self.client_kind = kind
        record = self._load()
        entry = self._entry(record, issuer, create=True)
        assert entry is not None
        entry["client"] = client_info.model_dump(mode="json", exclude_none=True)
        entry["client_kind"] = kind
        # A new registration invalidates tokens minted for an older one.
        entry.pop("token", None)
        record["current_issuer"] = issuer
        self.session.secrets.add(client_info.client_secret)
        self._save(record)

    def forget_tokens(self) -> None:
        record = self._load()
        entry = self._entry(record)
        if entry is not None and "token" in entry:
            entry.pop("token", None)
            entry.pop("expires_at", None)
            self._save(record)
        self.expires_at = None


@dataclass
class _Flow:
    """What one run of the flow has seen so far."""

    request: httpx2.Request
    main_sent: bool = False
    challenged: bool = False
    step: str = "challenge"
    resource_metadata_url: str | None = None
    prm_found: bool = False
    registered: bool = False
    authorization_url: str | None = None
    state: str | None = None
    failed_logged: bool = False
    challenge: dict[str, str] = field(default_factory=dict)
    # Step-ups made for this request so far, and a retry's insufficient_scope
    # answer that starts the next one.
    step_ups: int = 0
    again: httpx2.Response | None = None
    # The login's own deadline (time.monotonic), from its first request to the authorization server.
    deadline: float | None = None
    # The MCP request (session, id) whose clock is held while the flow runs.
    held: tuple[Any, Any] | None = None
    origins_checked: bool = False
    prm_url: str | None = None
    # The flow's own client for the authorization server, closed when the flow ends.
    http: httpx2.AsyncClient | None = field(default=None, repr=False)


class _Observed(OAuthClientProvider):
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
        self._listener: LoopbackListener | None = None
        self._flow: _Flow | None = None

    # -- what the session asks ---------------------------------------------------------

    @property
    def issuer(self) -> str | None:
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
            when = "no expiry known" if expiry is None else _relative(expiry)
            self.log.emit(
                "stored",
                "info",
                f"using the stored token for issuer {self.storage.issuer} ({when})",
                data={"issuer": self.storage.issuer, "scope": tokens.scope, "expires_at": expiry},
            )

    def has_usable_token(self) -> bool:
        return self.context.is_token_valid() or self.context.can_refresh_token()

    def forget(self, *, keep_client: bool = True) -> None:
        self.context.clear_tokens()
        if not keep_client:
            self.context.client_info = None
            self.context.oauth_metadata = None
            self.context.protected_resource_metadata = None
            self.context.auth_server_url = None

    async def close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            await listener.close()

    def cancel(self, reason: str) -> bool:
        return self._listener.cancel(reason) if self._listener is not None else False

    # -- the observed flow ---------------------------------------------------------------

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        await self.ensure_loaded()
        flow = _Flow(request)
        pending: httpx2.Request | None = None
        inner: AsyncGenerator[httpx2.Request, httpx2.Response] | None = None
        held: httpx2.Response | None = None
        held_sent: str | None = None
        try:
            # One round per pass of the SDK's flow; a retry answered insufficient_scope
            # again starts another round with that answer (see _after_response).
            while True:
                inner = super().async_auth_flow(request)
                outgoing = await inner.__anext__()
                self._flow = flow
                flow.main_sent = False
                while True:
                    kind = self._classify(outgoing, flow)
                    if held is not None and kind == "main" and _credential(outgoing) == held_sent:
                        # The request as the retry sent it: the answer is the one the retry got.
                        response, held = held, None
                    elif kind in ("main", "retry"):
                        held = None
                        # The request goes to the MCP server now: its own clock (held while
                        # the flow talked to the authorization server) starts here.
                        self._restart_clock(flow)
                        retries = 0
                        while True:
                            self._present(outgoing, retry=retries > 0)
                            pending = outgoing
                            response = yield outgoing
                            pending = None
                            if response.status_code in (401, 403):
                                await response.aread()
                            if not self._resource_nonce(outgoing, response, retries):
                                break
                            retries += 1
                    else:
                        held = None
                        # The authorization server's requests are ours to send: checked first,
                        # bounded by the login's deadline, and their failures name their URL.
                        self._hold_clock(flow)
                        await self._before_send(kind, flow, outgoing)
                        response = await self._send_to_server(kind, outgoing, flow)
                    if await self._after_response(kind, outgoing, response, flow):
                        return
                    if kind in ("token", "refresh"):
                        response = self._token_for_sdk(response)
                    try:
                        outgoing = await inner.asend(response)
                    except StopAsyncIteration:
                        break
                if flow.again is None:
                    return
                held, flow.again = flow.again, None
                held_sent = _credential(request)
                await inner.aclose()
        except StopAsyncIteration:
            return
        except AuthError as exc:
            self._log_failure(flow, str(exc))
            raise
        except LoginTimeout as exc:
            message = f"login timed out after {self.session.config.timeout:g} s (--oauth-timeout): {exc}"
            self._log_failure(flow, message)
            raise LoginTimedOut(message, step=flow.step) from exc
        except LoginCancelled as exc:
            message = f"login cancelled: {exc}"
            self._log_failure(flow, message)
            raise LoginAborted(message, step=flow.step) from exc
        except (OAuthFlowError, OAuthTokenError, OAuthRegistrationError, ValidationError, ValueError) as exc:
            message = self.session.secrets.scrub(str(exc))
            self._log_failure(flow, message)
            raise AuthError(f"authorization failed at {flow.step}: {message}", step=flow.step) from exc
        except (OSError, RuntimeError, httpx2.HTTPError) as exc:
            message = self.session.secrets.scrub(f"{exc.__class__.__name__}: {exc}")
            self._log_failure(flow, message)
            raise AuthError(f"authorization failed at {flow.step}: {message}", step=flow.step) from exc
        finally:
            self._restart_clock(flow)
            if pending is not None and pending is not request:
                exchange = HttpExchange.capture(pending, None, self.log.secrets)
                exchange.error = "no answer (the connection failed or the request was abandoned)"
                self.log.emit(flow.step, "failed", exchange.summary(), http=exchange)
            if inner is not None:
                await inner.aclose()
            if flow.http is not None:
                await flow.http.aclose()
            if self._flow is flow:
                self._flow = None
            if flow.challenged:
                await self.close()

    # -- DPoP (RFC 9449, SEP-1932) -----------------------------------------------------------

    def _dpop_on_token_requests(self) -> bool:
        """Whether token requests carry a proof: asked for, or advertised by either server."""
        mode = self.session.config.dpop
        if mode == "off":
            return False
        if mode == "on":
            return True
        prm = self.context.protected_resource_metadata
        if prm is not None and (prm.dpop_bound_access_tokens_required or prm.dpop_signing_alg_values_supported):
            self.session.dpop().advertised = True
        # The key is made only once some server has asked for DPoP.
        state = self.session._dpop
        return state is not None and state.advertised

    def _sign(self, request: httpx2.Request, step: str, nonce: str | None, access_token: str | None = None) -> None:
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

    async def _send_to_server(self, kind: str, outgoing: httpx2.Request, flow: _Flow) -> httpx2.Response:
        """Send one request to the authorization server; with DPoP, sign it and answer use_dpop_nonce."""
        if kind not in ("token", "refresh") or not self._dpop_on_token_requests():
            return await self._fetch(outgoing, flow)
        state = self.session.dpop()
        retries = 0
        while True:
            self._sign(outgoing, kind, state.server_nonce)
            response = await self._fetch(outgoing, flow)
            nonce = response.headers.get("dpop-nonce")
            if nonce:
                state.server_nonce = nonce
            body = _json(response)
            error = body.get("error") if isinstance(body, dict) else None
            if not wants_nonce(response.status_code, error, nonce) or retries >= MAX_NONCE_RETRIES:
                return response
            retries += 1
            self._nonce_asked("authorization server", outgoing, response, nonce)

    def _token_for_sdk(self, response: httpx2.Response) -> httpx2.Response:
        """Note a DPoP-bound token, and hand the SDK (which models bearer tokens only) a bearer-typed copy."""
        body = _json(response)
        if response.status_code not in (200, 201) or not isinstance(body, dict):
            return response
        token_type = body.get("token_type")
        self.session.dpop().token_type = token_type if isinstance(token_type, str) else None
        if not isinstance(token_type, str) or token_type.lower() != "dpop":
            return response
        headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _BODY_HEADERS]
        content = json.dumps({**body, "token_type": "Bearer"}).encode()
        return httpx2.Response(response.status_code, headers=headers, content=content, request=response.request)

    def _present(self, request: httpx2.Request, *, retry: bool) -> None:
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
        self._sign(request, "the MCP request (retried)" if retry else "the MCP request", state.resource_nonce, token)

    def _resource_nonce(self, request: httpx2.Request, response: httpx2.Response, retries: int) -> bool:
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
        self._nonce_asked("MCP server", request, response, nonce)
        return True

    def _nonce_asked(self, party: str, request: httpx2.Request, response: httpx2.Response, nonce: str | None) -> None:
        """Log that `party` answered use_dpop_nonce, with the exchange that said so."""
        exchange = HttpExchange.capture(request, response, self.log.secrets)
        self.log.emit(
            "dpop-nonce",
            "info",
            f"the {party} asks for a DPoP nonce (use_dpop_nonce); retrying with a new proof",
            http=exchange,
            data={"nonce": nonce, "party": party},
        )

    def _log_failure(self, flow: _Flow, message: str) -> None:
        if not flow.failed_logged:
            flow.failed_logged = True
            self.log.emit(flow.step, "failed", message)

    def _classify(self, outgoing: httpx2.Request, flow: _Flow) -> str:
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

    async def _before_send(self, kind: str, flow: _Flow, outgoing: httpx2.Request) -> None:
        flow.step = kind
        if kind != "resource-metadata":
            # The resource's own metadata lives with the MCP server; the rule is the authorization server's.
            self._require_https(kind, str(outgoing.url), flow)
        if kind in ("registration", "token"):
            # Where the client's credentials (or the person's code) are about to go.
            await self._check_origins(flow)
        if kind == "registration":
            self._check_pkce()
        if kind == "token" and not flow.registered:
            flow.registered = True
            self._log_registration()

    # -- the authorization server's requests -------------------------------------------------

    def _hold_clock(self, flow: _Flow) -> None:
        """The flow starts: its own deadline (--oauth-timeout) replaces the request's clock."""
        if flow.deadline is None:
            flow.deadline = time.monotonic() + self.session.config.timeout
        if flow.held is None:
            flow.held = hold_request_clock()

    def _restart_clock(self, flow: _Flow) -> None:
        held, flow.held = flow.held, None
        restart_request_clock(held)

    def _remaining(self, flow: _Flow | None) -> float:
        if flow is None or flow.deadline is None:
            return self.session.config.timeout
        return max(0.0, flow.deadline - time.monotonic())

    async def _fetch(self, outgoing: httpx2.Request, flow: _Flow) -> httpx2.Response:
        """Send one request of the flow to the authorization server (redirects are the SDK's to follow)."""
        if flow.http is None:
            flow.http = httpx2.AsyncClient(timeout=httpx2.Timeout(30.0), follow_redirects=False)
        where = f"{outgoing.method} {self._shown_url(outgoing)}"
        try:
            async with asyncio.timeout(self._remaining(flow)):
                return await flow.http.send(outgoing)
        except TimeoutError as exc:
            raise LoginTimeout(f"the authorization server did not answer {where}") from exc
        except httpx2.HTTPError as exc:
            exchange = HttpExchange.capture(outgoing, None, self.log.secrets)
            exchange.error = f"{exc.__class__.__name__}: {exc}"
            self.log.emit(flow.step, "failed", exchange.summary(), http=exchange)
            flow.failed_logged = True
            reason = self.session.secrets.scrub(str(exc) or exc.__class__.__name__)
            raise AuthError(f"authorization failed at {flow.step}: {where}: {reason}", step=flow.step) from exc

    def _shown_url(self, request: httpx2.Request) -> str:
        return self.session.secrets.scrub(str(request.url.copy_with(query=None)))

    def _require_https(self, kind: str, url: str, flow: _Flow) -> None:
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

    async def _check_origins(self, flow: _Flow) -> None:
        """Endpoints on another origin than the issuer: shown to the person before they are used."""
        metadata = self.context.oauth_metadata
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
        listed = ", ".join(f"{label} {self.session.secrets.scrub(url)}" for label, url in others)
        text = f"the authorization server {metadata.issuer} has endpoints on other origins than its own: {listed}"
        config = self.session.config
        data = {"issuer": str(metadata.issuer), "other_origins": dict(others)}
        notify = config.notify
        if config.allow_cross_origin:
            self.log.emit(flow.step, "info", f"{text}; allowed (--allow-cross-origin-auth)", data=data)
            if notify is not None:
                notify(f"warning: {text}; allowed by --allow-cross-origin-auth")
            return
        if config.confirm is not None:
            self.log.emit(flow.step, "waiting", f"{text}; asking the person", data=data)
            if await config.confirm(text):
                self.log.emit(flow.step, "info", "the person allowed the endpoints on other origins", data=data)
                return
            raise LoginAborted(f"login refused: {text}", step=flow.step)
        raise AuthError(
            f"{text}: refused, as nobody is here to confirm them (--allow-cross-origin-auth, or the config's "
            "oauth.allowCrossOrigin, allows them)",
            step=flow.step,
        )

    async def _after_response(self, kind: str, request: httpx2.Request, response: httpx2.Response, flow: _Flow) -> bool:
        """Log the exchange; True ends the flow here (the response goes to the caller as it is)."""
        status = response.status_code
        if kind == "main":
            if status not in (401, 403):
                return False
            return await self._on_challenge(request, response, flow)
        exchange = HttpExchange.capture(request, response, self.log.secrets)
        if kind == "retry":
            if status < 400:
                self.log.emit("retry", "ok", f"the server accepted the token ({exchange.summary()})", http=exchange)
                if flow.step_ups and self.session.step_ups:
                    # The limit is per failing request, not per session.
                    self.session.step_ups.clear()
            elif self._asks_again(response):
                # insufficient_scope once more: the next round answers it as a new challenge.
                flow.again = response
            else:
                challenge = parse_www_authenticate(response.headers.get("www-authenticate"))
                why = challenge.get("error_description") or challenge.get("error") or f"HTTP {status}"
                flow.step = "retry"
                flow.failed_logged = True
                self.log.emit(
                    "retry",
                    "failed",
                    f"the server still refuses after authorization: {why}",
                    detail=_scope_note(challenge),
                    http=exchange,
                    data={"challenge": challenge} if challenge else None,
                )
            return False
        if kind in ("resource-metadata", "server-metadata"):
            self._log_metadata(kind, exchange, response, flow)
            if kind == "server-metadata" and status == 200:
                body = _json(response)
                algs = body.get("dpop_signing_alg_values_supported") if isinstance(body, dict) else None
                if isinstance(algs, list) and DPOP_ALGORITHM in algs:
                    self.session.dpop().advertised = True
        elif kind == "registration":
            flow.registered = True
            if status < 300:
                body = _json(response)
                client_id = body.get("client_id") if isinstance(body, dict) else None
                method = body.get("token_endpoint_auth_method") if isinstance(body, dict) else None
                self.log.emit(
                    "registration",
                    "ok",
                    f"registered dynamically (RFC 7591) as client {client_id}",
                    detail=f"token endpoint auth method: {method or 'not stated'}",
                    http=exchange,
                    data={"client_id": client_id, "token_endpoint_auth_method": method},
                )
            else:
                flow.failed_logged = True
                self.log.emit("registration", "failed", f"registration refused: {exchange.summary()}", http=exchange)
        elif kind in ("token", "refresh"):
            self._log_token(kind, exchange, response, flow)
        return False

    async def _on_challenge(self, request: httpx2.Request, response: httpx2.Response, flow: _Flow) -> bool:
        exchange = HttpExchange.capture(request, response, self.log.secrets)
        challenge = parse_www_authenticate(response.headers.get("www-authenticate"))
        flow.challenge = challenge
        offered = parse_www_authenticate(response.headers.get("www-authenticate"), "DPoP").get("scheme", "")
        if offered.lower() == "dpop" and self.session.config.dpop != "off":
            # The resource server takes DPoP-bound tokens (RFC 9449 §7.1).
            self.session.dpop().advertised = True
        flow.resource_metadata_url = challenge.get("resource_metadata")
        had_token = "authorization" in request.headers
        status = response.status_code
        data = {"challenge": challenge, "had_token": had_token}
        if status == 403 and challenge.get("error") != "insufficient_scope":
            self.log.emit(
                "challenge",
                "failed",
                "HTTP 403 without error=insufficient_scope: not something a new token can fix",
                http=exchange,
                data=data,
            )
            flow.failed_logged = True
            return True
        if not self.session.config.oauth:
            self.log.emit(
                "challenge",
                "failed",
                f"HTTP {status}: the server asks for authorization, and OAuth is off for this server",
                detail="static credentials were given (or --no-oauth); check them, or drop them to log in",
                http=exchange,
                data=data,
            )
            flow.failed_logged = True
            return True
        if status == 403:
            key = " ".join(sorted((challenge.get("scope") or "").split()))
            shown = key or "(none given)"
            failed_before = self.session.step_ups.get(key, 0)
            problem = None
            if flow.step_ups >= MAX_STEP_UPS:
                problem = (
                    f"insufficient_scope again (scope {shown}) after {flow.step_ups} step-up authorizations for this "
                    "request: giving up; the server does not accept the scopes it asks for"
                )
            elif failed_before >= MAX_STEP_UPS:
                problem = (
                    f"insufficient_scope for scope {shown}, and the last {failed_before} step-up authorizations "
                    "for it were refused all the same: not asking again (`inspector auth login`, or a login "
                    "from the Auth view, starts over)"
                )
            if problem is not None:
                data["step_ups"] = {"request": flow.step_ups, "scope_set": failed_before, "limit": MAX_STEP_UPS}
                self.log.emit("challenge", "failed", problem, detail=_scope_note(challenge), http=exchange, data=data)
                flow.failed_logged = True
                return True
            flow.step_ups += 1
            self.session.step_ups[key] = failed_before + 1
            data["step_ups"] = {"request": flow.step_ups, "scope_set": failed_before + 1, "limit": MAX_STEP_UPS}
            again = " again" if flow.step_ups > 1 else ""
            title = (
                f"insufficient_scope{again}: step-up authorization {flow.step_ups} of at most {MAX_STEP_UPS} "
                f"for scope {challenge.get('scope') or '(none given)'}"
            )
        elif had_token:
            title = "HTTP 401: the server refused the token (expired or revoked); authorizing again"
        else:
            title = "HTTP 401: the server requires authorization"
        if not response.extensions.get("inspector_synthetic_challenge"):
            self.log.emit("challenge", "info", title, detail=_scope_note(challenge), http=exchange, data=data)
        flow.challenged = True
        if self.uses_browser:
            await self._prepare_listener()
        return False

    def _asks_again(self, response: httpx2.Response) -> bool:
        """A retry answered 403 insufficient_scope, to be answered with another step-up."""
        if response.status_code != 403 or not self.session.config.oauth:
            return False
        return parse_www_authenticate(response.headers.get("www-authenticate")).get("error") == "insufficient_scope"

    async def _prepare_listener(self) -> None:
        listener = self._listener
        if listener is not None and listener.listening:
            listener.reset()
        else:
            port = self.session.preferred_port(self.context.client_info, self.storage.client_kind)
            listener = LoopbackListener(port)
            try:
                await listener.start()
            except OSError as exc:
                if port == 0 or self.session.config.callback_port:
                    why = exc.strerror or str(exc)
                    if self._flow is not None:
                        self._flow.step = "callback"
                    hint = "; choose another --oauth-port (0: any free port)" if port else ""
                    raise AuthError(
                        f"cannot listen for the redirect on 127.0.0.1:{port} ({why}){hint}", step="callback"
                    ) from exc
                listener = LoopbackListener(0)
                await listener.start()
            self._listener = listener
        redirect = listener.redirect_uri
        self.context.client_metadata.redirect_uris = [AnyUrl(redirect)]
        info = self.context.client_info
        if info is not None and self.storage.client_kind == "dynamic":
            registered = [str(uri) for uri in info.redirect_uris or []]
            if registered and redirect not in registered:
                self.log.emit(
                    "registration",
                    "info",
                    f"the stored registration is for {registered[0]}; registering again for {redirect}",
                )
                self.context.client_info = None

    def _check_client_binding(self) -> None:
        """A pre-registered client named with its issuer is used with that authorization server only (SEP-2352)."""
        bound = self.session.config.issuer
        metadata = self.context.oauth_metadata
        if self.storage.client_kind != "pre-registered" or not bound or metadata is None:
            return
        if str(metadata.issuer) != bound:
            raise AuthError(
                f"the pre-registered client belongs to issuer {bound}, but this server's authorization server is "
                f"{metadata.issuer}; not sending its credentials there",
                step="registration",
            )

    def _check_pkce(self) -> None:
        metadata = self.context.oauth_metadata
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

    def _log_metadata(self, kind: str, exchange: HttpExchange, response: httpx2.Response, flow: _Flow) -> None:
        status = response.status_code
        label = "protected resource metadata" if kind == "resource-metadata" else "authorization server metadata"
        if status >= 400 or status < 200:
            self.log.emit(
                kind,
                "info",
                f"no {label} at {exchange.url} (HTTP {status}); trying the next location",
                http=exchange,
            )
            return
        if 300 <= status < 400:
            self.log.emit(kind, "info", f"{exchange.summary()} (redirect)", http=exchange)
            return
        body = _json(response)
        if not isinstance(body, dict):
            self.log.emit(kind, "failed", f"{label} at {exchange.url} is not a JSON object", http=exchange)
            return
        if kind == "resource-metadata":
            flow.prm_found = True
            flow.prm_url = exchange.url
            servers = body.get("authorization_servers")
            title = f"{label}: resource {body.get('resource')}, authorization servers {servers}"
            detail = f"scopes_supported: {body.get('scopes_supported')}" if "scopes_supported" in body else None
            data = {k: body.get(k) for k in ("resource", "authorization_servers", "scopes_supported") if k in body}
        else:
            title = f"{label}: issuer {body.get('issuer')}"
            facts = {
                "PKCE": body.get("code_challenge_methods_supported"),
                "registration": body.get("registration_endpoint"),
                "Client ID Metadata Documents": body.get("client_id_metadata_document_supported"),
                "iss in responses": body.get("authorization_response_iss_parameter_supported"),
                "token endpoint auth": body.get("token_endpoint_auth_methods_supported"),
            }
            detail = "; ".join(f"{k}: {v}" for k, v in facts.items() if v is not None)
            data = {
                k: body.get(k)
                for k in (
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
                if k in body
            }
        self.log.emit(kind, "ok", title, detail=detail or None, http=exchange, data=data)

    def _log_token(self, kind: str, exchange: HttpExchange, response: httpx2.Response, flow: _Flow) -> None:
        status = response.status_code
        body = _json(response)
        if status in (200, 201) and isinstance(body, dict):
            scope = body.get("scope")
            expires = body.get("expires_in")
            what = "token refreshed" if kind == "refresh" else "token issued"
            title = f"{what} (type {body.get('token_type')}, scope {scope or 'not stated'}, expires in {expires} s)"
            self.log.emit(
                kind,
                "ok",
                title,
                http=exchange,
                data={"scope": scope, "expires_in": expires, "refresh_token": "refresh_token" in body},
            )
            return
        error = body.get("error") if isinstance(body, dict) else None
        if kind == "refresh":
            self.storage.forget_tokens()
            self.log.emit(
                "refresh",
                "info",
                f"refresh refused ({error or f'HTTP {status}'}); the stored token is dropped and a new login follows "
                "when the server asks",
                http=exchange,
            )
            return
        flow.failed_logged = True
        self.log.emit("token", "failed", f"token request refused: {error or f'HTTP {status}'}", http=exchange)

    # -- the person's part ---------------------------------------------------------------

    async def _open_authorization(self, url: str) -> None:
        flow = self._flow
        self._check_pkce()
        self._check_client_binding()
        if flow is not None:
            flow.step = "authorization"
            self._require_https("authorization", url, flow)
            await self._check_origins(flow)
        if flow is not None:
            flow.step = "authorization"
            flow.authorization_url = url
            states = parse_qs(urlsplit(url).query).get("state")
            flow.state = states[0] if states else None
            if not flow.registered:
                flow.registered = True
                self._log_registration()
        query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
        scope = query.get("scope")
        self._log_scope(scope, flow)
        listener = self._listener
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

    def _log_registration(self) -> None:
        info = self.context.client_info
        if info is None:
            return
        kind = self.storage.client_kind
        if not self.uses_browser:
            kind = "pre-registered"
            if self.session.config.grant == "jwt_bearer":
                title = f"jwt-bearer grant with the workload identity JWT, as client {info.client_id}"
            elif self.session.config.grant == "enterprise":
                method = info.token_endpoint_auth_method or "none"
                title = (
                    f"jwt-bearer grant with the ID-JAG from the identity provider, as client {info.client_id} "
                    f"({method})"
                )
            else:
                method = info.token_endpoint_auth_method or "client_secret_basic"
                title = f"client credentials grant as client {info.client_id} ({method})"
        elif kind == "pre-registered":
            title = f"using the pre-registered client {info.client_id}"
        elif info.client_id == self.session.config.client_metadata_url:
            title = f"using the Client ID Metadata Document {info.client_id} as client id"
        else:
            title = f"using the stored registration (client {info.client_id})"
        self.log.emit("registration", "info", title, data={"client_id": info.client_id, "kind": kind})

    def _log_scope(self, scope: str | None, flow: _Flow | None) -> None:
        challenged = flow.challenge.get("scope") if flow is not None else None
        prm = self.context.protected_resource_metadata
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
        self.log.emit("scope", "info", f"scope: {scope or '(omitted)'} — {why}", data={"scope": scope})

    async def _await_callback(self) -> AuthorizationCodeResult:
        listener = self._listener
        if listener is None:
            raise AuthError("no loopback listener is waiting for the redirect", step="callback")
        config = self.session.config
        notify = config.notify
        paste = config.paste if config.browser == "handoff" else None
        if notify is not None and config.browser != "headless":
            pasting = " or a pasted URL" if paste is not None else ""
            notify(
                f"Waiting up to {config.timeout:g} s for the redirect to {listener.redirect_uri}{pasting} "
                "(Ctrl-C cancels)"
            )
        reading = None
        if paste is not None:
            reading = asyncio.get_running_loop().create_task(self._take_pasted(paste, listener))
        try:
            params = await listener.wait(self._remaining(self._flow))
        finally:
            if reading is not None:
                await stop_task(reading)
        flow = self._flow
        if flow is not None:
            flow.step = "callback"
        return self._check_callback(params, flow)

    async def _take_pasted(self, paste: Callable[[], Awaitable[str | None]], listener: LoopbackListener) -> None:
        """Lines the person pastes, until one is this login's redirect (or no more come: the listener still waits)."""
        notify = self.session.config.notify or (lambda _text: None)
        while (line := await paste()) is not None:
            try:
                params = pasted_params(line, listener.redirect_uri)
            except PasteRefused as exc:
                if line.strip():
                    notify(f"{exc}; paste again, or wait for the redirect")
                continue
            self.log.emit("callback", "info", "the redirect URL was pasted by the person")
            listener.deliver(params)
            return

    def _check_callback(self, params: dict[str, str], flow: _Flow | None) -> AuthorizationCodeResult:
        metadata = self.context.oauth_metadata
        expected = str(metadata.issuer) if metadata is not None else None
        advertised = bool(metadata and metadata.authorization_response_iss_parameter_supported)
        iss = params.get("iss")
        shown = {k: ("***" if k == "code" else v) for k, v in params.items()}
        if "code" in params:
            self.session.secrets.add(params["code"])
        data = {"params": shown, "expected_issuer": expected, "iss_advertised": advertised}
        # RFC 9207 §2.4, as the 2026-07-28 revision tabulates it; simple string comparison.
        problem = None
        if iss is not None and iss != expected:
            problem = f"the response names issuer {iss!r}, but the authorization went to {expected!r} (RFC 9207)"
        elif iss is None and advertised:
            problem = "the server advertises iss in authorization responses, and this one has none (RFC 9207)"
        if problem is not None:
            # On a mismatch the response's error fields must not be acted on or shown.
            data["params"] = {k: v for k, v in shown.items() if k not in ("error", "error_description", "error_uri")}
            raise AuthError(f"authorization response rejected: {problem}", step="callback")
        if flow is not None and flow.state is not None and params.get("state") != flow.state:
            raise AuthError("authorization response rejected: state does not match the request", step="callback")
        if "error" in params:
            description = params.get("error_description")
            text = params["error"] + (f": {description}" if description else "")
            self.log.emit("callback", "failed", f"the authorization server answered with an error: {text}", data=data)
            if flow is not None:
                flow.failed_logged = True
            raise LoginAborted(f"authorization refused: {text}", step="callback")
        code = params.get("code")
        if not code:
            raise AuthError("the redirect carried neither a code nor an error", step="callback")
        checked = "iss checked" if iss is not None else "no iss (not advertised)"
        self.log.emit("callback", "ok", f"authorization code received; state matches; {checked}", data=data)
        if flow is not None:
            flow.step = "token"
        return AuthorizationCodeResult(code=code, state=params.get("state"), iss=iss)


_ENDPOINT_OF = {
    "token-exchange": "identity provider endpoint",
    "registration": "registration endpoint",
    "token": "token endpoint",
    "refresh": "token endpoint",
    "authorization": "authorization endpoint",
}


def _scope_note(challenge: dict[str, str]) -> str | None:
    parts = []
    for key in ("scope", "resource_metadata", "error", "error_description"):
        if challenge.get(key):
            parts.append(f"{key}: {challenge[key]}")
    return "; ".join(parts) or None


_BODY_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


def _credential(request: httpx2.Request) -> str:
    """The token a request carries, whatever its scheme (Bearer from the SDK, DPoP once presented)."""
    return request.headers.get("authorization", "").partition(" ")[2].strip()


def _json(response: httpx2.Response) -> Any:
    try:
        return json.loads(response.content)
    except (ValueError, httpx2.ResponseNotRead):
        return None


def _relative(expires_at: float) -> str:
    left = expires_at - clock.now()
    if left <= 0:
        return f"expired {int(-left)} s ago"
    return f"expires in {int(left)} s"


class ObservedOAuthProvider(_Observed):
    """The authorization-code grant with PKCE: a person approves in a browser."""

    uses_browser = True

    def __init__(self, session: OAuthSession) -> None:
        config = session.config
        storage = RecordStorage(session)
        metadata = OAuthClientMetadata(
            client_name=CLIENT_NAME,
            redirect_uris=[AnyUrl(PLACEHOLDER_REDIRECT)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        )
        super().__init__(
            server_url=session.server_url,
            client_metadata=metadata,
            storage=storage,
            redirect_handler=self._open_authorization,
            callback_handler=self._await_callback,
            client_metadata_url=config.client_metadata_url,
        )
        self._setup(session, storage)


class ObservedClientCredentialsProvider(_Observed, ClientCredentialsOAuthProvider):
    """The client credentials grant (SEP-1046) with a client secret: no person involved."""

    def __init__(self, session: OAuthSession) -> None:
        config = session.config
        storage = RecordStorage(session)
        with warnings.catch_warnings():
            # Without an issuer the SDK warns that discovery picks the server; the auth log says so.
            warnings.simplefilter("ignore")
            super().__init__(
                server_url=session.server_url,
                storage=storage,
                client_id=config.client_id or "",
                client_secret=config.client_secret or "",
                token_endpoint_auth_method=(
                    "client_secret_post" if config.token_auth_method == "client_secret_post" else "client_secret_basic"
                ),
                issuer=config.issuer,
            )
        self._setup(session, storage)


class ObservedPrivateKeyJWTProvider(_Observed, PrivateKeyJWTOAuthProvider):
    """The client credentials grant authenticated with a signed JWT (private_key_jwt, RFC 7523)."""

    def __init__(self, session: OAuthSession) -> None:
        config = session.config
        storage = RecordStorage(session)
        signer = SignedJWTParameters(
            issuer=config.client_id or "",
            subject=config.client_id or "",
            signing_key=config.client_key or "",
            signing_algorithm=config.client_key_algorithm,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            super().__init__(
                server_url=session.server_url,
                storage=storage,
                client_id=config.client_id or "",
                assertion_provider=signer.create_assertion_provider(),
                issuer=config.issuer,
            )
        self._setup(session, storage)


class ObservedJwtBearerProvider(_Observed):
    """The RFC 7523 jwt-bearer grant with a workload identity JWT (workload identity federation).

    The SDK's providers meet their grants at the same hook (`_perform_authorization`):
    discovery, the resource indicator, storage and the challenges stay the SDK's.
    """

    def __init__(self, session: OAuthSession) -> None:
        config = session.config
        storage = RecordStorage(session)
        metadata = OAuthClientMetadata(
            redirect_uris=None, grant_types=[JWT_BEARER_GRANT_TYPE], token_endpoint_auth_method="none"
        )
        super().__init__(server_url=session.server_url, client_metadata=metadata, storage=storage)
        self._fixed_client_info = OAuthClientInformationFull(
            client_id=config.client_id or "",
            redirect_uris=None,
            grant_types=[JWT_BEARER_GRANT_TYPE],
            token_endpoint_auth_method="none",
        )
        self._setup(session, storage)

    async def _perform_authorization(self) -> httpx2.Request:
        config = self.session.config
        data = {"grant_type": JWT_BEARER_GRANT_TYPE, "assertion": config.assertion or ""}
        if config.client_id:
            data["client_id"] = config.client_id
        if self.context.should_include_resource_param(self.context.protocol_version):
            data["resource"] = self.context.get_resource_url()
        if self.context.client_metadata.scope:
            data["scope"] = self.context.client_metadata.scope
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        return httpx2.Request("POST", self._get_token_endpoint(), data=data, headers=headers)


def provider_for(session: OAuthSession) -> _Observed:
    """The OAuth client the session's settings ask for."""
    config = session.config
    if config.grant == "enterprise":
        from inspector.core.auth.enterprise import ObservedEnterpriseProvider

        return ObservedEnterpriseProvider(session)
    if config.grant == "jwt_bearer":
        return ObservedJwtBearerProvider(session)
    if config.grant == "client_credentials":
        if config.client_key:
            return ObservedPrivateKeyJWTProvider(session)
        return ObservedClientCredentialsProvider(session)
    return ObservedOAuthProvider(session)
