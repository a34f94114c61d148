"""A 2026-07-28-only MCP server for the era tests (official Python SDK).

It refuses `initialize` (naming the versions it supports, as the spec asks),
so only a client that speaks the stateless era gets anywhere.  Besides the
basics it has a tool with an `x-mcp-header` parameter, one whose
`x-mcp-header` annotation is invalid (a client on HTTP must exclude it), a
tool that needs elicitation through a multi round-trip request, one with
progress, and one with structured output.

    python tests/servers/modern_only.py            # stdio
    python tests/servers/modern_only.py --http PORT
"""

from __future__ import annotations

import argparse
import gc
import logging
import sys
from pathlib import Path
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import AcceptedElicitation, Elicit, ElicitationResult, Resolve
from mcp_types import ToolAnnotations
from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from inspector.demo.schema_tool import schema_tool

SUPPORTED = ["2026-07-28"]


class RefuseHandshake:
    """Middleware: `initialize` gets a JSON-RPC error that names our versions."""

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        if getattr(ctx, "method", None) == "initialize":
            from mcp.shared.exceptions import MCPError

            raise MCPError(
                code=-32022,
                message="this server speaks only the stateless protocol (2026-07-28); initialize is not supported",
                data={"supported": SUPPORTED, "requested": "initialize"},
            )
        return await call_next(ctx)


class Name(BaseModel):
    name: str = "nobody"


class Weather(BaseModel):
    city: str
    celsius: float


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


async def _regional(arguments: dict[str, Any], ctx: Context[Any, Any]) -> str:
    return f"region {arguments.get('region')} size {arguments.get('size')}"


def header_tools() -> list[Any]:
    valid = schema_tool(
        _regional,
        name="regional",
        description="Parameters mirrored into Mcp-Param-Region and Mcp-Param-Size headers.",
        input_schema={
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "size": {"type": "integer", "x-mcp-header": "Size"},
            },
            "required": ["region"],
        },
    )
    invalid = schema_tool(
        _regional,
        name="bad_header",
        description="x-mcp-header on a number property: invalid, so an HTTP client must exclude this tool.",
        input_schema={"type": "object", "properties": {"ratio": {"type": "number", "x-mcp-header": "Ratio"}}},
    )
    return [valid, invalid]


def build() -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(
        name="modern-only", version="1.0.0", middleware=[RefuseHandshake()], tools=header_tools()
    )

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def echo(text: str) -> str:
        """Say it back."""
        return text

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    async def count(steps: int, ctx: Context[Any, Any]) -> str:
        """Count with progress notifications."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
            await anyio.sleep(0.01)  # work between the steps: the tool's behaviour, not a wait for state
        return f"counted to {steps}"

    @server.tool()
    async def greet(*, answer: Annotated[ElicitationResult[Name], Resolve(ask_name)]) -> str:
        """Ask for a name (multi round-trip elicitation), then greet."""
        if isinstance(answer, AcceptedElicitation):
            return f"hello {answer.data.name}"
        return f"no name ({answer.action})"

    @server.tool()
    def weather(city: str) -> Weather:
        """Structured output."""
        return Weather(city=city, celsius=21.5)

    return server


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    server = build()
    # Out of the collector's sight: exiting then takes no walk over the SDK's models (see inspector/demo/server.py).
    gc.freeze()
    if args.http:
        import uvicorn

        app = server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
        uvicorn.run(app, host="127.0.0.1", port=args.http, log_config=None, access_log=False)
    else:
        server.run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
