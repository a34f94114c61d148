"""SVG snapshots of the TUI's main screens, against the real demo server.

Each screen is reached by the steps in scripts/screen_steps.py, the same
steps scripts/screenshots.py takes for screenshots/*.svg.  The terminal has a
fixed size, and whatever depends on the clock, the process or the checkout's
path is kept off the screen (see that module's docstring), so a snapshot is
the same on every run.

After a deliberate change to a screen:

    .venv/bin/pytest tests/test_snapshots.py --snapshot-update

then look at the new SVGs under tests/__snapshots__/ before committing them;
a failing run writes snapshot_report.html with the old and the new side by side.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# The steps live with the screenshot script, which must not import from tests/.
SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
if str(SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SCRIPTS))

from screen_steps import SHOTS, Shot, steady_clocks  # noqa: E402


@pytest.fixture(autouse=True)
def _steady_clocks() -> Iterator[None]:
    with steady_clocks():
        yield


@pytest.mark.parametrize("shot", SHOTS, ids=[shot.name for shot in SHOTS])
def test_screen(shot: Shot, snap_compare: Callable[..., bool]) -> None:
    """The screen named by the test id, as scripts/screen_steps.py reaches it."""
    assert snap_compare(shot.app(), terminal_size=shot.size, run_before=shot.run)


def test_every_screen_has_a_distinct_name() -> None:
    """Names become file names (snapshots and screenshots/*.svg)."""
    names = [shot.name for shot in SHOTS]
    assert len(names) == len(set(names))
