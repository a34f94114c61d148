"""A handshake-era stdio server that ignores every request it receives before
`initialize` (the spec allows a legacy server to stay silent): the case in
which an era probe must not stall the connection."""

from __future__ import annotations

import sys

import stdio_json


def reply(message_id: object, result: object) -> None:
    stdio_json.send({"jsonrpc": "2.0", "id": message_id, "result": result})


def main() -> int:
    initialized = False
    for message in stdio_json.messages():
        method = message.get("method")
        if "id" not in message:
            continue
        if method == "initialize":
            initialized = True
            version = message.get("params", {}).get("protocolVersion", "2025-11-25")
            reply(
                message["id"],
                {
                    "protocolVersion": version
                    if version.startswith("2025") or version == "2024-11-05"
                    else "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "quiet-legacy", "version": "1.0.0"},
                },
            )
        elif not initialized:
            continue  # silently ignored, like some legacy servers do
        elif method == "tools/list":
            reply(message["id"], {"tools": [{"name": "noop", "inputSchema": {"type": "object"}}]})
        elif method == "ping":
            reply(message["id"], {})
        else:
            error = {"code": -32601, "message": "Method not found"}
            stdio_json.send({"jsonrpc": "2.0", "id": message["id"], "error": error})
    return 0


if __name__ == "__main__":
    sys.exit(main())
