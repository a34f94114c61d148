"""A stdio MCP server (standard library only) whose tool list arrives in
pages, the later ones only once the test allows it.

    python slow_pages.py --release FILE [--tools N] [--pages P]

`tools/list` serves `wide_form` (a 100-property input schema) and
`tool_0000` … over P pages; the first page is answered at once, every later
one waits until FILE exists.  `tools/call` of `big_json` answers with a
text block holding a JSON document of about 170 KB (`"marker": "END-OF-BIG"`
last); any other tool answers "ok".  `big_json`'s input schema is itself
about 40 KB (an unused definition in `$defs`, so its form stays empty), and
the one resource, `big://rows.json`, reads as the same 170 KB document.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import stdio_json

WIDE_PROPERTIES = 100
BIG_URI = "big://rows.json"


def wide_form() -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for index in range(WIDE_PROPERTIES):
        kind = index % 5
        name = f"field_{index:03d}"
        if kind == 0:
            properties[name] = {"type": "string", "description": f"text field {index}"}
        elif kind == 1:
            properties[name] = {"type": "integer", "minimum": 0, "default": index}
        elif kind == 2:
            properties[name] = {"type": "boolean"}
        elif kind == 3:
            properties[name] = {"type": "string", "enum": ["fast", "slow", "auto"]}
        else:
            properties[name] = {"type": "number", "description": "a ratio"}
    return {
        "name": "wide_form",
        "description": "A tool with a 100-property input schema.",
        "inputSchema": {"type": "object", "properties": properties, "required": ["field_000"]},
    }


def big_json_text() -> str:
    rows = [{"row": index, "name": f"item {index}", "tags": ["a", "b", "c"], "ok": True} for index in range(2_500)]
    return json.dumps({"rows": rows, "marker": "END-OF-BIG"})


def tool_list(options: argparse.Namespace) -> list[list[dict[str, Any]]]:
    """The tools, cut into `options.pages` pages."""
    tools: list[dict[str, Any]] = [wide_form()] + [
        {"name": f"tool_{index:04d}", "inputSchema": {"type": "object", "properties": {}}}
        for index in range(options.tools - 1)
    ]
    unused = {"description": "END-OF-SCHEMA " + "a long definition; " * 2_000}
    tools.append({"name": "big_json", "inputSchema": {"type": "object", "properties": {}, "$defs": {"unused": unused}}})
    per_page = -(-len(tools) // options.pages)
    return [tools[i : i + per_page] for i in range(0, len(tools), per_page)]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--release", required=True, help="later pages wait until this file exists")
    parser.add_argument("--tools", type=int, default=40)
    parser.add_argument("--pages", type=int, default=4)
    options = parser.parse_args()
    pages = tool_list(options)

    def list_tools(params: dict[str, Any]) -> dict[str, Any]:
        index = int(params.get("cursor") or 0)
        if index > 0:
            while not os.path.exists(options.release):
                # The test creates the file when it wants the later pages: a poll, at the pace of a person.
                time.sleep(0.02)
        page: dict[str, Any] = {"tools": pages[index]}
        if index + 1 < len(pages):
            page["nextCursor"] = str(index + 1)
        return page

    def call_tool(params: dict[str, Any]) -> dict[str, Any]:
        text = big_json_text() if params.get("name") == "big_json" else "ok"
        return {"content": [{"type": "text", "text": text}]}

    answers: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
        "initialize": lambda _params: {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}, "resources": {}},
            "serverInfo": {"name": "slow-pages", "version": "1"},
        },
        "tools/list": list_tools,
        "tools/call": call_tool,
        "resources/list": lambda _params: {
            "resources": [{"uri": BIG_URI, "name": "rows", "mimeType": "application/json"}]
        },
        "resources/templates/list": lambda _params: {"resourceTemplates": []},
        "resources/read": lambda _params: {
            "contents": [{"uri": BIG_URI, "mimeType": "application/json", "text": big_json_text()}]
        },
        "ping": lambda _params: {},
    }
    for message in stdio_json.requests():
        answer = answers.get(message["method"])
        if answer is None:
            error = {"code": -32601, "message": "Method not found"}
            stdio_json.send({"jsonrpc": "2.0", "id": message["id"], "error": error})
        else:
            stdio_json.send({"jsonrpc": "2.0", "id": message["id"], "result": answer(message.get("params") or {})})
    return 0


if __name__ == "__main__":
    sys.exit(main())
