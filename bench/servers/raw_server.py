"""A minimal, fast stdio MCP server for benchmarks (standard library only).

    python bench/servers/raw_server.py [--tools N] [--pages P] [--payload-mb M]

`tools/list` serves N tools over P pages; `tools/call` of any tool answers
at once with "ok", except `big`, which answers with M megabytes of text.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


def make_tools(count: int) -> list[dict[str, Any]]:
    tools = []
    for index in range(count):
        tool: dict[str, Any] = {
            "name": f"tool_{index:05d}",
            "description": f"Look up record {index} in the pretend catalogue and return a short summary.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What to look for"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
                    "exact": {"type": "boolean"},
                },
                "required": ["query"],
            },
        }
        if index % 3 == 0:
            tool["annotations"] = {"readOnlyHint": True, "openWorldHint": False}
        tools.append(tool)
    return tools


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=3)
    parser.add_argument("--pages", type=int, default=1)
    parser.add_argument("--payload-mb", type=float, default=0.0)
    options = parser.parse_args()
    tools = make_tools(options.tools)
    if options.payload_mb:
        tools.append({"name": "big", "inputSchema": {"type": "object"}})
    per_page = max(1, -(-len(tools) // max(1, options.pages)))
    pages = [tools[i : i + per_page] for i in range(0, len(tools), per_page)] or [[]]
    read = sys.stdin.buffer.readline
    out = sys.stdout.buffer
    ok = b',"result":{"content":[{"type":"text","text":"ok"}]}}\n'
    while True:
        line = read()
        if not line:
            return 0
        message = json.loads(line)
        if "id" not in message:
            continue
        method = message.get("method")
        head = b'{"jsonrpc":"2.0","id":' + json.dumps(message["id"]).encode()
        if method == "tools/call":
            if (message.get("params") or {}).get("name") == "big":
                size = int(options.payload_mb * 1_000_000)
                out.write(head + b',"result":{"content":[{"type":"text","text":"')
                block = b"y" * 1_000_000
                for start in range(0, size, len(block)):
                    out.write(block[: min(len(block), size - start)])
                out.write(b'"}]}}\n')
            else:
                out.write(head + ok)
        elif method == "tools/list":
            cursor = (message.get("params") or {}).get("cursor")
            index = int(cursor) if cursor else 0
            result: dict[str, Any] = {"tools": pages[index]}
            if index + 1 < len(pages):
                result["nextCursor"] = str(index + 1)
            out.write(head + b',"result":' + json.dumps(result).encode() + b"}\n")
        elif method == "initialize":
            requested = (message.get("params") or {}).get("protocolVersion")
            result = {
                "protocolVersion": requested if requested in VERSIONS else VERSIONS[-1],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "raw-bench-server", "version": "1.0.0"},
            }
            out.write(head + b',"result":' + json.dumps(result).encode() + b"}\n")
        elif method == "ping":
            out.write(head + b',"result":{}}\n')
        else:
            out.write(head + b',"error":{"code":-32601,"message":"Method not found"}}\n')
        out.flush()


if __name__ == "__main__":
    sys.exit(main())
