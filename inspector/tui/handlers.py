"""The person at the keys answers the server's requests, through modals.

Requests that need the person (sampling, elicitation) wait in one queue and
are shown one at a time, in arrival order: a server that sends three at once
gets three modals in turn, each saying how many are pending, instead of three
stacked on top of each other.  Every request has `answer_timeout` seconds from
its arrival, queued or shown; when they run out it leaves the queue (or its
modal closes), a notification says so, and the server is told the user did
not answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widgets import Static

from inspector.core.protocol.errors import JsonRpcError
from inspector.core.protocol.handlers import ClientHandlers
from inspector.core.protocol.server_requests import ServerRequest
from inspector.core.safetext import one_line
from inspector.tui import looks

if TYPE_CHECKING:
    from inspector.tui.app import InspectorApp

__all__ = ["ANSWER_TIMEOUT", "RequestScreen", "TuiHandlers"]

USER_DECLINED = -1  # JSON-RPC error code the spec uses for a user rejecting sampling
ANSWER_TIMEOUT = 600.0
DECLINE_ALL_KEY = "ctrl+n"


class _Declined:
    """The answer of every request the person declined at once."""


DECLINED = _Declined()


class RequestScreen(ModalScreen[dict[str, Any] | None]):
    """What the screens answering a server request share: a line saying how
    many requests are pending, and being withdrawn by the queue.

    A subclass yields `self.queue_note()` where the line should go.
    """

    BINDINGS = [
        # Priority: the form's inputs must not swallow it.
        Binding(
            DECLINE_ALL_KEY,
            "decline_all",
            "Decline all",
            id="decline_all_requests",
            priority=True,
            tooltip="decline every pending server request: this one and all queued after it",
        ),
    ]

    # (this one's place, how many are pending); the queue sets it.
    queue_position: reactive[tuple[int, int]] = reactive((1, 1))

    def __init__(self) -> None:
        super().__init__()
        self._withdrawn = False
        # The queue that showed this screen (its server's, with several in the window).
        self.queue: TuiHandlers | None = None

    def queue_note(self) -> Static:
        """The line that says this request's place among those pending."""
        return Static(self._queue_text(), id="queue-position")

    def _queue_text(self) -> Text:
        position, total = self.queue_position
        if total <= 1:
            return Text("")
        after = total - position
        return Text(
            f"{position} of {total} pending server requests · {after} more after this one"
            f" · {DECLINE_ALL_KEY} declines all",
            style=looks.ACCENT_STRONG,
        )

    def action_decline_all(self) -> None:
        handlers = self.queue or getattr(self.app, "handlers", None)
        if isinstance(handlers, TuiHandlers):
            handlers.decline_all()

    def watch_queue_position(self) -> None:
        for note in self.query("#queue-position").results(Static):
            note.update(self._queue_text())

    def withdraw(self) -> None:
        """Close without an answer: at once if on top, else when it comes back on top
        (dismissing a screen that is not on top would pop the one that is)."""
        self._withdrawn = True
        if self.is_active:
            self.dismiss(None)

    def on_screen_resume(self) -> None:
        if self._withdrawn:
            self.dismiss(None)


@dataclass(eq=False)
class _Ask:
    """One request waiting for the person."""

    request: ServerRequest
    make_screen: Callable[[], RequestScreen]
    answer: asyncio.Future[Any]
    screen: RequestScreen | None = None
    answered: bool = False


def describe(request: ServerRequest) -> str:
    """How a notification names a request (server text, one line): a request
    of its own is its frame and JSON-RPC id; an input request inside a
    multi round-trip answer is its key in that answer's frame."""
    frame = request.frame
    if frame.kind == "request" and frame.direction == "in":
        where = f"frame #{frame.seq}, id {request.id}"
    else:
        where = f"input request {request.id!r} in frame #{frame.seq}"
    return one_line(f"{request.method} ({where})", 160)


