"""A stdio MCP server whose `tools/list` pages are big (standard library only).

    python tests/servers/big_pages.py [--tools N] [--pages P] [--flavour NAME ...]

Big pages take the inspector's quick path (decoded by msgspec, the depth
scanned in bulk, the output encoded by msgspec); each flavour mixes in what
that path must hand back to the standard library, or must still refuse:

    plain      ordinary tools only (the default)
    floats     every 7th tool's schema holds floats, some of them written by
               Python with an exponent (1e-05, 1e+16, 1.5e+300) or as -0.0
    nan        one tool's schema holds NaN and -Infinity (json.loads takes them)
    surrogate  one description holds the escape of a lone surrogate (\\ud800)
    escapes    descriptions with escaped quotes and backslashes, brackets and
               braces, \\u escapes, control characters, DEL, bidi marks, non-ASCII
    controls   every 5th description holds ASCII control characters only (BEL,
               ESC, DEL): JSON escapes the first two, DEL is left raw
    broken     every 11th tool has no inputSchema; one item is a string
    deep       the middle page nests one tool's schema --depth levels deep

`pages(options)` gives each page's result exactly as sent, for the tests to
compare against.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

SUBJECTS = ("customer", "invoice", "ticket", "shipment")
ESCAPED = 'say "hi" \\ back [0] {a} é 漢字 \u00e9 tab\there \x1b[31m red \x7f \u202e bidi \u2028'
CONTROLS = "bell \x07 \x1b[31m red \x7f delete"


def tool(index: int, flavours: set[str]) -> Any:
    subject = SUBJECTS[index % len(SUBJECTS)]
    description = f"Search the {subject} records and return the best matches."
    properties: dict[str, Any] = {
        "query": {"type": "string", "description": f"Text to match in the {subject} records"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
    }
    item: dict[str, Any] = {
        "name": f"tool_{index:05d}",
        "description": description,
        "inputSchema": {"type": "object", "properties": properties, "required": ["query"]},
    }
    if index % 3 == 0:
        item["annotations"] = {"title": f"Find {subject}s", "readOnlyHint": True}
    if "floats" in flavours and index % 7 == 0:
        properties["ratio"] = {"type": "number", "minimum": 1e-05, "maximum": 1e16, "default": 0.5}
        properties["scale"] = {"type": "number", "enum": [-0.0, 1.5e300, 2.5, 100.0]}
    if "escapes" in flavours and index % 5 == 0:
        item["description"] = f"{ESCAPED} #{index}"
    if "controls" in flavours and index % 5 == 0:
        item["description"] = f"{CONTROLS} #{index}"
    if "broken" in flavours and index % 11 == 0:
        del item["inputSchema"]
    return item


def pages(options: argparse.Namespace) -> list[bytes]:
    """Each page's `"result"` member and the end of its line, as written."""
    flavours = set(options.flavour or ["plain"])
    tools: list[Any] = [tool(index, flavours) for index in range(options.tools)]
    if "nan" in flavours:
        tools[1]["inputSchema"]["properties"]["limit"]["default"] = float("nan")
        tools[1]["inputSchema"]["properties"]["limit"]["maximum"] = float("-inf")
    if "surrogate" in flavours:
        tools[2]["description"] = "half a pair: \ud800 here"
    if "broken" in flavours:
        tools[4] = "not a tool"
    per_page = -(-len(tools) // options.pages)
    chunks = [tools[start : start + per_page] for start in range(0, len(tools), per_page)]
    if "deep" in flavours:
        middle = chunks[len(chunks) // 2][0]
        nested: Any = {}
        for _ in range(options.depth):
            nested = [nested]
        middle["inputSchema"]["properties"]["deep"] = {"type": "array", "default": nested}
    encoded = []
    for index, chunk in enumerate(chunks):
        page: dict[str, Any] = {"tools": chunk}
        if index + 1 < len(chunks):
            page["nextCursor"] = str(index + 1)
        # ensure_ascii: the lone surrogate goes out as its escape, as JSON allows.
        encoded.append(json.dumps(page, ensure_ascii="surrogate" in flavours).encode())
    return encoded


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tools", type=int, default=2000)
    parser.add_argument("--pages", type=int, default=4)
    parser.add_argument("--depth", type=int, default=600)
    parser.add_argument("--flavour", action="append", choices=sorted(FLAVOURS))
    return parser


FLAVOURS = {"plain", "floats", "nan", "surrogate", "escapes", "controls", "broken", "deep"}


def main() -> int:
    options = parser().parse_args()
    encoded = pages(options)
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
            method, message_id = message["method"], message["id"]
        except (ValueError, KeyError, TypeError):
            continue  # a notification or nonsense: nothing to answer
        head = b'{"jsonrpc": "2.0", "id": ' + json.dumps(message_id).encode() + b', "result": '
        if method == "initialize":
            result = {
                "protocolVersion": message.get("params", {}).get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "big-pages", "version": "1.0.0"},
            }
            body = json.dumps(result).encode()
        elif method == "tools/list":
            cursor = (message.get("params") or {}).get("cursor")
            body = encoded[int(cursor) if cursor else 0]
        else:
            body = b"{}"
        out.write(head + body + b"}\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
