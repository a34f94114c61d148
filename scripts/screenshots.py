"""Regenerate screenshots/*.svg: the TUI's main screens, against the demo server.

    .venv/bin/python scripts/screenshots.py            # every screen
    .venv/bin/python scripts/screenshots.py help traffic
    .venv/bin/python scripts/screenshots.py --walkthrough examples/tour.yaml --out screenshots/tour

`--walkthrough FILE` plays a walkthrough (see `inspector demo`) against the
demo server, or the server the file names, and writes one SVG per step
(`01-….svg`, in step order); a step that waits for the presenter's key is
moved on at once.

The steps that reach each screen live in scripts/screen_steps.py and are the
same ones the snapshot tests (tests/test_snapshots.py) take, so a screenshot
shows exactly what a snapshot test checks.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from screen_steps import SHOTS, Shot, shot_named, steady_clocks, steady_traffic  # noqa: E402

WALK_SIZE = (130, 40)


async def capture(shot: Shot, folder: Path) -> Path:
    app = shot.app()
    async with app.run_test(size=shot.size) as pilot:
        await shot.run(pilot)
        path = app.save_screenshot(filename=f"{shot.name}.svg", path=str(folder))
    return Path(path)


async def capture_all(shots: list[Shot], folder: Path) -> None:
    with steady_clocks():
        for shot in shots:
            started = time.perf_counter()
            path = await capture(shot, folder)
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            print(f"{shown}  ({time.perf_counter() - started:.1f} s)")


async def capture_walkthrough(path: Path, folder: Path, pace: float) -> list[str]:
    """One SVG per step of the walkthrough at `path`, into `folder`."""
    import argparse as _argparse

    from inspector.commands.testing import collection_spec
    from inspector.core.servers.spec import demo_spec
    from inspector.walkthrough import load_walkthrough
    from inspector.walkthrough.demo_app import DemoApp

    walkthrough = load_walkthrough(str(path))
    spec = demo_spec() if walkthrough.server is None else collection_spec(walkthrough, _argparse.Namespace())  # type: ignore[arg-type]
    with steady_clocks():
        app = DemoApp(spec, walkthrough, pace=pace, svg_dir=str(folder))
        async with app.run_test(size=WALK_SIZE):
            steady_traffic(app)
            while not app.player.finished:
                if app.player.waiting:
                    # Unattended: the presenter's key, at once.
                    app.player.request("next")
                await asyncio.sleep(0.05)  # why: the polling interval of this wait
    return app.svgs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help=f"screens to take (default all): {', '.join(s.name for s in SHOTS)}")
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots", help="folder for the SVG files")
    parser.add_argument("--walkthrough", type=Path, metavar="FILE", help="an SVG per step of this walkthrough")
    parser.add_argument("--pace", type=float, default=20.0, help="--walkthrough: how fast it plays (default 20)")
    args = parser.parse_args(argv)
    if args.walkthrough is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        for written in asyncio.run(capture_walkthrough(args.walkthrough, args.out, args.pace)):
            print(written)
        return 0
    try:
        shots = [shot_named(name) for name in args.names] if args.names else list(SHOTS)
    except KeyError as exc:
        parser.error(f"no screen named {exc}")
    args.out.mkdir(parents=True, exist_ok=True)
    asyncio.run(capture_all(shots, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
