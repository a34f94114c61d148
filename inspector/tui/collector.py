"""How often Python's cyclic garbage collector runs in the TUI.

Building widgets allocates in bursts (a 100-field form is a few thousand
objects that all survive), and with Python's default thresholds (700, 10, 10)
those bursts set off a collection every 700 allocations and a full one,
walking every object of the app and of its listings, every hundred: measured
on a 100-property form, collections took more time than the form.  Larger
young-generation batches cut the number of collections about twentyfold;
the garbage they leave waits a little longer (a few hundred thousand small
objects at most) and is reclaimed all the same.

A long list arriving is the other burst: 100,000 tools are about 600,000
containers, none in a reference cycle, and the young collections walk each
page again as the next ones come (a third of the time the list took to
arrive).  While any list's pages arrive, each page taken in is put out of
the collector's sight (`gc.freeze`); when the last list is in, everything
is handed back to the oldest generation (`gc.unfreeze`), so cyclic garbage
made meanwhile is reclaimed by the next full collection as usual.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["THRESHOLDS", "lists_arriving", "page_arrived", "tune_collector"]

THRESHOLDS = (10_000, 10, 10)


def tune_collector() -> None:
    """Collect less often (process-wide: the TUI owns its process)."""
    if gc.get_threshold()[0] < THRESHOLDS[0]:
        gc.set_threshold(*THRESHOLDS)


class _Arriving:
    """How many lists are arriving now, in the whole process."""

    count = 0


@contextlib.contextmanager
def lists_arriving() -> Iterator[None]:
    """While a list's pages arrive (see the module's note)."""
    _Arriving.count += 1
    try:
        yield
    finally:
        _Arriving.count -= 1
        if not _Arriving.count:
            gc.unfreeze()


def page_arrived() -> None:
    """A page was taken in: what exists now is left out of collections until
    no list is arriving any more."""
    if _Arriving.count:
        gc.freeze()
