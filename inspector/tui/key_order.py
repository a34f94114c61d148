"""Keys reach the widget that shows focus when they are pressed.

Textual routes a key to the focused widget the moment the app takes it from
its queue, but a key bound to an action (tab, enter on a list, a button)
only acts once it has travelled through the focused widget and each of its
ancestors back to the app.  A typist who presses `8`, tab, `2` faster than
that trip has `2` routed to the field tab was about to leave.  Forms also
rebuild their rows now and then (an array item added, a variant switched),
and a key typed during a rebuild has no row to go to.

`KeyOrder` therefore lets one key (or paste) out at a time: the next is
held until the previous one has been handled — the app has run its
bindings, a widget stopped it, or its widget went away — and what it set
off has settled (no message waits in any queue: enter on a list posts a
message that focuses a form, and `focus()` itself is a queued callback),
and while any form is rebuilding.  Held keys are then routed in the order
they were typed, each to whatever has focus by then, which is what the
person saw.

A stopped key is not always a handled one: Textual stops a key as it
bubbles from the screen to the app that sent it, and the app then runs
its bindings (tab's focus move among them).  So a stopped key still counts
as in flight once it has been posted to the app (`reached_app`), until the
app is done with it (`came_back`).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import ScreenStackError
from textual.message_pump import MessagePump

from inspector.tui.timers import call_later

if TYPE_CHECKING:
    from textual.app import App
    from textual.timer import Timer

__all__ = ["KeyOrder"]

# A key whose trip never ends (its widget removed mid-way, a handler that
# hangs) must not hold the keyboard: after this long the next key goes anyway.
# A loaded machine can take seconds over one key: 3 s let the first letter
# typed after `/` overtake the focus move into the filter there.
STUCK_AFTER = 10.0
# A rebuild that never finishes must not either.
BUSY_AT_MOST = 30.0
POLL = 0.005
# Keys that only move a list's highlight: they pass put-off work (`defer`).
MOVES = frozenset({"up", "down", "pageup", "pagedown", "home", "end"})

Routed = events.Key | events.Paste


class KeyOrder:
    """Lets keys and pastes out one at a time, each once the last has been handled and what it set off has settled."""

    def __init__(self, app: App[Any], route: Callable[[Routed], Awaitable[None]]) -> None:
        self.app = app
        self._route = route
        self._held: deque[Routed] = deque()
        self._in_flight: Routed | None = None
        # The key in flight was posted to the app: a stop no longer means handled.
        self._bound_for_app = False
        self._sent_at = 0.0
        self._busy: dict[int, float] = {}
        # Work put off while keys come (a list's detail after arrow keys): a
        # key other than another move runs it first (see `defer`).
        self._deferred: dict[int, Callable[[], None]] = {}
        self._timer: Timer | None = None
        self._releasing = False

    @property
    def idle(self) -> bool:
        """Nothing held, in flight or rebuilding (tests wait for this)."""
        return not self._held and not self._deferred and self._ready()

    # -- gates a widget can close -------------------------------------------------------

    def busy(self, owner: object) -> None:
        """Hold keys until `done(owner)`: *owner* is replacing the widgets they would go to."""
        self._busy.setdefault(id(owner), time.monotonic())

    def done(self, owner: object) -> None:
        """*owner* has finished replacing its widgets: the keys held for it may go on."""
        self._busy.pop(id(owner), None)
        self._schedule()

    def defer(self, owner: object, flush: Callable[[], None]) -> None:
        """*owner* has put off work a burst of moves (arrow, page, home, end)
        would only redo: any other key runs `flush` first and waits until what
        it set off has settled, so enter after arrows opens the row moved to."""
        self._deferred[id(owner)] = flush

    def undefer(self, owner: object) -> None:
        """Forget the work *owner* put off (it has run, or is no longer due)."""
        self._deferred.pop(id(owner), None)

    # -- called by the app -------------------------------------------------------------

    async def take(self, event: Routed) -> None:
        """A key or paste from the terminal: route it now, or hold it in order."""
        if self._held or not self._ready():
            self._held.append(event)
            self._schedule()
            return
        await self._send(event)

    def reached_app(self, event: object) -> None:
        """*event* was posted to the app (bubbled up, or sent back by the screen)."""
        if event is self._in_flight:
            self._bound_for_app = True

    def came_back(self, event: object) -> None:
        """The app has run the bindings for *event*: its trip is over."""
        if event is self._in_flight:
            self._in_flight = None
            self._schedule()

    # -- internals ---------------------------------------------------------------------

    async def _send(self, event: Routed) -> None:
        if self._deferred and not (isinstance(event, events.Key) and event.key in MOVES):
            flushes = list(self._deferred.values())
            self._deferred.clear()
            for flush in flushes:
                flush()
            # What the flush posted is handled before this key goes.
            self._held.appendleft(event)
            self._schedule()
            return
        self._in_flight = event
        self._bound_for_app = False
        self._sent_at = time.monotonic()
        await self._route(event)
        if not event.is_forwarded:
            # A priority binding took it at once, or nothing could receive it.
            self._in_flight = None
        else:
            self._schedule()

    def _ready(self) -> bool:
        """Whether the next key may be routed now."""
        now = time.monotonic()
        if any(now - since < BUSY_AT_MOST for since in self._busy.values()):
            return False
        stuck = now - self._sent_at > STUCK_AFTER
        event = self._in_flight
        if event is not None:
            # Stopped by the widget that handled it (text typed into an
            # input), or lost on the way: either way it will not come back.
            handled = event._stop_propagation and not self._bound_for_app
            if handled or stuck:
                self._in_flight = None
            else:
                return False
        return stuck or self._settled()

    def _settled(self) -> bool:
        """No message waits in the app's queue or any widget's on its screen."""
        app = self.app
        if _waiting(app):
            return False
        try:
            screen = app.screen
        except ScreenStackError:
            return True
        return not any(_waiting(node) for node in screen.walk_children(with_self=True))

    def _schedule(self) -> None:
        if self._timer is None and self._held:
            self._timer = call_later(self.app, POLL, self._release)

    async def _release(self) -> None:
        self._timer = None
        if self._releasing:
            return
        self._releasing = True
        try:
            while self._held:
                if not self._ready():
                    break
                await self._send(self._held.popleft())
        finally:
            self._releasing = False
        self._schedule()


def _waiting(pump: MessagePump) -> bool:
    """Whether *pump* has a message it has not started handling: one in its
    queue, or the one it took out to look at (Textual peeks at the next
    message to merge repeats; that one is in no queue)."""
    return bool(pump.message_queue_size) or getattr(pump, "_pending_message", None) is not None
