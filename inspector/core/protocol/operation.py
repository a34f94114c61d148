"""One logical request, which may take several JSON-RPC requests to finish:
a resent request after a session expired, a retry with another protocol
version, a retry after re-listing tools, or multi round-trip input rounds.
A face holds the `Operation` to show progress and to cancel whichever
request is in flight."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inspector.core.protocol.errors import JsonRpcError, SessionExpired
from inspector.core.protocol.modern import HEADER_MISMATCH, UNSUPPORTED_VERSION
from inspector.core.protocol.mrtr import MRTR_METHODS, run_rounds
from inspector.core.protocol.pending import PendingRequest, ProgressCallback
from inspector.core.record.traffic import Frame

if TYPE_CHECKING:
    from inspector.core.protocol.client import Client
    from inspector.forms.values import JSONObject

__all__ = ["KNOWN_RESULT_TYPES", "Operation", "result_type_problems"]

KNOWN_RESULT_TYPES = frozenset({"complete", "input_required", "task"})


def result_type_problems(method: str, result: Any) -> list[str]:
    """A stateless-era result whose `resultType` nobody defined: shown as a problem, used as is."""
    kind = result.get("resultType") if isinstance(result, dict) else None
    if kind is None or kind in KNOWN_RESULT_TYPES:
        return []
    return [f"unknown resultType {kind!r} (shown as is)"]


class Operation:
    """One logical request and the JSON-RPC requests it takes: resent after a session expired, retried
    with another revision or after re-listing tools, and the multi round-trip rounds."""

    def __init__(
        self,
        client: Client,
        method: str,
        params: Any,
        *,
        timeout: float | bool | None = True,
        on_progress: ProgressCallback | None = None,
    ) -> None:
        self.client = client
        self.method = method
        self.params = params
        self.timeout = timeout
        self.on_progress = on_progress
        self.current: PendingRequest | None = None
        # What the request in flight carries: the original params, or a
        # round's params with its inputResponses and requestState.
        self.current_params: Any = params
        self.first_frame: Frame | None = None
        self.rounds = 0
        self.version_retries = 0

    @property
    def id(self) -> Any:
        """The id of the JSON-RPC request in flight (None before the first is sent)."""
        return self.current.id if self.current is not None else None

    async def _send(self, params: Any, note: str | None = None, *, retry: bool = False) -> PendingRequest:
        """Send (or resend) the request; a resend is linked to the first one."""
        client = self.client
        # A new session is being opened (HTTP 404): wait for it, so the
        # request goes out with the new session id.
        await client.wait_reinitialized()
        session, _transport = client.require()
        first = self.first_frame
        pending = await session.start_request(
            self.method,
            params,
            timeout=self.timeout,
            on_progress=self.on_progress,
            note=note,
            retry_of=first.seq if retry and first is not None else None,
        )
        self.current = pending
        self.current_params = params
        if first is None:
            self.first_frame = pending.frame
        return pending

    async def start(self) -> Operation:
        """Send the first request."""
        await self._send(self.params)
        return self

    async def cancel(self, reason: str = "cancelled by the user") -> None:
        """Cancel the request in flight."""
        if self.current is not None:
            await self.current.cancel(reason)

    async def _await_current(self) -> Any:
        """The answer of the request in flight, after the recoveries the spec asks for."""
        assert self.current is not None
        client = self.client
        params = self.current_params
        try:
            return await self.current.future
        except SessionExpired as exc:
            # The spec: a 404 for our session means start a new one.  Several
            # requests may learn of it at once; the client opens one session.
            await client.reinitialize(exc.session_id)
            pending = await self._send(params, note="resent after the session expired", retry=True)
            return await pending.future
        except JsonRpcError as exc:
            if client.modern is None:
                raise
            return await self._modern_retry(exc, params)

    async def _modern_retry(self, exc: JsonRpcError, params: Any) -> Any:
        """The two stateless-era errors the spec says to recover from.

        `params` are those of the request that failed: a round's retry keeps
        its inputResponses and requestState.
        """
        client = self.client
        era = client.modern
        assert era is not None
        if exc.code == UNSUPPORTED_VERSION and isinstance(exc.data, dict):
            chosen = era.choose(exc.data.get("supported"))
            if chosen is None or self.version_retries >= 1:
                raise exc
            self.version_retries += 1
            client.traffic.event("local", "transport", note=f"-32022: retrying {self.method} with {chosen}")
            era.protocol_version = chosen
            _session, transport = client.require()
            transport.protocol_version = chosen
            pending = await self._send(params, note=f"retry with protocol {chosen}", retry=True)
            return await pending.future
        if exc.code == HEADER_MISMATCH and self.method == "tools/call":
            client.traffic.event("local", "transport", note="-32020 header mismatch: re-listing tools, then retrying")
            # A real refresh: the cached list holds the stale header names.
            await client.list_all("tools", force=True, refresh=True)
            pending = await self._send(params, note="retry after re-listing tools", retry=True)
            return await pending.future
        raise exc

    async def result(self) -> Any:
        """The final result, after the recoveries the spec asks for and (stateless era) every input round."""
        result = await self._await_current()
        client = self.client
        if client.modern is not None and self.method in MRTR_METHODS:
            result = await run_rounds(
                client,
                self.method,
                dict(self.params or {}),
                result,
                self.current.frame if self.current else None,
                self._round,
                client.mrtr_stepper,
                original=self.first_frame.seq if self.first_frame is not None else None,
            )
        return result

    async def _round(self, method: str, params: JSONObject, related: Frame | None, note: str) -> tuple[Any, Frame]:
        """One multi round-trip retry: (its result, the frame of the request that got it)."""
        self.rounds += 1
        pending = await self._send(params, note=note, retry=True)
        try:
            result = await pending.future
        except JsonRpcError as exc:
            if self.client.modern is None:
                raise
            result = await self._modern_retry(exc, params)
        current = self.current or pending
        return result, current.frame
