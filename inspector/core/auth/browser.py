"""Opening the authorization URL: the system browser, a printed line, or a
headless user agent that follows the redirects itself."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
import webbrowser
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

if TYPE_CHECKING:
    from inspector.core.auth.log import AuthLog

__all__ = ["HeadlessUserAgent", "has_graphical_browser", "open_in_system_browser"]

MAX_HOPS = 10
# How long the browser command may take to return before the login waits for
# the redirect anyway (a command that stays until the browser closes never does).
BROWSER_START_WAIT = 5.0


def has_graphical_browser(environ: dict[str, str] | None = None) -> bool:
    """Whether opening a browser would show a window to the person here.

    Without a display (an SSH session, a container) Python's webbrowser may
    pick a text browser that would take over this very terminal, so the
    inspector only prints the URL.  `$BROWSER` is taken as the person's
    explicit choice.
    """
    env = os.environ if environ is None else environ
    if env.get("BROWSER"):
        return True
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


async def open_in_system_browser(url: str, notify: Callable[[str], None]) -> bool:
    """Print the URL (always: the browser may be on another machine), then try a browser."""
    notify(f"Open this URL to authorize the inspector:\n  {url}")
    if not has_graphical_browser():
        return False
    opening = _in_daemon_thread(webbrowser.open, url, 2)
    # Its outcome may come after nobody waits any more (the timeout below, a Ctrl-C).
    opening.add_done_callback(_quiet)
    try:
        return bool(await asyncio.wait_for(asyncio.shield(opening), BROWSER_START_WAIT))
    except TimeoutError:
        # Some browser commands return only when the browser is closed: it is open.
        return True
    except webbrowser.Error:
        return False


def _quiet(future: asyncio.Future[object]) -> None:
    if not future.cancelled():
        future.exception()


def _in_daemon_thread(func: Callable[..., object], *args: object) -> asyncio.Future[object]:
    """Run a blocking call in a thread nobody waits for; the future settles when it returns.

    Not `asyncio.to_thread`: `asyncio.run` joins the default executor's
    threads on the way out, and a browser command may not return before the
    person closes the browser, so a Ctrl-C during the login would wait for it.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[object] = loop.create_future()

    def settle(result: object, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def run() -> None:
        try:
            result, error = func(*args), None
        except Exception as exc:  # handed to the waiting coroutine  # noqa: BLE001
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name="inspector-browser", daemon=True).start()
    return future


class HeadlessUserAgent:
    """Fetches the authorization URL and follows its redirects, like a browser
    whose user approves everything: only for authorization servers that
    approve without a person (test servers, the conformance suite, some CI
    set-ups).  Each hop is an `authorization` step in the auth log.
    """

    def __init__(self, log: AuthLog | None = None, timeout: float = 30.0) -> None:
        self.log = log
        self.timeout = timeout

    async def __call__(self, url: str) -> None:
        import httpx2

        from inspector.core.auth.log import HttpExchange

        async with httpx2.AsyncClient(timeout=self.timeout, follow_redirects=False) as client:
            current = url
            for _hop in range(MAX_HOPS):
                request = client.build_request("GET", current)
                try:
                    response = await client.send(request)
                except httpx2.HTTPError as exc:
                    if self.log is not None:
                        exchange = HttpExchange.capture(request, None, self.log.secrets)
                        exchange.error = f"{exc.__class__.__name__}: {exc}"
                        self.log.emit("authorization", "failed", exchange.summary(), http=exchange)
                    raise
                if self.log is not None:
                    exchange = HttpExchange.capture(request, response, self.log.secrets)
                    self.log.emit("authorization", "info", f"user agent: {exchange.summary()}", http=exchange)
                location = response.headers.get("location")
                if response.is_redirect and location:
                    current = urljoin(current, location)
                    continue
                if response.status_code >= 400:
                    raise RuntimeError(
                        f"the authorization server answered {response.status_code} at {_origin(current)}"
                    )
                if urlsplit(current).hostname not in ("127.0.0.1", "localhost", "::1"):
                    raise RuntimeError(
                        f"{_origin(current)} answered with a page (HTTP {response.status_code}) that needs a person; "
                        "the headless user agent only follows redirects (use the system browser)"
                    )
                return
            raise RuntimeError(f"more than {MAX_HOPS} redirects from the authorization URL")


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"
