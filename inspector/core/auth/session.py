"""One server's authorization state: settings, token store, auth log, and
the OAuth client, built only when a server asks for authorization or a
token for it is stored (the SDK costs about a second to import).

A session outlives connections: reconnects, transport fallbacks and the
TUI's restarts all reuse it through `ServerSpec.auth.session`.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from inspector.core.auth import clock
from inspector.core.auth.config import AuthConfig, Opener
from inspector.core.auth.errors import AuthError
from inspector.core.auth.log import AuthEvent, AuthLog, HttpExchange
from inspector.core.auth.oauth_secrets import SecretSet
from inspector.core.auth.store import TokenStore, default_store, server_key
from inspector.core.servers.spec import DEFAULT_MAX_MESSAGE_SIZE

if TYPE_CHECKING:
    import httpx2

    from inspector.core.auth.dpop import DPoPState
    from inspector.core.auth.provider import ObservedProvider
    from inspector.core.auth.revocation import Revocation
    from inspector.core.record.traffic import TrafficLog
    from inspector.core.servers.spec import ServerSpec
    from inspector.forms.values import JSONObject

__all__ = ["OAuthSession", "http_auth", "session_for"]

PROBE_VERSION = "2025-11-25"
# Marks the stand-in challenge of a login the server did not ask for.
SYNTHETIC = "inspector_synthetic_challenge"
_BODY_ENCODING_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


class OAuthSession:
    """One server's authorization state: its settings, secrets, token store and auth log, and the OAuth
    client, made when first needed; shared by every connection to the server."""

    def __init__(self, config: AuthConfig, server_url: str, *, store: TokenStore | None = None) -> None:
        self.config = config
        self.server_url = server_key(server_url)
        self.secrets = SecretSet(config.secrets())
        self.log = AuthLog(self.secrets)
        self.store = store or config.store or default_store()
        # Step-up authorizations per challenged scope set since a request last
        # succeeded after one (see challenges.MAX_STEP_UPS).
        self.step_ups: dict[str, int] = {}
        self._provider: ObservedProvider | None = None
        # The DPoP key and nonces (RFC 9449), made when a flow first needs them.
        self._dpop: DPoPState | None = None
        # The bound on every body read (--max-message-size); session_for keeps it the spec's.
        self.max_message_size = DEFAULT_MAX_MESSAGE_SIZE

    # -- wiring --------------------------------------------------------------------------

    def attach(self, traffic: TrafficLog) -> None:
        """Write the auth log's events into `traffic` too."""
        self.log.attach(traffic)

    def http_auth(self) -> httpx2.Auth:
        """The `httpx2.Auth` for this server's HTTP requests."""
        from inspector.core.auth.httpauth import InspectorAuth

        return InspectorAuth(self)

    @property
    def active(self) -> bool:
        """Whether requests go through the OAuth client (a token is stored, or a flow ran)."""
        return self._provider is not None or self.store.has(self.server_url)

    def provider(self) -> ObservedProvider:
        """The OAuth client for the configured grant, made on first use (`grants.provider_for`)."""
        if self._provider is None:
            from inspector.core.auth.grants import provider_for

            # The SDK logs its own failures with tracebacks; the auth log says it better.
            logging.getLogger("mcp.client.auth").addHandler(logging.NullHandler())
            self._provider = provider_for(self)
        return self._provider

    def dpop(self) -> DPoPState:
        """This session's proof-of-possession key and nonces (one key per session, kept in memory)."""
        if self._dpop is None:
            from inspector.core.auth.dpop import DPoPState

            self._dpop = DPoPState()
        return self._dpop

    def current_issuer(self) -> str | None:
        """The issuer the OAuth client uses (None before it exists)."""
        return self._provider.issuer if self._provider is not None else None

    def preferred_port(self, client_info: Any, client_kind: str | None) -> int:
        """The configured port; else the port a stored dynamic registration was made for."""
        if self.config.callback_port:
            return self.config.callback_port
        if client_info is not None and client_kind == "dynamic":
            for uri in client_info.redirect_uris or []:
                parts = urlsplit(str(uri))
                if parts.hostname == "127.0.0.1" and parts.port:
                    return parts.port
        return 0

    def opener(self) -> Opener:
        """What shows the person an authorization URL: the one configured, a headless user agent,
        the system browser, or the URL printed (with the SSH port-forward for a browser elsewhere)."""
        if self.config.opener is not None:
            return self.config.opener
        if self.config.browser == "headless":
            from inspector.core.auth.browser import HeadlessUserAgent

            return HeadlessUserAgent(self.log)

        async def show(url: str) -> None:
            notify = self.config.notify or (lambda _text: None)
            if self.config.browser in ("print", "handoff"):
                from inspector.core.auth.handoff import handoff_text, port_forward

                paste = self.config.browser == "handoff" and self.config.paste is not None
                notify(handoff_text(url, paste=paste))
                # The Auth view has no printed lines: the port-forward goes with the step.
                forward = port_forward(url)
                self.log.emit(
                    "authorization",
                    "info",
                    "the URL was printed for the person to open",
                    detail=f"browser on another machine: {forward}" if forward else None,
                )
                return
            from inspector.core.auth.browser import open_in_system_browser

            opened = await open_in_system_browser(url, notify)
            where = "opened the system browser" if opened else "no browser here: the URL was printed"
            self.log.emit("authorization", "info", where)

        return show

    async def open_url(self, url: str) -> None:
        """Show the person `url` (see `opener`)."""
        await self.opener()(url)

    def cancel(self, reason: str = "cancelled by the user") -> bool:
        """Stop a login that waits for the redirect (LoginAborted in the flow)."""
        return self._provider.cancel(reason) if self._provider is not None else False

    # -- explicit actions (`inspector auth login|logout|status`) -------------------------------

    async def needs_login(self) -> bool:
        """No token that could be used without a person (none stored, or expired without a refresh token)."""
        provider = self.provider() if self.active else None
        if provider is None:
            return True
        await provider.ensure_loaded()
        return not provider.has_usable_token()

    async def preflight(self, headers: dict[str, str] | None = None) -> bool:
        """Before connecting with a person at the keys: log in first if the server asks for it.

        A login that happens inside a request would race that request's
        timeout; so an interactive face calls this before connecting.  It
        sends one unauthenticated probe only when no usable token is stored,
        and logs in only if the probe is answered 401/403.  Returns whether a
        login happened.
        """
        if not self.config.oauth or not await self.needs_login():
            return False
        return await self.login(force=False, only_if_challenged=True, headers=headers)

    async def login(
        self, *, force: bool = True, only_if_challenged: bool = False, headers: dict[str, str] | None = None
    ) -> bool:
        """Run the authorization flow now.

        The flow starts from the server's own challenge: an unauthenticated
        `initialize` probe.  When the server does not challenge it (some
        servers protect only later requests), discovery starts from the
        well-known metadata locations instead.  The probe is retried with
        the new token as proof that it works.  Returns whether a login ran.
        """
        import httpx2

        from inspector.core.transports.http_redirects import redirect_guard

        started = self.log.emit("login", "info", f"login to {self.server_url}")
        # What a forced login replaces, revoked once the new tokens are in (RFC 7009).
        given_up = self._stored_for_revocation() if force and self.config.revoke else None
        # A new login is a new start for the scopes whose step-ups were refused.
        self.step_ups.clear()
        probe_headers = {
            **(headers or {}),
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        session_ids: list[str] = []
        # The probe carries the person's headers: not to another origin.
        guard = redirect_guard(headers or {})
        async with httpx2.AsyncClient(
            timeout=httpx2.Timeout(30.0), follow_redirects=True, event_hooks={"response": [guard]}
        ) as http:
            probe = http.build_request("POST", self.server_url, content=_probe_body(), headers=probe_headers)
            response = await self._challenge(http, probe, session_ids, only_if_challenged)
            if response is None:
                await _end_sessions(http, self.server_url, session_ids, probe_headers)
                return False
            # Only now (the server asked, or the person did) is the OAuth client loaded.
            provider = self.provider()
            await provider.ensure_loaded()
            if force or response.status_code == 401:
                provider.forget()
            await self._run_flow(http, provider, probe, response, session_ids, probe_headers)
        self._check_login(started, provider)
        if given_up is not None:
            await self._revoke_replaced(given_up, provider)
        self.log.emit("login", "ok", f"logged in to {self.server_url} (issuer {provider.issuer})")
        return True

    async def _challenge(
        self, http: httpx2.AsyncClient, probe: httpx2.Request, session_ids: list[str], only_if_challenged: bool
    ) -> httpx2.Response | None:
        """The probe's answer that starts the flow: the server's 401/403, else a
        stand-in 401 (discovery from the well-known locations), or None when
        only a challenge was to start a login."""
        import httpx2

        try:
            first = await http.send(probe, stream=True)
        except httpx2.HTTPError as exc:
            raise AuthError(f"cannot reach {self.server_url}: {exc}", step="challenge") from exc
        first = await self._read_probe_answer(first)
        _remember_session(first, session_ids)
        if first.status_code in (401, 403):
            return first
        exchange = HttpExchange.capture(probe, first, self.secrets)
        if only_if_challenged:
            self.log.emit(
                "login", "info", f"the server did not ask for authorization ({exchange.summary()})", http=exchange
            )
            return None
        self.log.emit(
            "challenge",
            "info",
            f"the probe was not challenged ({exchange.summary()}); discovering the authorization server "
            "from the well-known metadata locations",
            http=exchange,
        )
        return httpx2.Response(401, request=probe, extensions={SYNTHETIC: True})

    async def _run_flow(
        self,
        http: httpx2.AsyncClient,
        provider: ObservedProvider,
        probe: httpx2.Request,
        response: httpx2.Response,
        session_ids: list[str],
        probe_headers: dict[str, str],
    ) -> None:
        """Drive the OAuth client's flow from the challenge to the retried
        probe; then close the sessions the probes opened."""
        flow = provider.async_auth_flow(probe)
        try:
            outgoing = await flow.__anext__()
            if outgoing is not probe or "authorization" in outgoing.headers:
                response = await http.send(outgoing)
            while True:
                outgoing = await flow.asend(response)
                response = await http.send(outgoing, stream=True)
                # The retried probe's success may be a stream: not read.
                if outgoing is not probe or response.status_code >= 300:
                    response = await self._read_probe_answer(response)
                await response.aclose()
                if outgoing is probe:
                    _remember_session(response, session_ids)
        except StopAsyncIteration:
            pass
        finally:
            await flow.aclose()
            tokens = provider.context.current_tokens
            if tokens is not None:
                probe_headers["Authorization"] = f"Bearer {tokens.access_token}"
            await _end_sessions(http, self.server_url, session_ids, probe_headers)

    def _check_login(self, started: AuthEvent, provider: ObservedProvider) -> None:
        """Raise the step that failed since `started`, or that no token came."""
        failure = self.log.last_failure()
        if failure is not None and failure.seq > started.seq:
            message = f"login failed at {failure.step}: {failure.title}"
            said = failure.http.response_body if failure.http is not None else None
            if said and said.strip():
                # The server's own reason ("Access is only allowed at ...") is often the answer.
                from inspector.core.protocol.errors import body_excerpt

                message += f"; the server said: {body_excerpt(said)}"
            raise AuthError(message, step=failure.step)
        if not provider.context.is_token_valid():
            raise AuthError("login ended without a token", step="token")

    async def _revoke_replaced(self, given_up: JSONObject | None, provider: ObservedProvider) -> None:
        # Only what the new login replaced: tokens still stored (another issuer's) stay valid.
        fresh = provider.context.current_tokens
        keep = {t for t in (fresh.access_token, fresh.refresh_token) if t} if fresh is not None else set()
        keep |= stored_tokens(self._stored_for_revocation())
        await self._revoke(given_up, keep)

    def _stored_for_revocation(self) -> JSONObject | None:
        from inspector.core.auth.revocation import stored_record

        return stored_record(self)

    async def _revoke(self, record: JSONObject | None, keep: set[str] | None = None) -> list[Revocation]:
        from inspector.core.auth.revocation import revoke_record

        return await revoke_record(self, record, keep=keep)

    async def revoke_stored(self) -> list[Revocation]:
        """Revoke every stored token of this server at its authorization server (before a logout).

        Failures are in the results and the auth log (step `revoked`), never raised.
        """
        return await self._revoke(self._stored_for_revocation())

    async def logout_revoking(self) -> tuple[bool, list[Revocation]]:
        """`logout`, with the stored tokens revoked first unless the settings say not to."""
        revoked = await self.revoke_stored() if self.config.revoke else []
        return self.logout(), revoked

    async def _read_probe_answer(self, response: httpx2.Response) -> httpx2.Response:
        """The probe's answer with its body read as far as the message size
        limit, like every other body: one that never ends costs no more
        memory than a message may.  What is past the limit is not read."""
        import httpx2

        from inspector.core.transports.httpbase import read_bounded

        try:
            body, cut = await read_bounded(response, self.max_message_size)
        finally:
            await response.aclose()
        if cut:
            self.log.emit(
                "login",
                "info",
                f"the answer to the probe is larger than the message size limit ({self.max_message_size} bytes); "
                "the rest was not read",
            )
        # The body is decoded already: the headers that describe its encoding no longer do.
        headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _BODY_ENCODING_HEADERS]
        return httpx2.Response(
            response.status_code,
            headers=headers,
            content=body,
            request=response.request,
            extensions=response.extensions,
        )

    def logout(self) -> bool:
        """Delete what is stored for the server and forget the tokens and client in memory;
        True when something was stored."""
        existed = self.store.delete(self.server_url)
        if self._provider is not None:
            self._provider.forget(keep_client=False)
        self.step_ups.clear()
        self.log.emit("logout", "ok" if existed else "info", "stored tokens removed" if existed else "nothing stored")
        return existed

    def status(self) -> JSONObject:
        """What is stored for this server, without any secret."""
        return describe_record(self.server_url, self.store.load(self.server_url), self.store)


