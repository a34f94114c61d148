"""Manual multi round-trip mode: before each retry, the person sees the
server's input requests and the answers about to be sent, and decides."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from inspector.core.protocol.mrtr import Round
from inspector.tui.safe import json_syntax, plain_line

__all__ = ["RoundScreen"]


class RoundScreen(ModalScreen[bool]):
    """One round of a multi round-trip call: the server's input requests and the answers to send; True sends them."""

    BINDINGS = [
        Binding("y", "answer(True)", "Send this round", id="round_send"),
        Binding("n,escape", "answer(False)", "Stop here", id="round_stop"),
    ]

    def __init__(self, step: Round) -> None:
        super().__init__()
        self.step = step

    def compose(self) -> ComposeResult:
        step = self.step
        with Vertical():
            yield Static(Text(f"{step.method}: the server needs input (round {step.number})", style="bold"))
            with VerticalScroll():
                yield Static(Text("input requests", style="bold"))
                yield Static(json_syntax(step.input_requests))
                if step.request_state is not None:
                    yield Static(Text("requestState (echoed back exactly)", style="bold"))
                    yield Static(plain_line(step.request_state, 400, style="dim"))
                yield Static(Text("inputResponses to send", style="bold"))
                yield Static(json_syntax(step.responses))
            yield Static(Text(f"y send round {step.number + 1} · n / escape stop here", style="dim"))

    def action_answer(self, send: bool) -> None:
        self.dismiss(send)
