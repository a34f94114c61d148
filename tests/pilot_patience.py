"""Textual's Pilot, made to wait as our own waits do (see conftest).

Each press, click and pause of the Pilot first waits for the screen: it
sends every widget of the current screen (and the app) a callback, and waits
until each has run it, that is until each has handled the messages it had.
Textual's own wait has two flaws on a busy machine:

- its bound is a fixed 30 s, a wall-clock assertion that a machine
  oversubscribed four times over breaks (one layout of a big form costs
  seconds of CPU there);
- a widget removed while the Pilot waits (the widgets of a modal dismissed
  by the key just pressed, a toast that expired) never runs its callback, so
  the wait lasted until its bound and then failed the test: a race between
  the removal and the callbacks that a slow machine loses more often.

Here the bound is one only a hang reaches, and a widget on its way out of
the DOM is no longer waited for.  It replaces one private method,
`Pilot._wait_for_screen(timeout=...)`, which `test_pilot_patience.py` pins,
so a Textual upgrade that changes it fails loudly instead of silently.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from textual.app import App, ScreenStackError
from textual.message_pump import MessagePump
from textual.pilot import Pilot, WaitForScreenTimeout

# Textual's own, as the test pinning it reads it (replaced by be_patient).
TEXTUALS = Pilot.__dict__["_wait_for_screen"]
# Twice the bound of tests/tui_helpers.py's waits.
HANG = 120.0
# How often the wait looks for widgets that were removed meanwhile.
SLICE = 0.1


def gone(pump: MessagePump) -> bool:
    """Whether *pump* will never handle another message: closed, closing, or
    a widget being removed (pruned) or no longer in the DOM."""
    if pump._closing or pump._closed:
        return True
    if isinstance(pump, App):
        return False
    return bool(getattr(pump, "_pruning", False)) or not getattr(pump, "is_attached", True)


class _Round:
    """The pumps that have not yet run the callback queued behind their messages."""

    def __init__(self, pumps: list[MessagePump]) -> None:
        self.waiting: dict[int, MessagePump] = {}
        self.all_ran = asyncio.Event()
        for pump in pumps:
            self.waiting[id(pump)] = pump
            if not pump.call_later(self._ran(pump)):
                # Closed already: the message was not queued.
                del self.waiting[id(pump)]

    def _ran(self, pump: MessagePump) -> Callable[[], None]:
        def callback() -> None:
            self.waiting.pop(id(pump), None)
            if not self.waiting:
                self.all_ran.set()

        return callback

    def drop_gone(self) -> None:
        """Forget the pumps that will never run their callback (see `gone`)."""
        for key, pump in list(self.waiting.items()):
            if gone(pump):
                del self.waiting[key]


async def wait_for_screen(self: Pilot[Any], timeout: float = HANG) -> bool:
    """Until the app and every widget of the current screen have handled the
    messages they had; False if the app raised meanwhile (as Textual's)."""
    app = self.app
    try:
        screen = app.screen
    except ScreenStackError:
        return False
    round_ = _Round([app, *screen.walk_children(with_self=True)])
    loop = asyncio.get_running_loop()
    bound = max(timeout, HANG)
    deadline = loop.time() + bound
    while round_.waiting:
        if app._exception_event.is_set():
            return False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(round_.all_ran.wait(), SLICE)
        round_.drop_gone()
        if round_.waiting and loop.time() > deadline:
            names = ", ".join(repr(pump) for pump in list(round_.waiting.values())[:10])
            raise WaitForScreenTimeout(f"after {bound:g} s these have not handled their messages: {names}")
    return True


wait_for_screen.patient = True  # type: ignore[attr-defined]


def be_patient() -> None:
    if getattr(Pilot._wait_for_screen, "patient", False):
        return
    Pilot._wait_for_screen = wait_for_screen  # type: ignore[method-assign]
