"""`inspector call TOOL key=value ...`: convert, validate, confirm, call, check.

Exactly what the person gave goes on the wire: no schema defaults unless
``--with-defaults``; ``--args`` JSON as written, byte for byte (a
`RawJsonObject`); with ``--no-validate`` values that do not fit their schema
as written.  The answer's ``structuredContent`` is checked against the
tool's ``outputSchema``; ``--strict`` makes a violation fail the command.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, Any

from inspector.commands import exitcodes
from inspector.commands.confirm import ask_confirmation
from inspector.commands.render import abbreviated_lines, content_lines
from inspector.commands.runner import CommandContext, CommandFailed
from inspector.core.checks.problems import Problem
from inspector.core.protocol.items import Item
from inspector.core.protocol.raw_json import RawJsonObject
from inspector.core.safetext import visible

if TYPE_CHECKING:
    from inspector.core.protocol.operation import Operation

__all__ = ["build_arguments", "given_arguments", "run_call", "tool_help_lines"]


def build_arguments(
    tool: Item,
    assignments: list[str],
    args_json: str | None,
    *,
    with_defaults: bool = False,
    lenient: bool = False,
    notes: list[str] | None = None,
) -> dict[str, Any]:
    """The arguments to send: ``--args`` as a base, ``key=value`` on top.

    ``--args`` alone is sent as its own text (see `RawJsonObject`); with
    ``key=value`` or ``--with-defaults`` on top it is re-encoded.
    """
    from inspector.forms import AssignmentError, parse_assignments
    from inspector.forms.values import json_equal, parse_json_text

    base: dict[str, Any] | None = None
    if args_json is not None:
        try:
            loaded = parse_json_text(args_json)
        except ValueError as exc:
            raise CommandFailed(exitcodes.USAGE, f"--args is not valid JSON: {exc}") from exc
        if not isinstance(loaded, dict):
            raise CommandFailed(exitcodes.USAGE, "--args must be a JSON object")
        if not assignments and not with_defaults:
            return RawJsonObject(loaded, args_json)
        base = loaded
    if not assignments and not with_defaults:
        return {}
    try:
        arguments = parse_assignments(
            tool.input_schema, assignments, base=base, with_defaults=with_defaults, lenient=lenient, notes=notes
        )
    except AssignmentError as exc:
        raise CommandFailed(
            exitcodes.USAGE, "invalid arguments:\n  " + "\n  ".join(str(p) for p in exc.problems)
        ) from exc
    if base is not None and args_json is not None and not assignments and json_equal(arguments, base):
        # --with-defaults found nothing to add: the text stays as written.
        return RawJsonObject(base, args_json)
    return arguments


def check_arguments(tool: Item, arguments: dict[str, Any]) -> None:
    """Check *arguments* against the tool's input schema: `CommandFailed` for a violation, a warning for a
    pattern too slow to apply."""
    from inspector.forms import validate_value

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


def tool_help_lines(tool: Item) -> list[str]:
    """`inspector call TOOL --help`: the tool's arguments, with types and defaults;
    an object's own fields follow it by their `key=value` paths (`order.customer`,
    `order.items[N].sku`), so nested arguments can be written without the schema."""
    from inspector.forms import ObjectNode, build_form

    lines = [f"usage: inspector call {tool.key} [key=value ...] [--args JSON] [--with-defaults] [--no-validate]"]
    if tool.description:
        lines += ["", *tool.description.strip().splitlines()]
    form = build_form(tool.input_schema)
    fields = form.fields if isinstance(form, ObjectNode) else {}
    explained = "arguments (* required; a default is what the server does without it, sent only with --with-defaults):"
    lines += ["", explained if fields else "arguments: (none)"]
    for key, node in fields.items():
        lines += _field_help(key, node, depth=0)
    if tool.output_schema is not None:
        lines += ["", "structuredContent is checked against the tool's outputSchema (--strict: a violation fails)."]
    return lines


# How deep `call TOOL --help` follows nested objects (a recursive $ref goes on forever).
_HELP_DEPTH = 3


def _field_help(path: str, node: Any, depth: int) -> list[str]:
    from inspector.forms import ObjectNode

    head = f"  {path}{'*' if node.required else ''}  ({_kind_text(node)})"
    if node.default_text is not None:
        head += f"  default {node.default_text}"
    lines = [head]
    if node.description:
        lines += ["      " + line for line in node.description.strip().splitlines()]
    if depth >= _HELP_DEPTH:
        return lines
    inner = _non_null(node)
    item = _item_of(inner)
    if item is not None:
        inner = _non_null(item)
        path += "[N]"
    if isinstance(inner, ObjectNode):
        for key, child in inner.fields.items():
            lines += _field_help(f"{path}.{key}", child, depth + 1)
    return lines


def _item_of(node: Any) -> Any:
    """An array's item node (a sample the help throws away), or None."""
    from inspector.forms import ArrayNode

    if not isinstance(node, ArrayNode) or not node.can_add:
        return None
    item = node.add()
    node.remove(0)
    return item


