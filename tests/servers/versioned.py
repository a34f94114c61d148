"""Two releases of one small stdio server, for `inspector diff` tests.

    python tests/servers/versioned.py --release 1|2

Release 2 adds a tool, removes one, changes a schema and a description, and
adds a resource.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def tools(release: int) -> list[dict[str, Any]]:
    search: dict[str, Any] = {
        "name": "search",
        "description": "Search the catalogue." if release == 1 else "Search the catalogue (now with limits).",
        "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    }
    if release == 2:
        search["inputSchema"]["properties"]["limit"] = {"type": "integer", "maximum": 50}
    listing = [search, {"name": "echo", "inputSchema": {"type": "object"}}]
    listing.append(
        {"name": "legacy_export", "inputSchema": {"type": "object"}}
        if release == 1
        else {"name": "export", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}
    )
    return listing


def resources(release: int) -> list[dict[str, Any]]:
    base = [{"uri": "file:///readme.md", "name": "readme", "mimeType": "text/markdown"}]
    if release == 2:
        base.append({"uri": "file:///changelog.md", "name": "changelog", "mimeType": "text/markdown"})
    return base


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--release", type=int, choices=(1, 2), default=1)
    release = parser.parse_args().release
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        method = message.get("method")
        result: Any
        if method == "initialize":
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
                "serverInfo": {"name": "versioned", "version": f"{release}.0"},
            }
        elif method == "tools/list":
            result = {"tools": tools(release)}
        elif method == "resources/list":
            result = {"resources": resources(release)}
        elif method == "resources/templates/list":
            result = {"resourceTemplates": []}
        elif method == "prompts/list":
            result = {"prompts": []}
        else:
            sys.stdout.write(
                json.dumps(
                    {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}}
                )
                + "\n"
            )
            sys.stdout.flush()
            continue
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
