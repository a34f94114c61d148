"""A handshake-era server whose one tool, `report`, tells what it was given:
its environment, working directory and command line, and (over HTTP) the
headers of the request that called it.  Standard library only.

    python tests/servers/reporter.py [ARGS...]          # stdio
    python tests/servers/reporter.py --http PORT        # Streamable HTTP at /mcp
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from http.server import ThreadingHTTPServer
from typing import Any

import stdio_json
from json_http import JsonHandler

REPORT_TOOL = {"name": "report", "description": "What this server was given.", "inputSchema": {"type": "object"}}


def handle(message: dict[str, Any], headers: dict[str, str] | None) -> dict[str, Any] | None:
    method = message.get("method")
    if "id" not in message:
        return None
    message_id = message["id"]

    def result(value: Any) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": message_id, "result": value}

    if method == "initialize":
        offered = (message.get("params") or {}).get("protocolVersion")
        return result(
            {
                "protocolVersion": offered if str(offered).startswith("2025") else "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "reporter", "version": "1.0.0"},
            }
        )
    if method == "tools/list":
        return result({"tools": [REPORT_TOOL]})
    if method == "ping":
        return result({})
    if method == "tools/call":
        report = {"env": dict(os.environ), "cwd": os.getcwd(), "argv": sys.argv[1:], "headers": headers}
        # Reversed: the inspector masks every secret a server echoes, and the
        # test wants to see exactly what arrived (it reverses it back).
        return result({"content": [{"type": "text", "text": json.dumps(report)[::-1]}]})
    return {"jsonrpc": "2.0", "id": message_id, "error": {"code": -32601, "message": f"Method not found: {method}"}}


def serve_stdio() -> int:
    stdio_json.serve(lambda message: handle(message, None))
    return 0


def serve_http(port: int) -> int:
    class Handler(JsonHandler):
        def do_POST(self) -> None:
            if self.path != "/mcp":
                self._json(404)
                return
            length = int(self.headers.get("Content-Length") or 0)
            message = json.loads(self.rfile.read(length))
            if not isinstance(message, dict) or (
                message.get("method") not in ("initialize", None) and not self.headers.get("Mcp-Session-Id")
            ):
                self._json(400, {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": "no session"}})
                return
            answer = handle(message, dict(self.headers.items()))
            if answer is None:
                self._json(202)
                return
            extra = {"Mcp-Session-Id": uuid.uuid4().hex} if message.get("method") == "initialize" else None
            self._json(200, answer, extra)

        def do_GET(self) -> None:
            self._json(405 if self.path == "/mcp" else 404)

        def do_DELETE(self) -> None:
            self._json(200 if self.path == "/mcp" else 404)

    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    httpd.daemon_threads = True
    httpd.serve_forever()
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:
        sys.exit(serve_http(int(sys.argv[2])))
    sys.exit(serve_stdio())
