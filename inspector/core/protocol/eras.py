"""The two eras behind one seam.

`LegacyEra` opens with the `initialize` handshake (2024-11-05 … 2025-11-25);
`ModernEra` (2026-07-28) has no handshake: it calls `server/discover` and
puts the request envelope into every request's `_meta`.  The client asks its
era to `open()` the connection and to `prepare()` each request's params;
everything else is shared.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from inspector.core.extensions.apps import EXTENSION as APPS_EXTENSION
from inspector.core.extensions.apps import client_declaration as apps_declaration
from inspector.core.protocol.errors import (
    ConnectError,
    EraFallback,
    InspectorError,
    JsonRpcError,
    ProtocolError,
    RequestTimeout,
)
from inspector.core.protocol.handlers import capabilities_for
from inspector.core.protocol.modern import SERVER_INFO_KEY, UNSUPPORTED_VERSION, envelope
from inspector.core.protocol.operation import result_type_problems
from inspector.core.protocol.versions import (
    HANDSHAKE_VERSIONS,
    KNOWN_VERSIONS,
    LATEST_HANDSHAKE,
    LATEST_MODERN,
    MODERN_VERSIONS,
)

if TYPE_CHECKING:
    from inspector.core.protocol.client import Client
    from inspector.core.protocol.pending import PendingRequest
    from inspector.core.protocol.session import Session
    from inspector.core.transports.base import Transport
    from inspector.forms.values import JSONObject

__all__ = ["PROBE_TIMEOUT_STDIO", "Era", "LegacyEra", "ModernEra", "modern_capabilities"]

# The opening request's timeout when the spec sets none; `--timeout` (the
# spec's `timeout`) is honoured as given, however long.
INITIALIZE_TIMEOUT = 30.0
# How long the stdio era probe may take, from the moment the server has read
# it, before the server counts as legacy.  A legacy stdio server may ignore
# requests it does not know (the spec allows it), so this bounds the cost of
# asking; every modern server answers at once.  A server slow to start (an
# SDK's imports, npx) reads nothing until it is up: its start-up is not
# counted against the budget, only against the connection's timeout.
PROBE_TIMEOUT_STDIO = 1.5
# How often the probe looks whether the server has read it yet.
PROBE_READ_POLL = 0.02
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"


def modern_capabilities(client: Client) -> JSONObject:
    """Client capabilities for the stateless era (sent in every envelope)."""
    handlers = client.handlers
    capabilities: JSONObject = {}
    if handlers.supports_roots:
        capabilities["roots"] = {}
    if handlers.supports_sampling:
        capabilities["sampling"] = {"tools": {}} if handlers.supports_sampling_tools else {}
    if handlers.supports_elicitation:
        capabilities["elicitation"] = {"form": {}, "url": {}} if handlers.supports_url_elicitation else {"form": {}}
    capabilities["extensions"] = {TASKS_EXTENSION: {}}
    if client.spec.advertise_apps:
        capabilities["extensions"][APPS_EXTENSION] = apps_declaration()
    return capabilities


def _discover_problem(result: Any) -> str | None:
    if not isinstance(result, dict):
        return f"the result is {type(result).__name__}, not an object"
    versions = result.get("supportedVersions")
    if not isinstance(versions, list) or not any(isinstance(v, str) for v in versions):
        return "the result has no supportedVersions list"
    if not isinstance(result.get("capabilities"), dict):
        return "the result has no capabilities object"
    return None


def _quiet(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


class Era:
    """How a connection opens and what each request carries, for one era; what the opening said."""

    name = "?"

    def __init__(self, client: Client) -> None:
        self.client = client
        self.protocol_version: str | None = None
        self.offered_version: str | None = None
        self.result: JSONObject = {}

    async def open(self) -> JSONObject:
        """Open the connection on the client's transport; the result that opened it."""
        raise NotImplementedError

    def prepare(self, method: str, params: Any) -> Any:
        """A request's params as this era sends them (unchanged here)."""
        return params

    @property
    def server_info(self) -> JSONObject:
        """What the server says it is: its name, version and so on."""
        return {}

    @property
    def capabilities(self) -> JSONObject:
        """The capabilities the server declared in the opening result."""
        caps = self.result.get("capabilities")
        return caps if isinstance(caps, dict) else {}

    @property
    def instructions(self) -> str | None:
        """The instructions in the opening result, if any."""
        text = self.result.get("instructions")
        return text if isinstance(text, str) else None


