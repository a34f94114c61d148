"""`inspector demo FILE`: play a walkthrough live in the TUI.

The server is the one the command line names, else the one the file names
(`server:`, the collections' forms), else the embedded demo server.
`--record-cast` records the run like any TUI session; `--svg-dir` writes one
SVG screenshot per step, in step order.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

from inspector.core.servers.spec import ServerSpec

__all__ = ["add_demo_arguments", "run_demo"]


def _pace(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("a speed above 0 (2: twice as fast, 0.5: half as fast)")
    return value


def add_demo_arguments(p: argparse.ArgumentParser) -> None:
    """The `inspector demo` arguments: the file, pace, manual stepping, SVGs, quitting at the end, a cast."""
    p.add_argument("file", metavar="FILE", help="a walkthrough file (YAML)")
    p.add_argument(
        "--pace",
        type=_pace,
        default=1.0,
        metavar="SPEED",
        help="play faster or slower: pauses and typing take 1/SPEED of their time (default 1; 2 is twice as fast)",
    )
    p.add_argument(
        "--manual", action="store_true", help="every step waits for the presenter's page down (no timed pauses)"
    )
    p.add_argument("--svg-dir", metavar="DIR", help="write an SVG screenshot of every step into DIR (01-….svg, …)")
    p.add_argument("--quit-at-end", action="store_true", help="quit when the last step's pause is over")
    p.add_argument(
        "--record-cast",
        metavar="FILE",
        help="write what the terminal shows as an asciinema v2 cast (secrets masked)",
    )


def run_demo(args: argparse.Namespace, spec_for: Callable[[Any], ServerSpec]) -> int:
    """Read the walkthrough and play it in the TUI against the server `spec_for` picks; the exit code
    (2 when the file, the server or the SVG folder cannot be used)."""
    from inspector.core.safetext import visible
    from inspector.core.servers.from_args import UsageError
    from inspector.walkthrough import WalkthroughError, load_walkthrough

    try:
        walkthrough = load_walkthrough(args.file)
        spec = spec_for(walkthrough)
    except (WalkthroughError, UsageError) as exc:
        print(f"inspector: error: {visible(str(exc))}", file=sys.stderr)
        return 2
    if args.svg_dir:
        try:
            os.makedirs(args.svg_dir, exist_ok=True)
        except OSError as exc:
            print(f"inspector: cannot write SVGs to {args.svg_dir}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    from inspector.tui.graphics import detect
    from inspector.tui.keymap import load_keymap
    from inspector.tui.launch import roots_of, run_casting
    from inspector.walkthrough.demo_app import DemoApp

    detect()
    app = DemoApp(
        spec,
        walkthrough,
        pace=args.pace,
        manual=args.manual,
        svg_dir=args.svg_dir,
        quit_at_end=args.quit_at_end,
        keymap=load_keymap(),
        record=getattr(args, "record", None),
    )
    roots = getattr(args, "root", None)
    if roots:
        app.handlers.roots = roots_of(roots)
    return run_casting(app, args.record_cast)
