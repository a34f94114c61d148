"""`inspector diff A [B]`: what changed between two recordings, or between a
recording and a live server (named with the usual options)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from ..core.diff import diff_lists
from ..core.items import ListResult
from ..core.recordings import RecordingError, lists_from_traffic, load_recording
from ..core.safetext import one_line, visible
from ..core.spec import ServerSpec
from . import exitcodes
from .output import Output

__all__ = ["run_diff"]

KINDS = ("tools", "resources", "templates", "prompts")


def _from_recording(path: str) -> dict[str, ListResult]:
    warnings: list[str] = []
    traffic = load_recording(path, warnings)
    for warning in warnings:
        print(f"inspector: warning: {visible(warning)}", file=sys.stderr)
    return lists_from_traffic(traffic)


async def _from_server(spec: ServerSpec) -> dict[str, ListResult]:
    from ..core.client import Client
    from ..core.traffic import TrafficLog

    client = Client(spec, traffic=TrafficLog(retain=False))
    await client.connect()
    try:
        return {kind: await client.list_all(kind) for kind in KINDS}
    finally:
        await client.close()


def _short(value: Any) -> str:
    return one_line(json.dumps(value, ensure_ascii=False), 70) if value is not None else "—"


def run_diff(args: argparse.Namespace, spec: ServerSpec | None) -> int:
    out = Output.for_args(args)
    try:
        before = _from_recording(args.left)
        if args.right:
            after = _from_recording(args.right)
        elif spec is not None:
            after = asyncio.run(_from_server(spec))
        else:
            print(
                "inspector: name the second side: a recording file, or a server (-- CMD, --url, --config)",
                file=sys.stderr,
            )
            return exitcodes.USAGE
    except RecordingError as exc:
        print(f"inspector: {visible(str(exc))}", file=sys.stderr)
        return exitcodes.USAGE
    except Exception as exc:  # noqa: BLE001 - connection failures become a message and an exit code
        from .runner import failure

        code, message, _detail = failure(exc)
        print(f"inspector: {visible(message)}", file=sys.stderr)
        return code
    report = diff_lists(before, after)
    changed = any(not part.empty for part in report)
    if out.json:
        out.json_value({part.kind: part.to_json() for part in report} | {"identical": not changed})
    else:
        for part in report:
            if part.skipped:
                out.line(f"{part.kind}: not compared ({part.skipped})")
                continue
            if part.empty:
                continue
            out.line(f"{part.kind}:")
            for key in part.added:
                out.line(f"  + {key}")
            for key in part.removed:
                out.line(f"  - {key}")
            for key, changes in part.changed.items():
                out.line(f"  ~ {key}")
                for change in changes:
                    out.line(f"      {change.what:<7} {change.path}: {_short(change.before)} → {_short(change.after)}")
        if not changed:
            out.line("no differences")
    return exitcodes.DIFFERENCES if changed else exitcodes.OK
