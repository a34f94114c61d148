"""Regenerate screenshots/load.svg: `inspector load`'s live panel in the middle of a run.

    .venv/bin/python scripts/load_screenshot.py
    .venv/bin/python scripts/load_screenshot.py --duration 20 --at 12

Runs the real command, `inspector load checks.yaml --sessions 4 --duration N`,
in this process against the embedded demo server (four stdio sessions), with a
collection written to a temporary folder.  The live view is the command's own
(`inspector.commands.load.live.LiveView`, drawn on stderr when that is a terminal); the
one addition is that, once the run has measured for `--at` seconds, the view
draws the same renderable once more into a recording Rich console, which
writes the SVG.  Every number in the picture is what that run measured, so it
differs from run to run and from machine to machine.  The command's final
report is printed on stdout as usual.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.cli import main as cli_main  # noqa: E402
from inspector.commands.load import live  # noqa: E402

# The mix: a plain call, a structured answer checked against its outputSchema,
# an expected tool error, and a list.
COLLECTION = """\
name: demo checks
steps:
  - name: echo
    call: echo
    arguments: {message: hello, inspector}
  - name: weather
    call: weather_report
    arguments: {city: Paris}
    expect:
      outputSchema: true
      values:
        structuredContent.city: Paris
  - name: divide by zero
    call: divide
    arguments: {dividend: 1, divisor: 0}
    expect:
      isError: true
  - name: tools
    list: tools
"""
FILE = "checks.yaml"
SESSIONS = 4
WIDTH = 72


def command(duration: float) -> list[str]:
    """The command as a person types it at a terminal."""
    return ["load", FILE, "--sessions", str(SESSIONS), "--duration", f"{duration:g}"]


# What a terminal on stdout implies (a text report), said out loud: this
# script's stdout may be a pipe, where the report would otherwise be JSON
# and the live view off.
AS_AT_A_TERMINAL = ["--human"]


def picture(plan: Any, stats: Any, argv: list[str]) -> str:
    """The live renderable as the terminal shows it, below the command that drew it."""
    console = Console(record=True, width=WIDTH, file=io.StringIO(), force_terminal=True, color_system="truecolor")
    console.print(Text.assemble(("$ ", "bold green"), ("inspector " + " ".join(argv), "bold")))
    # The same function LiveView redraws every quarter second.
    console.print(live._panel(plan, stats))
    return console.export_svg(title="inspector load")


def recording_view(at: float, argv: list[str], pictures: list[str]) -> type[live.LiveView]:
    class RecordingView(live.LiveView):
        """The command's live view, which also keeps one picture `at` seconds into the measured run."""

        def start(self) -> None:
            super().start()
            # The clock restarts once every session is connected, before the
            # first request: the first answer counted says the run is measured.
            self._measuring = asyncio.Event()
            count = self.stats.add

            def counted(sample: Any) -> None:
                count(sample)
                self._measuring.set()

            self.stats.add = counted  # type: ignore[method-assign]
            self._picture = asyncio.get_running_loop().create_task(self._take_picture())

        async def _take_picture(self) -> None:
            await self._measuring.wait()
            await asyncio.sleep(max(0.0, at - self.stats.elapsed))
            pictures.append(picture(self.plan, self.stats, argv))

        async def stop(self) -> None:
            self._picture.cancel()
            await asyncio.gather(self._picture, return_exceptions=True)
            await super().stop()

    return RecordingView


@contextlib.contextmanager
def live_view_recording(view: type[live.LiveView]) -> Iterator[None]:
    """`inspector load` draws its live view whatever stderr is, with `view`."""
    saved = live.LiveView, live.wanted
    live.LiveView, live.wanted = view, lambda: True  # type: ignore[misc]
    try:
        yield
    finally:
        live.LiveView, live.wanted = saved  # type: ignore[misc]


@contextlib.contextmanager
def working_folder() -> Iterator[None]:
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="inspector-load-shot-") as folder:
        os.chdir(folder)
        try:
            Path(FILE).write_text(COLLECTION, encoding="utf-8")
            yield
        finally:
            os.chdir(here)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=16.0, help="seconds the run lasts (default 16)")
    parser.add_argument("--at", type=float, default=10.0, help="seconds into the run for the picture (default 10)")
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots" / "load.svg", help="the SVG file")
    args = parser.parse_args(argv)
    if not 0 < args.at < args.duration:
        parser.error("--at must fall inside the run")
    load_argv = command(args.duration)
    pictures: list[str] = []
    with working_folder(), live_view_recording(recording_view(args.at, load_argv, pictures)):
        code = cli_main(load_argv + AS_AT_A_TERMINAL)
    if code != 0:
        print(f"inspector load exited {code}: no picture written", file=sys.stderr)
        return code
    if not pictures:
        print("the run ended before the picture was due", file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(pictures[0], encoding="utf-8")
    shown = args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out
    print(shown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
