"""Live progress on a terminal: throughput, errors, percentiles and a sparkline.

Drawn on stderr with Rich (imported here only, when a terminal watches), so
stdout keeps only the final report.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from inspector.commands.load.plan import LoadPlan
from inspector.commands.load.report import sparkline
from inspector.commands.load.stats import LoadStats

__all__ = ["LiveView", "wanted"]

_REFRESH = 0.25


def wanted() -> bool:
    """Whether stderr is a terminal (the only place the live view is drawn)."""
    return sys.stderr.isatty()


def _panel(plan: LoadPlan, stats: LoadStats) -> Any:
    from rich.table import Table

    latency = stats.latency()
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    goal = []
    if plan.count is not None:
        goal.append(f"{stats.requests}/{plan.count} requests")
    if plan.duration is not None:
        goal.append(f"{min(stats.elapsed, plan.duration):.1f}/{plan.duration:g} s")
    table.add_row("progress", ", ".join(goal) or f"{stats.elapsed:.1f} s")
    table.add_row("throughput", f"{stats.throughput:.1f} req/s")
    table.add_row("errors", f"{stats.errors} ({stats.error_rate:.2%})")
    table.add_row("latency ms", "p50 {p50:.2f}  p95 {p95:.2f}  p99 {p99:.2f}  max {max:.2f}".format(**latency))
    table.add_row("req/s", sparkline(list(stats.series)))
    return table


class LiveView:
    """The live progress panel on stderr, redrawn four times a second while the run lasts."""

    def __init__(self, plan: LoadPlan, stats: LoadStats) -> None:
        self.plan = plan
        self.stats = stats
        self._task: asyncio.Task[None] | None = None
        self._live: Any = None

    def start(self) -> None:
        """Show the panel and start redrawing it."""
        from rich.console import Console
        from rich.live import Live

        self._live = Live(_panel(self.plan, self.stats), console=Console(stderr=True), auto_refresh=False)
        self._live.start()
        self._task = asyncio.ensure_future(self._refresh())

    async def _refresh(self) -> None:
        while True:
            await asyncio.sleep(_REFRESH)
            self._live.update(_panel(self.plan, self.stats), refresh=True)

    async def stop(self) -> None:
        """Stop redrawing, draw the final figures once more and leave them on the screen."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._live is not None:
            self._live.update(_panel(self.plan, self.stats), refresh=True)
            self._live.stop()
