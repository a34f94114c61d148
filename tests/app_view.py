"""A stand-in for an MCP App's view in a browser, for the preview's tests: it
connects to the host page's WebSocket (`URL/socket`) as the page's script
does and posts what a view would post, so the tests drive the inspector's
host side through its real transport without a browser."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import aiohttp

from .waiting import HANG

__all__ = ["ViewClient"]


class ViewClient:
    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket
        # What the inspector sent, in order: {"post": message} or {"reload": true}.
        self.received: list[dict[str, Any]] = []
        self._unread: list[dict[str, Any]] = []

    @classmethod
    @asynccontextmanager
    async def open(cls, url: str, **options: Any) -> AsyncIterator[ViewClient]:
        async with aiohttp.ClientSession() as session, session.ws_connect(url + "socket", **options) as socket:
            yield cls(socket)

    async def send(self, message: Any) -> None:
        await self.socket.send_str(json.dumps(message))

    async def next(self, test: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        """The first envelope not yet taken that passes `test` (waiting for it)."""
        while True:
            for index, envelope in enumerate(self._unread):
                if test(envelope):
                    return self._unread.pop(index)
            frame = await asyncio.wait_for(self.socket.receive(), HANG)
            if frame.type != aiohttp.WSMsgType.TEXT:
                raise AssertionError(f"the socket ended ({frame.type}) while waiting for {what}")
            envelope = json.loads(frame.data)
            self.received.append(envelope)
            self._unread.append(envelope)

    async def answer_to(self, request_id: Any) -> dict[str, Any]:
        envelope = await self.next(
            lambda e: (
                isinstance(e.get("post"), dict) and e["post"].get("id") == request_id and "method" not in e["post"]
            ),
            f"the answer to {request_id!r}",
        )
        return dict(envelope["post"])

    async def request(self, request_id: Any, method: str, params: Any = None) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)
        return await self.answer_to(request_id)

    async def notification(self, method: str) -> Any:
        envelope = await self.next(
            lambda e: isinstance(e.get("post"), dict) and e["post"].get("method") == method, method
        )
        return envelope["post"].get("params")

    async def handshake(self) -> dict[str, Any]:
        """ui/initialize, then ui/notifications/initialized: the host's answer."""
        params = {
            "appInfo": {"name": "test view", "version": "1"},
            "appCapabilities": {},
            "protocolVersion": "2026-01-26",
        }
        answer = await self.request("init", "ui/initialize", params)
        await self.send({"jsonrpc": "2.0", "method": "ui/notifications/initialized", "params": {}})
        return answer

    def posted_methods(self) -> list[str]:
        return [e["post"]["method"] for e in self.received if isinstance(e.get("post"), dict) and "method" in e["post"]]
