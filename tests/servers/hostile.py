"""A misbehaving stdio MCP server: one mode per misbehaviour.

    python tests/servers/hostile.py --mode MODE [--size-mb N]

Every mode is otherwise a tiny handshake-era server with one tool, `echo`;
the misbehaviour is triggered by `tools/call` unless the mode says
otherwise.  Standard library only, so it starts fast and runs anywhere.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

OUT = sys.stdout.buffer
ERR = sys.stderr

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

HOSTILE = (
    "[bold red]ALERT[/] [link=https://evil.example]click[/link] "
    "\x1b[31mred\x1b[0m \x1b[2J \x1b]0;pwned title\x07 \x1b]52;c;cHduZWQ=\x07 "
    "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ back\x08\x08 cr\rX"
)

ECHO_TOOL = {
    "name": "echo",
    "description": "Say it back.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
}


def send(message: dict[str, Any]) -> None:
    OUT.write(json.dumps(message).encode() + b"\n")
    OUT.flush()


def result(message_id: Any, value: Any) -> None:
    send({"jsonrpc": "2.0", "id": message_id, "result": value})


def error(message_id: Any, code: int, text: str) -> None:
    send({"jsonrpc": "2.0", "id": message_id, "error": {"code": code, "message": text}})


class Server:
    """The well-behaved part; modes override what they break."""

    name = "hostile-test-server"
    tool = ECHO_TOOL
    instructions: str | None = None

    def __init__(self, options: argparse.Namespace) -> None:
        self.options = options

    def initialize(self, message_id: Any, params: dict[str, Any]) -> None:
        requested = params.get("protocolVersion")
        answer: dict[str, Any] = {
            "protocolVersion": requested if requested in VERSIONS else VERSIONS[-1],
            "capabilities": {"tools": {}, "resources": {}, "prompts": {}, "logging": {}},
            "serverInfo": {"name": self.name, "version": "1.0.0"},
        }
        if self.instructions:
            answer["instructions"] = self.instructions
        result(message_id, answer)

    def initialized(self) -> None:
        pass

    def call(self, message_id: Any, params: dict[str, Any]) -> None:
        text = (params.get("arguments") or {}).get("text", "")
        result(message_id, {"content": [{"type": "text", "text": text}]})

    def resources(self) -> list[dict[str, Any]]:
        return []

    def prompts(self) -> list[dict[str, Any]]:
        return []

    def handle(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        message_id = message.get("id")
        params = message.get("params") or {}
        if "id" not in message:
            if method == "notifications/initialized":
                self.initialized()
            return
        if method == "initialize":
            self.initialize(message_id, params)
        elif method == "ping":
            result(message_id, {})
        elif method == "tools/list":
            result(message_id, {"tools": [self.tool]})
        elif method == "tools/call":
            self.call(message_id, params)
        elif method == "resources/list":
            result(message_id, {"resources": self.resources()})
        elif method == "resources/templates/list":
            result(message_id, {"resourceTemplates": []})
        elif method == "prompts/list":
            result(message_id, {"prompts": self.prompts()})
        elif method == "logging/setLevel":
            result(message_id, {})
        else:
            error(message_id, -32601, f"Method not found: {method}")

    def run(self) -> int:
        for line in sys.stdin.buffer:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict):
                self.handle(message)
        return 0


class JunkStdout(Server):
    def handle(self, message: dict[str, Any]) -> None:
        if "id" in message:
            OUT.write(b"Server starting on port 1234...\nDEBUG: loaded config\n")
            OUT.flush()
        super().handle(message)


class InvalidJson(Server):
    def call(self, message_id: Any, params: dict[str, Any]) -> None:
        OUT.write(b'{"jsonrpc": "2.0", "id": ' + json.dumps(message_id).encode() + b', "result": {\n')
        OUT.flush()


class InvalidUtf8(Server):
    def call(self, message_id: Any, params: dict[str, Any]) -> None:
        head = b'{"jsonrpc":"2.0","id":' + json.dumps(message_id).encode()
        OUT.write(head + b',"result":{"content":[{"type":"text","text":"bad \xff\xfe bytes"}]}}\n')
        OUT.flush()


class Huge(Server):
    def call(self, message_id: Any, params: dict[str, Any]) -> None:
        size = int(self.options.size_mb * 1_000_000)
        OUT.write(b'{"jsonrpc":"2.0","id":' + json.dumps(message_id).encode())
        OUT.write(b',"result":{"content":[{"type":"text","text":"')
        chunk = b"x" * 1_000_000
        written = 0
        while written < size:
            piece = chunk if size - written >= len(chunk) else chunk[: size - written]
            OUT.write(piece)
            written += len(piece)
        OUT.write(b'"}]}}\n')
        OUT.flush()


class Crash(Server):
    def call(self, message_id: Any, params: dict[str, Any]) -> None:
        ERR.write("fatal: simulated crash\n")
        ERR.flush()
        sys.exit(3)


class Hang(Server):
    def call(self, message_id: Any, params: dict[str, Any]) -> None:
        pass  # never answers; keeps reading, exits when stdin closes


class WrongId(Server):
    def call(self, message_id: Any, params: dict[str, Any]) -> None:
        other = message_id + 1000 if isinstance(message_id, int) else f"{message_id}-other"
        result(other, {"content": [{"type": "text", "text": "for somebody else"}]})


class Silent(Server):
    def handle(self, message: dict[str, Any]) -> None:
        pass


class HostileText(Server):
    name = "evil " + HOSTILE
    instructions = "Instructions: " + HOSTILE
    tool = {
        "name": "echo",
        "title": "Title " + HOSTILE,
        "description": "Description " + HOSTILE,
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "Field " + HOSTILE, "default": HOSTILE}},
        },
    }

    def initialized(self) -> None:
        send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "warning", "logger": "evil " + HOSTILE, "data": "log " + HOSTILE},
            }
        )
        ERR.write("stderr " + HOSTILE + "\n")
        ERR.flush()

    def call(self, message_id: Any, params: dict[str, Any]) -> None:
        result(message_id, {"content": [{"type": "text", "text": "result " + HOSTILE}]})

    def resources(self) -> list[dict[str, Any]]:
        return [
            {"uri": "evil://" + "x", "name": "resource " + HOSTILE, "description": HOSTILE, "mimeType": "text/plain"}
        ]

    def prompts(self) -> list[dict[str, Any]]:
        return [
            {
                "name": "prompt",
                "description": "prompt " + HOSTILE,
                "arguments": [{"name": "arg", "description": HOSTILE}],
            }
        ]


class StderrChatter(Server):
    def run(self) -> int:
        for n in range(3):
            ERR.write(f"starting up, step {n + 1}\n")
        ERR.flush()
        return super().run()

    def call(self, message_id: Any, params: dict[str, Any]) -> None:
        ERR.write(f"handling tools/call {message_id} at {time.time():.3f}\n")
        ERR.flush()
        super().call(message_id, params)


def exit_at_once(options: argparse.Namespace) -> int:
    ERR.write("error: cannot open database /nonexistent.db\n")
    ERR.flush()
    return 1


MODES: dict[str, type[Server] | Callable[[argparse.Namespace], int]] = {
    "junk-stdout": JunkStdout,
    "invalid-json": InvalidJson,
    "invalid-utf8": InvalidUtf8,
    "huge": Huge,
    "crash": Crash,
    "hang": Hang,
    "wrong-id": WrongId,
    "exit-at-once": exit_at_once,
    "silent": Silent,
    "hostile-text": HostileText,
    "stderr-chatter": StderrChatter,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=sorted(MODES), required=True)
    parser.add_argument("--size-mb", type=float, default=100.0, help="size of the huge mode's text")
    options = parser.parse_args()
    mode = MODES[options.mode]
    if isinstance(mode, type):
        return mode(options).run()
    return mode(options)


if __name__ == "__main__":
    sys.exit(main())
