"""The MCP Apps preview: a loopback web server that hosts one UI resource.

Only started when the person asks for a preview.  It listens on 127.0.0.1
on a free port, and every path lives under a random token; anything else is
403.  The host page (ours) frames the server's HTML in a sandboxed iframe
without `allow-same-origin`, so the view runs in an opaque origin, apart
from the host page, with the CSP the extension prescribes.  A small script
in the host page relays each postMessage the view sends to `/TOKEN/messages`;
the inspector answers from there (the answer goes back into the frame).
"""

from __future__ import annotations

import hmac
import json
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from .apps import AppDocument, content_security_policy

__all__ = ["MAX_APP_MESSAGE", "AppHost", "MessageHandler"]

# The largest message the view may relay; past it the relay answers 413.
MAX_APP_MESSAGE = 1 << 20

# One relayed message (parsed JSON, or None when the body was not JSON) and
# its raw text -> the JSON-RPC answer to post back into the view, or None.
MessageHandler = Callable[[Any, str], Awaitable[Any]]

_HOST_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>inspector: MCP App preview</title>
<style nonce="{nonce}">body{{margin:0;font:14px sans-serif}}header{{padding:6px 10px;background:#eee}}
iframe{{border:1px solid #999;width:100%;height:calc(100vh - 40px)}}</style></head>
<body><header>MCP App preview of <code id="uri"></code>; the app's messages are shown by the inspector</header>
<iframe id="app" sandbox="allow-scripts" src="view"></iframe>
<script nonce="{nonce}">
document.getElementById("uri").textContent = {uri_json};
const frame = document.getElementById("app");
window.addEventListener("message", async (event) => {{
  if (event.source !== frame.contentWindow) return;
  let body;
  try {{ body = JSON.stringify(event.data); }} catch (e) {{ body = JSON.stringify({{unserializable: String(e)}}); }}
  const response = await fetch("messages", {{method: "POST", headers: {{"Content-Type": "application/json"}}, body}});
  if (!response.ok) return;
  const answer = await response.json();
  if (answer && answer.reply) frame.contentWindow.postMessage(answer.reply, "*");
}});
</script></body></html>
"""


class AppHost:
    def __init__(self, document: AppDocument, on_message: MessageHandler) -> None:
        self.document = document
        self.on_message = on_message
        self.token = secrets.token_urlsafe(24)
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("the preview is not started")
        return f"http://127.0.0.1:{self.port}/{self.token}/"

    async def start(self) -> str:
        app = web.Application(client_max_size=MAX_APP_MESSAGE)
        app.router.add_route("*", "/{tail:.*}", self._route)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self._runner = runner
        self.port = int(runner.addresses[0][1])
        return self.url

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def _under_token(self, path: str) -> str | None:
        """The rest of `path` after /TOKEN/, or None when the token is not there."""
        head, _sep, rest = path.lstrip("/").partition("/")
        if not _sep or not hmac.compare_digest(head.encode(), self.token.encode()):
            return None
        return rest

    async def _route(self, request: web.Request) -> web.StreamResponse:
        rest = self._under_token(request.path)
        if rest is None:
            return web.Response(status=403, text="forbidden\n")
        if rest == "" and request.method == "GET":
            return self._host_page()
        if rest == "view" and request.method == "GET":
            return self._view()
        if rest == "messages" and request.method == "POST":
            return await self._relay(request)
        return web.Response(status=404, text="not found\n")

    def _host_page(self) -> web.Response:
        nonce = secrets.token_urlsafe(16)
        # The URI goes in as a JSON string, with `<` escaped so it cannot close the script.
        uri_json = json.dumps(self.document.uri).replace("<", "\\u003c")
        page = _HOST_PAGE.format(nonce=nonce, uri_json=uri_json)
        policy = (
            f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
            "frame-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'"
        )
        return web.Response(text=page, content_type="text/html", headers=_headers(policy))

    def _view(self) -> web.Response:
        # `sandbox allow-scripts` in the header too: opened on its own, out
        # of the frame, the view still gets an opaque origin.
        policy = content_security_policy(self.document.ui_meta) + "; sandbox allow-scripts"
        return web.Response(text=self.document.html, content_type="text/html", headers=_headers(policy))

    async def _relay(self, request: web.Request) -> web.Response:
        try:
            raw = await request.text()
        except web.HTTPRequestEntityTooLarge:
            return web.Response(status=413, text="message too large\n")
        try:
            message = json.loads(raw)
        except (ValueError, RecursionError):
            message = None
        reply = await self.on_message(message, raw)
        return web.json_response({"reply": reply} if reply is not None else {})


def _headers(policy: str) -> dict[str, str]:
    return {
        "Content-Security-Policy": policy,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
    }
