"""`inspector load`: a collection's steps (or one call) at a server under load.

The server is the one the command line names, else the collection's
`server:`, else the embedded demo server (as `inspector test`).  Progress is
drawn live on stderr when it is a terminal; the final report goes to stdout
(text or `--json`); broken thresholds exit LOAD_THRESHOLD.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

from inspector.collections import Collection, CollectionError, Step, load_collection
from inspector.commands import exitcodes
from inspector.commands.load.driver import LoadDriver
from inspector.commands.load.plan import LoadPlan
from inspector.commands.load.report import Thresholds, broken_thresholds, json_report, text_report
from inspector.commands.load.stats import LoadStats
from inspector.commands.output import Output
from inspector.core.protocol.client import Client
from inspector.core.safetext import visible
from inspector.core.servers.spec import ServerSpec

__all__ = ["add_load_arguments", "parse_error_rate", "run_load"]

SpecFactory = Callable[[Collection | None], ServerSpec]

DEFAULT_DURATION = 10.0


def parse_error_rate(text: str) -> float:
    """`0.01` or `1%`."""
    value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError("an error rate is between 0 and 1 (or 0% and 100%)")
    return value


def _positive(kind: type) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError("must be positive")
        return value

    return parse


def add_load_arguments(p: argparse.ArgumentParser) -> None:
    """The `inspector load` arguments: the scenario, sessions, rate, duration or count, thresholds."""
    p.add_argument(
        "scenario",
        nargs="+",
        metavar="SCENARIO",
        help="FILE: a collection file (its steps, in order, are the mix); or `call TOOL key=value ...`: one tool "
        "call, its arguments converted by the tool's input schema",
    )
    p.add_argument(
        "--sessions", type=_positive(int), default=1, metavar="N", help="concurrent sessions (connections; default 1)"
    )
    p.add_argument(
        "--rate",
        type=_positive(float),
        metavar="REQ_PER_S",
        help="start this many requests per second over all sessions, whatever the answers (default: each session "
        "sends its next request when the previous one is answered)",
    )
    p.add_argument(
        "--duration", type=_positive(float), metavar="SECONDS", help=f"how long (default {DEFAULT_DURATION:g})"
    )
    p.add_argument("--count", type=_positive(int), metavar="N", help="how many requests in all (instead of a duration)")
    p.add_argument(
        "--max-in-flight",
        type=_positive(int),
        default=1000,
        metavar="N",
        help="--rate: at most this many unanswered requests (past it the rate falls behind; default 1000)",
    )
    p.add_argument(
        "--max-error-rate",
        type=parse_error_rate,
        metavar="RATE",
        help=f"exit {exitcodes.LOAD_THRESHOLD} when more requests fail than this (0.01 or 1%%)",
    )
    p.add_argument(
        "--max-p99", type=_positive(float), metavar="MS", help=f"exit {exitcodes.LOAD_THRESHOLD} when p99 is above MS"
    )
    p.add_argument("--no-live", action="store_true", help="no live progress, even on a terminal")


def _command_line_collection(words: list[str]) -> Collection:
    tool = words[1]
    # The arguments are converted by the tool's input schema once connected.
    step = Step(index=0, name=tool, kind="call", target=tool, arguments={})
    return Collection(path="<command line>", name=f"call {tool}", steps=[step])


def _scenario(args: argparse.Namespace) -> Collection:
    from inspector.core.servers.from_args import UsageError

    words = list(args.scenario)
    if words[0] == "call":
        if len(words) < 2:
            raise UsageError("load call: name the tool, as in `inspector load call echo message=hi`")
        return _command_line_collection(words)
    if len(words) > 1:
        raise UsageError("load: one collection file, or `call TOOL key=value ...`")
    return load_collection(words[0])


async def _fill_arguments(client: Client, step: Step, assignments: list[str]) -> None:
    """`call TOOL key=value` arguments, converted by the tool's input schema as `inspector call` does."""
    from inspector.commands.call import build_arguments
    from inspector.commands.runner import CommandFailed

    listing = await client.list_all("tools", force=True)
    tool = next((item for item in listing.items if item.key == step.target), None)
    if tool is None:
        raise CommandFailed(exitcodes.USAGE, f"no tool named {step.target!r} on this server")
    step.arguments = dict(build_arguments(tool, assignments, None))


def _record_path(base: str | None, sessions: int, index: int) -> str | None:
    if not base or sessions == 1:
        return base
    stem, ext = os.path.splitext(base)
    return f"{stem}-{index + 1}{ext or '.jsonl'}"


async def _drive(
    plan: LoadPlan, spec: ServerSpec, args: argparse.Namespace, assignments: list[str] | None, live: bool
) -> LoadStats:
    from inspector.commands.runner import connected

    numbers = itertools.count()
    first = True

    @contextlib.asynccontextmanager
    async def session() -> AsyncIterator[Client]:
        nonlocal first
        record = _record_path(getattr(args, "record", None), plan.sessions, next(numbers))
        async with connected(spec, args, record=record) as client:
            if first and assignments is not None:
                first = False
                await _fill_arguments(client, plan.steps[0], assignments)
            yield client

    driver = LoadDriver(plan, session)
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        # Ctrl-C ends the run early and still prints its report.
        loop.add_signal_handler(signal.SIGINT, driver.stop)
    view = None
    if live:
        from inspector.commands.load.live import LiveView

        view = LiveView(plan, driver.stats)
        view.start()
    try:
        return await driver.run()
    finally:
        if view is not None:
            await view.stop()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)


def run_load(args: argparse.Namespace, spec_for: SpecFactory) -> int:
    """`inspector load`: run the scenario under load, then report and check the thresholds; returns the exit code."""
    from inspector.commands.runner import reported
    from inspector.core.servers.from_args import UsageError

    out = Output.for_args(args)
    try:
        if args.rate is None and args.max_in_flight != 1000:
            raise UsageError("--max-in-flight applies to --rate")
        collection = _scenario(args)
        from_file = collection.path != "<command line>"
        spec = spec_for(collection if from_file else None)
    except (CollectionError, UsageError) as exc:
        print(f"inspector: error: {visible(str(exc))}", file=sys.stderr)
        return exitcodes.USAGE
    duration = args.duration if args.duration is not None or args.count is not None else DEFAULT_DURATION
    plan = LoadPlan(
        collection,
        sessions=args.sessions,
        rate=args.rate,
        duration=duration,
        count=args.count,
        max_in_flight=args.max_in_flight,
    )
    assignments = None if from_file else list(args.scenario[2:])
    live = not args.no_live and not out.json
    if live:
        from inspector.commands.load.live import wanted

        live = wanted()
    thresholds = Thresholds(args.max_error_rate, args.max_p99)
    try:
        stats = asyncio.run(_drive(plan, spec, args, assignments, live))
    except BrokenPipeError:
        raise
    except Exception as exc:  # noqa: BLE001 - a run that cannot start is a message and an exit code
        return reported(exc)
    broken = broken_thresholds(stats, thresholds)
    if out.json:
        out.json_value(json_report(plan, stats, spec.label(), broken))
    else:
        out.lines(text_report(plan, stats, spec.label(), broken))
    return exitcodes.LOAD_THRESHOLD if broken else exitcodes.OK
