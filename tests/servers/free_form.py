"""An MCP server (official Python SDK, MCPServer) with a tool whose field is
a free-form object (``additionalProperties``: edited as raw JSON in the
form), and a plain one to move to.  Each answers with the arguments it
received, as JSON text.

    python tests/servers/free_form.py            # stdio
"""

from __future__ import annotations

import sys
from typing import Any

from exact_args import _echo_tool, run_stdio  # the sibling server's (run as a script)
from mcp.server.mcpserver import MCPServer

DROP = {
    "type": "object",
    "properties": {
        "target": {"type": "string"},
        "data": {"type": "object", "additionalProperties": {"type": "string"}, "description": "By MIME type."},
    },
    "required": ["target"],
}

PING = {"type": "object", "properties": {"note": {"type": "string"}}}


def build() -> MCPServer[Any]:
    return MCPServer(
        name="free-form",
        version="1.0.0",
        tools=[_echo_tool("drop", "Drop data on a target.", DROP), _echo_tool("ping", "Answer.", PING)],
    )


def main() -> int:
    return run_stdio(build())


if __name__ == "__main__":
    sys.exit(main())
