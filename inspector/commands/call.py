"""`inspector call TOOL key=value ...`: convert, validate, confirm, call."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from ..core.items import Item
from ..core.safetext import visible
from . import exitcodes
from .confirm import ask_confirmation
from .render import content_lines, json_lines
from .runner import CommandContext, CommandFailed

__all__ = ["build_arguments", "run_call"]


def build_arguments(tool: Item, assignments: list[str], args_json: str | None) -> dict[str, Any]:
    from ..forms import AssignmentError, parse_assignments

    arguments: dict[str, Any] = {}
    if args_json:
        try:
            loaded = json.loads(args_json)
        except ValueError as exc:
            raise CommandFailed(exitcodes.USAGE, f"--args is not valid JSON: {exc}") from exc
        if not isinstance(loaded, dict):
            raise CommandFailed(exitcodes.USAGE, "--args must be a JSON object")
        arguments.update(loaded)
    if assignments:
        try:
            arguments.update(parse_assignments(tool.input_schema, assignments))
        except AssignmentError as exc:
            raise CommandFailed(
                exitcodes.USAGE, "invalid arguments:\n  " + "\n  ".join(str(p) for p in exc.problems)
            ) from exc
    return arguments


def check_arguments(tool: Item, arguments: dict[str, Any]) -> None:
    from ..forms import validate_value

    found = validate_value(tool.input_schema, arguments)
    # A pattern too slow to apply says nothing about the value: warn, and send.
    for warning in (v for v in found if v.unchecked and v.keyword != "schema"):
        where = warning.display_path or "(arguments)"
        print(f"inspector: warning: {visible(where)}: {visible(warning.message)}", file=sys.stderr)
    violations = [v for v in found if not v.unchecked or v.keyword == "schema"]
    if violations:
        listed = "\n  ".join(f"{v.display_path or '(arguments)'}: {v.message}" for v in violations)
        raise CommandFailed(
            exitcodes.USAGE,
            f"arguments do not match the input schema of {tool.key} (use --no-validate to send anyway):\n  {listed}",
        )


TASK_TTL_MS = 10 * 60 * 1000


def _task_printer(enabled: bool) -> Any:
    if not enabled:
        return None

    def show(task: Any) -> None:
        text = f"task {task.task_id}: {task.status}" + (f" ({task.status_message})" if task.status_message else "")
        sys.stderr.write("\r" + visible(text, keep_newlines=False)[:100].ljust(60))
        sys.stderr.flush()

    return show


def _progress_printer(enabled: bool) -> Any:
    if not enabled:
        return None

    def show(progress: float, total: float | None, message: str | None) -> None:
        amount = f"{progress:g}/{total:g}" if total else f"{progress:g}"
        text = f"progress {amount}" + (f" {message}" if message else "")
        sys.stderr.write("\r" + visible(text, keep_newlines=False)[:100].ljust(60))
        sys.stderr.flush()

    return show


async def run_call(ctx: CommandContext) -> int:
    args = ctx.args
    listing = await ctx.client.list_all("tools")
    tool = listing.find(args.tool)
    if tool is None:
        known = ", ".join(listing.names()[:30]) or "(none)"
        raise CommandFailed(exitcodes.USAGE, f"no tool named {visible(args.tool)!r}; known tools: {visible(known)}")
    arguments = build_arguments(tool, args.assignments, args.args_json)
    if not args.no_validate:
        check_arguments(tool, arguments)
    if not args.yes:
        if not (sys.stdin.isatty() and sys.stderr.isatty()):
            raise CommandFailed(
                exitcodes.CONFIRMATION_REFUSED,
                "refusing to call a tool without confirmation: no terminal to ask on (pass --yes)",
            )
        if not ask_confirmation(tool, arguments):
            raise CommandFailed(exitcodes.CONFIRMATION_REFUSED, "call not confirmed")
    support = ctx.client.task_support(tool.data)
    if args.task and support == "forbidden":
        raise CommandFailed(exitcodes.USAGE, f"{tool.key} cannot run as a task (taskSupport: forbidden or absent)")
    as_task = args.task or support == "required"
    interactive = sys.stderr.isatty()
    started = time.perf_counter()
    operation = await ctx.client.start_call_tool(
        tool.key, arguments, on_progress=_progress_printer(interactive), task_ttl=TASK_TTL_MS if as_task else None
    )
    result = await operation.result()
    result, task = await ctx.client.finish_task(result, tool.key, on_status=_task_printer(interactive))
    if task is not None:
        print(f"inspector: task {visible(task.task_id)} ended {task.status}", file=sys.stderr)
    elapsed = time.perf_counter() - started
    if interactive:
        sys.stderr.write("\r" + " " * 60 + "\r")
    is_error = isinstance(result, dict) and result.get("isError") is True
    if ctx.out.json:
        ctx.out.json_value(result)
    else:
        _print_result(ctx, result, elapsed)
    return exitcodes.TOOL_ERROR if is_error else exitcodes.OK


def _print_result(ctx: CommandContext, result: Any, elapsed: float) -> None:
    out = ctx.out
    if not isinstance(result, dict):
        out.line(f"(the result is not an object: {result!r})")
        return
    if result.get("isError") is True:
        out.line("TOOL ERROR (isError: true)")
    content = result.get("content")
    if isinstance(content, list):
        for block in content:
            out.lines(content_lines(block))
    if "structuredContent" in result:
        out.line("structuredContent:")
        out.lines(["  " + line for line in json_lines(result["structuredContent"])])
    out.line(f"({elapsed * 1000:.0f} ms)")
