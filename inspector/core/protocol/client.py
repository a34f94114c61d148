"""The MCP client: connection set-up, the handshake, and every operation the
faces use.  One `Client` owns one connection at a time; `reconnect()` makes
a fresh one with the same spec, keeping observers and the traffic log."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from subprocess import Popen
from typing import TYPE_CHECKING, Any

from inspector import __version__
from inspector.core.protocol import tool_calls
from inspector.core.protocol.builtin_handling import BuiltinHandling
from inspector.core.protocol.cache import CacheEntry, ResultCache
from inspector.core.protocol.cached_results import cached_listing, cached_read, keep_listing, keep_read
from inspector.core.protocol.eras import Era
from inspector.core.protocol.errors import (
    ConnectionClosed,
    InspectorError,
    ProtocolError,
    TransportFallback,
)
from inspector.core.protocol.handlers import ClientHandlers
from inspector.core.protocol.items import LIST_METHODS, ListResult
from inspector.core.protocol.listing import (
    DEFAULT_MAX_PAGES,
    DIRECTORY_READ,
    PageObserver,
    apply_tool_headers,
    declares_directory_read,
    fetch_list,
    learn_tool_headers,
    require_directory_read,
)
from inspector.core.protocol.mrtr import RoundStepper
from inspector.core.protocol.opening import connect_failure, fallback_note, open_era
from inspector.core.protocol.operation import Operation
from inspector.core.protocol.pending import ProgressCallback
from inspector.core.protocol.renewal import SessionRenewal
from inspector.core.protocol.server_facts import ServerFacts
from inspector.core.protocol.session import NotificationObserver, Session
from inspector.core.protocol.subscriptions import Subscription
from inspector.core.protocol.tasks import TaskInfo, TaskTracker
from inspector.core.record.traffic import TrafficLog
from inspector.core.servers.spec import ServerSpec
from inspector.core.transports.base import Transport
from inspector.core.transports.choice import make_transport

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["CAPABILITY_OF_KIND", "CLIENT_INFO", "Client"]

CLIENT_INFO = {"name": "inspector", "title": "MCP Inspector (terminal)", "version": __version__}

CAPABILITY_OF_KIND = {
    "tools": "tools",
    "resources": "resources",
    "templates": "resources",
    "prompts": "prompts",
}


StateObserver = Callable[[str, str | None], None]


class Client(ServerFacts):
    """The MCP client of one server spec: one connection at a time, what the server said about itself,
    and every operation the faces use."""

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
        self._builtin = BuiltinHandling(self, self._subscriptions)
        self.tasks = TaskTracker(self)
        self._notification_observers: list[NotificationObserver] = []
        self._state_observers: list[StateObserver] = []
        # Re-initialisations after HTTP 404 on our session, ended when the connection is dropped.
        self._renewal = SessionRenewal(self)

    # -- observers -------------------------------------------------------------------

    def on_notification(self, observer: NotificationObserver) -> None:
        """Call `observer` with each notification the server sends, on this connection and the next ones."""
        self._notification_observers.append(observer)
        if self.session is not None:
            self.session.notification_observers.append(observer)

    def on_state(self, observer: StateObserver) -> None:
        """Call `observer` with each change of state (connecting, connected, disconnected, closed) and its detail."""
        self._state_observers.append(observer)

    def _set_state(self, state: str, detail: str | None = None) -> None:
        self.state = state
        self.state_detail = detail
        for observer in list(self._state_observers):
            try:
                observer(state, detail)
            except Exception as exc:  # noqa: BLE001 - an observer must never break the client; logged instead
                self.traffic.event("local", "transport", note=f"state observer failed: {exc!r}")

    # -- connecting ------------------------------------------------------------------

    async def connect(self) -> JSONObject:
        """Open a connection (falling back to the legacy SSE transport where allowed); the result that opened it.
        A failure leaves the client disconnected and raises an error that says why."""
        self._set_state("connecting", self.spec.label())
        try:
            result = await self._connect_with_fallback()
        except InspectorError as exc:
            error = connect_failure(exc, self.stderr_tail)
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
            self.traffic.event("local", "transport", note=fallback_note(fallback))
            await self._drop_connection()
            return await self._connect_once("sse")

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
            transport.on_session_expired = self._renewal.expired_in_background
        await transport.start()
        return await open_era(self, transport)

    def _install(self, session: Session) -> None:
        session.notification_observers.extend(self._notification_observers)
        self._builtin.install(session)
        session.on_connection_lost(self._on_lost)

    def _on_lost(self, reason: str) -> None:
        if self.state != "closed":
            tail = self.stderr_tail()
            detail = reason + ("\n" + "\n".join(tail[-10:]) if tail else "")
            self._set_state("disconnected", detail)

    def require(self) -> tuple[Session, Transport]:
        """The session and transport of the open connection (ConnectionClosed when there is none)."""
        if self.session is None or self.transport is None:
            raise ConnectionClosed("not connected")
        return self.session, self.transport

    async def _drop_connection(self) -> None:
        await self._renewal.cancel_all()
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
        """Drop the connection, its subscriptions and cached results, and open a fresh one."""
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
        """End the tasks followed, the subscriptions and the connection, for good."""
        try:
            await self.tasks.stop()
            for subscription in list(self._subscriptions.values()):
                await subscription.close()
        finally:
            # The connection goes even when ending the rest fails or is cancelled.
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
        """Send a request and wait for its result (retries and rounds included, see `start_request`)."""
        operation = await self.start_request(method, params, timeout=timeout, on_progress=on_progress)
        return await operation.result()

    async def reinitialize(self, expired: str | None = None) -> None:
        """A fresh handshake on the same transport (after HTTP 404 on our session).

        Several requests in flight may learn of the expiry at once: they share
        one re-initialisation, and one that learns of it after the session was
        already renewed (`expired` is no longer the current session) just
        resends.
        """
        await self._renewal.renew(expired)

    async def wait_reinitialized(self) -> None:
        """Until a re-initialisation in progress has finished (its failure is the caller's too)."""
        await self._renewal.wait()

    async def notify(self, method: str, params: Any = None) -> None:
        """Send a notification."""
        session, _transport = self.require()
        await session.notify(method, params)

    # -- MCP operations --------------------------------------------------------------

    async def ping(self) -> Any:
        """Send ``ping`` (handshake era only)."""
        if self.modern is not None:
            raise ProtocolError("ping does not exist in the stateless era (2026-07-28)")
        return await self.request("ping")

    async def list_page(self, kind: str, cursor: str | None = None) -> Any:
        """One page of the list of `kind` (``tools``, ``resources``, ``templates``, ``prompts``), from `cursor`."""
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
        cached = cached_listing(self.cache, self.traffic, kind) if not refresh else None
        if cached is not None:
            if kind == "tools":
                learn_tool_headers(self._modern_http(), cached.items)
            return cached
        listing = await fetch_list(self.start_request, kind, max_pages, on_page)
        if kind == "tools":
            apply_tool_headers(self._modern_http(), listing)
        keep_listing(self.cache, kind, listing)
        return listing

    def _modern_http(self) -> Transport | None:
        transport = self.transport
        if transport is None or not transport.modern or transport.kind != "http":
            return None
        return transport

    @property
    def directory_read(self) -> bool:
        """The server declares `resources/directory/read` (the skills extension's `directoryRead: true`)."""
        return declares_directory_read(self.server_capabilities)

    async def read_directory_page(self, uri: str, cursor: str | None = None) -> Any:
        """One page of `resources/directory/read`; only for a server that declares it (the spec's MUST NOT)."""
        require_directory_read(self.server_capabilities)
        params: JSONObject = {"uri": uri}
        if cursor is not None:
            params["cursor"] = cursor
        return await self.request(DIRECTORY_READ, params)

    async def read_directory(
        self, uri: str, *, max_pages: int = DEFAULT_MAX_PAGES, on_page: PageObserver | None = None
    ) -> ListResult:
        """A directory resource's direct children, every page (kind "resources")."""
        require_directory_read(self.server_capabilities)
        return await fetch_list(
            self.start_request, "resources", max_pages, on_page, method=DIRECTORY_READ, params={"uri": uri}
        )

    def call_params(self, name: str, arguments: JSONObject | None, task: JSONObject | None = None) -> JSONObject:
        """The ``tools/call`` params for `name` with `arguments` (and `task`, to run it as a task)."""
        return tool_calls.call_params(name, arguments, task)

    def task_support(self, tool: JSONObject) -> str:
        """How a 2025-11-25 tool may run as a task: forbidden, optional or required.

        The stateless era's extension tasks are the server's choice and need no request flag.
        """
        return "forbidden" if self.modern is not None else tool_calls.task_support(self.server_capabilities, tool)

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
        """Call the tool `name` and wait for its result."""
        return await self.request(
            "tools/call", self.call_params(name, arguments), timeout=timeout, on_progress=on_progress
        )

    async def read_resource(self, uri: str) -> Any:
        """Read the resource at `uri`."""
        return await self.request("resources/read", {"uri": uri})

    async def read_resource_cached(self, uri: str, *, refresh: bool = False) -> tuple[Any, CacheEntry | None]:
        """A read that honours `ttlMs`: (result, the cache entry when it was served from cache)."""
        cached = cached_read(self.cache, self.traffic, uri) if not refresh else None
        if cached is not None:
            return cached.value, cached
        result = await self.read_resource(uri)
        keep_read(self.cache, uri, result)
        return result, None

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> Any:
        """Get the prompt `name` with `arguments`."""
        params: JSONObject = {"name": name}
        if arguments:
            params["arguments"] = arguments
        return await self.request("prompts/get", params)

    async def complete(self, ref: JSONObject, argument: str, value: str, context: dict[str, str] | None = None) -> Any:
        """Ask for completions of `argument` typed as `value` in `ref` (a prompt or resource template),
        given the other arguments' values in `context`."""
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
        """Subscribe to updates of the resource at `uri` (stateless era: through the client's listen stream)."""
        if self.modern is not None:
            self.resource_subscriptions.add(uri)
            await self.listen_changes()
            return {}
        result = await self.request("resources/subscribe", {"uri": uri})
        self.resource_subscriptions.add(uri)
        return result

    async def unsubscribe(self, uri: str) -> Any:
        """End the subscription to the resource at `uri` (stateless era: through the client's listen stream)."""
        if self.modern is not None:
            self.resource_subscriptions.discard(uri)
            await self.listen_changes()
            return {}
        result = await self.request("resources/unsubscribe", {"uri": uri})
        self.resource_subscriptions.discard(uri)
        return result

    async def listen(self, notifications: JSONObject) -> Subscription:
        """Open a `subscriptions/listen` stream (stateless era)."""
        return await self._builtin.listen(notifications)

    async def listen_changes(self) -> Subscription | None:
        """The client's own subscription: every list change the server offers,
        plus the resources subscribed to.  Replaces the previous one."""
        return await self._builtin.listen_changes()

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
