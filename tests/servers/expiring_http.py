"""A handshake-era Streamable HTTP server whose sessions expire on demand,
for the session rules a client must follow (standard library only):

- `initialize` opens a session (`Mcp-Session-Id`); any other POST without a
  known, live session id gets 400 (none sent) or 404 (expired or unknown).
- The tool `expire` answers, then ends the session: later requests on it get
  404, and the open GET stream of it is closed.
- The tool `slow {seconds}` answers once some session has expired (at once
  if one already has; after `seconds` at most), and answers 404 instead if
  its own session is the one that expired (so several requests in flight
  learn of the expiry at once, however slowly they reached the server).
- GET opens the server's stream: the first GET of a session gets one event
  (`id: <session>-1`, `retry: 200`, a log notification) and is then closed
  by the server; a GET that resumes with `Last-Event-ID` gets the next event
  and stays open (keep-alive comments) until the session ends.
- DELETE ends the session.

Every request is logged (verb, method, session id, Last-Event-ID); GET /log
returns the log as JSON.

    python tests/servers/expiring_http.py PORT
"""

from __future__ import annotations

import json
import sys
import threading
import time
import uuid
from http.server import ThreadingHTTPServer
from typing import Any

from json_http import JsonHandler

VERSIONS = ("2025-03-26", "2025-06-18", "2025-11-25")


class State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.live: set[str] = set()
        self.log: list[dict[str, Any]] = []
        self.expired = threading.Event()

    def note(self, **entry: Any) -> None:
        with self.lock:
            self.log.append({"time": time.time(), **entry})

    def alive(self, session: str | None) -> bool:
        with self.lock:
            return session is not None and session in self.live

    def end(self, session: str) -> None:
        with self.lock:
            self.live.discard(session)
        self.expired.set()


STATE = State()


def answer(message_id: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": message_id, "result": result}


def failure(message_id: Any, code: int, text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": message_id, "error": {"code": code, "message": text}}


TOOLS = [
    {"name": "slow", "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}}},
    {"name": "expire", "inputSchema": {"type": "object"}},
    {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
]


class Handler(JsonHandler):
    def _session_problem(self, session: str | None, message_id: Any) -> bool:
        """Answer 400/404 when the session is missing or gone; True when answered."""
        if session is None:
            self._json(400, failure(message_id, -32000, "Bad Request: no session id"))
            return True
        if not STATE.alive(session):
            self._json(404, failure(message_id, -32001, "Session not found"))
            return True
        return False

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        message = json.loads(self.rfile.read(length))
        session = self.headers.get("Mcp-Session-Id")
        method = message.get("method")
        message_id = message.get("id")
        STATE.note(verb="POST", method=method, id=message_id, session=session)
        if method == "initialize":
            new = uuid.uuid4().hex
            with STATE.lock:
                STATE.live.add(new)
            offered = (message.get("params") or {}).get("protocolVersion")
            result: dict[str, Any] = {
                "protocolVersion": offered if offered in VERSIONS else VERSIONS[-1],
                "capabilities": {"tools": {}, "logging": {}},
                "serverInfo": {"name": "expiring-http", "version": "1.0.0"},
            }
            self._json(200, answer(message_id, result), {"Mcp-Session-Id": new})
            return
        if self._session_problem(session, message_id):
            return
        assert session is not None
        if "id" not in message or method is None:
            self._json(202)
            return
        if method == "tools/list":
            self._json(200, answer(message_id, {"tools": TOOLS}))
        elif method == "ping":
            self._json(200, answer(message_id, {}))
        elif method == "tools/call":
            self._call(session, message_id, message.get("params") or {})
        else:
            self._json(200, failure(message_id, -32601, f"Method not found: {method}"))

    def _call(self, session: str, message_id: Any, params: dict[str, Any]) -> None:
        name = params.get("name")
        arguments = params.get("arguments") or {}
        if name == "slow":
            STATE.expired.wait(float(arguments.get("seconds", 0.5)))
            if not STATE.alive(session):
                self._json(404, failure(message_id, -32001, "Session not found"))
                return
            self._json(200, answer(message_id, {"content": [{"type": "text", "text": f"slow done in {session}"}]}))
        elif name == "expire":
            self._json(200, answer(message_id, {"content": [{"type": "text", "text": f"ending {session}"}]}))
            STATE.end(session)
            STATE.note(verb="EXPIRED", session=session)
        else:
            text = str(arguments.get("text", ""))
            self._json(200, answer(message_id, {"content": [{"type": "text", "text": text}]}))

    def _event(self, event_id: str, text: str, retry: int | None = None) -> None:
        notification = {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": text},
        }
        head = f"id: {event_id}\n" + (f"retry: {retry}\n" if retry is not None else "")
        self.wfile.write((head + f"data: {json.dumps(notification)}\n\n").encode())
        self.wfile.flush()

    def do_GET(self) -> None:
        if self.path == "/log":
            with STATE.lock:
                self._json(200, STATE.log)
            return
        session = self.headers.get("Mcp-Session-Id")
        last = self.headers.get("Last-Event-ID")
        STATE.note(verb="GET", session=session, last_event_id=last)
        if self._session_problem(session, None):
            return
        assert session is not None
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            if last is None:
                # One event, then the server closes the stream on purpose.
                self._event(f"{session}-1", "first event", retry=200)
                return
            self._event(f"{session}-2", f"resumed after {last}")
            while STATE.alive(session):
                self.wfile.write(b": keep-alive\n\n")
                self.wfile.flush()
                time.sleep(0.1)  # the keep-alive's pace while the session lives
        except (BrokenPipeError, ConnectionResetError):
            return

    def do_DELETE(self) -> None:
        session = self.headers.get("Mcp-Session-Id")
        STATE.note(verb="DELETE", session=session)
        if session is not None and STATE.alive(session):
            STATE.end(session)
            self._json(200)
        else:
            self._json(404)


def main() -> int:
    port = int(sys.argv[1])
    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    httpd.daemon_threads = True
    httpd.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
