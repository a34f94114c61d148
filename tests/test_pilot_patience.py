"""Pins the private Textual name tests/pilot_patience.py replaces, and shows
the wait it puts in its place ending when a widget is removed under it."""

from __future__ import annotations

import asyncio
import inspect

from textual.app import App, ComposeResult
from textual.message import Message
from textual.pilot import Pilot
from textual.widgets import Static

from .pilot_patience import HANG, TEXTUALS, wait_for_screen
from .waiting import eventually


def test_textuals_pilot_waits_through_the_method_replaced() -> None:
    assert Pilot._wait_for_screen is wait_for_screen, "conftest did not put the patient wait in place"
    parameter = inspect.signature(TEXTUALS).parameters.get("timeout")
    assert parameter is not None, "Textual's Pilot._wait_for_screen lost its timeout parameter"
    assert parameter.default < HANG
    # The Pilot's key presses and pauses wait through it.
    for method in (Pilot.press, Pilot.pause):
        assert "self._wait_for_screen()" in inspect.getsource(method), method


class Held(Message):
    """Keeps the widget busy until the test lets it go."""


class Busy(Static):
    def __init__(self) -> None:
        super().__init__("busy", id="busy")
        self.holding = asyncio.Event()
        self.release = asyncio.Event()

    async def on_held(self, _message: Held) -> None:
        self.holding.set()
        await self.release.wait()


class Holder(App[None]):
    def compose(self) -> ComposeResult:
        yield Busy()


async def test_a_widget_removed_while_the_pilot_waits_is_not_waited_for() -> None:
    """The widget is busy, so the Pilot's callback waits in its queue; then
    it is removed (as a dismissed modal's widgets are).  Textual's wait would
    last until its bound; the patient one ends as soon as it sees it go."""
    app = Holder()
    async with app.run_test() as pilot:
        busy = app.query_one(Busy)
        busy.post_message(Held())
        await asyncio.wait_for(busy.holding.wait(), HANG)
        waiting = asyncio.create_task(pilot._wait_for_screen())
        # The Pilot's callback queued behind the message the widget holds.
        await eventually(lambda: busy.message_queue_size, "the Pilot's callback queued")
        assert not waiting.done(), "the busy widget has not run the Pilot's callback yet"
        removed = busy.remove()
        assert await asyncio.wait_for(waiting, HANG) is True
        assert busy.is_running, "the widget still holds its message: the wait ended on its removal"
        busy.release.set()
        await removed