class TuiHandlers(ClientHandlers):
    """Answers a server's requests: its roots from those the person gave, sampling and elicitation by the person
    through modals, one at a time."""

    supports_url_elicitation = True
    supports_sampling_tools = True

    def __init__(self, app: InspectorApp) -> None:
        self.app = app
        # Only the roots the person gave (`--root`, the Roots tab): a server
        # such as server-filesystem replaces the folders on its own command
        # line with the client's roots, so offering the working directory
        # unasked would quietly change what it serves.
        self.roots: list[dict[str, Any]] = []
        # Requests waiting for the person, in arrival order; the first is on screen.
        self.waiting: list[ServerRequest] = []
        self._asks: list[_Ask] = []
        self.completed_elicitations: set[str] = set()
        # Seconds from a request's arrival until it is refused unanswered.
        self.answer_timeout: float = ANSWER_TIMEOUT

    # -- the queue -----------------------------------------------------------------

    async def _ask(self, request: ServerRequest, make_screen: Callable[[], RequestScreen]) -> Any:
        """Queue a modal and wait for the person; withdrawn if the server cancels
        or the time runs out."""
        ask = _Ask(request, make_screen, asyncio.get_running_loop().create_future())
        self._asks.append(ask)
        self.waiting.append(request)
        self._queue_changed()
        try:
            return await asyncio.wait_for(ask.answer, self.answer_timeout)
        except TimeoutError:
            where = "" if ask.screen is not None else " (it was still waiting its turn in the queue)"
            self.app.notify_plain(
                f"{describe(request)}: no answer within {self.answer_timeout:g} s{where}; refused as unanswered",
                severity="error",
            )
            raise JsonRpcError(USER_DECLINED, "the user did not answer in time") from None
        except asyncio.CancelledError:
            reason = request.cancel_reason or "the request was withdrawn"
            self.app.notify_plain(f"{describe(request)}: {reason}", severity="warning")
            raise
        finally:
            self._asks.remove(ask)
            self.waiting.remove(request)
            if ask.screen is not None and not ask.answered:
                ask.screen.withdraw()
            self._queue_changed()

    def decline_all(self) -> int:
        """Decline every request waiting for the person (the one on screen
        too); returns how many."""
        declined = 0
        for ask in self._asks:
            if not ask.answer.done():
                ask.answer.set_result(DECLINED)
                declined += 1
        if declined:
            self.app.notify_plain(f"declined {declined} pending server request(s)")
        return declined

    def _queue_changed(self) -> None:
        """Show the head of the queue if it is not shown yet, and tell every
        shown modal (there is one) where it stands."""
        head = self._asks[0] if self._asks else None
        if head is not None and head.screen is None and not head.answer.done() and self.app.is_running:
            self._show(head)
        total = len(self._asks)
        for position, ask in enumerate(self._asks, start=1):
            if ask.screen is not None:
                ask.screen.queue_position = (position, total)
        self.app.server_requests_changed()

    def _show(self, ask: _Ask) -> None:
        def done(result: Any) -> None:
            ask.answered = True
            if not ask.answer.done():
                ask.answer.set_result(result)

        ask.screen = ask.make_screen()
        ask.screen.queue = self
        views = getattr(getattr(self.app, "inspector", None), "views", ())
        if len(views) > 1:
            # The modal covers whichever server is shown: say whose request it is.
            self.app.notify_plain(f"{describe(ask.request)}: this server asks you", severity="warning")
        self.app.push_screen(ask.screen, callback=done)

    # -- the requests ----------------------------------------------------------------

    async def list_roots(self, request: ServerRequest) -> list[dict[str, Any]]:
        """The roots the person gave (none unless they gave some)."""
        return list(self.roots)

    async def create_message(self, request: ServerRequest) -> dict[str, Any]:
        """The person's reply to a sampling request; a JSON-RPC error when they reject it or decline all pending."""
        from inspector.tui.screens.sampling import SamplingScreen

        params = request.params if isinstance(request.params, dict) else {}
        result = await self._ask(request, lambda: SamplingScreen(params))
        if result is DECLINED:
            raise JsonRpcError(USER_DECLINED, "the user declined all pending requests")
        if result is None:
            raise JsonRpcError(USER_DECLINED, "the user rejected the sampling request")
        return dict(result)

    async def elicit(self, request: ServerRequest) -> dict[str, Any]:
        """The person's answer to an elicitation: accept with the content, decline, or cancel (closed unanswered)."""
        from inspector.tui.screens.elicitation import ElicitationScreen

        params = request.params if isinstance(request.params, dict) else {}
        result = await self._ask(request, lambda: ElicitationScreen(params, self))
        if result is DECLINED:
            return {"action": "decline"}
        if result is None:
            return {"action": "cancel"}
        return dict(result)

    def elicitation_complete(self, elicitation_id: str) -> None:
        """The server says URL elicitation *elicitation_id* is complete: noted, and the person told."""
        self.completed_elicitations.add(elicitation_id)
        self.app.notify_plain(f"the server reports URL elicitation {elicitation_id} complete")
