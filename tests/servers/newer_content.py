"""A raw stdio MCP server that speaks whatever handshake revision the client asks
for, but answers with the content types of the newest one: what an SDK-built
server does when it does not adapt its results to the negotiated revision.

Standard library only.  What it sends, whatever the revision:

- tools/call ``media``: text, image, audio (2025-03-26), resource_link
  (2025-06-18) and an embedded resource;
- prompts/get ``voice``: an audio message and a resource_link message;
- tools/call ``ask``: first a sampling/createMessage request whose message is
  a tool_use block (2025-11-25), then a text result;
- tools/call ``open_url``: first a URL-mode elicitation/create (2025-11-25:
  ``mode``/``url``/``elicitationId``, no ``requestedSchema``), then a text result.

tests/test_validation_revisions.py says, revision by revision, which of
these the negotiated revision's own schema rejects.
"""

from __future__ import annotations

import json
import sys
from typing import Any

HANDSHAKE = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="
SCHEMA = {"type": "object", "properties": {}}

TOOLS = [
    {"name": "media", "description": "One block of every content type.", "inputSchema": SCHEMA},
    {"name": "ask", "description": "Asks the client's model, with a tool_use message.", "inputSchema": SCHEMA},
    {"name": "open_url", "description": "Asks the user to open a URL (URL-mode elicitation).", "inputSchema": SCHEMA},
]
PROMPTS = [{"name": "voice", "description": "A spoken prompt and a link."}]

MEDIA = [
    {"type": "text", "text": "every content type"},
    {"type": "image", "data": PNG, "mimeType": "image/png"},
    {"type": "audio", "data": WAV, "mimeType": "audio/wav"},
    {"type": "resource_link", "uri": "file:///a440.wav", "name": "a440", "mimeType": "audio/wav"},
    {"type": "resource", "resource": {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "notes"}},
]
VOICE = [
    {"role": "user", "content": {"type": "audio", "data": WAV, "mimeType": "audio/wav"}},
    {"role": "assistant", "content": {"type": "resource_link", "uri": "file:///a440.wav", "name": "a440"}},
]
SAMPLING = {
    "maxTokens": 10,
    "messages": [{"role": "assistant", "content": {"type": "tool_use", "id": "u1", "name": "weather", "input": {}}}],
}
ELICIT_URL = {
    "mode": "url",
    "message": "Please sign in.",
    "url": "https://example.com/sign-in",
    "elicitationId": "e1",
}


def send(message: Any) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def reply(message_id: Any, result: Any) -> None:
    send({"jsonrpc": "2.0", "id": message_id, "result": result})


def text(value: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}]}


def handle(message: dict[str, Any]) -> None:
    method = message.get("method")
    if not isinstance(method, str) or "id" not in message:
        return  # a notification, or the client's answer to our own request
    mid = message["id"]
    params = message.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        reply(
            mid,
            {
                "protocolVersion": asked if asked in HANDSHAKE else HANDSHAKE[-1],
                "capabilities": {"tools": {}, "prompts": {}},
                "serverInfo": {"name": "newer-content", "version": "1.0.0"},
            },
        )
    elif method == "ping":
        reply(mid, {})
    elif method == "tools/list":
        reply(mid, {"tools": TOOLS})
    elif method == "prompts/list":
        reply(mid, {"prompts": PROMPTS})
    elif method == "prompts/get":
        reply(mid, {"messages": VOICE})
    elif method == "tools/call" and params.get("name") == "media":
        reply(mid, {"content": MEDIA})
    elif method == "tools/call" and params.get("name") == "ask":
        send({"jsonrpc": "2.0", "id": f"sampling-{mid}", "method": "sampling/createMessage", "params": SAMPLING})
        reply(mid, text("asked"))
    elif method == "tools/call" and params.get("name") == "open_url":
        send({"jsonrpc": "2.0", "id": f"elicit-{mid}", "method": "elicitation/create", "params": ELICIT_URL})
        reply(mid, text("asked"))
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "Method not found"}})


def main() -> int:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            handle(message)
    return 0


if __name__ == "__main__":
    sys.exit(main())
