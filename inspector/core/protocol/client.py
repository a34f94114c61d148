"""The MCP client: connection set-up, the handshake, and every operation the
faces use.  One `Client` owns one connection at a time; `reconnect()` makes
a fresh one with the same spec, keeping observers and the traffic log."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import replace
from subprocess import Popen
from typing import TYPE_CHECKING, Any

from inspector import __version__
from inspector.core.background import BackgroundTasks
from inspector.core.protocol.cache import CacheEntry, ResultCache, cache_hint, duration_text
from inspector.core.protocol.eras import Era, LegacyEra, ModernEra
from inspector.core.protocol.errors import (
    ConnectError,
    ConnectionClosed,
    ConnectTimeout,
    EraFallback,
    InspectorError,
    JsonRpcError,
    ProtocolError,
    RequestTimeout,
    TransportFallback,
)
from inspector.core.protocol.handlers import ClientHandlers
from inspector.core.protocol.items import KIND_FIELDS, LIST_METHODS, Item, ListResult, parse_items
from inspector.core.protocol.modern import tool_header_paths
from inspector.core.protocol.mrtr import RoundStepper
from inspector.core.protocol.operation import Operation
from inspector.core.protocol.pending import ProgressCallback
from inspector.core.protocol.server_requests import ServerRequest
from inspector.core.protocol.session import NotificationObserver, Session
from inspector.core.protocol.subscriptions import Subscription, subscription_id_of
from inspector.core.protocol.tasks import TaskInfo, TaskTracker
from inspector.core.protocol.versions import HANDSHAKE_VERSIONS, KNOWN_VERSIONS, MODERN_VERSIONS
from inspector.core.record.traffic import Frame, TrafficLog
from inspector.core.servers.spec import ServerSpec
from inspector.core.transports.base import Transport

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["CAPABILITY_OF_KIND", "CLIENT_INFO", "Client", "make_transport"]

CLIENT_INFO = {"name": "inspector", "title": "MCP Inspector (terminal)", "version": __version__}

LIST_CHANGED_KINDS = {
    "notifications/tools/list_changed": ("tools",),
    "notifications/resources/list_changed": ("resources", "templates"),
    "notifications/prompts/list_changed": ("prompts",),
}

CAPABILITY_OF_KIND = {
    "tools": "tools",
    "resources": "resources",
    "templates": "resources",
    "prompts": "prompts",
}

DEFAULT_MAX_PAGES = 1000
# SEP-2640: the skills extension, whose `directoryRead` setting declares `resources/directory/read`.
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
DIRECTORY_READ = "resources/directory/read"
DIRECTORY_MIME = "inode/directory"

StateObserver = Callable[[str, str | None], None]
# Called with each page's items as it arrives (while the next page is on its way).
PageObserver = Callable[[list[Item]], None]


def make_transport(
    spec: ServerSpec, traffic: TrafficLog, transport: str | None = None, process: Popen[bytes] | None = None
) -> Transport:
    kind = transport or spec.transport
    if kind == "stdio":
        from inspector.core.transports.stdio import StdioTransport

        if not spec.command:
            raise ConnectError("no command given for a stdio server")
        return StdioTransport(
            traffic,
            spec.command,
            spec.args,
            spec.env,
            spec.cwd,
            spec.inherit_env,
            process,
            max_message_size=spec.max_message_size,
        )
    if not spec.url:
        raise ConnectError(f"no URL given for an {kind} server")
    from inspector.core.auth.session import http_auth

    auth = http_auth(spec, traffic)
    max_size = spec.max_message_size
    if kind in ("http", "auto"):
        from inspector.core.transports.streamable_http import StreamableHttpTransport

        return StreamableHttpTransport(
            traffic,
            spec.url,
            spec.headers,
            spec.secret_names,
            allow_fallback=(kind == "auto"),
            open_get_stream=spec.get_stream,
            auth=auth,
            max_message_size=max_size,
            request_timeout=spec.timeout,
        )
    if kind == "sse":
        from inspector.core.transports.legacy_sse import LegacySseTransport

        return LegacySseTransport(
            traffic,
            spec.url,
            spec.headers,
            spec.secret_names,
            auth=auth,
            max_message_size=max_size,
            request_timeout=spec.timeout,
        )
    raise ConnectError(f"unknown transport {kind!r} (use stdio, http or sse)")


class Client:
    def __init__(
        self,
        spec: ServerSpec,
        *,
        handlers: ClientHandlers | None = None,
        traffic: TrafficLog | None = None,
        client_info: JSONObject | None = None,
        process: Popen[bytes] | None = None,
    ) -> None:
        self.spec = spec
        # A stdio server already started by the caller (the CLI starts it
        # before its own imports); used for the first connection only.
        self._prespawned = process
        self.handlers = handlers or ClientHandlers()
        self.traffic = traffic if traffic is not None else TrafficLog()
        self.client_info = dict(client_info or CLIENT_INFO)
        self.session: Session | None = None
        self.transport: Transport | None = None
        self.state = "idle"
        self.state_detail: str | None = None
        self.era_impl: Era | None = None
        # Manual multi round-trip mode: asked before each retry (None: automatic).
        self.mrtr_stepper: RoundStepper | None = None
        self.cache = ResultCache()
        self.resource_subscriptions: set[str] = set()
        self.subscription: Subscription | None = None
        self._subscriptions: dict[Any, Subscription] = {}
        self.tasks = TaskTracker(self)
        self._notification_observers: list[NotificationObserver] = []
        self._state_observers: list[StateObserver] = []
        # The one re-initialisation in progress after HTTP 404 on our session.
        self._reinit_task: asyncio.Task[None] | None = None
        # Re-initialisations, ended when the connection is dropped.
        self._background = BackgroundTasks()

    # -- observers -------------------------------------------------------------------

    def on_notification(self, observer: NotificationObserver) -> None:
        self._notification_observers.append(observer)
        if self.session is not None:
            self.session.notification_observers.append(observer)

    def on_state(self, observer: StateObserver) -> None:
        self._state_observers.append(observer)

    def _set_state(self, state: str, detail: str | None = None) -> None:
        self.state = state
        self.state_detail = detail
        for observer in list(self._state_observers):
            try:
                observer(state, detail)
            except Exception as exc:  # noqa: BLE001 - an observer must never break the client; logged instead
                self.traffic.event("local", "transport", note=f"state observer failed: {exc!r}")

    # -- facts about the server ------------------------------------------------------

    @property
    def server_info(self) -> JSONObject:
        return self.era_impl.server_info if self.era_impl is not None else {}

    @property
    def server_capabilities(self) -> JSONObject:
        return self.era_impl.capabilities if self.era_impl is not None else {}

    @property
    def instructions(self) -> str | None:
        return self.era_impl.instructions if self.era_impl is not None else None

    @property
    def initialize_result(self) -> JSONObject:
        """What opened the connection: the initialize result, or the discover result."""
        return self.era_impl.result if self.era_impl is not None else {}

    @property
    def protocol_version(self) -> str | None:
        return self.era_impl.protocol_version if self.era_impl is not None else None

    @property
    def offered_version(self) -> str | None:
        return self.era_impl.offered_version if self.era_impl is not None else None

    @property
    def era(self) -> str:
        return self.era_impl.name if self.era_impl is not None else self.spec.era

    @property
    def modern(self) -> ModernEra | None:
        return self.era_impl if isinstance(self.era_impl, ModernEra) else None

    @property
    def transport_kind(self) -> str:
        return self.transport.kind if self.transport is not None else self.spec.transport

    @property
    def in_flight(self) -> int:
        return self.session.in_flight if self.session is not None else 0

    def has_capability(self, name: str) -> bool:
        return name in self.server_capabilities

    def stderr_tail(self) -> list[str]:
        tail = self.transport.stderr_tail() if self.transport is not None else []
        # The log's frames are masked; the tail the transport keeps for messages is not.
        mask = self.traffic.mask
        text = getattr(mask, "raw_text", None)
        return [text(line) for line in tail] if text is not None else tail

    # -- connecting ------------------------------------------------------------------

    async def connect(self) -> JSONObject:
        self._set_state("connecting", self.spec.label())
        try:
            result = await self._connect_with_fallback()
        except InspectorError as exc:
            error = self._describe_connect_failure(exc)
            await self._drop_connection()
            # Nothing was negotiated: no revision, no era to report or to
            # shape requests (a log level, say) by.
            self.era_impl = None
            self._set_state("disconnected", str(error))
            raise error from exc
        self._set_state("connected", None)
        return result

    async def _connect_with_fallback(self) -> JSONObject:
        try:
            return await self._connect_once(None)
        except TransportFallback as fallback:
            self.traffic.event(
                "local",
                "transport",
                note=f"Streamable HTTP refused ({fallback}); falling back to legacy HTTP+SSE as the spec describes",
            )
            await self._drop_connection()
            return await self._connect_once("sse")

    def _describe_connect_failure(self, exc: InspectorError) -> InspectorError:
        if isinstance(exc, (ConnectError, ProtocolError)):
            return exc
        tail = self.stderr_tail()
        detail = "\n".join(tail[-20:]) if tail else None
        if isinstance(exc, ConnectionClosed):
            return ConnectError(f"the server went away while connecting: {exc}", detail=detail)
        if isinstance(exc, ConnectTimeout):
            return exc
        if isinstance(exc, RequestTimeout):
            # A timeout, not a refusal: the scripting commands exit with the
            # timeout code, as `--timeout` documents.
            return ConnectTimeout(exc.method, exc.timeout, detail=detail)
        if isinstance(exc, JsonRpcError):
            return ConnectError(f"the server refused the connection: {exc}", detail=detail)
        return ConnectError(f"could not connect: {exc}", detail=detail)

    async def _connect_once(self, transport_kind: str | None) -> JSONObject:
        process, self._prespawned = self._prespawned, None
        transport = make_transport(self.spec, self.traffic, transport_kind, process)
        self.transport = transport
        # The session exists before the process starts: a server that prints
        # a banner at once must find someone to record it.
        session = Session(transport, self.traffic, default_timeout=self.spec.timeout)
        self.session = session
        self._install(session)
        if hasattr(transport, "on_session_expired"):
            # The GET stream may be the first to learn that the session is gone.
            transport.on_session_expired = self._session_expired
        await transport.start()
        return await self._open_era(transport)

    def _era_choice(self, transport: Transport) -> str:
        pinned = self.spec.protocol_version
        if pinned in MODERN_VERSIONS:
            return "modern"
        if pinned in HANDSHAKE_VERSIONS or transport.kind == "sse":
            return "legacy"
        if pinned is not None:
            raise ConnectError(f"unknown protocol version {pinned!r}; known revisions: {', '.join(KNOWN_VERSIONS)}")
        if self.spec.era not in ("auto", "legacy", "modern"):
            raise ConnectError(f"unknown era {self.spec.era!r} (use auto, legacy or modern)")
        return self.spec.era

    async def _open_era(self, transport: Transport) -> JSONObject:
        choice = self._era_choice(transport)
        if choice == "legacy":
            self.era_impl = LegacyEra(self)
            return await self.era_impl.open()
        modern = ModernEra(self, probe=choice == "auto")
        self.era_impl = modern
        try:
            return await modern.open()
        except EraFallback as fallback:
            self.traffic.event("local", "transport", note=f"era probe: a legacy server ({fallback}); using initialize")
        session, _transport = self.require()
        session.prepare_params = None
        session.inspect_result = None
        transport.modern = False
        transport.protocol_version = None
        self.era_impl = LegacyEra(self)
        try:
            result = await self.era_impl.open()
        except (JsonRpcError, ProtocolError) as refused:
            # A stateless server slow to start answers the probe late and
            # refuses initialize: it was modern after all.
            late = await modern.late_answer()
            if late is None:
                modern.forget_probe()
                raise
            self.traffic.event(
                "local", "transport", note=f"initialize refused ({refused}); the era probe's late answer says stateless"
            )
            self.era_impl = modern
            return await modern.adopt(late)
        except BaseException:
            # initialize timed out, the server went away, or we were cancelled:
            # the probe will never be answered now; stop waiting for it quietly.
            modern.forget_probe()
            raise
        modern.forget_probe()
        return result

    def _install(self, session: Session) -> None:
        session.notification_observers.extend(self._notification_observers)
        session.notification_observers.append(self._builtin_notifications)
        session.server_requests.handlers["ping"] = self._answer_ping
        handlers = self.handlers
        if handlers.supports_roots:
            session.server_requests.handlers["roots/list"] = self._answer_roots
        if handlers.supports_sampling:
            session.server_requests.handlers["sampling/createMessage"] = handlers.create_message
        if handlers.supports_elicitation:
            session.server_requests.handlers["elicitation/create"] = handlers.elicit
        session.on_connection_lost(self._on_lost)

    async def _answer_ping(self, request: ServerRequest) -> JSONObject:
        return {}

    async def _answer_roots(self, request: ServerRequest) -> JSONObject:
        return {"roots": await self.handlers.list_roots(request)}

    def _builtin_notifications(self, method: str, params: Any, frame: Frame) -> None:
        subscription_id = subscription_id_of(params)
        if subscription_id is not None:
            subscription = self._subscriptions.get(subscription_id)
            if subscription is None:
                frame.problems.append(f"notification for unknown subscription {subscription_id!r}")
            else:
                frame.partner = subscription.operation.first_frame.seq if subscription.operation.first_frame else None
                subscription.deliver(method, params, frame)
        for kind in LIST_CHANGED_KINDS.get(method, ()):
            self.cache.invalidate(kind)
        if method == "notifications/resources/updated" and isinstance(params, dict):
            uri = params.get("uri")
            if isinstance(uri, str):
                self.cache.invalidate("read", uri)
        self.tasks.on_notification(method, params)
        if method == "notifications/elicitation/complete" and isinstance(params, dict):
            elicitation_id = params.get("elicitationId")
            if isinstance(elicitation_id, str):
                self.handlers.elicitation_complete(elicitation_id)

    def _on_lost(self, reason: str) -> None:
        if self.state != "closed":
            tail = self.stderr_tail()
            detail = reason + ("\n" + "\n".join(tail[-10:]) if tail else "")
            self._set_state("disconnected", detail)

    def require(self) -> tuple[Session, Transport]:
        if self.session is None or self.transport is None:
            raise ConnectionClosed("not connected")
        return self.session, self.transport

    async def _drop_connection(self) -> None:
        await self._background.cancel_all()
        session, transport = self.session, self.transport
        self.session = None
        # Dropped either way: a close that fails (a pipe or socket already gone,
        # a server that resets) must not keep the client from closing or reconnecting.
        if session is not None:
            with contextlib.suppress(Exception):
                await session.close()
        elif transport is not None:
            with contextlib.suppress(Exception):
                await transport.close()

    async def reconnect(self) -> JSONObject:
        # End the old connection's subscriptions properly first; answers that
        # still come for its requests are recognised as late, not blamed on
        # the server.
        for subscription in list(self._subscriptions.values()):
            await subscription.close()
        await self._drop_connection()
        self._subscriptions.clear()
        self.subscription = None
        self.cache.clear()
        self.era_impl = None
        return await self.connect()

    async def close(self) -> None:
        await self.tasks.stop()
        for subscription in list(self._subscriptions.values()):
            await subscription.close()
        self._subscriptions.clear()
        self._set_state("closed", None)
        await self._drop_connection()

    # -- requests --------------------------------------------------------------------

    async def start_request(
        self,
        method: str,
        params: Any = None,
        *,
        timeout: float | bool | None = True,
        on_progress: ProgressCallback | None = None,
    ) -> Operation:
        """Send a request; the returned operation finishes it (retries, rounds) and cancels it."""
        return await Operation(self, method, params, timeout=timeout, on_progress=on_progress).start()

    async def request(
        self,
        method: str,
        params: Any = None,
        *,
        timeout: float | bool | None = True,
        on_progress: ProgressCallback | None = None,
    ) -> Any:
        operation = await self.start_request(method, params, timeout=timeout, on_progress=on_progress)
        return await operation.result()

    async def reinitialize(self, expired: str | None = None) -> None:
        """A fresh handshake on the same transport (after HTTP 404 on our session).

        Several requests in flight may learn of the expiry at once: they share
        one re-initialisation, and one that learns of it after the session was
        already renewed (`expired` is no longer the current session) just
        resends.
        """
        task = self._reinit_task
        if task is not None and not task.done():
            await self._join(task)
            return
        _session, transport = self.require()
        if expired is not None and getattr(transport, "session_id", None) != expired:
            return
        task = self._background.start(self._reinitialize(expired))
        self._reinit_task = task
        await self._join(task)

    @staticmethod
    async def _join(task: asyncio.Task[None]) -> None:
        """Wait for the shared re-initialisation; its failure is the caller's too.

        Shielded: a caller that stops waiting does not stop it for the others.
        Cancelled with the connection (a close, a reconnect), it is the
        connection that closed, for a caller not cancelled itself.
        """
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if task.cancelled() and current is not None and not current.cancelling():
                raise ConnectionClosed("the connection was closed while a new session was being opened") from None
            raise

    async def _reinitialize(self, expired: str | None) -> None:
        session, transport = self.require()
        what = f"session {expired}" if expired else "the session"
        self.traffic.event("local", "transport", note=f"{what} expired (HTTP 404); initializing a new session")
        reset = getattr(transport, "reset_session", None)
        if reset is not None:
            reset()
        self.era_impl = LegacyEra(self)
        await self.era_impl.open()
        # A new session has no subscriptions: renew the ones the person made.
        for uri in sorted(self.resource_subscriptions):
            with contextlib.suppress(InspectorError):
                await session.request("resources/subscribe", {"uri": uri}, note="renewed in the new session")

    async def wait_reinitialized(self) -> None:
        """Until a re-initialisation in progress has finished (its failure is the caller's too)."""
        task = self._reinit_task
        if task is not None and not task.done() and task is not asyncio.current_task():
            await self._join(task)

    def _session_expired(self, expired: str | None) -> None:
        """The transport saw HTTP 404 outside any request (the GET stream)."""
        task = self._reinit_task
        if task is not None and not task.done():
            return
        background = self._background.start(self.reinitialize(expired))
        background.add_done_callback(self._note_background_reinit)

    def _note_background_reinit(self, task: asyncio.Task[None]) -> None:
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            self.traffic.event("local", "transport", note=f"opening a new session failed: {error}")

    async def notify(self, method: str, params: Any = None) -> None:
        session, _transport = self.require()
        await session.notify(method, params)

    # -- MCP operations --------------------------------------------------------------

    async def ping(self) -> Any:
        if self.modern is not None:
            raise ProtocolError("ping does not exist in the stateless era (2026-07-28)")
        return await self.request("ping")

    async def list_page(self, kind: str, cursor: str | None = None) -> Any:
        params = {"cursor": cursor} if cursor is not None else None
        return await self.request(LIST_METHODS[kind], params)

    async def list_all(
        self,
        kind: str,
        *,
        max_pages: int = DEFAULT_MAX_PAGES,
        force: bool = False,
        refresh: bool = False,
        on_page: PageObserver | None = None,
    ) -> ListResult:
        """Every page of a list, following `nextCursor` up to `max_pages`.

        In the stateless era a list fetched within its `ttlMs` is served from
        the cache (marked `from_cache`) unless `refresh`.
        """
        capability = CAPABILITY_OF_KIND[kind]
        if not force and self.initialize_result and not self.has_capability(capability):
            listing = ListResult(kind)
            listing.problems.append(f"the server does not declare the {capability!r} capability")
            return listing
        cached = self.cache.get(kind) if not refresh else None
        # The cache holds read results too; a list kind's entry is a ListResult.
        if cached is not None and isinstance(cached.value, ListResult):
            listing = replace(cached.value, from_cache=True, age=cached.age)
            self.traffic.event(
                "local",
                "transport",
                note=f"{LIST_METHODS[kind]} served from cache (age {duration_text(cached.age * 1000)}, "
                f"ttl {duration_text(cached.ttl_ms)}, scope {cached.scope})",
            )
            if kind == "tools":
                self._learn_tool_headers(listing.items)
            return listing
        listing = await self._fetch_list(kind, max_pages, on_page)
        if kind == "tools":
            self._apply_tool_headers(listing)
        if listing.pages:
            listing.ttl_ms, listing.cache_scope = cache_hint(listing.pages[0])
            if listing.ttl_ms:
                self.cache.put(kind, "", listing, listing.ttl_ms, listing.cache_scope)
        return listing

    def _modern_http(self) -> Transport | None:
        transport = self.transport
        if transport is None or not transport.modern or transport.kind != "http":
            return None
        return transport

    def _apply_tool_headers(self, listing: ListResult) -> None:
        """Stateless HTTP: learn each tool's x-mcp-header paths; exclude invalid tools."""
        if self._modern_http() is None:
            return
        kept = []
        for item in listing.items:
            _paths, problem = tool_header_paths(item.data.get("inputSchema"))
            if problem is not None:
                item.problems.append(f"excluded: {problem}")
                listing.excluded.append(item)
                continue
            kept.append(item)
        listing.items = kept
        if listing.excluded:
            listing.problems.append(f"{len(listing.excluded)} tool(s) excluded for invalid x-mcp-header annotations")
        self._learn_tool_headers(kept)

    def _learn_tool_headers(self, items: list[Item]) -> None:
        """The header paths the transport mirrors into `Mcp-Param-*`, from these (valid) tools."""
        transport = self._modern_http()
        if transport is None:
            return
        headers: dict[str, dict[str, tuple[str, ...]]] = {}
        for item in items:
            paths, problem = tool_header_paths(item.data.get("inputSchema"))
            if problem is None:
                headers[item.key] = paths
        transport.tool_headers = headers  # type: ignore[attr-defined]

    @property
    def directory_read(self) -> bool:
        """The server declares `resources/directory/read` (the skills extension's `directoryRead: true`)."""
        extensions = self.server_capabilities.get("extensions")
        settings = extensions.get(SKILLS_EXTENSION) if isinstance(extensions, dict) else None
        return isinstance(settings, dict) and settings.get("directoryRead") is True

    async def read_directory_page(self, uri: str, cursor: str | None = None) -> Any:
        """One page of `resources/directory/read`; only for a server that declares it (the spec's MUST NOT)."""
        self._require_directory_read()
        params: JSONObject = {"uri": uri}
        if cursor is not None:
            params["cursor"] = cursor
        return await self.request(DIRECTORY_READ, params)

    async def read_directory(
        self, uri: str, *, max_pages: int = DEFAULT_MAX_PAGES, on_page: PageObserver | None = None
    ) -> ListResult:
        """A directory resource's direct children, every page (kind "resources")."""
        self._require_directory_read()
        return await self._fetch_list("resources", max_pages, on_page, method=DIRECTORY_READ, params={"uri": uri})

    def _require_directory_read(self) -> None:
        if not self.directory_read:
            raise ProtocolError(
                f"the server does not declare {DIRECTORY_READ} "
                f"(capabilities.extensions[{SKILLS_EXTENSION!r}].directoryRead is not true)"
            )

    async def _fetch_list(
        self,
        kind: str,
        max_pages: int,
        on_page: PageObserver | None = None,
        *,
        method: str | None = None,
        params: JSONObject | None = None,
    ) -> ListResult:
        """Follow nextCursor.  The next page is asked for before this one is
        parsed, so our parsing overlaps the server's work on the next.
        `method` and `params` name another paginated request of the same shape."""
        listing = ListResult(kind)
        key = KIND_FIELDS[kind][0]
        method = method or LIST_METHODS[kind]
        seen: set[str] = set()
        operation: Operation | None = await self.start_request(method, dict(params) if params else None)
        page_number = 0
        while operation is not None:
            try:
                result = await operation.result()
            except JsonRpcError as exc:
                if page_number == 0:
                    raise
                # Keep the pages that worked; say where it broke.
                listing.problems.append(f"page {page_number + 1} failed: {exc.message} (code {exc.code})")
                listing.complete = False
                break
            operation = None
            listing.pages.append(result if isinstance(result, dict) else {"_invalid": result})
            if not isinstance(result, dict):
                listing.problems.append(f"page {page_number + 1}: the result is not an object")
                break
            next_cursor = result.get("nextCursor")
            if next_cursor is not None:
                if not isinstance(next_cursor, str):
                    listing.problems.append(f"page {page_number + 1}: nextCursor is not a string: {next_cursor!r}")
                    listing.complete = False
                elif next_cursor in seen:
                    listing.problems.append(f"page {page_number + 1}: nextCursor {next_cursor!r} repeats; stopped")
                    listing.complete = False
                elif page_number + 1 >= max_pages:
                    listing.problems.append(f"stopped after {max_pages} pages; the server still offered a nextCursor")
                    listing.complete = False
                else:
                    seen.add(next_cursor)
                    operation = await self.start_request(method, {**(params or {}), "cursor": next_cursor})
            raw_items = result.get(key)
            if not isinstance(raw_items, list):
                listing.problems.append(f"page {page_number + 1}: {key!r} is missing or not an array")
                raw_items = []
            first = len(listing.items)
            listing.items.extend(parse_items(kind, raw_items, page_number))
            if on_page is not None:
                on_page(listing.items[first:])
            page_number += 1
        return listing

    def call_params(self, name: str, arguments: JSONObject | None, task: JSONObject | None = None) -> JSONObject:
        params: JSONObject = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        if task is not None:
            params["task"] = task
        return params

    def task_support(self, tool: JSONObject) -> str:
        """How a 2025-11-25 tool may run as a task: forbidden, optional or required.

        Tools can only be tasks where the server declares
        `tasks.requests.tools.call`; the stateless era's extension tasks are
        the server's choice and need no request flag.
        """
        if self.modern is not None:
            return "forbidden"
        caps = self.server_capabilities.get("tasks")
        requests = caps.get("requests") if isinstance(caps, dict) else None
        tools = requests.get("tools") if isinstance(requests, dict) else None
        if not isinstance(tools, dict) or "call" not in tools:
            return "forbidden"
        execution = tool.get("execution")
        support = execution.get("taskSupport") if isinstance(execution, dict) else None
        return support if support in ("optional", "required") else "forbidden"

    async def start_call_tool(
        self,
        name: str,
        arguments: JSONObject | None = None,
        *,
        on_progress: ProgressCallback | None = None,
        timeout: float | bool | None = True,
        task_ttl: int | None = None,
    ) -> Operation:
        """Start a call; `task_ttl` (2025-11-25) asks for it to run as a task."""
        task = {"ttl": task_ttl} if task_ttl is not None else None
        return await self.start_request(
            "tools/call", self.call_params(name, arguments, task), timeout=timeout, on_progress=on_progress
        )

    async def finish_task(self, result: Any, origin: str, on_status: Any = None) -> tuple[Any, TaskInfo | None]:
        """If `result` is a task, follow it to the end: (final result, the task)."""
        info = self.tasks.adopt(result, origin)
        if info is None:
            return result, None
        return await self.tasks.wait(info, on_status=on_status), info

    async def call_tool(
        self,
        name: str,
        arguments: JSONObject | None = None,
        *,
        on_progress: ProgressCallback | None = None,
        timeout: float | bool | None = True,
    ) -> Any:
        return await self.request(
            "tools/call", self.call_params(name, arguments), timeout=timeout, on_progress=on_progress
        )

    async def read_resource(self, uri: str) -> Any:
        return await self.request("resources/read", {"uri": uri})

    async def read_resource_cached(self, uri: str, *, refresh: bool = False) -> tuple[Any, CacheEntry | None]:
        """A read that honours `ttlMs`: (result, the cache entry when it was served from cache)."""
        cached = self.cache.get("read", uri) if not refresh else None
        if cached is not None:
            self.traffic.event(
                "local",
                "transport",
                note=f"resources/read {uri} served from cache (age {cached.age:.1f} s, ttl {cached.ttl_ms} ms)",
            )
            return cached.value, cached
        result = await self.read_resource(uri)
        ttl, scope = cache_hint(result)
        if ttl:
            self.cache.put("read", uri, result, ttl, scope)
        return result, None

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> Any:
        params: JSONObject = {"name": name}
        if arguments:
            params["arguments"] = arguments
        return await self.request("prompts/get", params)

    async def complete(self, ref: JSONObject, argument: str, value: str, context: dict[str, str] | None = None) -> Any:
        params: JSONObject = {"ref": ref, "argument": {"name": argument, "value": value}}
        if context:
            params["context"] = {"arguments": context}
        return await self.request("completion/complete", params)

    async def set_logging_level(self, level: str) -> Any:
        """Handshake era: logging/setLevel.  Stateless era: the per-request envelope opts in."""
        modern = self.modern
        if modern is not None:
            modern.log_level = level
            self.traffic.event("local", "transport", note=f"log level {level} goes in every request's _meta from now")
            return {}
        return await self.request("logging/setLevel", {"level": level})

    async def subscribe(self, uri: str) -> Any:
        if self.modern is not None:
            self.resource_subscriptions.add(uri)
            await self.listen_changes()
            return {}
        result = await self.request("resources/subscribe", {"uri": uri})
        self.resource_subscriptions.add(uri)
        return result

    async def unsubscribe(self, uri: str) -> Any:
        if self.modern is not None:
            self.resource_subscriptions.discard(uri)
            await self.listen_changes()
            return {}
        result = await self.request("resources/unsubscribe", {"uri": uri})
        self.resource_subscriptions.discard(uri)
        return result

    async def listen(self, notifications: JSONObject) -> Subscription:
        """Open a `subscriptions/listen` stream (stateless era)."""
        operation = await self.start_request("subscriptions/listen", {"notifications": notifications}, timeout=False)
        subscription = Subscription(notifications, operation)
        self._subscriptions[operation.id] = subscription
        if operation.current is not None:
            # Nobody need await a subscription's end; its outcome is kept on it.
            operation.current.future.add_done_callback(subscription.note_end)
        return subscription

    async def listen_changes(self) -> Subscription | None:
        """The client's own subscription: every list change the server offers,
        plus the resources subscribed to.  Replaces the previous one."""
        if self.modern is None:
            return None
        caps = self.server_capabilities
        wanted: JSONObject = {}
        for capability, key in (
            ("tools", "toolsListChanged"),
            ("prompts", "promptsListChanged"),
            ("resources", "resourcesListChanged"),
        ):
            if isinstance(caps.get(capability), dict) and caps[capability].get("listChanged"):
                wanted[key] = True
        if self.resource_subscriptions:
            wanted["resourceSubscriptions"] = sorted(self.resource_subscriptions)
        previous = self.subscription
        self.subscription = await self.listen(wanted) if wanted else None
        if previous is not None:
            await previous.close()
            self._subscriptions.pop(previous.id, None)
        return self.subscription

    async def roots_changed(self) -> None:
        """Tell the server the roots changed (handshake era only).

        The stateless era has no such notification: a server that needs the
        roots asks for them in an `input_required` answer, so the new roots
        travel with the next request that needs them.
        """
        if self.modern is not None:
            self.traffic.event(
                "local",
                "transport",
                note="roots changed; 2026-07-28 has no notifications/roots/list_changed: "
                "servers get the new roots when they next ask (inputRequests)",
            )
            return
        await self.notify("notifications/roots/list_changed")