class LegacyEra(Era):
    """The handshake era (2024-11-05 to 2025-11-25): ``initialize``, then ``notifications/initialized``."""

    name = "legacy"

    def _offer(self) -> str:
        version = self.client.spec.protocol_version or LATEST_HANDSHAKE
        if version in MODERN_VERSIONS:
            return LATEST_HANDSHAKE
        if version not in HANDSHAKE_VERSIONS:
            raise ConnectError(f"unknown protocol version {version!r}; known revisions: {', '.join(KNOWN_VERSIONS)}")
        return version

    @property
    def server_info(self) -> JSONObject:
        """The initialize result's ``serverInfo``."""
        info = self.result.get("serverInfo")
        return info if isinstance(info, dict) else {}

    async def open(self) -> JSONObject:
        """Send ``initialize`` offering the spec's revision, accept the one the server chooses if this client
        knows it, and send ``notifications/initialized`` once the transport is ready."""
        client = self.client
        session, transport = client.require()
        offered = self._offer()
        self.offered_version = offered
        capabilities = capabilities_for(client.handlers, offered)
        if client.spec.advertise_apps:
            # The extension declares itself this way in every revision (its
            # own example offers 2024-11-05).
            capabilities["extensions"] = {APPS_EXTENSION: apps_declaration()}
        params = {
            "protocolVersion": offered,
            "capabilities": capabilities,
            "clientInfo": _client_info_for(client.client_info, offered),
        }
        timeout = client.spec.timeout or INITIALIZE_TIMEOUT
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
        self.result = result
        self.protocol_version = version
        if version != offered:
            client.traffic.event("local", "transport", note=f"offered {offered}; the server chose {version} (accepted)")
        transport.after_initialize(version)
        # The server may send its first request the moment it is told we are
        # ready: the stream it would use (HTTP's GET stream) is open by then.
        await transport.session_ready(timeout)
        await session.notify("notifications/initialized")
        return result