def _non_null(node: Any) -> Any:
    return node.inner if node.kind == "nullable" else node


def _kind_text(node: Any) -> str:
    """A field's type as a person writes it: `integer or null`, `boolean or
    string`, `one of small, medium, large`, `integer ≥ 1`."""
    from inspector.forms import NumberNode
    from inspector.forms.values import json_text

    kind = str(node.kind)
    if kind == "nullable":
        inner = _kind_text(node.inner)
        return f"{inner}, or null" if "," in inner else f"{inner} or null"
    if kind == "union":
        return " or ".join(variant.title for variant in node.variants) or kind
    if kind in ("enum", "multi-select"):
        values = [o.value if isinstance(o.value, str) else json_text(o.value) for o in node.options]
        shown = ", ".join(values[:10]) + (f", … ({len(values)} in all)" if len(values) > 10 else "")
        return f"{'one' if kind == 'enum' else 'any'} of {shown}"
    item = _item_of(node)
    if item is not None:
        return f"array of {_kind_text(item)}"
    if isinstance(node, NumberNode) and node.bounds_text:
        bounds = node.bounds_text
        return bounds if bounds.startswith(kind) else f"{kind} {bounds}"
    return kind


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
    """`inspector call TOOL key=value ...`: convert, validate, confirm, call and check; returns the exit code."""
    args = ctx.args
    tool = await _find_tool(ctx)
    if getattr(args, "tool_help", False):
        ctx.out.lines(tool_help_lines(tool))
        return exitcodes.OK
    arguments = given_arguments(tool, args)
    if not args.yes:
        await _confirm(tool, arguments)
    interactive = sys.stderr.isatty()
    started = time.perf_counter()
    operation, result = await _call(ctx, tool, arguments, interactive)
    elapsed = time.perf_counter() - started
    if interactive:
        sys.stderr.write("\r" + " " * 60 + "\r")
    problems = _check_output(ctx, tool, result, operation.current.frame if operation.current is not None else None)
    is_error = isinstance(result, dict) and result.get("isError") is True
    if ctx.out.json:
        ctx.out.json_value(result)
    else:
        _print_result(ctx, result, elapsed)
    _report_problems(ctx, tool, problems)
    if is_error:
        return exitcodes.TOOL_ERROR
    if problems and getattr(args, "strict", False):
        return exitcodes.OUTPUT_SCHEMA
    return exitcodes.OK


async def _find_tool(ctx: CommandContext) -> Item:
    listing = await ctx.client.list_all("tools")
    tool = listing.find(ctx.args.tool)
    if tool is None:
        known = ", ".join(listing.names()[:30]) or "(none)"
        raise CommandFailed(exitcodes.USAGE, f"no tool named {visible(ctx.args.tool)!r}; known tools: {visible(known)}")
    return tool


