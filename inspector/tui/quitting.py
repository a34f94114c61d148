"""Quitting: the work Textual cancelled is let end before the loop does."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any

from textual.worker import Worker

# How long quitting waits for cancelled work to close what it opened: a
# server's stdio close is three steps of two seconds at worst.
CANCELLED_WORK_BOUND = 10.0


async def let_cancelled_workers_end(workers: Iterable[Worker[Any]]) -> None:
    """Textual cancels a closed screen's workers without waiting for them.
    One that owns connections (the matrix's columns) closes them as it
    ends, and must end before the loop does, or its servers' processes
    and pipes outlive the app."""
    ending = [worker for worker in workers if worker.is_cancelled and not worker.is_finished]
    if not ending:
        return

    async def ended(worker: Worker[Any]) -> None:
        # Its outcome was reported (or ignored) where it was started.
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await worker.wait()

    waits = [asyncio.ensure_future(ended(worker)) for worker in ending]
    _done, late = await asyncio.wait(waits, timeout=CANCELLED_WORK_BOUND)
    for waiting in late:
        waiting.cancel()
