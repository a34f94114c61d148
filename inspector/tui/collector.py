"""How often Python's cyclic garbage collector runs in the TUI.

Building widgets allocates in bursts (a 100-field form is a few thousand
objects that all survive), and with Python's default thresholds (700, 10, 10)
those bursts set off a collection every 700 allocations and a full one,
walking every object of the app and of its listings, every hundred: measured
on a 100-property form, collections took more time than the form.  Larger
young-generation batches cut the number of collections about twentyfold;
the garbage they leave waits a little longer (a few hundred thousand small
objects at most) and is reclaimed all the same.
"""

from __future__ import annotations

import gc

__all__ = ["THRESHOLDS", "tune_collector"]

THRESHOLDS = (10_000, 10, 10)


def tune_collector() -> None:
    """Collect less often (process-wide: the TUI owns its process)."""
    if gc.get_threshold()[0] < THRESHOLDS[0]:
        gc.set_threshold(*THRESHOLDS)