def given_arguments(tool: Item, args: argparse.Namespace) -> dict[str, Any]:
    """The arguments the command line gives (`key=value`, `--args`), its notes
    printed, checked against the tool's schema unless `--no-validate`."""
    notes: list[str] = []
    arguments = build_arguments(
        tool,
        args.assignments,
        args.args_json,
        with_defaults=getattr(args, "with_defaults", False),
        lenient=args.no_validate,
        notes=notes,
    )
    for note in notes:
        print(f"inspector: note: {visible(note)}", file=sys.stderr)
    if not args.no_validate:
        check_arguments(tool, arguments)
    return arguments


async def _confirm(tool: Item, arguments: dict[str, Any]) -> None:
    """Asked on the terminal; CommandFailed when there is none to ask on, or the answer is no."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise CommandFailed(
            exitcodes.CONFIRMATION_REFUSED,
            "refusing to call a tool without confirmation: no terminal to ask on (pass --yes)",
        )
    if not await ask_confirmation(tool, arguments):
        raise CommandFailed(exitcodes.CONFIRMATION_REFUSED, "call not confirmed")


async def _call(ctx: CommandContext, tool: Item, arguments: dict[str, Any], interactive: bool) -> tuple[Operation, Any]:
    """Call the tool (as a task when asked, or when the tool requires it) and wait for its result."""
    support = ctx.client.task_support(tool.data)
    if ctx.args.task and support == "forbidden":
        raise CommandFailed(exitcodes.USAGE, f"{tool.key} cannot run as a task (taskSupport: forbidden or absent)")
    as_task = ctx.args.task or support == "required"
    operation = await ctx.client.start_call_tool(
        tool.key, arguments, on_progress=_progress_printer(interactive), task_ttl=TASK_TTL_MS if as_task else None
    )
    result = await operation.result()
    result, task = await ctx.client.finish_task(result, tool.key, on_status=_task_printer(interactive))
    if task is not None:
        print(f"inspector: task {visible(task.task_id)} ended {task.status}", file=sys.stderr)
    return operation, result


def _check_output(ctx: CommandContext, tool: Item, result: Any, request: Any) -> list[Problem]:
    """structuredContent against the tool's outputSchema, kept in the traffic log
    (and so in ``--record``) as a local frame after the answer."""
    from inspector.core.checks.tool_schema_checks import check_structured_content

    traffic = ctx.client.traffic
    # The request knows its answer's number even when the log keeps no frames.
    seq = request.partner if request is not None else None
    answer = traffic.by_seq(seq) if seq is not None else None
    problems = check_structured_content(result, tool.data, ctx.client.protocol_version, seq=seq)
    if problems:
        if answer is not None:
            answer.findings.extend(problems)
        traffic.add(
            "local",
            "transport",
            note=f"the result of {tool.key} does not match its outputSchema",
            problems=[f"{p.path}: {p.message}" if p.path else p.message for p in problems],
            meta={"answer": seq, "findings": [p.to_dict() for p in problems]},
        )
    return problems


def _report_problems(ctx: CommandContext, tool: Item, problems: list[Problem]) -> None:
    if not problems:
        return
    if ctx.out.json:
        ctx.out.json_value({"problems": [p.to_dict() for p in problems]}, stream=sys.stderr)
        return
    print(f"inspector: the result of {visible(tool.key)} does not match its outputSchema:", file=sys.stderr)
    for problem in problems:
        where = f"{problem.path}: " if problem.path else ""
        print(f"  {visible(where + problem.message, keep_newlines=False)}", file=sys.stderr)


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
        out.lines(["  " + line for line in abbreviated_lines(result["structuredContent"])])
    rest = {k: v for k, v in result.items() if k not in ("content", "structuredContent", "isError")}
    if rest:
        # Everything else that came back, with blobs and icons cut short
        # (--json has them whole).
        out.lines(abbreviated_lines(rest))
    out.line(f"({elapsed * 1000:.0f} ms)")
