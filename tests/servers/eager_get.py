"""A handshake-era Streamable HTTP server that asks the client something the
instant the session is initialised (standard library only).

When `notifications/initialized` arrives, the server sends
`elicitation/create` on the session's GET stream, if one is open; if none
is, the request is dropped, as the official TypeScript server drops it.  A
client that opens its GET stream only after saying it is ready races this
server; one that waits for the stream first is asked every time.

The tool `report` says what happened: whether the request was sent or
dropped, and the answer the client POSTed back (null until it came).

    python tests/servers/eager_get.py PORT
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import uuid
from http.server import ThreadingHTTPServer
from typing import Any

from json_http import JsonHandler

VERSIONS = ("2025-03-26", "2025-06-18", "2025-11-25")
ASK_ID = "eager-elicitation-1"
ASK = {
    "jsonrpc": "2.0",
    "id": ASK_ID,
    "method": "elicitation/create",
    "params": {
        "message": "Asked the instant the session was initialised",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
    },
}


class State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.streams: dict[str, queue.Queue[bytes | None]] = {}
        self.report: dict[str, Any] = {"sent": None, "answer": None}


STATE = State()


class Handler(JsonHandler):
    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        message = json.loads(self.rfile.read(length))
        session = self.headers.get("Mcp-Session-Id") or ""
        method = message.get("method")
        message_id = message.get("id")
        if method == "initialize":
            offered = (message.get("params") or {}).get("protocolVersion")
            result: dict[str, Any] = {
                "protocolVersion": offered if offered in VERSIONS else VERSIONS[-1],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "eager-get", "version": "1.0.0"},
            }
            self._json(
                200, {"jsonrpc": "2.0", "id": message_id, "result": result}, {"Mcp-Session-Id": uuid.uuid4().hex}
            )
            return
        if method == "notifications/initialized":
            with STATE.lock:
                stream = STATE.streams.get(session)
                STATE.report["sent"] = stream is not None
            if stream is not None:
                stream.put(f"event: message\ndata: {json.dumps(ASK)}\n\n".encode())
            self._json(202)
            return
        if method is None:
            if message_id == ASK_ID:
                with STATE.lock:
                    STATE.report["answer"] = message.get("result", message.get("error"))
            self._json(202)
            return
        if message_id is None:
            self._json(202)
        elif method == "tools/list":
            tool = {"name": "report", "inputSchema": {"type": "object"}}
            self._json(200, {"jsonrpc": "2.0", "id": message_id, "result": {"tools": [tool]}})
        elif method == "tools/call":
            with STATE.lock:
                text = json.dumps(STATE.report)
            result = {"content": [{"type": "text", "text": text}]}
            self._json(200, {"jsonrpc": "2.0", "id": message_id, "result": result})
        else:
            error = {"code": -32601, "message": f"Method not found: {method}"}
            self._json(200, {"jsonrpc": "2.0", "id": message_id, "error": error})

    def do_GET(self) -> None:
        session = self.headers.get("Mcp-Session-Id") or ""
        stream: queue.Queue[bytes | None] = queue.Queue()
        # Registered before the headers go out: once the client has them,
        # whatever the server sends reaches it.
        with STATE.lock:
            STATE.streams[session] = stream
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        try:
            while (event := stream.get()) is not None:
                self.wfile.write(event)
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return

    def do_DELETE(self) -> None:
        session = self.headers.get("Mcp-Session-Id") or ""
        with STATE.lock:
            stream = STATE.streams.pop(session, None)
        if stream is not None:
            stream.put(None)
        self._json(200)


def main() -> int:
    httpd = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    httpd.daemon_threads = True
    httpd.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
