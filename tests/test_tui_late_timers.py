"""The TUI's one-shot timers fire on a machine that stalls the inspector.

Textual's one-shot timer ends without calling back when its task is
descheduled for longer than its delay between its two reads of the clock (it
skips the tick it is late for, and it has only one).  On a loaded machine the
key order's release poll (5 ms) and a server view's sync (50 ms) were lost
that way: held keys never went out (ctrl+x did not cancel a call) and the
views stopped catching up with the traffic.  Here every read of the timers'
clock is a second after the last, as if the machine stalled between any two:
the same for every run, however fast the machine.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import textual.timer
from textual import events
from textual.app import App

from inspector.core.servers.spec import demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.key_order import KeyOrder

from .tui_helpers import wait_connected, wait_for


def stall_the_timers(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on each timer's second read of its clock is a second after
    its first, as if the machine stalled the inspector in between (a
    one-shot timer's two reads are the start and the check for lateness);
    its later reads are the real clock again, so the app's repeating timers
    run on."""
    reads: dict[asyncio.Task[Any] | None, int] = {}

    def get_time() -> float:
        task = asyncio.current_task()
        reads[task] = reads.get(task, 0) + 1
        return time.monotonic() + (1.0 if reads[task] == 2 else 0.0)

    monkeypatch.setattr(textual.timer, "_time", SimpleNamespace(get_time=get_time))


async def test_a_held_key_goes_out_after_a_stall(monkeypatch: pytest.MonkeyPatch) -> None:
    app: App[Any] = App()
    async with app.run_test() as pilot:
        routed: list[events.Key | events.Paste] = []

        async def route(event: events.Key | events.Paste) -> None:
            routed.append(event)

        order = KeyOrder(app, route)
        rebuilding = object()
        order.busy(rebuilding)
        stall_the_timers(monkeypatch)
        key = events.Key("x", "x")
        await order.take(key)
        assert not routed, "held while a form rebuilds"
        order.done(rebuilding)
        await wait_for(pilot, lambda: routed == [key], "the held key to go out")
        assert order.idle


async def test_the_views_sync_after_a_stall(monkeypatch: pytest.MonkeyPatch) -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_connected(pilot, app)
        stall_the_timers(monkeypatch)
        app.view.schedule_sync()
        assert app._sync_scheduled
        await wait_for(pilot, lambda: not app._sync_scheduled, "the view sync")


async def test_textuals_own_one_shot_timer_still_loses_its_tick(monkeypatch: pytest.MonkeyPatch) -> None:
    """Why `tui/timers.py` exists: once Textual fires a late one-shot timer
    itself, this fails, and `call_later` can go back to `set_timer`."""
    app: App[Any] = App()
    async with app.run_test() as pilot:
        called: list[bool] = []
        stall_the_timers(monkeypatch)
        timer = app.set_timer(0.005, lambda: called.append(True))
        task = timer._task
        assert task is not None
        await wait_for(pilot, task.done, "the timer's task to end")
        await pilot.pause()
        assert not called


def test_the_tui_sets_its_one_shot_timers_through_call_later() -> None:
    package = Path(__file__).parent.parent / "inspector"
    callers = [
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if ".set_timer(" in path.read_text(encoding="utf-8") and path.name != "timers.py"
    ]
    assert not callers, f"set_timer loses its tick on a stalled machine; use tui.timers.call_later in {callers}"