class ModernEra(Era):
    """The stateless era (2026-07-28): ``server/discover`` instead of a handshake, and the request
    envelope (revision, capabilities, client info, log level) in every request's ``_meta``."""

    name = "modern"

    def __init__(self, client: Client, *, probe: bool = False) -> None:
        super().__init__(client)
        self.probe = probe
        # A stdio probe that outlived its budget: still waiting, in case the
        # server was only slow to start.
        self.unanswered: PendingRequest | None = None
        self.log_level: str | None = None
        self.capabilities_sent: JSONObject = modern_capabilities(client)

    @property
    def server_info(self) -> JSONObject:
        """The server info in the discover result's ``_meta``."""
        meta = self.result.get("_meta")
        info = meta.get(SERVER_INFO_KEY) if isinstance(meta, dict) else None
        return info if isinstance(info, dict) else {}

    @property
    def supported_versions(self) -> list[str]:
        """The revisions the discover result says the server supports."""
        versions = self.result.get("supportedVersions")
        return [v for v in versions if isinstance(v, str)] if isinstance(versions, list) else []

    def prepare(self, method: str, params: Any) -> Any:
        """A request's params with the envelope in their ``_meta`` (notifications go as they are)."""
        if method.startswith("notifications/"):
            return params
        return envelope(
            params,
            protocol_version=self.protocol_version or LATEST_MODERN,
            capabilities=self.capabilities_sent,
            client_info=self.client.client_info,
            log_level=self.log_level,
        )

    def _wanted(self) -> str:
        version = self.client.spec.protocol_version or LATEST_MODERN
        if version not in MODERN_VERSIONS:
            raise ConnectError(f"{version!r} is not a stateless-era revision; known: {', '.join(MODERN_VERSIONS)}")
        return version

    def choose(self, supported: Any) -> str | None:
        """The newest stateless revision we both speak, from a server's list."""
        offered = [v for v in supported if v in MODERN_VERSIONS] if isinstance(supported, list) else []
        return max(offered, key=MODERN_VERSIONS.index) if offered else None

    async def open(self) -> JSONObject:
        """Call ``server/discover`` and adopt its result (probing: a server without the stateless era
        makes the client fall back to the handshake)."""
        _session, transport = self.client.require()
        self.protocol_version = self._wanted()
        self.offered_version = self.protocol_version
        self._engage()
        transport.probing = self.probe
        try:
            result = await self._discover()
        finally:
            transport.probing = False
        return await self.adopt(result)

    def _engage(self) -> None:
        session, transport = self.client.require()
        session.prepare_params = self.prepare
        session.inspect_result = result_type_problems
        transport.modern = True
        transport.protocol_version = self.protocol_version

    async def late_answer(self, wait: float = 2.0) -> JSONObject | None:
        """The probe's answer if it came (or comes within `wait`) after all."""
        pending = self.unanswered
        if pending is None:
            return None
        with contextlib.suppress(TimeoutError, InspectorError):
            result = await asyncio.wait_for(asyncio.shield(pending.future), wait)
            if _discover_problem(result) is None:
                return dict(result)
        return None

    def forget_probe(self) -> None:
        """The server is legacy (or gone): stop waiting for the probe, quietly."""
        pending, self.unanswered = self.unanswered, None
        if pending is not None and pending.session is not None:
            pending.session.abandon(pending)

    async def adopt(self, result: JSONObject) -> JSONObject:
        """Take a discover result as this connection's opening."""
        self.unanswered = None
        self._engage()
        transport = self.client.require()[1]
        self.result = result
        returned = self.supported_versions
        if returned and self.protocol_version not in returned:
            chosen = self.choose(returned)
            if chosen is None:
                if self.probe:
                    raise EraFallback(f"the server supports only {', '.join(returned)}")
                raise ConnectError(f"the server supports {', '.join(returned)}; none is a stateless revision")
            self.protocol_version = chosen
            transport.protocol_version = chosen
        if result.get("resultType") not in (None, "complete"):
            self.client.traffic.event(
                "local", "transport", note=f"server/discover answered resultType {result.get('resultType')!r}"
            )
        return result

    async def _probe_stdio(self, session: Session, note: str | None) -> Any:
        """Ask, and wait the probe budget from when the server has read the
        question, within the connection's timeout; the request itself stays
        open."""
        client = self.client
        transport = client.require()[1]
        unread_input = getattr(transport, "unread_input", None)
        pending = await session.start_request("server/discover", None, note=note, timeout=False)
        loop = asyncio.get_running_loop()
        sent_at = loop.time()
        overall = client.spec.timeout or INITIALIZE_TIMEOUT
        read_at: float | None = None
        while not pending.future.done():
            now = loop.time()
            if read_at is None:
                # Where the OS cannot tell, the budget runs from sending.
                unread = unread_input() if unread_input is not None else None
                if unread is None or unread == 0:
                    read_at = now
                    self._note_slow_start(now - sent_at)
            if read_at is None:
                deadline, step = sent_at + overall, PROBE_READ_POLL
            else:
                deadline, step = min(sent_at + overall, read_at + PROBE_TIMEOUT_STDIO), overall
            if now >= deadline:
                break
            await asyncio.wait({pending.future}, timeout=min(step, deadline - now))
        if read_at is None and pending.future.done():
            # Read and answered between two looks.
            self._note_slow_start(loop.time() - sent_at)
        if pending.future.done():
            return pending.future.result()
        # Whatever becomes of the connection, this future's end is no
        # error of anybody's (no "exception was never retrieved").
        pending.future.add_done_callback(_quiet)
        self.unanswered = pending
        if read_at is None:
            raise EraFallback(f"the server did not read server/discover within {overall:g} s")
        raise EraFallback(f"no answer to server/discover within {PROBE_TIMEOUT_STDIO:g} s of the server reading it")

    def _note_slow_start(self, waited: float) -> None:
        if waited > PROBE_TIMEOUT_STDIO:
            self.client.traffic.event(
                "local",
                "transport",
                note=f"era probe: the server took {waited:.1f} s to read server/discover (a slow start); "
                f"the {PROBE_TIMEOUT_STDIO:g} s budget for its answer counts from then",
            )

    async def _discover(self) -> JSONObject:
        client = self.client
        session, transport = client.require()
        note = "era probe: is this a 2026-07-28 server?" if self.probe else None
        for attempt in range(2):
            try:
                result = await self._send_discover(session, transport, note)
            except JsonRpcError as exc:
                chosen = self._retry_version(exc, attempt)
                if chosen is None:
                    self._fall_back(exc, self._discover_failure(exc))
                    raise
                note = f"-32022: retrying server/discover with {chosen}"
                client.traffic.event("local", "transport", note=note)
                self.protocol_version = chosen
                transport.protocol_version = chosen
                continue
            except RequestTimeout as exc:
                self._fall_back(exc, f"no answer to server/discover: {exc}")
                raise
            problem = _discover_problem(result)
            if problem is not None:
                if self.probe:
                    # Some legacy servers answer any method with an empty result.
                    raise EraFallback(f"server/discover answered, but {problem}")
                raise ProtocolError(f"server/discover: {problem}")
            assert isinstance(result, dict)
            return result
        raise ProtocolError("the server rejected every protocol version offered")

    async def _send_discover(self, session: Session, transport: Transport, note: str | None) -> Any:
        if self.probe and transport.kind == "stdio":
            return await self._probe_stdio(session, note)
        return await session.request("server/discover", None, note=note)

    def _retry_version(self, exc: JsonRpcError, attempt: int) -> str | None:
        """After -32022, a version from the server's list to retry with (even
        the same one: the server has now said it supports it); once."""
        if exc.code != UNSUPPORTED_VERSION or not isinstance(exc.data, dict) or attempt != 0:
            return None
        return self.choose(exc.data.get("supported"))

    @staticmethod
    def _discover_failure(exc: JsonRpcError) -> str:
        if exc.code == UNSUPPORTED_VERSION and isinstance(exc.data, dict):
            return f"the server supports {exc.data.get('supported')!r}"
        return f"server/discover failed: {exc}"

    def _fall_back(self, cause: Exception, why: str) -> None:
        """While probing, a server/discover that fails means the server is not
        a stateless one: the handshake is tried instead."""
        if self.probe:
            raise EraFallback(why) from cause


def _client_info_for(info: JSONObject, revision: str) -> JSONObject:
    """What of our Implementation the offered revision defines: `title` came
    in 2025-06-18, and a validator of an older peer would flag it."""
    if revision < "2025-06-18":
        return {key: value for key, value in info.items() if key != "title"}
    return info
