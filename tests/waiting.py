"""Waiting for state in core tests: poll a condition until it holds, with a
bound only a hang reaches (a busy machine may be slow, never this slow)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Literal, TypeVar

T = TypeVar("T")
# What a condition gives while it does not hold yet (its first truthy value is returned).
NotYet = Literal[False] | None

# Far above what anything here should take, even on an oversubscribed machine.
HANG = 60.0
POLL = 0.02


async def eventually(condition: Callable[[], T | NotYet], what: str, timeout: float = HANG) -> T:
    """The condition's first truthy value; AssertionError after `timeout`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = condition()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        # The polling interval of this wait, not a wait of its own.
        await asyncio.sleep(POLL)


def eventually_sync(condition: Callable[[], T | NotYet], what: str, timeout: float = HANG, poll: float = POLL) -> T:
    """`eventually` for a test without an event loop (watching a subprocess
    or a file it writes, which offer nothing to block on); `poll` is longer
    for a condition that is costly to ask (one that runs a command)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        # The polling interval of this wait, not a wait of its own.
        time.sleep(poll)
