"""A stdio MCP server with directory resources (`resources/directory/read`).

It declares the skills extension with `directoryRead: true` (SEP-2640) and
serves a small skill tree as individual files; directory listings come two
entries a page, so a client must follow `nextCursor`.  It speaks both eras:
`server/discover` (2026-07-28, the extension's base revision) and
`initialize`.  Its tools/list also
offers names no shell should receive (a newline, a terminal escape), for the
completion tests.  Raw JSON lines, so the extension capability and the
method are exactly what the spec page shows.

    python tests/servers/directory_tree.py                      # declares directoryRead
    python tests/servers/directory_tree.py --no-directory-read  # serves it, but does not declare it
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from stdio_json import requests, send

MODERN = "2026-07-28"
PV_KEY = "io.modelcontextprotocol/protocolVersion"
ROOT = "skill://pdf-processing"
DIRECTORY = "inode/directory"
PAGE = 2

# uri -> children (directories) or text (files)
TREE: dict[str, list[str] | str] = {
    ROOT: [f"{ROOT}/SKILL.md", f"{ROOT}/templates", f"{ROOT}/empty"],
    f"{ROOT}/SKILL.md": "---\nname: pdf-processing\ndescription: Fill PDF forms.\n---\nPick a template.\n",
    f"{ROOT}/templates": [
        f"{ROOT}/templates/invoice.md",
        f"{ROOT}/templates/purchase-order.md",
        f"{ROOT}/templates/credit-note.md",
        f"{ROOT}/templates/regional",
        f"{ROOT}/templates/letter.md",
    ],
    f"{ROOT}/templates/invoice.md": "# Invoice\n",
    f"{ROOT}/templates/purchase-order.md": "# Purchase order\n",
    f"{ROOT}/templates/credit-note.md": "# Credit note\n",
    f"{ROOT}/templates/letter.md": "# Letter\n",
    f"{ROOT}/templates/regional": [f"{ROOT}/templates/regional/eu.md"],
    f"{ROOT}/templates/regional/eu.md": "# EU invoice\n",
    f"{ROOT}/empty": [],
}

TOOLS = [
    {"name": "list_tree", "description": "Every URI of the tree.", "inputSchema": {"type": "object"}},
    {"name": "two\nwords", "description": "A name with a newline.", "inputSchema": {"type": "object"}},
    {"name": "esc\x1b]0;pwned\x07", "description": "A name with an OSC escape.", "inputSchema": {"type": "object"}},
]


def resource(uri: str) -> dict[str, Any]:
    name = uri.rsplit("/", 1)[-1] if uri != ROOT else "pdf-processing"
    mime = DIRECTORY if isinstance(TREE[uri], list) else "text/markdown"
    return {"uri": uri, "name": name, "mimeType": mime}


class Server:
    def __init__(self, declare: bool) -> None:
        self.declare = declare

    def capabilities(self) -> dict[str, Any]:
        caps: dict[str, Any] = {"resources": {}, "tools": {}, "prompts": {}}
        skills: dict[str, Any] = {"directoryRead": True} if self.declare else {}
        caps["extensions"] = {"io.modelcontextprotocol/skills": skills}
        return caps

    def handle(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        result = self.answer(method, params)
        meta = params.get("_meta")
        if isinstance(meta, dict) and meta.get(PV_KEY) == MODERN:
            # The stateless era: every result says what it is.
            result = {"resultType": "complete", **result}
        return result

    def answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        answers: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "server/discover": self.discover,
            "initialize": self.initialize,
            "ping": lambda params: {},
            "tools/list": lambda params: {"tools": TOOLS},
            "tools/call": lambda params: {"content": [{"type": "text", "text": "\n".join(TREE)}]},
            "resources/list": lambda params: {"resources": [resource(ROOT), resource(f"{ROOT}/SKILL.md")]},
            "resources/templates/list": lambda params: {"resourceTemplates": []},
            "prompts/list": lambda params: {"prompts": []},
            "resources/read": self.read,
            "resources/directory/read": self.directory,
        }
        answered = answers.get(method) if isinstance(method, str) else None
        if answered is None:
            raise Missing(method)
        return answered(params)

    def discover(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "supportedVersions": [MODERN],
            "capabilities": self.capabilities(),
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "directory-tree", "version": "1.0.0"}},
        }

    def initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "protocolVersion": params.get("protocolVersion", "2025-11-25"),
            "capabilities": self.capabilities(),
            "serverInfo": {"name": "directory-tree", "version": "1.0.0"},
        }

    def read(self, params: dict[str, Any]) -> dict[str, Any]:
        uri = params.get("uri")
        entry = TREE.get(uri) if isinstance(uri, str) else None
        if not isinstance(entry, str):
            raise Invalid(f"not a file: {uri!r}")
        return {"contents": [{"uri": uri, "mimeType": "text/markdown", "text": entry}]}

    def directory(self, params: dict[str, Any]) -> dict[str, Any]:
        uri = params.get("uri")
        children = TREE.get(uri) if isinstance(uri, str) else None
        if not isinstance(children, list):
            raise Invalid(f"not a directory resource: {uri!r}")
        cursor = params.get("cursor")
        start = 0
        if cursor is not None:
            if not (isinstance(cursor, str) and cursor.isdigit() and int(cursor) < len(children)):
                raise Invalid(f"bad cursor {cursor!r}")
            start = int(cursor)
        result: dict[str, Any] = {
            "resultType": "complete",
            "resources": [resource(child) for child in children[start : start + PAGE]],
        }
        if start + PAGE < len(children):
            result["nextCursor"] = str(start + PAGE)
        return result


class Invalid(Exception):
    code = -32602


class Missing(Exception):
    code = -32601


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-directory-read", action="store_true")
    server = Server(declare=not parser.parse_args().no_directory_read)
    for message in requests():
        params = message.get("params") or {}
        try:
            send({"jsonrpc": "2.0", "id": message["id"], "result": server.handle(message["method"], params)})
        except (Invalid, Missing) as exc:
            send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": exc.code, "message": str(exc)}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
