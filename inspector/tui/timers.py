"""One-shot timers that fire however late the machine lets them run.

Textual's `set_timer` makes a timer that skips the ticks it is late for
(`Timer(skip=True)`), and a one-shot timer has a single tick: a process
descheduled for longer than the delay between the timer task's two reads of
the clock ends the timer without calling back.  On a loaded machine the key
order's 5 ms release poll and a server view's 50 ms sync were lost that way,
and the flag that said one was pending kept any other from being set: held
keys (ctrl+x cancelling a call among them) and the views stopped for good.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.message_pump import MessagePump
    from textual.timer import Timer, TimerCallback

__all__ = ["call_later"]


def call_later(pump: MessagePump, delay: float, callback: TimerCallback) -> Timer:
    """`pump.set_timer(delay, callback)` that calls back late rather than never.
    The timer stops with *pump*, and `stop()` cancels it, as Textual's does."""
    timer = pump.set_timer(delay, callback)
    # Textual offers no parameter for it; the timer's task reads the flag
    # only once it first runs, which is after this returns.
    timer._skip = False
    return timer
