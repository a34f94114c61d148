"""The MCP client: connection set-up, the handshake, and every operation the
faces use.  One `Client` owns one connection at a time; `reconnect()` makes
a fresh one with the same spec, keeping observers and the traffic log."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from .. import __version__
from .errors import (
    ConnectError,
    ConnectionClosed,
    InspectorError,
    JsonRpcError,
    ProtocolError,
    RequestTimeout,
    SessionExpired,
    TransportFallback,
)
from .handlers import ClientHandlers, capabilities_for
from .items import KIND_FIELDS, LIST_METHODS, ListResult, parse_item
from .session import NotificationObserver, PendingRequest, ProgressCallback, ServerRequest, Session
from .spec import ServerSpec
from .traffic import Frame, TrafficLog
from .transports.base import Transport
from .versions import HANDSHAKE_VERSIONS, KNOWN_VERSIONS, LATEST_HANDSHAKE, MODERN_VERSIONS, era_of

__all__ = ["CAPABILITY_OF_KIND", "CLIENT_INFO", "Client", "make_transport"]

CLIENT_INFO = {"name": "inspector", "title": "MCP Inspector (terminal)", "version": __version__}

CAPABILITY_OF_KIND = {
    "tools": "tools",
    "resources": "resources",
    "templates": "resources",
    "prompts": "prompts",
}

DEFAULT_MAX_PAGES = 1000
INITIALIZE_TIMEOUT = 30.0

StateObserver = Callable[[str, str | None], None]


def make_transport(spec: ServerSpec, traffic: TrafficLog, transport: str | None = None) -> Transport:
    kind = transport or spec.transport
    if kind == "stdio":
        from .transports.stdio import StdioTransport

        if not spec.command:
            raise ConnectError("no command given for a stdio server")
        return StdioTransport(traffic, spec.command, spec.args, spec.env, spec.cwd, spec.inherit_env)
    if not spec.url:
        raise ConnectError(f"no URL given for an {kind} server")
    if kind in ("http", "auto"):
        from .transports.streamable_http import StreamableHttpTransport

        return StreamableHttpTransport(
            traffic, spec.url, spec.headers, spec.secret_names, allow_fallback=(kind == "auto")
        )
    if kind == "sse":
        from .transports.legacy_sse import LegacySseTransport

        return LegacySseTransport(traffic, spec.url, spec.headers, spec.secret_names)
    raise ConnectError(f"unknown transport {kind!r} (use stdio, http or sse)")


class Client:
    def __init__(
        self,
        spec: ServerSpec,
        *,
        handlers: ClientHandlers | None = None,
        traffic: TrafficLog | None = None,
        client_info: dict[str, Any] | None = None,
    ) -> None:
        self.spec = spec
        self.handlers = handlers or ClientHandlers()
        self.traffic = traffic if traffic is not None else TrafficLog()
        self.client_info = dict(client_info or CLIENT_INFO)
        self.session: Session | None = None
        self.transport: Transport | None = None
        self.state = "idle"
        self.state_detail: str | None = None
        self.initialize_result: dict[str, Any] = {}
        self.protocol_version: str | None = None
        self.offered_version: str | None = None
        self._notification_observers: list[NotificationObserver] = []
        self._state_observers: list[StateObserver] = []

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
            with contextlib.suppress(Exception):
                observer(state, detail)

    # -- facts about the server ------------------------------------------------------

    @property
    def server_info(self) -> dict[str, Any]:
        info = self.initialize_result.get("serverInfo")
        return info if isinstance(info, dict) else {}

    @property
    def server_capabilities(self) -> dict[str, Any]:
        caps = self.initialize_result.get("capabilities")
        return caps if isinstance(caps, dict) else {}

    @property
    def instructions(self) -> str | None:
        text = self.initialize_result.get("instructions")
        return text if isinstance(text, str) else None

    @property
    def era(self) -> str:
        return era_of(self.protocol_version) if self.protocol_version else self.spec.era

    @property
    def transport_kind(self) -> str:
        return self.transport.kind if self.transport is not None else self.spec.transport

    @property
    def in_flight(self) -> int:
        return self.session.in_flight if self.session is not None else 0

    def has_capability(self, name: str) -> bool:
        return name in self.server_capabilities

    def stderr_tail(self) -> list[str]:
        return self.transport.stderr_tail() if self.transport is not None else []

    # -- connecting ------------------------------------------------------------------

    async def connect(self) -> dict[str, Any]:
        self._set_state("connecting", self.spec.label())
        try:
            result = await self._connect_with_fallback()
        except InspectorError as exc:
            error = self._describe_connect_failure(exc)
            await self._drop_connection()
            self._set_state("disconnected", str(error))
            raise error from exc
        self._set_state("connected", None)
        return result

    async def _connect_with_fallback(self) -> dict[str, Any]:
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
            return ConnectError(f"the server went away during initialize: {exc}", detail=detail)
        if isinstance(exc, RequestTimeout):
            return ConnectError(f"the server did not answer initialize: {exc}", detail=detail)
        if isinstance(exc, JsonRpcError):
            return ConnectError(f"the server refused initialize: {exc}", detail=detail)
        return ConnectError(f"could not connect: {exc}", detail=detail)

    async def _connect_once(self, transport_kind: str | None) -> dict[str, Any]:
        transport = make_transport(self.spec, self.traffic, transport_kind)
        self.transport = transport
        await transport.start()
        session = Session(transport, self.traffic, default_timeout=self.spec.timeout)
        self.session = session
        self._install(session)
        return await self._initialize()

    def _install(self, session: Session) -> None:
        session.notification_observers.extend(self._notification_observers)
        session.notification_observers.append(self._builtin_notifications)
        session.request_handlers["ping"] = self._answer_ping
        handlers = self.handlers
        if handlers.supports_roots:
            session.request_handlers["roots/list"] = self._answer_roots
        if handlers.supports_sampling:
            session.request_handlers["sampling/createMessage"] = handlers.create_message
        if handlers.supports_elicitation:
            session.request_handlers["elicitation/create"] = handlers.elicit
        session.on_connection_lost(self._on_lost)

    async def _answer_ping(self, request: ServerRequest) -> dict[str, Any]:
        return {}

    async def _answer_roots(self, request: ServerRequest) -> dict[str, Any]:
        return {"roots": await self.handlers.list_roots(request)}

    def _builtin_notifications(self, method: str, params: Any, frame: Frame) -> None:
        if method == "notifications/elicitation/complete" and isinstance(params, dict):
            elicitation_id = params.get("elicitationId")
            if isinstance(elicitation_id, str):
                self.handlers.elicitation_complete(elicitation_id)

    def _on_lost(self, reason: str) -> None:
        if self.state != "closed":
            tail = self.stderr_tail()
            detail = reason + ("\n" + "\n".join(tail[-10:]) if tail else "")
            self._set_state("disconnected", detail)

    def _offer(self) -> str:
        version = self.spec.protocol_version or LATEST_HANDSHAKE
        if version in MODERN_VERSIONS:
            raise ConnectError(
                f"protocol {version} is the stateless era, which has no initialize handshake; "
                "this build speaks the handshake revisions: " + ", ".join(HANDSHAKE_VERSIONS)
            )
        if version not in HANDSHAKE_VERSIONS:
            raise ConnectError(f"unknown protocol version {version!r}; known revisions: {', '.join(KNOWN_VERSIONS)}")
        return version

    async def _initialize(self) -> dict[str, Any]:
        session, transport = self._require()
        offered = self._offer()
        self.offered_version = offered
        params = {
            "protocolVersion": offered,
            "capabilities": capabilities_for(self.handlers, offered),
            "clientInfo": self.client_info,
        }
        timeout = min(self.spec.timeout or INITIALIZE_TIMEOUT, INITIALIZE_TIMEOUT)
        result = await session.request("initialize", params, timeout=timeout)
        if not isinstance(result, dict):
            raise ProtocolError(f"initialize returned {type(result).__name__}, not an object")
        version = result.get("protocolVersion")
        if version not in HANDSHAKE_VERSIONS:
            known = ", ".join(HANDSHAKE_VERSIONS)
            if isinstance(version, str) and version in MODERN_VERSIONS:
                why = f"the server answered initialize with the stateless revision {version}"
            else:
                why = f"the server chose protocol version {version!r}, which this client does not know"
            raise ProtocolError(f"{why}; it can speak: {known}")
        self.initialize_result = result
        self.protocol_version = version
        if version != offered:
            self.traffic.event("local", "transport", note=f"offered {offered}; the server chose {version} (accepted)")
        transport.after_initialize(version)
        await session.notify("notifications/initialized")
        await transport.session_ready()
        return result

    def _require(self) -> tuple[Session, Transport]:
        if self.session is None or self.transport is None:
            raise ConnectionClosed("not connected")
        return self.session, self.transport

    async def _drop_connection(self) -> None:
        session, transport = self.session, self.transport
        self.session = None
        if session is not None:
            with contextlib.suppress(Exception):
                await session.close()
        elif transport is not None:
            with contextlib.suppress(Exception):
                await transport.close()

    async def reconnect(self) -> dict[str, Any]:
        await self._drop_connection()
        self.initialize_result = {}
        self.protocol_version = None
        return await self.connect()

    async def close(self) -> None:
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
    ) -> PendingRequest:
        session, _transport = self._require()
        return await session.start_request(method, params, timeout=timeout, on_progress=on_progress)

    async def request(
        self,
        method: str,
        params: Any = None,
        *,
        timeout: float | bool | None = True,
        on_progress: ProgressCallback | None = None,
    ) -> Any:
        pending = await self.start_request(method, params, timeout=timeout, on_progress=on_progress)
        try:
            return await pending.future
        except SessionExpired:
            # The spec: a 404 for our session means start a new one.
            self.traffic.event("local", "transport", note="session expired; initializing a new session")
            await self._reinitialize()
            pending = await self.start_request(method, params, timeout=timeout, on_progress=on_progress)
            return await pending.future

    async def _reinitialize(self) -> None:
        _session, transport = self._require()
        reset = getattr(transport, "reset_session", None)
        if reset is not None:
            reset()
        await self._initialize()

    async def notify(self, method: str, params: Any = None) -> None:
        session, _transport = self._require()
        await session.notify(method, params)

    # -- MCP operations --------------------------------------------------------------

    async def ping(self) -> Any:
        return await self.request("ping")

    async def list_page(self, kind: str, cursor: str | None = None) -> Any:
        params = {"cursor": cursor} if cursor is not None else None
        return await self.request(LIST_METHODS[kind], params)

    async def list_all(self, kind: str, *, max_pages: int = DEFAULT_MAX_PAGES, force: bool = False) -> ListResult:
        """Every page of a list, following `nextCursor` up to `max_pages`."""
        listing = ListResult(kind)
        capability = CAPABILITY_OF_KIND[kind]
        if not force and self.initialize_result and not self.has_capability(capability):
            listing.problems.append(f"the server does not declare the {capability!r} capability")
            return listing
        key = KIND_FIELDS[kind][0]
        cursor: str | None = None
        seen: set[str] = set()
        for page_number in range(max_pages):
            result = await self.list_page(kind, cursor)
            listing.pages.append(result if isinstance(result, dict) else {"_invalid": result})
            if not isinstance(result, dict):
                listing.problems.append(f"page {page_number + 1}: the result is not an object")
                return listing
            raw_items = result.get(key)
            if not isinstance(raw_items, list):
                listing.problems.append(f"page {page_number + 1}: {key!r} is missing or not an array")
                raw_items = []
            listing.items.extend(parse_item(kind, raw, page_number) for raw in raw_items)
            next_cursor = result.get("nextCursor")
            if next_cursor is None:
                return listing
            if not isinstance(next_cursor, str):
                listing.problems.append(f"page {page_number + 1}: nextCursor is not a string: {next_cursor!r}")
                listing.complete = False
                return listing
            if next_cursor in seen:
                listing.problems.append(f"page {page_number + 1}: nextCursor {next_cursor!r} repeats; stopped")
                listing.complete = False
                return listing
            seen.add(next_cursor)
            cursor = next_cursor
        listing.problems.append(f"stopped after {max_pages} pages; the server still offered a nextCursor")
        listing.complete = False
        return listing

    def call_params(
        self, name: str, arguments: dict[str, Any] | None, task: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        if task is not None:
            params["task"] = task
        return params

    async def start_call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        on_progress: ProgressCallback | None = None,
        timeout: float | bool | None = True,
    ) -> PendingRequest:
        return await self.start_request(
            "tools/call", self.call_params(name, arguments), timeout=timeout, on_progress=on_progress
        )

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        on_progress: ProgressCallback | None = None,
        timeout: float | bool | None = True,
    ) -> Any:
        return await self.request(
            "tools/call", self.call_params(name, arguments), timeout=timeout, on_progress=on_progress
        )

    async def read_resource(self, uri: str) -> Any:
        return await self.request("resources/read", {"uri": uri})

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> Any:
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = arguments
        return await self.request("prompts/get", params)

    async def complete(
        self, ref: dict[str, Any], argument: str, value: str, context: dict[str, str] | None = None
    ) -> Any:
        params: dict[str, Any] = {"ref": ref, "argument": {"name": argument, "value": value}}
        if context:
            params["context"] = {"arguments": context}
        return await self.request("completion/complete", params)

    async def set_logging_level(self, level: str) -> Any:
        return await self.request("logging/setLevel", {"level": level})

    async def subscribe(self, uri: str) -> Any:
        return await self.request("resources/subscribe", {"uri": uri})

    async def unsubscribe(self, uri: str) -> Any:
        return await self.request("resources/unsubscribe", {"uri": uri})

    async def roots_changed(self) -> None:
        await self.notify("notifications/roots/list_changed")
