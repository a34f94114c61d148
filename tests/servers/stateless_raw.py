"""A hand-written 2026-07-28 (stateless) server for behaviours no SDK server
shows on demand: the recoveries a client must make and the limits it must
keep.  Standard library only; stdio by default, `--http PORT` for Streamable
HTTP (POST only, JSON answers, no sessions).

    python tests/servers/stateless_raw.py [--http PORT]

Tools:
    regional  {region}  `region` is mirrored into a header by `x-mcp-header`.
              Its first call "redeploys" the tool: the header is renamed from
              Region to Zone, and over HTTP the call (and any call whose
              Mcp-Param-Zone header does not match) is answered -32020, so
              only a client that re-lists the tools (not from its cache) can
              call it again.
    ask       {trap?}   multi round-trip: asks for a name (elicitation) with
              requestState "state-1"; the answer round must carry both.  With
              trap=true the answer round is first refused with -32022 (once),
              so the client's version retry must keep the round's answers.
    forever   {}        answers input_required every time (a round cap test).
    mystery   {}        answers with resultType "mystery".

The first prompts/list is answered -32022 (once), and prompts/get with the
name "unsupported" always is, naming only versions nobody knows.
Every request is logged; the tool `log` returns the log (method, params,
headers).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

VERSION = "2026-07-28"
PV_KEY = "io.modelcontextprotocol/protocolVersion"
STATE = "state-1"


class Server:
    def __init__(self) -> None:
        self.header_name = "Region"
        self.redeployed = False
        self.trapped = False
        self.prompts_refused = False
        self.log: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    # -- helpers ----------------------------------------------------------------

    @staticmethod
    def ok(message_id: Any, result: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": message_id, "result": {"resultType": "complete", **result}}

    @staticmethod
    def fail(message_id: Any, code: int, text: str, data: Any = None) -> dict[str, Any]:
        error: dict[str, Any] = {"code": code, "message": text}
        if data is not None:
            error["data"] = data
        return {"jsonrpc": "2.0", "id": message_id, "error": error}

    def tools(self) -> list[dict[str, Any]]:
        def tool(name: str, properties: dict[str, Any] | None = None) -> dict[str, Any]:
            return {"name": name, "inputSchema": {"type": "object", "properties": properties or {}}}

        return [
            tool("regional", {"region": {"type": "string", "x-mcp-header": self.header_name}}),
            tool("ask", {"trap": {"type": "boolean"}}),
            tool("forever"),
            tool("mystery"),
            tool("log"),
        ]

    # -- the dispatcher -----------------------------------------------------------

    def handle(self, message: Any, headers: dict[str, str] | None = None) -> tuple[dict[str, Any] | None, int]:
        """(answer or None for a notification, HTTP status)."""
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            return self.fail(None, -32600, "invalid request"), 400
        method = message["method"]
        params = message.get("params") or {}
        with self.lock:
            self.log.append({"method": method, "params": params, "headers": headers or {}})
        if "id" not in message:
            return None, 202
        message_id = message["id"]
        meta = params.get("_meta") or {}
        if method != "server/discover" and meta.get(PV_KEY) != VERSION:
            return self.fail(message_id, -32022, "unsupported protocol version", {"supported": [VERSION]}), 400
        answer = _METHODS.get(method)
        if answer is None:
            return self.fail(message_id, -32601, f"Method not found: {method}"), 404
        return answer(self, message_id, params, headers)

    def discover(self, message_id: Any, params: dict[str, Any], headers: dict[str, str] | None) -> tuple[Any, int]:
        return self.ok(
            message_id,
            {
                "supportedVersions": [VERSION],
                "capabilities": {"tools": {}, "prompts": {}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "stateless-raw", "version": "1.0.0"}},
                "ttlMs": 0,
            },
        ), 200

    def list_tools(self, message_id: Any, params: dict[str, Any], headers: dict[str, str] | None) -> tuple[Any, int]:
        return self.ok(message_id, {"tools": self.tools(), "ttlMs": 60_000, "cacheScope": "private"}), 200

    def list_prompts(self, message_id: Any, params: dict[str, Any], headers: dict[str, str] | None) -> tuple[Any, int]:
        if not self.prompts_refused:
            self.prompts_refused = True
            return self.fail(message_id, -32022, "try again", {"supported": [VERSION]}), 400
        return self.ok(message_id, {"prompts": [{"name": "hello"}]}), 200

    def get_prompt(self, message_id: Any, params: dict[str, Any], headers: dict[str, str] | None) -> tuple[Any, int]:
        if params.get("name") == "unsupported":
            return self.fail(message_id, -32022, "not for you", {"supported": ["2099-01-01"]}), 400
        return self.ok(message_id, {"messages": []}), 200

    def call(self, message_id: Any, params: dict[str, Any], headers: dict[str, str] | None) -> tuple[Any, int]:
        name = params.get("name")
        tool = _TOOLS.get(name) if isinstance(name, str) else None
        if tool is None:
            return self.fail(message_id, -32602, f"Unknown tool: {name}"), 400
        return tool(self, message_id, params, headers)

    # -- the tools ----------------------------------------------------------------

    def regional(self, message_id: Any, params: dict[str, Any], headers: dict[str, str] | None) -> tuple[Any, int]:
        arguments = params.get("arguments") or {}
        if not self.redeployed:
            self.redeployed = True
            self.header_name = "Zone"
        if headers is not None:
            sent = {k.lower(): v for k, v in headers.items()}.get(f"mcp-param-{self.header_name.lower()}")
            if sent != arguments.get("region"):
                text = f"header mismatch: Mcp-Param-{self.header_name} is {sent!r}"
                return self.fail(message_id, -32020, text), 400
        return self.ok(message_id, {"content": [{"type": "text", "text": f"zone {arguments.get('region')}"}]}), 200

    def ask(self, message_id: Any, params: dict[str, Any], headers: dict[str, str] | None) -> tuple[Any, int]:
        arguments = params.get("arguments") or {}
        responses = params.get("inputResponses")
        if responses is None:
            return self.ok(
                message_id,
                {
                    "resultType": "input_required",
                    "inputRequests": {
                        "who": {
                            "method": "elicitation/create",
                            "params": {
                                "mode": "form",
                                "message": "Your name?",
                                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
                            },
                        }
                    },
                    "requestState": STATE,
                },
            ), 200
        if arguments.get("trap") and not self.trapped:
            self.trapped = True
            return self.fail(message_id, -32022, "unsupported protocol version", {"supported": [VERSION]}), 400
        if params.get("requestState") != STATE:
            return self.fail(message_id, -32602, f"requestState lost: {params.get('requestState')!r}"), 400
        who = responses.get("who") if isinstance(responses, dict) else None
        name_given = (who or {}).get("content", {}).get("name")
        return self.ok(message_id, {"content": [{"type": "text", "text": f"hello {name_given}"}]}), 200

    def forever(self, message_id: Any, params: dict[str, Any], headers: dict[str, str] | None) -> tuple[Any, int]:
        return self.ok(
            message_id,
            {
                "resultType": "input_required",
                "inputRequests": {"again": {"method": "roots/list", "params": {}}},
                "requestState": f"round-{len(self.log)}",
            },
        ), 200

    def mystery(self, message_id: Any, params: dict[str, Any], headers: dict[str, str] | None) -> tuple[Any, int]:
        result = {"resultType": "mystery", "content": [{"type": "text", "text": "?"}]}
        return {"jsonrpc": "2.0", "id": message_id, "result": result}, 200

    def show_log(self, message_id: Any, params: dict[str, Any], headers: dict[str, str] | None) -> tuple[Any, int]:
        with self.lock:
            text = json.dumps(self.log)
        return self.ok(message_id, {"content": [{"type": "text", "text": text}]}), 200


Answer = Callable[[Server, Any, dict[str, Any], "dict[str, str] | None"], tuple[Any, int]]
# What each method (after the version check) and each tool is answered with.
_METHODS: dict[str, Answer] = {
    "server/discover": Server.discover,
    "tools/list": Server.list_tools,
    "prompts/list": Server.list_prompts,
    "prompts/get": Server.get_prompt,
    "tools/call": Server.call,
}
_TOOLS: dict[str, Answer] = {
    "regional": Server.regional,
    "ask": Server.ask,
    "forever": Server.forever,
    "mystery": Server.mystery,
    "log": Server.show_log,
}


def serve_stdio(server: Server) -> int:
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            answer: Any = Server.fail(None, -32700, "Parse error")
        else:
            answer, _status = server.handle(message)
        if answer is not None:
            sys.stdout.buffer.write(json.dumps(answer).encode() + b"\n")
            sys.stdout.buffer.flush()
    return 0


def serve_http(server: Server, port: int) -> int:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: Any = None) -> None:
            data = json.dumps(body).encode() if body is not None else b""
            self.send_response(status)
            if body is not None:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                message = json.loads(self.rfile.read(length))
            except ValueError:
                self._send(400, Server.fail(None, -32700, "Parse error"))
                return
            answer, status = server.handle(message, dict(self.headers.items()))
            self._send(status, answer)

        def do_GET(self) -> None:
            self._send(405)

        def do_DELETE(self) -> None:
            self._send(405)

    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    httpd.daemon_threads = True
    httpd.serve_forever()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    args = parser.parse_args()
    server = Server()
    return serve_http(server, args.http) if args.http else serve_stdio(server)


if __name__ == "__main__":
    sys.exit(main())
