"""Handing a login to a browser on another machine (an SSH session, a
container): the inspector prints the authorization URL and waits for the
redirect, which comes back either through an SSH port-forward to the
loopback listener or as the URL the browser ended on, pasted by the person.

A pasted URL goes through the same checks as a redirect that reached the
listener (state, RFC 9207 issuer), so it proves as much as the redirect.
"""

from __future__ import annotations

import asyncio
import getpass
import os
import socket
import sys
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qs, parse_qsl, urlsplit

__all__ = ["PasteRefused", "handoff_text", "pasted_params", "port_forward", "read_stdin_line", "redirect_uri_of"]

# Reads the next line the person pastes; None when no more will come.
LineSource = Callable[[], Awaitable[str | None]]


class PasteRefused(ValueError):
    """The pasted text is not the redirect this login waits for (the person may paste again)."""


def redirect_uri_of(authorization_url: str) -> str | None:
    """The ``redirect_uri`` an authorization URL names (None when it names none)."""
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
    """Lines from standard input, read when the event loop sees it readable.

    Not a thread blocked in a read: when the login ends another way
    (the redirect reached the listener, Ctrl-C, the deadline) nothing is
    left reading the terminal, so a later question on it gets its answer.
    """

    def __init__(self) -> None:
        self._buffer = b""
        self._ended = False

    async def readline(self) -> str | None:
        while b"\n" not in self._buffer and not self._ended and len(self._buffer) < _MAX_LINE:
            chunk = await _read_chunk()
            if chunk:
                self._buffer += chunk
            else:
                self._ended = True
        if not self._buffer:
            return None
        line, newline, rest = self._buffer.partition(b"\n")
        if not newline:  # the end, or a line past the bound: what there is (refused as a redirect)
            line, rest = self._buffer[:_MAX_LINE], self._buffer[_MAX_LINE:]
        self._buffer = rest
        return line.decode("utf-8", "replace")


async def _read_chunk() -> bytes:
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return b""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[bytes] = loop.create_future()

    def readable() -> None:
        try:
            data = os.read(fd, _CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not ready.done():
            ready.set_result(data)

    try:
        loop.add_reader(fd, readable)
    except (OSError, NotImplementedError, ValueError):
        # A regular file (epoll refuses it): reading it never blocks.
        try:
            return os.read(fd, _CHUNK)
        except OSError:
            return b""
    try:
        return await ready
    finally:
        loop.remove_reader(fd)


_CHUNK = 65536
# A redirect URL is a few kilobytes at most; past this a "line" is cut and refused.
_MAX_LINE = 1 << 20
_STDIN = _LineReader()


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "USER"


def _host() -> str:
    return socket.gethostname() or "THIS-HOST"
