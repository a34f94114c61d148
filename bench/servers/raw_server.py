"""A minimal, fast stdio MCP server for benchmarks (standard library only).

    python bench/servers/raw_server.py [--tools N] [--pages P] [--payload-mb M] [--notify N]
                                       [--resources N] [--templates N] [--prompts N]

`tools/list` serves N tools (`tool_00000` ...) over P pages; the cursor is
the next page's index as a string.  With --resources, --templates or
--prompts, `resources/list`, `resources/templates/list` and `prompts/list`
serve that many items over P pages each (`resources/read` and
`prompts/get` answer any of them with a line of text).  `tools/call` of any tool answers at once
with "ok", except `big` (listed only with --payload-mb), which answers with
M megabytes of ASCII text, streamed in 1 MB pieces.  Every answer that does
not depend on the request is encoded once, at start-up.  With --notify,
`tools/call` of `flood` sends N small `notifications/message` first.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from typing import Any

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

SUBJECTS = ("customer", "invoice", "ticket", "shipment", "article", "sensor")


def make_tool(index: int) -> dict[str, Any]:
    """A small, realistic tool: two or three properties, some annotated."""
    subject = SUBJECTS[index % len(SUBJECTS)]
    properties: dict[str, Any] = {
        "query": {"type": "string", "description": f"Text to match against the {subject} records"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
    }
    if index % 2 == 0:
        properties["exact"] = {"type": "boolean", "description": "Match the whole field only", "default": False}
    tool: dict[str, Any] = {
        "name": f"tool_{index:05d}",
        "description": f"Search the {subject} catalogue and return a short summary of the best matches.",
        "inputSchema": {"type": "object", "properties": properties, "required": ["query"]},
    }
    if index % 3 == 0:
        tool["annotations"] = {"title": f"Find {subject}s", "readOnlyHint": True, "openWorldHint": False}
    return tool


def make_resource(index: int) -> dict[str, Any]:
    subject = SUBJECTS[index % len(SUBJECTS)]
    resource: dict[str, Any] = {
        "uri": f"file:///data/{subject}/{index:05d}.txt",
        "name": f"resource_{index:05d}",
        "description": f"The {subject} record number {index}, as plain text.",
        "mimeType": "text/plain",
    }
    if index % 2 == 0:
        resource["size"] = 1000 + index
    return resource


def make_template(index: int) -> dict[str, Any]:
    """A template of one or two variables (every other one has a query part)."""
    subject = SUBJECTS[index % len(SUBJECTS)]
    query = "{?fields}" if index % 2 == 0 else ""
    return {
        "uriTemplate": f"db://{subject}/v{index:05d}/{{id}}{query}",
        "name": f"template_{index:05d}",
        "description": f"One {subject} by its id (version {index}).",
        "mimeType": "application/json",
    }


def make_prompt(index: int) -> dict[str, Any]:
    """A prompt of one or two arguments (every other one has a `tone`)."""
    subject = SUBJECTS[index % len(SUBJECTS)]
    arguments: list[dict[str, Any]] = [
        {"name": "topic", "description": f"What the {subject} summary is about", "required": True}
    ]
    if index % 2 == 0:
        arguments.append({"name": "tone", "description": "formal or casual"})
    return {
        "name": f"prompt_{index:05d}",
        "description": f"Write a short summary of a {subject}.",
        "arguments": arguments,
    }


def encode_pages(tools: list[dict[str, Any]], pages: int, key: str = "tools") -> list[bytes]:
    """Each page's `"result":{...}}\\n` tail, ready to follow a response head."""
    per_page = max(1, -(-len(tools) // max(1, pages)))
    chunks = [tools[i : i + per_page] for i in range(0, len(tools), per_page)] or [[]]
    encoded = []
    for index, chunk in enumerate(chunks):
        page: dict[str, Any] = {key: chunk}
        if index + 1 < len(chunks):
            page["nextCursor"] = str(index + 1)
        encoded.append(b',"result":' + json.dumps(page, separators=(",", ":")).encode() + b"}\n")
    return encoded


def flood(write: Any, count: int) -> None:
    """`count` small log notifications, each a little different, written in chunks."""
    head = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"bench","data":"event '
    lines = []
    for index in range(count):
        lines.append(head + b"%08d" % index + b'"}}\n')
        if len(lines) == 10_000:
            write(b"".join(lines))
            lines.clear()
    write(b"".join(lines))


EMPTY = b',"result":{}}\n'
OK = b',"result":{"content":[{"type":"text","text":"ok"}]}}\n'
BAD_CURSOR = b',"error":{"code":-32602,"message":"Invalid cursor"}}\n'
NOT_FOUND = b',"error":{"code":-32601,"message":"Method not found"}}\n'
BLOCK = b"0123456789" * 100_000  # 1 MB
PROMPT = b',"result":{"messages":[{"role":"user","content":{"type":"text","text":"Summarise it."}}]}}\n'
TEXT_OF = b',"result":{"contents":[{"uri":%s,"mimeType":"text/plain","text":"ok"}]}}\n'


class Answers:
    """Every answer, encoded once at start-up where it does not depend on the request."""

    def __init__(self, options: argparse.Namespace) -> None:
        tools = [make_tool(index) for index in range(options.tools)]
        if options.payload_mb:
            tools.append(
                {
                    "name": "big",
                    "description": "Return a very large text result.",
                    "inputSchema": {"type": "object", "properties": {}},
                }
            )
        # Method -> its pages, for each list asked for.
        self.listed: dict[str, list[bytes]] = {"tools/list": encode_pages(tools, options.pages)}
        if options.resources:
            resources = [make_resource(index) for index in range(options.resources)]
            self.listed["resources/list"] = encode_pages(resources, options.pages, "resources")
        if options.templates:
            templates = [make_template(index) for index in range(options.templates)]
            self.listed["resources/templates/list"] = encode_pages(templates, options.pages, "resourceTemplates")
        if options.prompts:
            prompts = [make_prompt(index) for index in range(options.prompts)]
            self.listed["prompts/list"] = encode_pages(prompts, options.pages, "prompts")
        self.notify = options.notify
        payload = int(options.payload_mb * 1_000_000)
        self.whole_blocks, self.rest = divmod(payload, len(BLOCK))
        self.capabilities: dict[str, Any] = {"tools": {}}
        if options.resources or options.templates:
            self.capabilities["resources"] = {}
        if options.prompts:
            self.capabilities["prompts"] = {}
        self.server_info = {"name": "raw-bench-server", "version": "1.0.0"}

    def call(self, write: Any, head: bytes, params: Any) -> None:
        """tools/call: `flood` notifies first, `big` streams its megabytes, any other answers "ok"."""
        if params.get("name") == "flood":
            flood(write, self.notify)
            write(head + OK)
        elif params.get("name") == "big":
            write(head + b',"result":{"content":[{"type":"text","text":"')
            for _ in range(self.whole_blocks):
                write(BLOCK)
            write(BLOCK[: self.rest] + b'"}]}}\n')
        else:
            write(head + OK)

    def page(self, method: str, params: Any) -> bytes:
        """A list's page the cursor names (the first without one)."""
        cursor = params.get("cursor")
        try:
            index = int(cursor) if cursor is not None else 0
            return self.listed[method][index] if index >= 0 else BAD_CURSOR
        except (ValueError, TypeError, IndexError):
            return BAD_CURSOR

    @staticmethod
    def read(params: Any) -> bytes:
        """resources/read of any URI: a line of text."""
        uri = params.get("uri")
        return TEXT_OF % json.dumps(uri if isinstance(uri, str) else "").encode()

    def initialize(self, params: Any) -> bytes:
        requested = params.get("protocolVersion")
        answer = {
            "protocolVersion": requested if requested in VERSIONS else VERSIONS[-1],
            "capabilities": self.capabilities,
            "serverInfo": self.server_info,
        }
        return b',"result":' + json.dumps(answer).encode() + b"}\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tools", type=int, default=3, help="how many tools (default 3)")
    parser.add_argument("--pages", type=int, default=1, help="over how many tools/list pages (default 1)")
    parser.add_argument("--payload-mb", type=float, default=0.0, help="size of the `big` tool's result")
    parser.add_argument("--notify", type=int, default=0, help="notifications the `flood` tool sends before answering")
    parser.add_argument("--resources", type=int, default=0, help="how many resources (default none)")
    parser.add_argument("--templates", type=int, default=0, help="how many resource templates (default none)")
    parser.add_argument("--prompts", type=int, default=0, help="how many prompts (default none)")
    options = parser.parse_args()
    # Everything built here lives until the server exits: the collector
    # would only walk it again and again while it is built (0.6 s of a
    # 1.4 s start at 100,000 tools), a wait that is not the client's.
    gc.disable()
    answers = Answers(options)

    read = sys.stdin.buffer.readline
    out = sys.stdout.buffer
    write = out.write
    flush = out.flush
    loads = json.loads
    dumps = json.dumps
    while True:
        line = read()
        if not line:
            return 0
        try:
            message = loads(line)
            method = message["method"]
            head = b'{"jsonrpc":"2.0","id":' + dumps(message["id"]).encode()
        except (ValueError, TypeError, KeyError):
            continue  # blank line, notification, response or nonsense: nothing to answer
        if method == "tools/call":
            answers.call(write, head, message.get("params") or {})
        elif method in answers.listed:
            write(head + answers.page(method, message.get("params") or {}))
        elif method == "resources/read":
            write(head + answers.read(message.get("params") or {}))
        elif method == "prompts/get":
            write(head + PROMPT)
        elif method == "initialize":
            write(head + answers.initialize(message.get("params") or {}))
        elif method == "ping":
            write(head + EMPTY)
        else:
            write(head + NOT_FOUND)
        flush()


if __name__ == "__main__":
    sys.exit(main())
