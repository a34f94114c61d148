"""A Streamable HTTP server (handshake era) that misbehaves on purpose.

    python hostile_http.py PORT [--second-port PORT2]

The misbehaviour is chosen by the URL path: `/<mode>` misbehaves on every
request (initialize and the era probe too); `/<mode>/later` answers the
set-up normally and misbehaves on the requests after it (`tools/list`...).
`/ok` is a well-behaved server.  Modes:

  trickle      a JSON answer sent one byte a second
  comments     an SSE answer made of keep-alive comments, forever
  html         200 with text/html (a login page)
  json-html    200 saying application/json, with an HTML body
  sse-json     200 saying text/event-stream, with a plain JSON body (then open)
  oversize     a JSON body that never ends
  oversize-sse an SSE `data:` line that never ends
  redirect     307 to /ok on the second port (another origin)
  same-origin  307 to /ok on this port
  forbidden    403 text/plain "Access is only allowed at localhost:8803"
               (to the legacy transport's GET too)
  endpoint-elsewhere  (legacy HTTP+SSE GET) an `endpoint` event naming
               /ok on the second port
  error500     500 with a JSON body that is not JSON-RPC

Both ports serve the same modes and share one log of every request they
received (verb, port, path, headers): GET /log on either port.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LOG: list[dict[str, Any]] = []
LOCK = threading.Lock()
FORBIDDEN_TEXT = b"Access is only allowed at localhost:8803"
HTML = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>Please sign in</body></html>"
SETUP = ("initialize", "server/discover")
# How long a misbehaving answer keeps the connection open at most.
HOLD_SECONDS = 300.0


def answer(message: dict[str, Any]) -> dict[str, Any]:
    method = message.get("method")
    message_id = message.get("id")
    if method == "initialize":
        params = message.get("params") or {}
        result: dict[str, Any] = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile-http", "version": "1.0"},
        }
    elif method == "tools/list":
        result = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": f"Method not found: {method}"}
        return {"jsonrpc": "2.0", "id": message_id, "error": error}
    return {"jsonrpc": "2.0", "id": message_id, "result": result}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    second_port: int | None = None

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _note(self, verb: str, message: Any = None) -> None:
        address = self.server.server_address  # (host, port): a TCP server
        entry = {
            "verb": verb,
            "port": address[1] if isinstance(address, tuple) else None,
            "path": self.path,
            "headers": {name.lower(): value for name, value in self.headers.items()},
            "method": message.get("method") if isinstance(message, dict) else None,
        }
        with LOCK:
            LOG.append(entry)

    def _send(self, status: int, body: bytes = b"", content_type: str | None = None, **headers: str) -> None:
        self.send_response(status)
        if content_type is not None:
            self.send_header("Content-Type", content_type)
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _open(self, content_type: str, length: int | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def do_GET(self) -> None:
        if self.path == "/log":
            with LOCK:
                data = json.dumps(LOG).encode()
            self._send(200, data, "application/json")
            return
        self._note("GET")
        mode = self.path.strip("/").split("/")[0]
        # The legacy HTTP+SSE transport opens with a GET.
        if mode == "forbidden":
            self._send(403, FORBIDDEN_TEXT, "text/plain; charset=utf-8")
            return
        if mode == "endpoint-elsewhere":
            self._open("text/event-stream")
            self.wfile.write(f"event: endpoint\ndata: http://127.0.0.1:{self.second_port}/ok\n\n".encode())
            try:
                self._hold(lambda: self.wfile.write(b": keep-alive\n\n"), 0.5)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        self._send(405)

    def do_DELETE(self) -> None:
        self._note("DELETE")
        self._send(200)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            message = json.loads(body)
        except ValueError:
            self._send(400, b"not JSON", "text/plain")
            return
        self._note("POST", message)
        parts = self.path.strip("/").split("/")
        mode = parts[0]
        later = parts[1:] == ["later"]
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            self._send(202)
            return
        if mode == "ok" or (later and message.get("method") in SETUP):
            self._answer(message)
            return
        try:
            self._misbehave(mode, message)
        except (BrokenPipeError, ConnectionResetError):
            return

    def _answer(self, message: dict[str, Any]) -> None:
        data = json.dumps(answer(message)).encode()
        extra = {"Mcp_Session_Id": "hostile-session"} if message.get("method") == "initialize" else {}
        self._send(200, data, "application/json", **extra)

    def _misbehave(self, mode: str, message: dict[str, Any]) -> None:
        data = json.dumps(answer(message)).encode()
        misbehaviour = MISBEHAVIOURS.get(mode)
        if misbehaviour is None:
            self._send(404, f"unknown mode {mode!r}".encode(), "text/plain")
            return
        misbehaviour(self, message, data)

    def _trickle(self, message: dict[str, Any], data: bytes) -> None:
        self._open("application/json", len(data))
        for byte in data:
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            time.sleep(1.0)  # one byte a second: the slow answer under test

    def _comments(self, message: dict[str, Any], data: bytes) -> None:
        self._open("text/event-stream")
        self._hold(lambda: self.wfile.write(b": keep-alive\n\n"), 0.2)

    def _sse_json(self, message: dict[str, Any], data: bytes) -> None:
        self._open("text/event-stream")
        self.wfile.write(data + b"\n")
        self._hold(lambda: None, 0.2)

    def _oversize(self, message: dict[str, Any], data: bytes) -> None:
        self._open("application/json")
        self.wfile.write(b'{"jsonrpc":"2.0","id":%d,"result":{"text":"' % message["id"])
        self._hold(lambda: self.wfile.write(b"a" * 65536), 0.0)

    def _oversize_sse(self, message: dict[str, Any], data: bytes) -> None:
        self._open("text/event-stream")
        self.wfile.write(b'data: {"jsonrpc":"2.0","id":%d,"result":{"text":"' % message["id"])
        self._hold(lambda: self.wfile.write(b"a" * 65536), 0.0)

    def _redirect(self, message: dict[str, Any], data: bytes) -> None:
        location = f"http://127.0.0.1:{self.second_port}/ok"
        self._send(307, b"", None, Location=location)

    def _error500(self, message: dict[str, Any], data: bytes) -> None:
        body = json.dumps({"error": "database unavailable", "retry_after": 30}).encode()
        self._send(500, body, "application/json")

    def _hold(self, step: Any, pause: float) -> None:
        """Repeat `step` (and flush) until the client goes away or time is up."""
        end = time.monotonic() + HOLD_SECONDS
        while time.monotonic() < end:
            step()
            self.wfile.flush()
            if pause:
                time.sleep(pause)  # the misbehaviour's pace (keep-alives every `pause` seconds)


Misbehaviour = Callable[[Handler, dict[str, Any], bytes], None]
# What each mode does with a request (given the answer it would have had).
MISBEHAVIOURS: dict[str, Misbehaviour] = {
    "trickle": Handler._trickle,
    "comments": Handler._comments,
    "html": lambda handler, message, data: handler._send(200, HTML, "text/html; charset=utf-8"),
    "json-html": lambda handler, message, data: handler._send(200, HTML, "application/json"),
    "sse-json": Handler._sse_json,
    "oversize": Handler._oversize,
    "oversize-sse": Handler._oversize_sse,
    "redirect": Handler._redirect,
    "same-origin": lambda handler, message, data: handler._send(307, b"", None, Location="/ok"),
    "forbidden": lambda handler, message, data: handler._send(403, FORBIDDEN_TEXT, "text/plain; charset=utf-8"),
    "error500": Handler._error500,
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--second-port", type=int)
    args = parser.parse_args()
    Handler.second_port = args.second_port
    servers = [ThreadingHTTPServer(("127.0.0.1", args.port), Handler)]
    if args.second_port:
        servers.append(ThreadingHTTPServer(("127.0.0.1", args.second_port), Handler))
    for server in servers:
        server.daemon_threads = True
    for server in servers[1:]:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    servers[0].serve_forever()


if __name__ == "__main__":
    main()
