"""Shown when the server cannot be started or reached: what happened, the
stderr tail, and a retry.  Never a traceback."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from inspector.tui.safe import plain

__all__ = ["ConnectErrorScreen"]


class ConnectErrorScreen(ModalScreen[bool]):
    """Why the server could not be reached, and its stderr tail: answers True to retry, False to look around."""

    BINDINGS = [
        Binding("r", "retry", "Retry", id="retry"),
        Binding("escape", "dismiss_error", "Look around", id="dismiss_error"),
        Binding("q", "quit_app", "Quit", id="quit_from_error"),
    ]

    def __init__(
        self, message: str, stderr_tail: list[str], server: str, tail_source: Callable[[], list[str]] | None = None
    ) -> None:
        super().__init__()
        self.message = message
        self.stderr_tail = stderr_tail
        self.server = server
        # The last stderr lines can arrive after the failure: keep looking.
        self.tail_source = tail_source

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Cannot connect to the server"), id="error-title")
            yield Static(plain(self.server, style="dim"))
            yield Static(plain(self.message))
            with VerticalScroll(id="stderr-tail") as scroll:
                scroll.border_title = "server stderr (last lines)"
                yield Static(self._tail_text(), id="tail-text")
            yield Static(Text("r retry · escape look at the traffic · q quit", style="dim"))
            yield Button("Retry", id="retry", variant="primary")

    def _tail_text(self) -> Text:
        tail = "\n".join(self.stderr_tail) if self.stderr_tail else "(the server wrote nothing to stderr)"
        return plain(tail)

    def on_mount(self) -> None:
        if self.tail_source is not None:
            self.set_interval(0.25, self._refresh_tail)

    def _refresh_tail(self) -> None:
        assert self.tail_source is not None
        tail = self.tail_source()[-20:]
        if tail and tail != self.stderr_tail:
            self.stderr_tail = tail
            self.query_one("#tail-text", Static).update(self._tail_text())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(True)

    def action_retry(self) -> None:
        self.dismiss(True)

    def action_dismiss_error(self) -> None:
        self.dismiss(False)

    def action_quit_app(self) -> None:
        self.app.exit(3)
