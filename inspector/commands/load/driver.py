"""Sending a plan's steps over concurrent sessions and recording each answer.

Closed loop (no rate): every session runs the steps in order, again and
again, sending the next as soon as the previous is answered.  Open loop
(`rate`): requests start on a fixed schedule whatever the answers, spread
over the sessions in turn, each session running the steps in order.  Either
way the run stops starting requests at the count or the deadline, or when
asked to stop, and waits for those in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from itertools import count as counter

from inspector.collections.running import CollectionRunner
from inspector.commands.load.plan import LoadPlan, failure_text
from inspector.commands.load.stats import LoadStats, Sample
from inspector.core.background import task_group
from inspector.core.protocol.client import Client

__all__ = ["LoadDriver"]

SessionFactory = Callable[[], AbstractAsyncContextManager[Client]]


class LoadDriver:
    """Sends a plan's steps over its sessions, closed loop or at a rate, and records each answer in the stats."""

    def __init__(self, plan: LoadPlan, open_session: SessionFactory, stats: LoadStats | None = None) -> None:
        self.plan = plan
        self.open_session = open_session
        self.stats = stats if stats is not None else LoadStats()
        self.stopping = asyncio.Event()
        self.started = 0
        self.deadline: float | None = None

    def stop(self) -> None:
        """Start no more requests (those under way finish)."""
        self.stopping.set()

    def _may_start(self) -> bool:
        plan = self.plan
        if self.stopping.is_set():
            return False
        if plan.count is not None and self.started >= plan.count:
            return False
        return self.deadline is None or time.monotonic() < self.deadline

    async def run(self) -> LoadStats:
        """Open the sessions, run until the count, the duration or `stop`, close them; the stats of the run."""
        async with contextlib.AsyncExitStack() as stack:
            clients = [await stack.enter_async_context(self.open_session()) for _ in range(self.plan.sessions)]
            runners = [CollectionRunner(client, self.plan.collection) for client in clients]
            # Connecting is not part of the measurement.
            self.stats.restart()
            if self.plan.duration is not None:
                self.deadline = self.stats.started + self.plan.duration
            if self.plan.rate is None:
                async with task_group() as group:
                    for runner in runners:
                        group.create_task(self._closed_loop(runner))
            else:
                await self._open_loop(runners, self.plan.rate)
            self.stats.finish()
        return self.stats

    async def _send(self, runner: CollectionRunner, index: int) -> None:
        step = self.plan.steps[index]
        result = await runner.run_step(step)
        self.stats.add(Sample(step.name, result.answer.elapsed_ms, failure_text(result)))

    async def _closed_loop(self, runner: CollectionRunner) -> None:
        steps = len(self.plan.steps)
        for n in counter():
            if not self._may_start():
                return
            self.started += 1
            await self._send(runner, n % steps)

    async def _open_loop(self, runners: list[CollectionRunner], rate: float) -> None:
        steps = len(self.plan.steps)
        # Each session keeps its own place in the mix, so `save:` variables flow in order.
        positions = [0] * len(runners)
        slots = asyncio.Semaphore(self.plan.max_in_flight)
        interval = 1.0 / rate
        begin = time.monotonic()

        async def one(session: int, index: int) -> None:
            try:
                await self._send(runners[session], index)
            finally:
                slots.release()

        # The requests in flight end before the sessions close.
        async with task_group() as group:
            for n in counter():
                if not self._may_start():
                    break
                due = begin + n * interval
                delay = due - time.monotonic()
                if delay > 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.stopping.wait(), delay)
                    if not self._may_start():
                        break
                await slots.acquire()
                session = n % len(runners)
                index = positions[session] % steps
                positions[session] += 1
                self.started += 1
                group.create_task(one(session, index))
