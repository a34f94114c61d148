"""The loopback redirect listener (RFC 8252 §7.3): where the browser lands
after the person approves, on 127.0.0.1 and a port of our choosing.

One listener serves one login.  It answers the first request to its callback
path, hands the query parameters to whoever waits, and tells the browser
tab (in fixed words, never echoing what it received) that it may close.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import parse_qsl, urlsplit

from inspector.core.background import BackgroundTasks

__all__ = ["CALLBACK_PATH", "LoginCancelled", "LoginTimeout", "LoopbackListener"]

CALLBACK_PATH = "/callback"
_MAX_REQUEST = 16384
_PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>inspector</title></head>"
    "<body style='font-family: sans-serif'><h1>{title}</h1><p>{text}</p></body></html>"
)


class LoginCancelled(Exception):
    """The person (or the program) gave up on the login."""


class LoginTimeout(Exception):
    """Nobody came back from the browser in time."""


class LoopbackListener:
    """The loopback listener for one login's redirect."""

    def __init__(self, port: int = 0, host: str = "127.0.0.1", path: str = CALLBACK_PATH) -> None:
        self.host = host
        self.requested_port = port
        self.path = path
        self.port: int | None = None
        self._server: asyncio.Server | None = None
        # The connections being answered: asyncio's server leaves them open on close.
        self._connections = BackgroundTasks()
        self._result: asyncio.Future[dict[str, str]] | None = None

    @property
    def redirect_uri(self) -> str:
        """The URL the browser is sent back to (only once started)."""
        if self.port is None:
            raise RuntimeError("the loopback listener is not started")
        return f"http://{self.host}:{self.port}{self.path}"

    @property
    def listening(self) -> bool:
        """Whether the listener is started and not closed."""
        return self._server is not None

    async def start(self) -> None:
        """Bind (raises OSError when the port is taken)."""
        if self._server is not None:
            return
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._accept, self.host, self.requested_port)
        sockets = self._server.sockets or ()
        self.port = sockets[0].getsockname()[1] if sockets else self.requested_port

    def reset(self) -> None:
        """Wait for a fresh callback (a second login on the same listener)."""
        if self._result is None or self._result.done():
            self._result = asyncio.get_running_loop().create_future()

    async def wait(self, timeout: float | None) -> dict[str, str]:
        """The callback's query parameters; LoginTimeout / LoginCancelled otherwise."""
        if self._result is None:
            raise RuntimeError("the loopback listener is not started")
        try:
            return await asyncio.wait_for(asyncio.shield(self._result), timeout)
        except TimeoutError as exc:
            raise LoginTimeout(f"no redirect came back to {self.redirect_uri} within {timeout:g} s") from exc

    def cancel(self, reason: str = "login cancelled") -> bool:
        """Fail the wait with LoginCancelled(`reason`); True when a login was waiting."""
        if self._result is not None and not self._result.done():
            self._result.set_exception(LoginCancelled(reason))
            return True
        return False

    def deliver(self, params: dict[str, str]) -> bool:
        """A redirect that came another way (pasted by the person): as if it had reached the listener."""
        if self._result is not None and not self._result.done():
            self._result.set_result(params)
            return True
        return False

    async def close(self) -> None:
        """Stop listening: end the wait, the connections being answered and the server (a bounded time)."""
        server, self._server = self._server, None
        if self._result is not None and not self._result.done():
            self._result.cancel()
        if server is not None:
            server.close()
            await self._connections.cancel_all()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(server.wait_closed(), 2.0)

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._connections.start(self._answer(reader, writer))

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._serve(reader, writer)
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10.0)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ConnectionError):
            return
        try:
            request_line = head[:_MAX_REQUEST].split(b"\r\n", 1)[0].decode("latin-1")
            method, target, _version = request_line.split(" ", 2)
        except ValueError:
            await self._respond(writer, 400, "Bad request", "This is the inspector's login listener.")
            return
        parts = urlsplit(target)
        if method != "GET" or parts.path != self.path:
            await self._respond(writer, 404, "Not found", "This is the inspector's login listener.")
            return
        params = dict(parse_qsl(parts.query, keep_blank_values=True))
        if self._result is not None and not self._result.done():
            self._result.set_result(params)
            if "error" in params:
                await self._respond(
                    writer, 200, "Authorization not completed", "Go back to the inspector to see what happened."
                )
            else:
                await self._respond(
                    writer, 200, "Authorization received", "You can close this tab and return to the inspector."
                )
        else:
            await self._respond(writer, 409, "Nothing is waiting", "The inspector is not waiting for this login.")

    async def _respond(self, writer: asyncio.StreamWriter, status: int, title: str, text: str) -> None:
        body = _PAGE.format(title=title, text=text).encode()
        head = (
            f"HTTP/1.1 {status} {title}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
        ).encode()
        with contextlib.suppress(ConnectionError, OSError):
            writer.write(head + body)
            await writer.drain()
