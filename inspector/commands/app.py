"""`inspector app TOOL [--open]`: preview the MCP App a tool declares.

Reads the tool's `ui://` resource (only now: listing never fetches it),
serves it on a loopback address behind a random token, prints the URL, opens
the browser only with `--open`, and prints every message the app posts to
its host (each also goes into the traffic log, so `--record` keeps it) until
Ctrl-C.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from .. import __version__
from ..core.apps import (
    AppDocument,
    app_document,
    content_security_policy,
    host_reply,
    record_app_exchange,
    tool_ui,
)
from ..core.safetext import safe_json, visible
from . import exitcodes
from .runner import CommandContext, CommandFailed

__all__ = ["run_app"]


async def run_app(ctx: CommandContext) -> int:
    listing = await ctx.client.list_all("tools")
    tool = listing.find(ctx.args.tool)
    if tool is None:
        raise CommandFailed(exitcodes.USAGE, f"no tool named {visible(ctx.args.tool)!r}")
    ui = tool_ui(tool.data)
    if ui is None or ui.resource_uri is None:
        raise CommandFailed(exitcodes.USAGE, f"the tool {visible(tool.key)!r} declares no UI resource (_meta.ui)")
    result = await ctx.client.read_resource(ui.resource_uri)
    try:
        document = app_document(ui.resource_uri, result)
    except ValueError as exc:
        raise CommandFailed(exitcodes.PROTOCOL_ERROR, f"{ui.resource_uri}: {exc}") from exc
    for problem in ui.problems + document.problems:
        print(f"inspector: app: {visible(problem)}", file=sys.stderr)
    # The web server is imported only by a preview, never by other commands.
    from ..core.app_host import AppHost

    relay = _Relay(ctx, tool.data)
    host = AppHost(document, relay.handle)
    url = await host.start()
    try:
        _announce(ctx, document, url)
        if ctx.args.open:
            _open_browser(url)
        # Serves until Ctrl-C (or the server connection's end ends the command).
        await asyncio.Event().wait()
    finally:
        await host.close()
    return exitcodes.OK


def _announce(ctx: CommandContext, document: AppDocument, url: str) -> None:
    policy = content_security_policy(document.ui_meta)
    if ctx.out.json:
        ctx.out.json_value({"url": url, "resourceUri": document.uri, "csp": policy, "ui": document.ui_meta})
        return
    ctx.out.line(f"preview of {document.uri}: {url}")
    # The extension asks hosts to keep CSP configurations reviewable.
    ctx.out.line(f"content security policy: {policy}")
    ctx.out.line("serving on 127.0.0.1 only; Ctrl-C stops it")
    ctx.out.stream.flush()


class _Relay:
    """Shows each message the app posts and answers what a preview can."""

    def __init__(self, ctx: CommandContext, tool: dict[str, Any]) -> None:
        self.ctx = ctx
        self.tool = tool

    async def handle(self, message: Any, raw: str) -> Any:
        reply = host_reply(message, self.tool, __version__)
        record_app_exchange(self.ctx.client.traffic, message, raw, reply)
        if self.ctx.out.json:
            self.ctx.out.json_value({"app": message if message is not None else raw, "reply": reply})
        else:
            self.ctx.out.line(f"app → host: {safe_json(message) if message is not None else raw}")
            if reply is not None:
                self.ctx.out.line(f"host → app: {safe_json(reply)}")
            self.ctx.out.stream.flush()
        return reply


# Browsers that would draw the page in this very terminal.
CONSOLE_BROWSERS = frozenset({"www-browser", "links", "links2", "elinks", "lynx", "w3m"})


def _open_browser(url: str) -> None:
    import webbrowser

    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        print("inspector: no web browser found; open the URL above yourself", file=sys.stderr)
        return
    if getattr(browser, "name", "") in CONSOLE_BROWSERS:
        # The server's HTML must never run inside the terminal.
        print(f"inspector: the only browser is a console one ({browser.name}); open the URL elsewhere", file=sys.stderr)
        return
    import threading

    # Some browser commands return only when the browser closes: from a
    # thread of its own, so the preview keeps answering the page meanwhile.
    threading.Thread(target=browser.open, args=(url,), name="open-browser", daemon=True).start()
