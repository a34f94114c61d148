"""The bound of Textual's Pilot on the screen draining its messages, raised
to what only a hang reaches (see conftest).  It relies on one private name,
`Pilot._wait_for_screen(timeout=...)`; `test_pilot_patience.py` pins it, so
a Textual upgrade that changes it fails loudly instead of silently."""

from __future__ import annotations

import functools

from textual.pilot import Pilot

# Twice the bound of tests/tui_helpers.py's waits.
HANG = 120.0


def be_patient() -> None:
    original = Pilot._wait_for_screen
    if getattr(original, "patient", False):
        return

    @functools.wraps(original)
    async def patient(self: Pilot, timeout: float = HANG) -> bool:  # type: ignore[type-arg]
        return await original(self, timeout=max(timeout, HANG))

    patient.patient = True  # type: ignore[attr-defined]
    Pilot._wait_for_screen = patient  # type: ignore[method-assign]
