"""An MCP server (official Python SDK, MCPServer) with the schema shapes of
third-party servers a person tried the TUI on by hand.

Each tool publishes a schema copied from a real server and answers with the
arguments it received, as JSON text, so a test sees exactly what was sent.

- ``create_entities``: the reference memory server's
  (`@modelcontextprotocol/server-memory`): an array of objects, each with an
  array of strings;
- ``write_file``: the reference filesystem server's, whose ``content`` is
  edited in a multi-line text area.

Prompt ``review``: as FastMCP publishes a prompt argument that is not a
plain string, its allowed values only in the description, at its end.

    python tests/servers/hand_shapes.py            # stdio
"""

from __future__ import annotations

import logging
import sys
from typing import Annotated, Any

from exact_args import _echo_tool  # the sibling server's echoing tool (run as a script)
from mcp.server.mcpserver import MCPServer
from pydantic import Field

CREATE_ENTITIES = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "entities": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The name of the entity"},
                    "entityType": {"type": "string", "description": "The type of the entity"},
                    "observations": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "An array of observation contents associated with the entity",
                    },
                },
                "required": ["name", "entityType", "observations"],
            },
        }
    },
    "required": ["entities"],
}

WRITE_FILE = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"],
}


# FastMCP's wording for an argument typed Literal["terse", "verbose", "pedantic", "friendly"].
STYLE_DESCRIPTION = (
    "Provide a value matching the following JSON schema: "
    '{"enum":["terse","verbose","pedantic","friendly"],"type":"string"}'
)


def build() -> MCPServer[Any]:
    tools = [
        _echo_tool("create_entities", "Create entities (the memory server's schema).", CREATE_ENTITIES),
        _echo_tool("write_file", "Write a file (filesystem server's schema).", WRITE_FILE),
    ]
    server: MCPServer[Any] = MCPServer(name="hand-shapes", version="1.0.0", tools=tools)

    @server.prompt()
    def review(
        code: Annotated[str, Field(description="The code to review")],
        style: Annotated[str, Field(description=STYLE_DESCRIPTION)] = "terse",
    ) -> str:
        """Review some code."""
        return f"Review ({style}): {code}"

    return server


def main() -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    build().run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
