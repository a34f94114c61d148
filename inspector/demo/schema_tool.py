"""Tools whose input schema is written by hand instead of derived from a Python signature.

MCPServer builds every tool's `inputSchema` from the function signature through pydantic, which
cannot express titled enums, type lists with null, `const` on a plain field and so on the way
the form tools need. `schema_tool` publishes a given schema verbatim, hands the function the raw
arguments, and validates them against that same schema with `jsonschema` first, so what the
client sees is exactly what the server enforces.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from jsonschema import Draft202012Validator
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp_types import Icon, ToolAnnotations
from pydantic import ConfigDict

RawToolFn = Callable[[dict[str, Any], Context[Any, Any]], Awaitable[Any]]


class _RawArguments(ArgModelBase):
    """Accepts any argument object and passes it on whole, as `arguments`."""

    model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True)

    def model_dump_one_level(self) -> dict[str, Any]:
        return {"arguments": dict(self.model_extra or {})}


def schema_tool(
    fn: RawToolFn,
    *,
    name: str,
    description: str,
    input_schema: dict[str, Any],
    title: str | None = None,
    annotations: ToolAnnotations | None = None,
    icons: list[Icon] | None = None,
    meta: dict[str, Any] | None = None,
) -> Tool:
    """A tool with a hand-written JSON Schema as input schema, arguments checked by jsonschema; *fn* gets them whole."""
    Draft202012Validator.check_schema(input_schema)
    validator = Draft202012Validator(input_schema, format_checker=Draft202012Validator.FORMAT_CHECKER)

    async def run(arguments: dict[str, Any], ctx: Context[Any, Any]) -> Any:
        problems = [
            f"{'/'.join(str(part) for part in error.absolute_path) or '(arguments)'}: {error.message}"
            for error in sorted(validator.iter_errors(arguments), key=lambda e: [str(p) for p in e.absolute_path])
        ]
        if problems:
            raise ToolError("invalid arguments:\n" + "\n".join(problems))
        return await fn(arguments, ctx)

    return Tool(
        fn=run,
        name=name,
        title=title,
        description=description,
        parameters=input_schema,
        fn_metadata=FuncMetadata(arg_model=_RawArguments),
        is_async=True,
        context_kwarg="ctx",
        annotations=annotations,
        icons=icons,
        meta=meta,
    )
