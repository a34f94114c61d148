"""An MCP server (official Python SDK, MCPServer) for the "exactly what was given" tests.

Its tools publish hand-written schemas and do not validate their arguments:
each answers with the arguments it received, as JSON text, so a test can
send anything (wrong types, unknown keys) and see it arrive.

- ``log_query``: defaults everywhere (an integer, two nullables, a boolean,
  a string, and a default inside an optional object), like git's ``git_log``;
- ``travel``: a ``oneOf`` told apart by a ``mode`` const (train, car) and an
  ``anyOf`` whose alternatives share a key;
- ``add``: two integers and no other key (``additionalProperties: false``);
- ``totals``: declares an ``outputSchema`` (``total`` an integer) and, with
  ``broken=true``, answers ``structuredContent`` that breaks it.

    python tests/servers/exact_args.py            # stdio
"""

from __future__ import annotations

import gc
import json
import logging
import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp_types import CallToolResult, TextContent
from pydantic import ConfigDict

LOG_QUERY = {
    "type": "object",
    "properties": {
        "repo": {"type": "string", "description": "Path of the repository"},
        "max_count": {"type": "integer", "default": 10, "description": "How many commits"},
        "start_timestamp": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        "end_timestamp": {"type": ["string", "null"], "default": None},
        "dryRun": {"type": "boolean", "default": False},
        "branch": {"type": "string", "default": "main"},
        "format": {
            "type": "object",
            "properties": {"width": {"type": "integer", "default": 72}},
        },
        "paths": {"type": "array", "items": {"type": "string"}, "default": []},
    },
    "required": ["repo"],
}

TRAVEL = {
    "type": "object",
    "properties": {
        "transport": {
            "oneOf": [
                {
                    "title": "Train",
                    "type": "object",
                    "properties": {"mode": {"const": "train"}, "line": {"type": "string"}},
                    "required": ["mode"],
                },
                {
                    "title": "Car",
                    "type": "object",
                    "properties": {"mode": {"const": "car"}, "seats": {"type": "integer", "default": 4}},
                    "required": ["mode"],
                },
            ]
        },
        "who": {
            "anyOf": [
                {"title": "Person", "type": "object", "properties": {"name": {"type": "string"}}},
                {
                    "title": "Team",
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "size": {"type": "integer"}},
                },
            ]
        },
    },
    "required": ["transport"],
}

ADD = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}

TOTALS_IN = {"type": "object", "properties": {"broken": {"type": "boolean", "default": False}}}
TOTALS_OUT = {
    "type": "object",
    "properties": {"total": {"type": "integer"}, "unit": {"type": "string"}},
    "required": ["total"],
}


class _AnyArguments(ArgModelBase):
    """Takes whatever arguments arrive and hands them on whole."""

    model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True)

    def model_dump_one_level(self) -> dict[str, Any]:
        return {"arguments": dict(self.model_extra or {})}


def _echo_tool(name: str, description: str, schema: dict[str, Any]) -> Tool:
    async def run(arguments: dict[str, Any], ctx: Context[Any, Any]) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text=json.dumps(arguments, ensure_ascii=False))])

    return Tool(
        fn=run,
        name=name,
        description=description,
        parameters=schema,
        fn_metadata=FuncMetadata(arg_model=_AnyArguments),
        is_async=True,
        context_kwarg="ctx",
    )


def _totals_tool() -> Tool:
    async def run(arguments: dict[str, Any], ctx: Context[Any, Any]) -> CallToolResult:
        structured: dict[str, Any] = {"total": "many", "unit": 3} if arguments.get("broken") else {"total": 3}
        text = TextContent(type="text", text=json.dumps(structured))
        return CallToolResult(content=[text], structured_content=structured)

    # A schema given without a model is published but not enforced by the SDK,
    # so the tool can break it.
    return Tool(
        fn=run,
        name="totals",
        description="A total; broken=true answers structuredContent that breaks the outputSchema.",
        parameters=TOTALS_IN,
        fn_metadata=FuncMetadata(arg_model=_AnyArguments, output_schema=TOTALS_OUT),
        is_async=True,
        context_kwarg="ctx",
    )


def build() -> MCPServer[Any]:
    tools = [
        _echo_tool("log_query", "Commits of a repository; every option has a default.", LOG_QUERY),
        _echo_tool("travel", "A trip by train or by car.", TRAVEL),
        _echo_tool("add", "Add two integers.", ADD),
        _totals_tool(),
    ]
    return MCPServer(name="exact-args", version="1.0.0", tools=tools)


def run_stdio(server: MCPServer[Any]) -> int:
    """Serve *server* over stdio (this server's and its siblings' `main`)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    # Out of the collector's sight: exiting then takes no walk over the SDK's models (see inspector/demo/server.py).
    gc.freeze()
    server.run("stdio")
    return 0


def main() -> int:
    return run_stdio(build())


if __name__ == "__main__":
    sys.exit(main())
