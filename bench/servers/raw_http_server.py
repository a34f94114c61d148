"""A minimal, fast Streamable HTTP MCP server for benchmarks (standard library only).

    python bench/servers/raw_http_server.py PORT

POST /mcp answers each request with one JSON body at once (no SSE, no
work): `initialize` (a session id is handed out and not checked),
`tools/list` (one tool, `noop`), `tools/call` ("ok"), `ping`; any other
request -32601; a notification 202.  GET is refused with 405 (no stream),
DELETE ends nothing.  HTTP/1.1 keep-alive, one asyncio loop.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from typing import Any

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
TOOLS = {"tools": [{"name": "noop", "description": "Does nothing.", "inputSchema": {"type": "object"}}]}
CALLED = {"content": [{"type": "text", "text": "ok"}], "isError": False}


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    if "id" not in message:
        return None
    method = message.get("method")
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
    if method == "initialize":
        requested = (message.get("params") or {}).get("protocolVersion")
        reply["result"] = {
            "protocolVersion": requested if requested in VERSIONS else VERSIONS[-1],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw-http-bench", "version": "1"},
        }
    elif method == "tools/list":
        reply["result"] = TOOLS
    elif method == "tools/call":
        reply["result"] = CALLED
    elif method == "ping":
        reply["result"] = {}
    else:
        reply["error"] = {"code": -32601, "message": f"no method {method}"}
    return reply


def response(status: str, body: bytes = b"", extra: str = "") -> bytes:
    head = f"HTTP/1.1 {status}\r\ncontent-length: {len(body)}\r\n{extra}"
    if body:
        head += "content-type: application/json\r\n"
    return (head + "\r\n").encode() + body


async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            verb = lines[0].split(" ", 1)[0]
            headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            if verb == "POST":
                message = json.loads(body)
                reply = answer(message) if isinstance(message, dict) else None
                if reply is None:
                    writer.write(response("202 Accepted"))
                else:
                    extra = "mcp-session-id: bench\r\n" if message.get("method") == "initialize" else ""
                    writer.write(response("200 OK", json.dumps(reply).encode(), extra))
            elif verb == "DELETE":
                writer.write(response("200 OK"))
            else:
                writer.write(response("405 Method Not Allowed", extra="allow: POST, DELETE\r\n"))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def main(port: int) -> None:
    server = await asyncio.start_server(serve, "127.0.0.1", port)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
