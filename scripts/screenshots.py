"""Regenerate screenshots/*.svg: the TUI's main screens, against the demo server.

    .venv/bin/python scripts/screenshots.py            # every screen
    .venv/bin/python scripts/screenshots.py help traffic

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

from screen_steps import SHOTS, Shot, shot_named, steady_clocks  # noqa: E402


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help=f"screens to take (default all): {', '.join(s.name for s in SHOTS)}")
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots", help="folder for the SVG files")
    args = parser.parse_args(argv)
    try:
        shots = [shot_named(name) for name in args.names] if args.names else list(SHOTS)
    except KeyError as exc:
        parser.error(f"no screen named {exc}")
    args.out.mkdir(parents=True, exist_ok=True)
    asyncio.run(capture_all(shots, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
