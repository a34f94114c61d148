"""`inspector lint`: check a server against the spec and good practice.

Text on a terminal, JSON with `--json` (or when piped).  Exit code 0 when
clean, `LINT_FINDINGS` when any error-level finding exists (or any warning,
with `--strict`).  `--rules` lists every rule and needs no server.
"""

from __future__ import annotations

import argparse

from inspector.commands import exitcodes
from inspector.commands.output import Output
from inspector.commands.runner import CommandContext
from inspector.core.checks.problems import Problem

__all__ = ["print_rules", "run_lint"]

_MARK = {"error": "error  ", "warning": "warning", "info": "info   "}


async def run_lint(ctx: CommandContext) -> int:
    """`inspector lint`: check the server against the spec and good practice; returns the exit code."""
    from inspector.core.checks.lint_run import lint_server

    args = ctx.args
    strict = bool(getattr(args, "strict", False))
    report = await lint_server(ctx.client, max_pages=getattr(args, "max_pages", None) or 50)
    out = ctx.out
    if out.json:
        out.json_value(report.to_dict(strict))
        return _exit_code(report.failed(strict))
    info = report.server
    name = info.get("title") or info.get("name") or "server"
    out.line(
        f"inspector lint: {name} {info.get('version', '')}".rstrip()
        + f" (protocol {report.protocol_version}, {report.era} era, {report.transport})"
    )
    listed = ", ".join(f"{count} {kind}" for kind, count in report.listed.items())
    out.line(f"listed: {listed}")
    declared = ", ".join(report.client_capabilities) or "none"
    hint = "" if getattr(args, "all_capabilities", False) else " (--all-capabilities declares them all)"
    out.line(f"client capabilities declared: {declared}{hint}")
    for finding in report.findings:
        _print_finding(out, finding)
    summary = report.summary()
    verdict = "FAIL" if report.failed(strict) else "ok"
    out.line(
        f"{summary['error']} error(s), {summary['warning']} warning(s), {summary['info']} info: {verdict}"
        + (" (--strict)" if strict else "")
    )
    return _exit_code(report.failed(strict))


def _exit_code(failed: bool) -> int:
    return exitcodes.LINT_FINDINGS if failed else exitcodes.OK


def _print_finding(out: Output, finding: Problem) -> None:
    where = finding.where
    out.line(f"{_MARK.get(finding.severity, finding.severity)}  {finding.rule}  {where}".rstrip())
    out.line(f"    {finding.message}")
    if finding.spec:
        out.line(f"    spec: {finding.spec}")
    if finding.url:
        out.line(f"    {finding.url}")


def print_rules(args: argparse.Namespace) -> int:
    """`inspector lint --rules`: every rule, its severity, rationale and spec link."""
    from inspector.core.checks.rules import RULES

    out = Output.for_args(args)
    rules = list(RULES.values())
    if out.json:
        out.json_value({"rules": [rule.to_dict() for rule in rules]})
        return exitcodes.OK
    width = max(len(rule.id) for rule in rules)
    category = None
    for rule in rules:
        if rule.category != category:
            if category is not None:
                out.line()
            category = rule.category
            out.line(f"[{category}]")
        out.line(f"{rule.id.ljust(width)}  {rule.severity.ljust(7)}  {rule.rationale}")
        out.line(f"{''.ljust(width)}  {''.ljust(7)}  {rule.url()}")
    out.stream.flush()
    return exitcodes.OK
