"""One logical request, which may take several JSON-RPC requests to finish:
a resent request after a session expired, a retry with another protocol
version, a retry after re-listing tools, or multi round-trip input rounds.
A face holds the `Operation` to show progress and to cancel whichever
request is in flight."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import JsonRpcError, SessionExpired
from .modern import HEADER_MISMATCH, UNSUPPORTED_VERSION
from .mrtr import MRTR_METHODS, run_rounds
from .session import PendingRequest, ProgressCallback
from .traffic import Frame

if TYPE_CHECKING:
    from .client import Client

__all__ = ["KNOWN_RESULT_TYPES", "Operation"]

KNOWN_RESULT_TYPES = frozenset({"complete", "input_required", "task"})


class Operation:
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
        self.first_frame: Frame | None = None
        self.rounds = 0
        self.version_retries = 0

    @property
    def id(self) -> Any:
        return self.current.id if self.current is not None else None

    async def _send(self, params: Any, note: str | None = None, related: Frame | None = None) -> PendingRequest:
        session, _transport = self.client.require()
        pending = await session.start_request(
            self.method,
            params,
            timeout=self.timeout,
            on_progress=self.on_progress,
            note=note,
            related=related.seq if related is not None else None,
        )
        self.current = pending
        if self.first_frame is None:
            self.first_frame = pending.frame
        return pending

    async def start(self) -> Operation:
        await self._send(self.params)
        return self

    async def cancel(self, reason: str = "cancelled by the user") -> None:
        if self.current is not None:
            await self.current.cancel(reason)

    async def _await_current(self) -> Any:
        assert self.current is not None
        client = self.client
        try:
            return await self.current.future
        except SessionExpired:
            # The spec: a 404 for our session means start a new one.
            client.traffic.event("local", "transport", note="session expired; initializing a new session")
            await client.reinitialize()
            pending = await self._send(self.params, note="resent after the session expired")
            return await pending.future
        except JsonRpcError as exc:
            if client.modern is None:
                raise
            return await self._modern_retry(exc)

    async def _modern_retry(self, exc: JsonRpcError) -> Any:
        """The two stateless-era errors the spec says to recover from."""
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
            pending = await self._send(self.params, note=f"retry with protocol {chosen}", related=self.first_frame)
            return await pending.future
        if exc.code == HEADER_MISMATCH and self.method == "tools/call":
            client.traffic.event("local", "transport", note="-32020 header mismatch: re-listing tools, then retrying")
            await client.list_all("tools", force=True)
            pending = await self._send(self.params, note="retry after re-listing tools", related=self.first_frame)
            return await pending.future
        raise exc

    async def result(self) -> Any:
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
            )
        if isinstance(result, dict) and client.modern is not None:
            kind = result.get("resultType")
            if kind is not None and kind not in KNOWN_RESULT_TYPES and self.current is not None:
                partner = client.traffic.by_seq(self.current.frame.partner or 0)
                if partner is not None:
                    partner.problems.append(f"unknown resultType {kind!r} (shown as is)")
        return result

    async def _round(self, method: str, params: dict[str, Any], related: Frame | None, note: str) -> tuple[Any, Frame]:
        self.rounds += 1
        pending = await self._send(params, note=note, related=self.first_frame or related)
        try:
            result = await pending.future
        except JsonRpcError as exc:
            if self.client.modern is None:
                raise
            result = await self._modern_retry(exc)
        return result, pending.frame