def stored_tokens(record: JSONObject | None) -> set[str]:
    """Every access and refresh token a stored record holds, of any issuer."""
    found: set[str] = set()
    issuers = record.get("issuers") if isinstance(record, dict) else None
    for entry in (issuers or {}).values() if isinstance(issuers, dict) else ():
        token = entry.get("token") if isinstance(entry, dict) else None
        if isinstance(token, dict):
            found.update(v for k in ("access_token", "refresh_token") if isinstance(v := token.get(k), str) and v)
    return found


def describe_record(server: str, record: JSONObject | None, store: TokenStore) -> JSONObject:
    """A stored record described without secrets: per issuer the client, scope, whether a token
    and a refresh token are held and when they expire, and whether the server counts as logged in."""
    out: JSONObject = {"server": server, "logged_in": False, "store": store.backend, "issuers": []}
    if not isinstance(record, dict):
        return out
    now = clock.now()
    out["current_issuer"] = record.get("current_issuer")
    out["secrets_in"] = record.get("secrets")
    out["updated_at"] = record.get("updated_at")
    for issuer, entry in (record.get("issuers") or {}).items():
        if not isinstance(entry, dict):
            continue
        token: JSONObject = entry["token"] if isinstance(entry.get("token"), dict) else {}
        client: JSONObject = entry["client"] if isinstance(entry.get("client"), dict) else {}
        expires_at = entry.get("expires_at")
        expired = isinstance(expires_at, (int, float)) and expires_at <= now
        has_token = bool(token.get("access_token")) or (record.get("secrets") == "keyring" and "token_type" in token)
        item = {
            "issuer": issuer,
            "client_id": client.get("client_id"),
            "client_kind": entry.get("client_kind"),
            "scope": entry.get("scope"),
            "token": has_token,
            "refresh_token": bool(token.get("refresh_token")),
            "obtained_at": entry.get("obtained_at"),
            "expires_at": expires_at,
            "expired": bool(expired),
        }
        out["issuers"].append(item)
        if issuer == record.get("current_issuer") and has_token and (not expired or item["refresh_token"]):
            out["logged_in"] = True
    return out


