"""`inspector diff A [B]`: what changed between two versions of a server.

Each side is a recording (a `--record` file) or a live server, so a release
can be checked against the last one's recording, or two builds against each
other.  The command line (`inspector.cli.main`) turns each side's text into a `Side`:

    FILE                 a recording
    http(s)://…          a live server at that URL
    stdio:'CMD ARGS…'    a live stdio server (the words are shell-split)
    config:FILE[#NAME]   a live server from a client config file
    server:NAME          a live server from the config files found here
    live                 the server named with the usual options
                         (`-- CMD`, `--url`, `--config`/`--server`); B's default

A live side lists every page of tools, resources, templates and prompts.
`--record FILE` records the live side; with two live sides, A goes to
FILE-a.jsonl and B to FILE-b.jsonl (FILE without its extension).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from dataclasses import dataclass
from typing import Any

from inspector.commands import exitcodes
from inspector.commands.output import Output
from inspector.core.background import task_group
from inspector.core.compare.diff import diff_lists
from inspector.core.protocol.handlers import ClientHandlers
from inspector.core.protocol.items import ListResult
from inspector.core.record.recording_files import RecordingError, lists_from_traffic, load_recording
from inspector.core.safetext import one_line, visible
from inspector.core.servers.spec import ServerSpec

__all__ = ["KINDS", "Side", "fetch_sides", "record_paths", "report_lines", "run_diff"]

KINDS = ("tools", "resources", "templates", "prompts")


@dataclass
class Side:
    """One side of a diff: a recording (`path`) or a live server (`spec`)."""

    name: str
    source: str
    path: str | None = None
    spec: ServerSpec | None = None
    record: str | None = None

    def describe(self) -> dict[str, Any]:
        """The side for the JSON report: the recording, or the server and where it was recorded."""
        if self.path is not None:
            return {"recording": self.path}
        about: dict[str, Any] = {"server": self.spec.label() if self.spec is not None else self.source}
        if self.record:
            about["recorded"] = self.record
        return about


def record_paths(record: str | None, sides: list[Side]) -> None:
    """Where each live side is recorded (see the module docstring)."""
    live = [side for side in sides if side.spec is not None]
    if not record or not live:
        return
    if len(live) == 1:
        live[0].record = record
        return
    stem, extension = os.path.splitext(record)
    for side in live:
        side.record = f"{stem}-{side.name}{extension or '.jsonl'}"


def _from_recording(path: str) -> dict[str, ListResult]:
    warnings: list[str] = []
    traffic = load_recording(path, warnings)
    for warning in warnings:
        print(f"inspector: warning: {visible(warning)}", file=sys.stderr)
    return lists_from_traffic(traffic)


async def _from_server(
    side: Side, args: argparse.Namespace, handlers: ClientHandlers | None = None
) -> dict[str, ListResult]:
    from inspector.commands.runner import connected

    assert side.spec is not None
    async with connected(side.spec, args, record=side.record, handlers=handlers) as client:
        return {kind: await client.list_all(kind) for kind in KINDS}


async def fetch_sides(
    sides: list[Side], args: argparse.Namespace, handlers: ClientHandlers | None = None
) -> list[dict[str, ListResult]]:
    """Every list of each side; a live side on a connection of its own
    (`handlers` answer its requests; default: the command line's)."""

    # Two live servers are asked at the same time.
    async def fetch(side: Side) -> dict[str, ListResult]:
        if side.path is not None:
            return _from_recording(side.path)
        return await _from_server(side, args, handlers)

    # One side failing stops the other: nothing is left connecting in the background.
    async with task_group() as group:
        fetching = [group.create_task(fetch(side)) for side in sides]
    return [task.result() for task in fetching]


def _short(value: Any) -> str:
    return one_line(json.dumps(value, ensure_ascii=False), 70) if value is not None else "—"


def run_diff(args: argparse.Namespace, sides: list[Side]) -> int:
    """`inspector diff A [B]`: what changed between two versions of a server; returns the exit code."""
    out = Output.for_args(args)
    record_paths(getattr(args, "record", None), sides)
    try:
        before, after = asyncio.run(fetch_sides(sides, args))
    except RecordingError as exc:
        print(f"inspector: {visible(str(exc))}", file=sys.stderr)
        return exitcodes.USAGE
    except BrokenPipeError:
        raise
    except Exception as exc:  # noqa: BLE001 - connection failures become a message and an exit code
        from inspector.commands.runner import reported

        return reported(exc)
    report = diff_lists(before, after, frozenset(getattr(args, "ignore", None) or ()))
    changed = any(not part.empty for part in report)
    if out.json:
        document: dict[str, Any] = {part.kind: part.to_json() for part in report}
        document |= {"identical": not changed, "a": sides[0].describe(), "b": sides[1].describe()}
        out.json_value(document)
    else:
        _print_report(out, report)
        if not changed:
            out.line("no differences")
    return exitcodes.DIFFERENCES if changed else exitcodes.OK


def _print_report(out: Output, report: list[Any]) -> None:
    for line in report_lines(report):
        out.line(line)


def report_lines(report: list[Any]) -> list[str]:
    """The report as `inspector diff` prints it (the TUI's diff screen shows the same)."""
    lines: list[str] = []
    for part in report:
        if part.skipped:
            lines.append(f"{part.kind}: not compared ({part.skipped})")
            continue
        if part.empty:
            continue
        lines.append(f"{part.kind}:")
        for key in part.added:
            lines.append(f"  + {key}")
        for key in part.removed:
            lines.append(f"  - {key}")
        for key, changes in part.changed.items():
            lines.append(f"  ~ {key}")
            for change in changes:
                lines.append(f"      {change.what:<7} {change.path}: {_short(change.before)} → {_short(change.after)}")
    return lines
