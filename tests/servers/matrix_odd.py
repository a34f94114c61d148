"""A hand-written handshake-era stdio server whose offer changes with the
revision, for `inspector matrix`.  Standard library only.

    python tests/servers/matrix_odd.py

- It speaks 2025-03-26, 2025-06-18 and 2025-11-25: offered 2024-11-05 it
  answers 2025-03-26 (so that column is "not accepted"); `server/discover`
  is an unknown method (so the stateless column fails).
- `clock` (read-only, no arguments) exists under every revision.
- `report` exists only from 2025-06-18: missing under 2025-03-26.
- `shaped` (read-only, no arguments) returns `structuredContent` only from
  2025-06-18, where the spec defines it: its result is shaped differently.
- A tool whose name and description carry terminal escapes (OSC title,
  CSI colour) exists only from 2025-06-18, so it shows in the differences.
"""

from __future__ import annotations

from typing import Any

import stdio_json

SPOKEN = ("2025-03-26", "2025-06-18", "2025-11-25")
HOSTILE = "evil\x1b]0;pwned\x07\x1b[31mred"


def tools(revision: str) -> list[dict[str, Any]]:
    read_only = {"readOnlyHint": True}
    listed: list[dict[str, Any]] = [
        {"name": "clock", "inputSchema": {"type": "object"}, "annotations": read_only},
        {"name": "shaped", "inputSchema": {"type": "object"}, "annotations": read_only},
    ]
    if revision >= "2025-06-18":
        listed.append({"name": "report", "inputSchema": {"type": "object", "properties": {}}})
        listed.append({"name": HOSTILE, "description": "\x1b[2J cleared", "inputSchema": {"type": "object"}})
    return listed


def call(name: str, revision: str) -> dict[str, Any]:
    if name == "clock":
        return {"content": [{"type": "text", "text": "12:00"}]}
    if name == "shaped":
        result: dict[str, Any] = {"content": [{"type": "text", "text": '{"n": 1}'}]}
        if revision >= "2025-06-18":
            result["structuredContent"] = {"n": 1}
        return result
    return {"content": [{"type": "text", "text": "done"}]}


def answer(message: dict[str, Any], state: dict[str, str]) -> dict[str, Any] | None:
    method = message.get("method")
    if "id" not in message:
        return None
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
    params = message.get("params") or {}
    if method == "initialize":
        offered = params.get("protocolVersion")
        state["revision"] = offered if offered in SPOKEN else SPOKEN[0]
        reply["result"] = {
            "protocolVersion": state["revision"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "matrix-odd", "version": "1.0.0"},
        }
    elif method == "tools/list":
        reply["result"] = {"tools": tools(state["revision"])}
    elif method == "tools/call":
        reply["result"] = call(str(params.get("name")), state["revision"])
    elif method == "ping":
        reply["result"] = {}
    else:
        reply["error"] = {"code": -32601, "message": f"Method not found: {method}"}
    return reply


def main() -> None:
    state = {"revision": SPOKEN[0]}
    stdio_json.serve(lambda message: answer(message, state))


if __name__ == "__main__":
    main()
