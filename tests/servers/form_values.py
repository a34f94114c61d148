"""An MCP server (official Python SDK, MCPServer) whose one tool has the
fields a form is tempted to fill in by itself: a required top-level
``const``, a required array, a required object, an enum and a boolean with
defaults.  It answers with the arguments it received, as JSON text.

    python tests/servers/form_values.py            # stdio
"""

from __future__ import annotations

import sys
from typing import Any

from exact_args import _echo_tool, run_stdio  # the sibling server's (run as a script)
from mcp.server.mcpserver import MCPServer

ORDER = {
    "type": "object",
    "properties": {
        "api": {"const": "v2", "description": "The only accepted value is v2."},
        "items": {"type": "array", "items": {"type": "string"}},
        "address": {"type": "object", "properties": {"city": {"type": "string"}}},
        "size": {"type": "string", "enum": ["S", "M", "L"], "default": "M"},
        "gift": {"type": "boolean", "default": False},
        "note": {"type": "string"},
    },
    "required": ["api", "items", "address", "size"],
}


def build() -> MCPServer[Any]:
    return MCPServer(name="form-values", version="1.0.0", tools=[_echo_tool("order", "An order.", ORDER)])


def main() -> int:
    return run_stdio(build())


if __name__ == "__main__":
    sys.exit(main())
