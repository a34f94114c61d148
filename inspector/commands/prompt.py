"""`inspector get PROMPT key=value ...`."""

from __future__ import annotations

import sys
from typing import Any

from inspector.commands import exitcodes
from inspector.commands.render import abbreviated_lines, content_lines
from inspector.commands.runner import CommandContext, CommandFailed
from inspector.core.safetext import visible

__all__ = ["run_get"]


def _parse(assignments: list[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for assignment in assignments:
        key, found, value = assignment.partition("=")
        if not found or not key:
            raise CommandFailed(exitcodes.USAGE, f"prompt arguments look like name=value, got {assignment!r}")
        values[key] = value
    return values


async def run_get(ctx: CommandContext) -> int:
    """`inspector get PROMPT key=value ...`: get the prompt and print its messages; returns the exit code."""
    arguments = _parse(ctx.args.assignments)
    listing = await ctx.client.list_all("prompts")
    prompt = listing.find(ctx.args.prompt)
    if prompt is None:
        print(
            f"inspector: warning: {visible(ctx.args.prompt)!r} is not in prompts/list; asking anyway",
            file=sys.stderr,
        )
    else:
        declared = [a for a in prompt.data.get("arguments") or [] if isinstance(a, dict)]
        missing = [a.get("name") for a in declared if a.get("required") and a.get("name") not in arguments]
        if missing:
            names = ", ".join(str(m) for m in missing)
            raise CommandFailed(exitcodes.USAGE, f"missing required prompt argument(s): {visible(names)}")
    result = await ctx.client.get_prompt(ctx.args.prompt, arguments or None)
    if ctx.out.json:
        ctx.out.json_value(result)
        return exitcodes.OK
    _print(ctx, result)
    return exitcodes.OK


def _print(ctx: CommandContext, result: Any) -> None:
    if not isinstance(result, dict):
        ctx.out.line(f"(the result is not an object: {result!r})")
        return
    if isinstance(result.get("description"), str):
        ctx.out.line(result["description"])
    for message in result.get("messages") or []:
        if not isinstance(message, dict):
            ctx.out.line(f"(invalid message: {message!r})")
            continue
        ctx.out.line(f"── {message.get('role', '?')}")
        ctx.out.lines(content_lines(message.get("content")))
    rest = {k: v for k, v in result.items() if k not in ("description", "messages")}
    if rest:
        # The rest of the answer (_meta and the like), blobs and icons cut short.
        ctx.out.lines(abbreviated_lines(rest))