def _probe_body() -> bytes:
    """The unauthenticated `initialize` whose answer starts the flow."""
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": PROBE_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "inspector", "version": "auth-probe"},
        },
    }
    return json.dumps(body).encode()


def _remember_session(response: httpx2.Response, session_ids: list[str]) -> None:
    session_id = response.headers.get("mcp-session-id")
    if session_id and response.status_code < 300 and session_id not in session_ids:
        session_ids.append(session_id)


async def _end_sessions(http: httpx2.AsyncClient, url: str, session_ids: list[str], headers: dict[str, str]) -> None:
    """A probe that opened a session closes it again (DELETE), as the spec asks."""
    import httpx2

    for session_id in session_ids:
        auth_headers = dict(headers)
        auth_headers["Mcp-Session-Id"] = session_id
        try:
            await http.delete(url, headers=auth_headers)
        except httpx2.HTTPError:
            continue
    session_ids.clear()


def session_for(spec: ServerSpec) -> OAuthSession | None:
    """The spec's OAuth session (created on first use), or None for no auth handling."""
    config = spec.auth
    if config is None or not spec.url:
        return None
    if config.session is None or config.session.server_url != server_key(spec.url):
        config.session = OAuthSession(config, spec.url)
    config.session.max_message_size = spec.max_message_size
    return config.session


def http_auth(spec: ServerSpec, traffic: TrafficLog) -> httpx2.Auth | None:
    """The `httpx2.Auth` for a spec's HTTP transports (None when the spec has no auth settings)."""
    session = session_for(spec)
    if session is None:
        return None
    session.attach(traffic)
    return session.http_auth()
