"""`inspector app TOOL [--open]`: preview the MCP App a tool declares.

Reads the tool's `ui://` resource (only now: listing never fetches it),
serves it on a loopback address behind a random token, prints the URL, opens
the browser only with `--open`, and prints every message the app posts to
its host (each also goes into the traffic log, so `--record` keeps it) until
Ctrl-C.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from .. import __version__
from ..core.apps import APPS_PROTOCOL_VERSION, AppDocument, app_document, content_security_policy, tool_ui
from ..core.safetext import safe_json, visible
from ..core.traffic import classify
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
            import webbrowser

            webbrowser.open(url)
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
        kind, method, request_id = classify(message)
        note = f"app → host: {method}" if method else "app → host"
        traffic = self.ctx.client.traffic
        # The exact text the page relayed, so --record keeps it whole.
        traffic.add("local", "app", raw=raw.encode(), message=message, method=method, id=request_id, note=note)
        reply = self._reply(kind, method, request_id, message)
        if reply is not None:
            text = json.dumps(reply, ensure_ascii=False)
            traffic.add("local", "app", raw=text.encode(), message=reply, id=request_id, note="host → app")
        if self.ctx.out.json:
            self.ctx.out.json_value({"app": message if message is not None else raw, "reply": reply})
        else:
            self.ctx.out.line(f"app → host: {safe_json(message) if message is not None else raw}")
            if reply is not None:
                self.ctx.out.line(f"host → app: {safe_json(reply)}")
            self.ctx.out.stream.flush()
        return reply

    def _reply(self, kind: str, method: str | None, request_id: Any, message: Any) -> Any:
        if kind != "request":
            return None
        if method == "ui/initialize":
            result = {
                "protocolVersion": APPS_PROTOCOL_VERSION,
                "hostCapabilities": {},
                "hostInfo": {"name": "inspector", "version": __version__},
                "hostContext": {
                    "toolInfo": {"tool": self.tool},
                    "displayMode": "inline",
                    "availableDisplayModes": ["inline"],
                    "platform": "web",
                },
            }
            return {"jsonrpc": "2.0", "id": request_id, "result": result}
        if method == "ping":
            return {"jsonrpc": "2.0", "id": request_id, "result": {}}
        # Forwarding to the server (tools/call, resources/read) would skip
        # the confirmation every tool call gets: the preview only shows them.
        error = {"code": -32601, "message": f"the inspector's preview does not forward {method}"}
        return {"jsonrpc": "2.0", "id": request_id, "error": error}
