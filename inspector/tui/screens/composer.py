"""The raw composer: type (or edit a recorded) JSON-RPC message and send it.

The text must be JSON; it need not be valid MCP, since sending what a server
does not expect is half of debugging it.
"""

from __future__ import annotations

import json

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from inspector.tui.safe import plain
from inspector.tui.widgets.json_area import JsonArea

__all__ = ["ComposerScreen"]

TEMPLATE = '{\n  "jsonrpc": "2.0",\n  "id": 1,\n  "method": "tools/list",\n  "params": {}\n}'


class ComposerScreen(ModalScreen[str | None]):
    """The raw composer: answers with the JSON text to send, or None when closed."""

    BINDINGS = [
        Binding("ctrl+s", "send", "Send", id="composer_send"),
        Binding("escape", "close", "Close", id="composer_close"),
    ]

    def __init__(self, text: str = TEMPLATE, title: str = "Send a raw JSON-RPC message") -> None:
        super().__init__()
        self.text = text
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text, style="bold"))
            yield Static(
                Text(
                    "A request gets a fresh id so its answer can be matched; nothing else is changed. "
                    "ctrl+s sends · escape closes",
                    style="dim",
                )
            )
            yield JsonArea(self.text, language="json", id="composer-text")
            yield Static("", id="composer-error")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_send(self) -> None:
        text = self.query_one(TextArea).text
        try:
            json.loads(text)
        except ValueError as exc:
            self.query_one("#composer-error", Static).update(plain(f"not JSON: {exc}"))
            return
        self.dismiss(text)

    def action_close(self) -> None:
        self.dismiss(None)
