"""The confirmation before a collection run: every tool it will call, like
the confirmation before any tools/call."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from inspector.tui import looks
from inspector.tui.safe import plain_line

__all__ = ["RunStepsScreen"]


class RunStepsScreen(ModalScreen[bool]):
    """The confirmation before running *count* collection steps, naming the *tools* they call; True runs them."""

    BINDINGS = [
        Binding("y", "answer(True)", "Run", id="run_steps_yes"),
        Binding("n,escape", "answer(False)", "Don't run", id="run_steps_no"),
    ]

    def __init__(self, count: int, tools: list[str]) -> None:
        super().__init__()
        self.count = count
        self.tools = tools

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(f"Run {self.count} step(s)? They call these tools, as the file says:", style="bold"))
            for tool in self.tools:
                yield Static(plain_line(f"  {tool}", 100, style=looks.WARNING))
            yield Static(Text("y: run   n / escape: don't", style="dim"))

    def action_answer(self, run: bool) -> None:
        self.dismiss(run)
