"""`inspector serve`: the TUI in a web browser, through textual-serve.

textual-serve runs one app process per browser visit and relays its
terminal over a websocket.  It has no access control of its own, so its
routes are mounted under a random token (`/TOKEN/`, `/TOKEN/ws`,
`/TOKEN/static/...`) and a middleware refuses every request whose path
does not start with it: without the URL there is no page, no asset and no
websocket, so no process is started.  (The official Inspector's proxy once
listened unauthenticated and got a 9.4 CVE for it.)

The app process runs here, as `inspector tui` would with the same options:
they go to it in an environment variable (not its command line, where other
users of this machine could read them), see `served`.
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import ipaddress
import json
import logging
import os
import re
import secrets
import shlex
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from textual_serve.server import Server

from inspector.commands.exitcodes import USAGE
from inspector.tui.served import SERVED_ARGS

__all__ = ["SERVED_ARGS", "TokenServer", "serve", "token_gate"]

# What only `serve` itself uses; the app process gets everything else.
_SERVE_ONLY = ("port", "host")
# A Host header the page's own URLs may be built from (name, IPv4, [IPv6], port).
_HOST = re.compile(r"[A-Za-z0-9.\-]+(:[0-9]+)?|\[[0-9A-Fa-f:.]+\](:[0-9]+)?")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def token_gate(token: str) -> Any:
    """A middleware that refuses (403) every request whose first path segment is not `token`."""
    expected = token.encode()

    @web.middleware
    async def require_token(request: web.Request, handler: Handler) -> web.StreamResponse:
        first = request.path.split("/", 2)[1] if request.path.startswith("/") else ""
        if not hmac.compare_digest(first.encode("utf-8", errors="surrogateescape"), expected):
            raise web.HTTPForbidden(text="forbidden: open the URL `inspector serve` printed (it holds the token)\n")
        return await handler(request)

    return require_token


class TokenServer(Server):
    """textual-serve's server with its routes behind a token, bound to the port
    before the URL is printed (so `--port 0` prints the port it got)."""

    def __init__(self, command: str, host: str, port: int, token: str) -> None:
        super().__init__(command, host=host, port=port, title="inspector")
        self.token = token

    async def _make_app(self) -> web.Application:
        served = await super()._make_app()
        gated = web.Application(middlewares=[token_gate(self.token)])
        gated.add_subapp(f"/{self.token}", served)
        return gated

    async def handle_index(self, request: web.Request) -> Any:
        """The page, its URLs naming the host the browser used; 400 for a Host header that is no host name."""
        # The page's websocket and asset URLs name the host the browser used,
        # so the page works however it was reached (a wildcard address, an SSH tunnel).
        if not _HOST.fullmatch(request.host):
            raise web.HTTPBadRequest(text="bad Host header\n")
        self.public_url = f"http://{request.host}"
        return await super().handle_index(request)

    async def on_startup(self, app: web.Application) -> None:
        """Nothing: textual-serve's banner would name the port asked for (`_serve` prints the one bound)."""
        # textual-serve's banner names the port asked for; `_serve` prints the one bound.
        return None

    def serve(self, debug: bool = False) -> None:
        """Serve until stopped, the access log kept quiet (its paths hold the token)."""
        self.debug = debug
        self.initialize_logging()
        # Each asset request would be logged with the token in its path.
        logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        runner = web.AppRunner(await self._make_app(), handle_signals=False)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.host, self.port)
            await site.start()
            port = runner.addresses[0][1]
            print(f"inspector: serving the TUI on {page_url(self.host, port, self.token)}", flush=True)
            print("inspector: each visit runs the inspector and its server on this machine; ctrl+c stops", flush=True)
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)
            await stop.wait()
        finally:
            # Closes the websockets, which tells each app process to quit.
            await runner.cleanup()


def page_url(host: str, port: int, token: str) -> str:
    """The URL to open: a wildcard address is shown as the loopback one."""
    shown = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/{token}/"


def is_loopback(host: str) -> bool:
    """Whether *host* is "localhost" or a loopback address."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def non_loopback_warning(host: str) -> str:
    """What `serve` prints before listening on *host*, which is not loopback: who can use it, and that it is plain
    HTTP."""
    return (
        f"inspector: WARNING: listening on {host}, not on loopback: anyone who can reach this machine and "
        "learns the URL can use the inspector, and through it run and call the server with your rights. "
        "The connection is plain HTTP: the token and everything shown cross the network unencrypted. "
        "Prefer the default (127.0.0.1) and an SSH tunnel."
    )


def served_options(args: argparse.Namespace, server_command: list[str]) -> str:
    """The options of the app process, as `served` reads them."""
    options = {key: value for key, value in vars(args).items() if key not in _SERVE_ONLY}
    options["command"] = "tui"
    return json.dumps({"args": options, "server_command": server_command})


def serve(args: argparse.Namespace, server_command: list[str]) -> int:
    """`inspector serve`: the TUI in a browser behind a token, until ctrl+c; returns the exit code (USAGE when it
    cannot listen)."""
    host, port = args.host, args.port
    if not is_loopback(host):
        print(non_loopback_warning(host), file=sys.stderr, flush=True)
    os.environ[SERVED_ARGS] = served_options(args, server_command)
    command = f"{shlex.quote(sys.executable)} -m inspector.tui.served"
    server = TokenServer(command, host, port, secrets.token_urlsafe(24))
    try:
        server.serve()
    except OSError as exc:
        print(
            f"inspector: cannot listen on {host}:{port}: {exc.strerror or exc} (--port 0: any free port)",
            file=sys.stderr,
        )
        return USAGE
    return 0
