"""What the hand-written HTTP test servers (eager_get.py, expiring_http.py)
share: an HTTP/1.1 request handler of the standard library that keeps quiet
and answers JSON.  Standard library only."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any


class JsonHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _json(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
        """Answer `status` with `body` as JSON (no body when None) and these headers."""
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
