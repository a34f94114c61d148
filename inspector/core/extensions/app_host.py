"""The MCP Apps preview: a loopback web server that hosts one UI resource.

Only started when the person asks for a preview.  It listens on 127.0.0.1
on a free port, and every path lives under a random token; anything else is
403.  The host page (ours) frames the server's HTML in a sandboxed iframe
without `allow-same-origin`, so the view runs in an opaque origin, apart
from the host page, with the CSP the extension prescribes.  A small script
in the host page carries the view's postMessage traffic over a WebSocket
(`/TOKEN/socket`) to the inspector, whose bridge (app_bridge) is the host
the view talks to; what the inspector sends back is posted into the frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import secrets
from typing import TYPE_CHECKING, Any, Protocol

from aiohttp import WSMsgType, web

from inspector.core.extensions.apps import AppDocument, content_security_policy

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["MAX_APP_MESSAGE", "AppHost", "ViewReceiver"]

# The largest message a view may send; past it the socket is closed (1009).
MAX_APP_MESSAGE = 1 << 20


class ViewReceiver(Protocol):
    """Where the views' messages go (an `AppBridge`)."""

    def attach(self, view: Any) -> None:
        """A host page's socket opened: a view to serve."""

    def detach(self, view: Any) -> None:
        """The view's socket closed."""

    async def receive(self, view: Any, message: Any, raw: str) -> None:
        """A message the view posted: parsed (None when it is not JSON), and as it came."""


# The page talks to the inspector in envelopes: {"post": message} goes into
# the frame, {"reload": true} gives the frame a fresh view.  The frame gets
# its src only once the listener is there, so no early message is lost.
_HOST_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>inspector: MCP App preview</title>
<style nonce="{nonce}">body{{margin:0;font:14px sans-serif}}header{{padding:6px 10px;background:#eee}}
iframe{{border:1px solid #999;width:100%;height:calc(100vh - 40px)}}</style></head>
<body><header>MCP App preview of <code id="uri"></code>; the app's messages are shown by the inspector
<span id="state"></span></header>
<iframe id="app" sandbox="allow-scripts"></iframe>
<script nonce="{nonce}">
document.getElementById("uri").textContent = {uri_json};
const frame = document.getElementById("app");
const socket = new WebSocket(new URL("socket", location.href).href.replace(/^http/, "ws"));
const early = [];
let loads = 0;
window.addEventListener("message", (event) => {{
  if (event.source !== frame.contentWindow) return;
  let text;
  try {{ text = JSON.stringify(event.data); }} catch (e) {{ text = JSON.stringify({{unserializable: String(e)}}); }}
  if (text === undefined) text = "null";
  if (socket.readyState === WebSocket.OPEN) socket.send(text); else early.push(text);
}});
socket.addEventListener("open", () => {{ for (const text of early.splice(0)) socket.send(text); }});
socket.addEventListener("message", (event) => {{
  let order;
  try {{ order = JSON.parse(event.data); }} catch (e) {{ return; }}
  if (order.reload) {{ frame.src = "view?load=" + (++loads); return; }}
  if ("post" in order) frame.contentWindow.postMessage(order.post, "*");
}});
socket.addEventListener("close", () => {{
  document.getElementById("state").textContent = "(the inspector has stopped the preview)";
}});
frame.src = "view";
</script></body></html>
"""


class _SocketView:
    """One host page's socket, as the bridge sees a view."""

    def __init__(self, socket: web.WebSocketResponse) -> None:
        self.socket = socket
        self._lock = asyncio.Lock()

    async def post(self, message: JSONObject) -> None:
        await self._send({"post": message})

    async def reload(self) -> None:
        await self._send({"reload": True})

    async def _send(self, envelope: JSONObject) -> None:
        async with self._lock:
            # A page that went away takes nothing more.
            with contextlib.suppress(ConnectionError, RuntimeError):
                await self.socket.send_str(json.dumps(envelope, ensure_ascii=False))


class AppHost:
    """One preview's loopback web server: the host page, the view's HTML and the socket, under a random token."""

    def __init__(self, document: AppDocument, receiver: ViewReceiver) -> None:
        self.document = document
        self.receiver = receiver
        self.token = secrets.token_urlsafe(24)
        self._runner: web.AppRunner | None = None
        self._sockets: set[web.WebSocketResponse] = set()
        self.port: int | None = None

    @property
    def url(self) -> str:
        """The preview's address, token included; `RuntimeError` before `start`."""
        if self.port is None:
            raise RuntimeError("the preview is not started")
        return f"http://127.0.0.1:{self.port}/{self.token}/"

    @property
    def origin(self) -> str:
        """`http://127.0.0.1:PORT`, the host page's origin."""
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> str:
        """Listen on a free loopback port; returns the preview's URL."""
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
        """Close the open sockets, then stop the server."""
        # Open sockets first: the server's shutdown would otherwise wait for them.
        for socket in list(self._sockets):
            # A view's socket may already be broken in any of aiohttp's ways
            # (its browser gone mid-frame): the others still have to be closed.
            with contextlib.suppress(Exception):
                await socket.close()
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
        if rest == "socket" and request.method == "GET":
            return await self._socket(request)
        return web.Response(status=404, text="not found\n")

    def _host_page(self) -> web.Response:
        nonce = secrets.token_urlsafe(16)
        # The URI goes in as a JSON string, with `<` escaped so it cannot close the script.
        uri_json = json.dumps(self.document.uri).replace("<", "\\u003c")
        page = _HOST_PAGE.format(nonce=nonce, uri_json=uri_json)
        policy = (
            f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
            f"frame-src 'self'; connect-src 'self' ws://127.0.0.1:{self.port}; base-uri 'none'; form-action 'none'"
        )
        return web.Response(text=page, content_type="text/html", headers=_headers(policy))

    def _view(self) -> web.Response:
        # `sandbox allow-scripts` in the header too: opened on its own, out
        # of the frame, the view still gets an opaque origin.
        policy = content_security_policy(self.document.ui_meta) + "; sandbox allow-scripts"
        return web.Response(text=self.document.html, content_type="text/html", headers=_headers(policy))

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        # The token keeps other pages out; a browser's Origin, when sent, must be ours too.
        origin = request.headers.get("Origin")
        if origin is not None and origin != self.origin:
            return web.Response(status=403, text="forbidden\n")
        socket = web.WebSocketResponse(max_msg_size=MAX_APP_MESSAGE)
        await socket.prepare(request)
        self._sockets.add(socket)
        view = _SocketView(socket)
        self.receiver.attach(view)
        try:
            async for frame in socket:
                if frame.type == WSMsgType.TEXT:
                    raw = frame.data
                elif frame.type == WSMsgType.BINARY:
                    raw = frame.data.decode("utf-8", "replace")
                else:
                    break
                try:
                    message = json.loads(raw)
                except (ValueError, RecursionError):
                    message = None
                await self.receiver.receive(view, message, raw)
        finally:
            self.receiver.detach(view)
            self._sockets.discard(socket)
        return socket


def _headers(policy: str) -> dict[str, str]:
    return {
        "Content-Security-Policy": policy,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
    }
