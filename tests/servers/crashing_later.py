"""An MCP server (official Python SDK, MCPServer) that starts and lists
normally, then dies in the middle of its first tools/call: it writes a last
line to stderr and exits with status 3 without answering.

What the several-servers tests crash while another server keeps working.

    python tests/servers/crashing_later.py            # stdio
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("crashing-later")

LAST_WORDS = "crashing_later: going down in the middle of a call"


@server.tool()
def crash(reason: str = "asked to") -> str:
    """Exits the server process (status 3) instead of answering."""
    print(f"{LAST_WORDS} ({reason})", file=sys.stderr, flush=True)
    os._exit(3)


if __name__ == "__main__":
    print("crashing_later: ready", file=sys.stderr, flush=True)
    server.run("stdio")
