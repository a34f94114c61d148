"""A misbehaving stdio MCP server: one mode per misbehaviour.

    python tests/servers/hostile.py --mode MODE [--size-mb N]

Every mode is otherwise a tiny handshake-era server with one tool, `echo`;
the misbehaviour is triggered by `tools/call` unless the mode says
otherwise.  Standard library only, so it starts fast and runs anywhere.

    junk-stdout     non-JSON lines on stdout before every response
    invalid-json    tools/call is answered with a truncated JSON line
    invalid-utf8    tools/call is answered with a line holding bytes FF FE
    huge            tools/call returns --size-mb megabytes of ASCII text
    crash           tools/call: "fatal: simulated crash" on stderr, exit 3
    hang            tools/call is never answered (the server stays alive)
    wrong-id        tools/call is answered under the request's id + 1000
    exit-at-once    stderr "error: cannot open database ...", exit 1 at start
    silent          reads stdin, never answers anything (not even initialize)
    hostile-text    every server-supplied string carries markup and escapes
    stderr-chatter  stderr lines at start-up and on every call
    ping-back       tools/call first sends the client a `ping` and reports its answer
    counter-offer   initialize answers with --answer-version (default 2025-03-26),
                    whatever was offered (a revision the client may not know)
    paged           tools/list never ends: every page offers the next cursor
    bad-tool        tools/list holds one broken tool between two good ones
    crlf            every line ends with CR LF, and a blank (CR LF) line comes before each
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

# Rich markup, CSI (SGR, clear screen), OSC (window title, clipboard write,
# hyperlink), backspaces, a carriage return, NUL, DEL, an 8-bit CSI and a
# right-to-left override.  json.dumps writes the controls as \uXXXX escapes.
HOSTILE = (
    "[bold red]ALERT[/] [link=https://evil.example]click[/link] "
    "\x1b[31mred\x1b[0m \x1b[2J \x1b]0;pwned title\x07 \x1b]52;c;cHduZWQ=\x07 "
    "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ back\x08\x08 cr\rX "
    "nul\x00 del\x7f c1\x9b31m rlo\u202etxt.exe"
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


def response_head(message_id: Any) -> bytes:
    """The start of a hand-written response line, up to and including the id."""
    return b'{"jsonrpc":"2.0","id":' + json.dumps(message_id).encode()


class Server:
    """The well-behaved part; each mode overrides the hook it breaks."""

    name = "hostile-test-server"
    tools: list[dict[str, Any]] = [ECHO_TOOL]
    instructions: str | None = None

    def __init__(self, options: argparse.Namespace) -> None:
        self.options = options

    # -- hooks -----------------------------------------------------------------

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
        result(message_id, {"content": [{"type": "text", "text": str(text)}]})

    def resources(self) -> list[dict[str, Any]]:
        return []

    def read_resource(self, message_id: Any, params: dict[str, Any]) -> None:
        error(message_id, -32002, "Resource not found")

    def prompts(self) -> list[dict[str, Any]]:
        return []

    def get_prompt(self, message_id: Any, params: dict[str, Any]) -> None:
        error(message_id, -32602, f"Unknown prompt: {params.get('name')}")

    # -- the loop --------------------------------------------------------------

    def handle(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if not isinstance(method, str):
            return  # a response to us (we never ask anything) or nonsense
        if "id" not in message:
            if method == "notifications/initialized":
                self.initialized()
            return  # other notifications (cancelled, progress, ...) are ignored
        message_id = message["id"]
        params = message.get("params") or {}
        answer = _ANSWERS.get(method)
        if answer is None:
            error(message_id, -32601, f"Method not found: {method}")
            return
        answer(self, message_id, params)

    def call_tool(self, message_id: Any, params: dict[str, Any]) -> None:
        if any(tool["name"] == params.get("name") for tool in self.tools):
            self.call(message_id, params)  # where the modes misbehave
        else:
            error(message_id, -32602, f"Unknown tool: {params.get('name')}")

    def run(self) -> int:
        for line in sys.stdin.buffer:
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                error(None, -32700, "Parse error")
                continue
            if isinstance(message, dict):
                self.handle(message)
            else:
                error(None, -32600, "Invalid Request: expected a JSON object")
        return 0  # stdin closed


Answer = Callable[[Server, Any, dict[str, Any]], None]
# How each request is answered (through the server, so a mode's own `call`,
# `resources`, ... are the ones used); any other method is not found.
_ANSWERS: dict[str, Answer] = {
    "initialize": lambda server, message_id, params: server.initialize(message_id, params),
    "ping": lambda server, message_id, params: result(message_id, {}),
    "tools/list": lambda server, message_id, params: result(message_id, {"tools": server.tools}),
    "tools/call": lambda server, message_id, params: server.call_tool(message_id, params),
    "resources/list": lambda server, message_id, params: result(message_id, {"resources": server.resources()}),
    "resources/templates/list": lambda server, message_id, params: result(message_id, {"resourceTemplates": []}),
    "resources/read": lambda server, message_id, params: server.read_resource(message_id, params),
    "prompts/list": lambda server, message_id, params: result(message_id, {"prompts": server.prompts()}),
    "prompts/get": lambda server, message_id, params: server.get_prompt(message_id, params),
    "logging/setLevel": lambda server, message_id, params: result(message_id, {}),
}


class JunkStdout(Server):
    """Log lines on stdout before every response, the initialize one included."""

    def handle(self, message: dict[str, Any]) -> None:
        if "id" in message and isinstance(message.get("method"), str):
            OUT.write(b"Server starting on port 1234...\nDEBUG: loaded config\n")
            OUT.flush()
        super().handle(message)


class InvalidJson(Server):
    def call(self, message_id: Any, params: dict[str, Any]) -> None:
        OUT.write(b'{"jsonrpc": "2.0", "id": ' + json.dumps(message_id).encode() + b', "result": {\n')
        OUT.flush()


class InvalidUtf8(Server):
    def call(self, message_id: Any, params: dict[str, Any]) -> None:
        tail = b',"result":{"content":[{"type":"text","text":"bad \xff\xfe bytes"}]}}\n'
        OUT.write(response_head(message_id) + tail)
        OUT.flush()


class Huge(Server):
    """The text is the digits 0-9 repeated, so byte i of it is str(i % 10)."""

    def call(self, message_id: Any, params: dict[str, Any]) -> None:
        size = int(self.options.size_mb * 1_000_000)
        OUT.write(response_head(message_id) + b',"result":{"content":[{"type":"text","text":"')
        block = b"0123456789" * 100_000  # 1 MB, written as is: no copies of the whole text
        whole, rest = divmod(size, len(block))
        for _ in range(whole):
            OUT.write(block)
        OUT.write(block[:rest])
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
    def run(self) -> int:
        for _line in sys.stdin.buffer:
            pass  # read everything, answer nothing
        return 0


class HostileText(Server):
    name = "evil " + HOSTILE
    instructions = "Instructions: " + HOSTILE
    tools = [
        {
            "name": "echo",
            "title": "Title " + HOSTILE,
            "description": "Description " + HOSTILE,
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string", "description": "Field " + HOSTILE, "default": HOSTILE}},
            },
        },
        {
            "name": HOSTILE,
            "title": HOSTILE,
            "description": "A tool whose very name is hostile " + HOSTILE,
            "inputSchema": {"type": "object", "properties": {}},
        },
        {
            # Choices are drawn by select widgets, which read plain strings as markup.
            "name": "pick",
            "description": "Choices whose labels are hostile.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "plain": {"type": "string", "enum": [HOSTILE, "[reverse]x[/reverse]"]},
                    "titled": {"type": "string", "oneOf": [{"const": "a", "title": HOSTILE}, {"const": "b"}]},
                    "variant": {"anyOf": [{"type": "string", "title": HOSTILE}, {"type": "integer"}]},
                    "many": {"type": "array", "items": {"type": "string", "enum": [HOSTILE, "[bold]y"]}},
                },
            },
        },
    ]

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
        ERR.write("stderr on call " + HOSTILE + "\n")
        ERR.flush()
        result(message_id, {"content": [{"type": "text", "text": "result " + HOSTILE}]})

    def resources(self) -> list[dict[str, Any]]:
        return [
            {
                "uri": "evil://x",
                "name": "resource " + HOSTILE,
                "title": "Title " + HOSTILE,
                "description": HOSTILE,
                "mimeType": "text/plain",
            }
        ]

    def read_resource(self, message_id: Any, params: dict[str, Any]) -> None:
        if params.get("uri") != "evil://x":
            super().read_resource(message_id, params)
            return
        result(message_id, {"contents": [{"uri": "evil://x", "mimeType": "text/plain", "text": "contents " + HOSTILE}]})

    def prompts(self) -> list[dict[str, Any]]:
        return [
            {
                "name": "prompt",
                "title": "Title " + HOSTILE,
                "description": "prompt " + HOSTILE,
                # A name no widget id may carry (a dot, a leading digit).
                "arguments": [{"name": "arg", "description": HOSTILE}, {"name": "1st.page"}],
            }
        ]

    def get_prompt(self, message_id: Any, params: dict[str, Any]) -> None:
        if params.get("name") != "prompt":
            super().get_prompt(message_id, params)
            return
        message = {"role": "user", "content": {"type": "text", "text": "message " + HOSTILE}}
        result(message_id, {"description": "prompt " + HOSTILE, "messages": [message]})


class StderrChatter(Server):
    def run(self) -> int:
        for n in range(3):
            ERR.write(f"starting up, step {n + 1}\n")
        ERR.flush()
        return super().run()

    def call(self, message_id: Any, params: dict[str, Any]) -> None:
        ERR.write(f"handling tools/call {message_id} at {time.time():.3f}\n")
        ERR.write("cache warm, 0 misses\n")
        ERR.flush()
        super().call(message_id, params)


class PingBack(Server):
    """The server asks the client a question of its own in the middle of a call."""

    def call(self, message_id: Any, params: dict[str, Any]) -> None:
        send({"jsonrpc": "2.0", "id": "server-ping-1", "method": "ping"})
        for line in sys.stdin.buffer:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == "server-ping-1" and "method" not in message:
                answer = json.dumps(message.get("result", message.get("error")))
                result(message_id, {"content": [{"type": "text", "text": f"ping answered: {answer}"}]})
                return
            if isinstance(message, dict):
                self.handle(message)


class CounterOffer(Server):
    def initialize(self, message_id: Any, params: dict[str, Any]) -> None:
        answer = {
            "protocolVersion": self.options.answer_version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": self.name, "version": "1.0.0"},
        }
        result(message_id, answer)


class Paged(Server):
    def handle(self, message: dict[str, Any]) -> None:
        if message.get("method") != "tools/list" or "id" not in message:
            super().handle(message)
            return
        cursor = (message.get("params") or {}).get("cursor") or "page-0"
        number = int(str(cursor).removeprefix("page-")) + 1
        page = [{**ECHO_TOOL, "name": f"echo_{number}"}]
        result(message["id"], {"tools": page, "nextCursor": f"page-{number}"})


class BadTool(Server):
    tools = [
        ECHO_TOOL,
        {"name": 42, "description": ["not", "text"], "inputSchema": "nope"},
        {"name": "second", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
    ]


class Crlf(Server):
    def run(self) -> int:
        global OUT
        real = OUT

        class CrlfOut:
            def write(self, data: bytes) -> int:
                return real.write(b"\r\n" + data.replace(b"\n", b"\r\n"))

            def flush(self) -> None:
                real.flush()

        OUT = CrlfOut()
        return super().run()


def exit_at_once(options: argparse.Namespace) -> int:
    ERR.write("error: cannot open database /nonexistent.db\n")
    ERR.flush()
    return 1


# A server class, or a mode that is done once called (its exit status).
MODES: dict[str, Callable[[argparse.Namespace], Server | int]] = {
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
    "ping-back": PingBack,
    "counter-offer": CounterOffer,
    "paged": Paged,
    "bad-tool": BadTool,
    "crlf": Crlf,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=sorted(MODES), required=True)
    parser.add_argument("--size-mb", type=float, default=100.0, help="size of the huge mode's text (default 100)")
    parser.add_argument("--answer-version", default="2025-03-26", help="counter-offer: the version initialize answers")
    options = parser.parse_args()
    made = MODES[options.mode](options)
    return made if isinstance(made, int) else made.run()


if __name__ == "__main__":
    sys.exit(main())
