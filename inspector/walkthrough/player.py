"""Plays a walkthrough in the running TUI, as a person would use it: the
captions, the pauses and the presenter's keys (what each step does on the
screen is `step_actions.StepActions`).

Moving: "next" ends the current step's pause; "back" goes to the previous
step and plays it again, except that a step which sent something (call,
read, get) is never sent twice: on a later visit it shows its item and the
values it sent, and sends nothing; a traffic step shows the frame it showed
the first time.  Pause stops the clock (and the typing) until resumed.
After the last step the walkthrough stays at its end, where "back" still
goes to the last step (unless it was asked to end there: `stay_at_end`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from inspector.walkthrough.model import WAIT_FOR_KEY, WalkStep, Walkthrough
from inspector.walkthrough.step_actions import StepActions, until

if TYPE_CHECKING:
    from inspector.tui.app import InspectorApp
    from inspector.tui.walkthrough_overlay import CaptionOverlay

__all__ = ["Player"]

StepHook = Callable[[int, WalkStep], Awaitable[None]]


class Player:
    """Steps through a walkthrough: caption, action, pause; next, back and pause from the presenter."""

    def __init__(
        self,
        app: InspectorApp,
        walkthrough: Walkthrough,
        overlay: CaptionOverlay,
        *,
        pace: float = 1.0,
        manual: bool = False,
        on_step: StepHook | None = None,
        stay_at_end: bool = True,
    ) -> None:
        self.app = app
        self.walkthrough = walkthrough
        self.overlay = overlay
        self.pace = pace
        self.manual = manual
        self.on_step = on_step
        self.stay_at_end = stay_at_end
        self.index = 0
        self.paused = False
        self.finished = False
        # True while a step's pause runs (its action is done): what a presenter's key ends.
        self.waiting = False
        # Steps already played once: a step that sends is not sent again.
        self.visited: set[int] = set()
        # (step index, caption) in the order they were shown: what the audience saw.
        self.history: list[tuple[int, str]] = []
        self._moves: list[str] = []
        self._signal = asyncio.Event()
        self.actions = StepActions(app, self._sleep)

    # -- the presenter's keys ----------------------------------------------------------

    def request(self, move: str) -> None:
        """ "next" or "back", from the presenter."""
        self._moves.append(move)
        self._signal.set()

    def toggle_pause(self) -> None:
        """Stop the clock and the typing, or start them again."""
        self.paused = not self.paused
        self.overlay.set_paused(self.paused)
        self._signal.set()

    # -- playing -----------------------------------------------------------------------

    async def run(self) -> None:
        """Once the server is connected and its lists are in, play the steps as the presenter moves; returns at the end
        unless `stay_at_end`, where "back" plays the last step again."""
        await until(self._connected)
        steps = self.walkthrough.steps
        while True:
            while 0 <= self.index < len(steps):
                step = steps[self.index]
                again = self.index in self.visited
                self._show_caption(step)
                await self.actions.play(step, again)
                self.visited.add(self.index)
                await self._repainted()
                if self.on_step is not None and not again:
                    await self.on_step(self.index, step)
                self.waiting = True
                try:
                    move = await self._wait_after(step)
                finally:
                    self.waiting = False
                if move == "back":
                    self.index = max(0, self.index - 1)
                else:
                    self.index += 1
            self.actions.present_traffic(False)
            self.finished = True
            self.overlay.show_step(
                "End of the walkthrough.", f"{self.walkthrough.name}: {len(steps)} of {len(steps)} steps", end=True
            )
            if not self.stay_at_end or not steps:
                return
            # The presenter may still go back to the last step (and on from there).
            while await self._next_move() != "back":
                pass
            self.finished = False
            self.index = len(steps) - 1

    async def _next_move(self) -> str:
        while not self._moves:
            self._signal.clear()
            await self._signal.wait()
        return self._moves.pop(0)

    def _show_caption(self, step: WalkStep) -> None:
        total = len(self.walkthrough.steps)
        self.history.append((step.index, step.caption))
        position = f"{self.walkthrough.name}: step {step.index + 1} of {total}"
        if self.index in self.visited and step.sends:
            position += " (shown again: not sent again)"
        self.overlay.show_step(step.caption, position, at_top=step.action == "traffic")

    # -- waiting -----------------------------------------------------------------------

    def _seconds(self, seconds: float) -> float:
        return seconds / self.pace

    async def _wait_after(self, step: WalkStep) -> str:
        """Until the presenter moves, or the step's pause has run out (paused time not counted)."""
        pause = step.pause if step.pause is not None else self.walkthrough.pause
        remaining: float | None = None if self.manual or pause == WAIT_FOR_KEY else self._seconds(float(pause))
        loop = asyncio.get_running_loop()
        while True:
            if self._moves:
                return self._moves.pop(0)
            if remaining is not None and remaining <= 0 and not self.paused:
                return "next"
            self._signal.clear()
            running = remaining is not None and not self.paused
            started = loop.time()
            try:
                await asyncio.wait_for(self._signal.wait(), remaining if running else None)
            except TimeoutError:
                return "next"
            if running and remaining is not None:
                remaining -= loop.time() - started

    async def _sleep(self, seconds: float) -> None:
        """A pace-scaled pause inside a step; presenter's pause holds it."""
        await self._unpaused()
        await asyncio.sleep(self._seconds(seconds))
        await self._unpaused()

    async def _unpaused(self) -> None:
        while self.paused:
            self._signal.clear()
            await self._signal.wait()

    async def _repainted(self) -> None:
        """Until the screen has been laid out and drawn with what was just changed."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def mark() -> None:
            if not done.done():
                done.set_result(None)

        self.app.screen.call_after_refresh(mark)
        self.app.screen.refresh(layout=True)
        await done

    def _connected(self) -> bool:
        app = self.app
        return app.client.state == "connected" and all(
            kind in app.lists for kind in ("tools", "resources", "templates", "prompts")
        )
