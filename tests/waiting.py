"""Waiting for state in core tests: poll a condition until it holds, with a
bound only a hang reaches (a busy machine may be slow, never this slow)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# Far above what anything here should take, even on an oversubscribed machine.
HANG = 60.0
POLL = 0.02


async def eventually(condition: Callable[[], T], what: str, timeout: float = HANG) -> T:
    """The condition's first truthy value; AssertionError after `timeout`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = condition()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(POLL)
