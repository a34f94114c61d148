"""`inspector replay FILE`: re-send a recording's requests to a live server
and say, per request, whether the answer is still the recorded one.

The server is the one the recording talked to (its stdio command or URL)
unless one is named with the usual options; the connection opens in the
recorded era and revision unless `--era`/`--protocol-version` say
otherwise.  Exit code 0 when every answer matches, DIFFERENCES otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from inspector.commands import exitcodes
from inspector.commands.output import Output
from inspector.core.record.recording_files import RecordingError, load_recording
from inspector.core.record.replay import Outcome, Replayer, ReplayHandlers, ReplayPlan
from inspector.core.safetext import one_line, visible
from inspector.core.servers.spec import ServerSpec

__all__ = ["run_replay"]

_STATUS = {"match": "ok     ", "differs": "DIFFERS", "sent": "sent   ", "failed": "FAILED "}


def _short(value: Any) -> str:
    return one_line(json.dumps(value, ensure_ascii=False), 70) if value is not None else "—"


def _spec_for(plan: ReplayPlan, named: ServerSpec | None, args: argparse.Namespace) -> ServerSpec | None:
    spec = named if named is not None else plan.server
    if spec is None:
        return None
    era, version, timeout = (getattr(args, name, None) for name in ("era", "protocol_version", "timeout"))
    if era or version:
        # A named server has these already; the recorded one takes them here.
        if era:
            spec.era = era
        if version:
            spec.protocol_version = version
    else:
        # The recorded opening.
        if plan.era in ("legacy", "modern"):
            spec.era = plan.era
        if plan.protocol_version:
            spec.protocol_version = plan.protocol_version
    if timeout:
        spec.timeout = timeout
    return spec


async def _replay(spec: ServerSpec, plan: ReplayPlan, args: argparse.Namespace) -> tuple[list[Outcome], Any]:
    from inspector.commands.runner import connected

    handlers = ReplayHandlers.for_capabilities(plan.capabilities, plan.answers)
    async with connected(spec, args, record=getattr(args, "record", None), handlers=handlers) as client:
        outcomes = await Replayer(client, plan, getattr(args, "ignore", None) or ()).run()
        opened = {
            "era": client.era,
            "protocolVersion": client.protocol_version,
            "offeredVersion": client.offered_version,
        }
    return outcomes, {**opened, "serverRequests": [{"method": m, "answer": a} for m, a in handlers.log]}


def run_replay(args: argparse.Namespace, named: ServerSpec | None) -> int:
    """`inspector replay FILE`: re-send the recording's requests and compare the answers; returns the exit code."""
    out = Output.for_args(args)
    warnings: list[str] = []
    try:
        plan = ReplayPlan.from_traffic(load_recording(args.file, warnings))
    except RecordingError as exc:
        print(f"inspector: {visible(str(exc))}", file=sys.stderr)
        return exitcodes.USAGE
    for warning in warnings:
        print(f"inspector: warning: {visible(warning)}", file=sys.stderr)
    spec = _spec_for(plan, named, args)
    if spec is None:
        print(
            "inspector: the recording does not say which server it talked to; name one (-- CMD, --url, --config)",
            file=sys.stderr,
        )
        return exitcodes.USAGE
    try:
        outcomes, facts = asyncio.run(_replay(spec, plan, args))
    except BrokenPipeError:
        raise
    except Exception as exc:  # noqa: BLE001 - connection failures become a message and an exit code
        from inspector.commands.runner import reported

        code = reported(exc)
        if code in (exitcodes.CANNOT_CONNECT, exitcodes.PROTOCOL_ERROR) and not getattr(args, "era", None):
            # The recorded era is pinned; a server of the other era refuses it.
            print(
                f"inspector: the recording was made in the {plan.era} era ({plan.protocol_version}); "
                "--era auto lets this server choose",
                file=sys.stderr,
            )
        return code
    compared = [o for o in outcomes if o.status in ("match", "differs")]
    failed = [o for o in outcomes if o.status in ("differs", "failed")]
    if out.json:
        out.json_value(
            {
                "recording": args.file,
                "server": spec.label(),
                **facts,
                "messages": [outcome.to_json() for outcome in outcomes],
                "skipped": [{"seq": f.seq, "reason": why} for f, why in plan.skipped],
                "compared": len(compared),
                "differ": len(failed),
                "identical": not failed,
            }
        )
    else:
        out.line(
            f"replaying {len(plan.steps)} message(s) of {args.file} to {spec.label()} "
            f"({facts['era']} era, {facts['protocolVersion']})"
        )
        for outcome in outcomes:
            _print_outcome(out, outcome)
        for asked in facts["serverRequests"]:
            how = "answered as recorded" if asked["answer"] == "recorded" else "declined (no recorded answer)"
            out.line(f"  the server asked {asked['method']}: {how}")
        matched = len(compared) - sum(1 for o in compared if o.status == "differs")
        out.line(f"{matched} of {len(compared)} answer(s) match" + ("" if not failed else f"; {len(failed)} differ"))
    return exitcodes.DIFFERENCES if failed else exitcodes.OK


def _print_outcome(out: Output, outcome: Outcome) -> None:
    detail = f"  ({outcome.detail})" if outcome.detail else ""
    out.line(f"  {_STATUS.get(outcome.status, outcome.status)}  #{outcome.frame.seq} {outcome.label}{detail}")
    for change in outcome.changes[:20]:
        out.line(f"      {change.what:<7} {change.path}: {_short(change.before)} → {_short(change.after)}")
    if len(outcome.changes) > 20:
        out.line(f"      … and {len(outcome.changes) - 20} more")
