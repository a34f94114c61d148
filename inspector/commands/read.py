"""`inspector read URI`."""

from __future__ import annotations

from . import exitcodes
from .render import resource_contents_lines
from .runner import CommandContext

__all__ = ["run_read"]


async def run_read(ctx: CommandContext) -> int:
    result = await ctx.client.read_resource(ctx.args.uri)
    if ctx.out.json:
        ctx.out.json_value(result)
        return exitcodes.OK
    contents = result.get("contents") if isinstance(result, dict) else None
    if not isinstance(contents, list):
        ctx.out.line(f"(the result has no contents array: {result!r})")
        return exitcodes.PROTOCOL_ERROR
    for entry in contents:
        ctx.out.lines(resource_contents_lines(entry))
    return exitcodes.OK
