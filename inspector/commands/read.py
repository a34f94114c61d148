"""`inspector read URI`, and `inspector read --directory URI` (a directory resource's children)."""

from __future__ import annotations

import sys

from inspector.commands import exitcodes
from inspector.commands.render import item_line, resource_contents_lines
from inspector.commands.runner import CommandContext
from inspector.core.safetext import visible

__all__ = ["run_read"]


async def run_read(ctx: CommandContext) -> int:
    """`inspector read URI` (with --directory: `run_read_directory`); returns the exit code."""
    if getattr(ctx.args, "directory", False):
        return await run_read_directory(ctx)
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


async def run_read_directory(ctx: CommandContext) -> int:
    """Every page of `resources/directory/read`: the children, as they came."""
    listing = await ctx.client.read_directory(ctx.args.uri, max_pages=ctx.args.max_pages)
    for problem in listing.problems:
        print(f"inspector: {visible(problem)}", file=sys.stderr)
    if ctx.out.json:
        value: dict[str, object] = {"resources": [item.raw for item in listing.items]}
        last = listing.pages[-1] if listing.pages else {}
        if not listing.complete and isinstance(last.get("nextCursor"), str):
            value["nextCursor"] = last["nextCursor"]
        ctx.out.json_value(value)
    else:
        pages = len(listing.pages)
        count = len(listing.items)
        ctx.out.line(f"{count} entr{'y' if count == 1 else 'ies'} ({pages} page{'s' if pages != 1 else ''})")
        for item in listing.items:
            ctx.out.line(item_line(item))
    if not listing.complete:
        print("inspector: the listing is incomplete (see above)", file=sys.stderr)
        return exitcodes.PROTOCOL_ERROR
    return exitcodes.OK
