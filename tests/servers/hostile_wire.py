"""A stdio MCP server that abuses the wire itself: one mode per abuse.

    python tests/servers/hostile_wire.py --mode MODE [options]

Otherwise a tiny handshake-era server with the tools `echo` and `stats`;
the abuse is triggered by `tools/call echo` unless the mode says otherwise.
Standard library only.

    deep            echo is answered with a result nested --depth levels deep
                    (default 5000), its id after the deep part; a valid log
                    notification is in the same write, before and after it
    flood           the first tools/list is preceded, in the same write, by
                    --count (default 10000) server requests: sampling/createMessage,
                    elicitation/create and ping in turn; `stats` reports the
                    answers received so far
    endless-stdout  echo is answered with a line that never ends (1 MB writes,
                    stopping after --stop-mb, default 600, then waiting)
    endless-stderr  echo first writes --stop-mb of stderr with no newline, then
                    a newline, then answers normally
    trickle         echo is answered one byte a second, never a newline
    string-id       echo is answered under the request's id as a string ("3" for 3)
    float-id        echo is answered under the request's id as a float (3.0 for 3)
    odd-token       echo is answered with, in the same write, progress notifications
                    whose tokens are an array and an object, then the result
    plain           no abuse at all
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from typing import Any

OUT = sys.stdout.buffer
ERR = sys.stderr.buffer

TOOLS = [
    {
        "name": "echo",
        "description": "Say it back.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    },
    {"name": "stats", "description": "What the client answered so far.", "inputSchema": {"type": "object"}},
]
LOG = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "alongside"}}


def line(message: Any) -> bytes:
    return json.dumps(message).encode() + b"\n"


def write(data: bytes) -> None:
    OUT.write(data)
    OUT.flush()


class Server:
    def __init__(self, options: argparse.Namespace) -> None:
        self.options = options
        self.answers: Counter[str] = Counter()
        self.flooded = False

    def result(self, message_id: Any, value: Any) -> None:
        write(line({"jsonrpc": "2.0", "id": message_id, "result": value}))

    def handle(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if not isinstance(method, str):
            self.count_answer(message)
            return
        if "id" not in message:
            return
        message_id = message["id"]
        params = message.get("params") or {}
        if method == "initialize":
            self.result(
                message_id,
                {
                    "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                    "capabilities": {"tools": {}, "logging": {}},
                    "serverInfo": {"name": "hostile-wire", "version": "1.0.0"},
                },
            )
        elif method == "tools/list":
            self.tools_list(message_id)
        elif method == "tools/call" and params.get("name") == "echo":
            self.echo(message_id, str((params.get("arguments") or {}).get("text", "")))
        elif method == "tools/call" and params.get("name") == "stats":
            self.result(message_id, {"content": [{"type": "text", "text": json.dumps(self.answers)}]})
        elif method in ("ping", "logging/setLevel"):
            self.result(message_id, {})
        elif method in ("resources/list", "resources/templates/list", "prompts/list"):
            key = {"resources/list": "resources", "prompts/list": "prompts"}.get(method, "resourceTemplates")
            self.result(message_id, {key: []})
        else:
            write(line({"jsonrpc": "2.0", "id": message_id, "error": {"code": -32601, "message": "no such method"}}))

    def count_answer(self, message: dict[str, Any]) -> None:
        if "error" in message and isinstance(message["error"], dict):
            self.answers[f"error {message['error'].get('code')}"] += 1
        elif "result" in message:
            self.answers["result"] += 1

    def tools_list(self, message_id: Any) -> None:
        answer = line({"jsonrpc": "2.0", "id": message_id, "result": {"tools": TOOLS}})
        if self.options.mode != "flood" or self.flooded:
            write(answer)
            return
        self.flooded = True
        requests = []
        for n in range(self.options.count):
            kind = n % 3
            if kind == 0:
                method, params = (
                    "sampling/createMessage",
                    {
                        "messages": [{"role": "user", "content": {"type": "text", "text": f"question {n}"}}],
                        "maxTokens": 10,
                    },
                )
            elif kind == 1:
                method, params = (
                    "elicitation/create",
                    {
                        "message": f"form {n}",
                        "requestedSchema": {"type": "object", "properties": {"x": {"type": "string"}}},
                    },
                )
            else:
                method, params = "ping", {}
            requests.append(line({"jsonrpc": "2.0", "id": f"flood-{n}", "method": method, "params": params}))
        write(b"".join(requests) + answer)

    def echo(self, message_id: Any, text: str) -> None:
        mode = self.options.mode
        head = b'{"jsonrpc":"2.0","id":' + json.dumps(message_id).encode()
        if mode == "deep":
            depth = self.options.depth
            deep = b"[" * depth + b"0" + b"]" * depth
            body = b'{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"deep"}],"structuredContent":'
            body += b'{"deep":' + deep + b'}},"id":' + json.dumps(message_id).encode() + b"}\n"
            write(line(LOG) + body + line(LOG))
        elif mode == "endless-stdout":
            write(head + b',"result":{"content":[{"type":"text","text":"')
            self.pour(OUT)
            while True:  # the line never ends; killed or stdin closes
                time.sleep(1)  # idle: the unfinished line is the behaviour under test
        elif mode == "endless-stderr":
            self.pour(ERR)
            ERR.write(b"\n")
            ERR.flush()
            self.result(message_id, {"content": [{"type": "text", "text": text}]})
        elif mode == "trickle":
            write(head + b',"result":{"content":[{"type":"text","text":"')
            while True:
                write(b"x")
                time.sleep(1)  # one byte a second: the slow answer under test
        elif mode == "odd-token":
            odd = [
                line(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/progress",
                        "params": {"progressToken": token, "progress": 1},
                    }
                )
                for token in ([message_id], {"id": message_id})
            ]
            answer = line({"jsonrpc": "2.0", "id": message_id, "result": {"content": [{"type": "text", "text": text}]}})
            write(b"".join(odd) + answer)
        elif mode == "string-id":
            self.result(str(message_id), {"content": [{"type": "text", "text": text}]})
        elif mode == "float-id":
            self.result(float(message_id), {"content": [{"type": "text", "text": text}]})
        else:
            self.result(message_id, {"content": [{"type": "text", "text": text}]})

    def pour(self, stream: Any) -> None:
        block = b"x" * 1_000_000
        for _ in range(self.options.stop_mb):
            stream.write(block)
        stream.flush()

    def run(self) -> int:
        for raw in sys.stdin.buffer:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if isinstance(message, dict):
                self.handle(message)
        return 0


MODES = ("deep", "flood", "endless-stdout", "endless-stderr", "trickle", "string-id", "float-id", "odd-token", "plain")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=MODES, required=True)
    parser.add_argument("--depth", type=int, default=5000, help="deep: nesting levels")
    parser.add_argument("--count", type=int, default=10_000, help="flood: server requests")
    parser.add_argument("--stop-mb", type=int, default=600, help="endless-*: megabytes before the server pauses")
    options = parser.parse_args()
    try:
        return Server(options).run()
    except BrokenPipeError:
        return 0  # the client hung up (or killed us): that is its right


if __name__ == "__main__":
    sys.exit(main())
