"""Handing a login to a browser on another machine (an SSH session, a
container): the inspector prints the authorization URL and waits for the
redirect, which comes back either through an SSH port-forward to the
loopback listener or as the URL the browser ended on, pasted by the person.

A pasted URL goes through the same checks as a redirect that reached the
listener (state, RFC 9207 issuer), so it proves as much as the redirect.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import socket
import sys
import threading
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qs, parse_qsl, urlsplit

__all__ = ["PasteRefused", "handoff_text", "pasted_params", "port_forward", "read_stdin_line", "redirect_uri_of"]

# Reads the next line the person pastes; None when no more will come.
LineSource = Callable[[], Awaitable[str | None]]


class PasteRefused(ValueError):
    """The pasted text is not the redirect this login waits for (the person may paste again)."""


def redirect_uri_of(authorization_url: str) -> str | None:
    values = parse_qs(urlsplit(authorization_url).query).get("redirect_uri")
    return values[0] if values else None


def port_forward(authorization_url: str) -> str | None:
    """The `ssh -L` command that brings the redirect from a browser on another machine to this one's listener."""
    redirect = redirect_uri_of(authorization_url)
    port = urlsplit(redirect).port if redirect else None
    return f"ssh -L {port}:127.0.0.1:{port} {_user()}@{_host()}" if port else None


def handoff_text(authorization_url: str, *, paste: bool) -> str:
    """What the person reads: the URL, the SSH port-forward that brings the redirect back, and the paste route."""
    lines = ["Open this URL to authorize the inspector:", f"  {authorization_url}"]
    forward = port_forward(authorization_url)
    if forward:
        lines += [
            "If the browser is on another machine, forward the redirect port from there first (the port must be "
            "free on that machine too; --oauth-port fixes it):",
            f"  {forward}",
        ]
    if paste:
        lines.append(
            "Or, after approving, paste here the full URL your browser ended on (the page may fail to load) "
            "and press Enter:"
        )
    return "\n".join(lines)


def pasted_params(text: str, redirect_uri: str) -> dict[str, str]:
    """The redirect's query parameters from a pasted URL (or its query string alone).

    Raises PasteRefused when the text is not a redirect to this login's
    redirect URI, or carries neither a code nor an error.
    """
    text = text.strip()
    if not text:
        raise PasteRefused("nothing was pasted")
    expected = urlsplit(redirect_uri)
    if "://" in text:
        parts = urlsplit(text)
        if (parts.scheme, parts.hostname, parts.port, parts.path) != (
            expected.scheme,
            expected.hostname,
            expected.port,
            expected.path,
        ):
            raise PasteRefused(f"that URL is not the redirect this login waits for ({redirect_uri}?...)")
        query = parts.query
    else:
        query = text.removeprefix("?")
    params = dict(parse_qsl(query, keep_blank_values=True))
    if "code" not in params and "error" not in params:
        # A bare code is refused: without the state beside it nothing shows it belongs to this login.
        raise PasteRefused("paste the whole URL the browser ended on (with its code and state), not the code alone")
    return params


async def read_stdin_line() -> str | None:
    """The next line on standard input, without blocking the event loop; None at its end."""
    return await _STDIN.readline()


class _LineReader:
    """One thread per process reads standard input; each line goes to the coroutine waiting then.

    A thread nobody joins: the read blocks until a line or the end comes, and
    a login that finished through the listener must not wait for it.  A line
    that arrives while nothing waits belongs to no login and is dropped.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiter: tuple[asyncio.AbstractEventLoop, asyncio.Future[str | None]] | None = None
        self._thread: threading.Thread | None = None
        self._ended = False

    async def readline(self) -> str | None:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str | None] = loop.create_future()
        with self._lock:
            if self._ended:
                return None
            self._waiter = (loop, future)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="inspector-paste", daemon=True)
                self._thread.start()
        try:
            return await future
        finally:
            with self._lock:
                if self._waiter is not None and self._waiter[1] is future:
                    self._waiter = None

    def _run(self) -> None:
        while True:
            try:
                line: str | None = sys.stdin.readline() or None
            except (OSError, ValueError):
                line = None
            with self._lock:
                if line is None:
                    self._ended = True
                waiter, self._waiter = self._waiter, None
            if waiter is not None:
                loop, future = waiter
                with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
                    loop.call_soon_threadsafe(_settle, future, line)
            if line is None:
                return


def _settle(future: asyncio.Future[str | None], line: str | None) -> None:
    if not future.done():
        future.set_result(line)


_STDIN = _LineReader()


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "USER"


def _host() -> str:
    return socket.gethostname() or "THIS-HOST"
