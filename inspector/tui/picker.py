"""A small app, run before the inspector, to choose one of the servers other
clients on this machine are configured with."""

from __future__ import annotations

import sys

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from ..core.discovery import Discovered, discover
from ..core.spec import ServerSpec
from .safe import plain_line

__all__ = ["PickerApp", "pick_server"]


class PickerApp(App[Discovered | None]):
    BINDINGS = [Binding("escape,q", "quit_picker", "Quit", id="quit_picker")]

    CSS = """
    OptionList { height: 1fr; border: round $primary; }
    """

    def __init__(self, found: list[Discovered]) -> None:
        super().__init__()
        self.found = found

    def compose(self) -> ComposeResult:
        yield Static(Text(f"{len(self.found)} server(s) found in client config files; enter connects", style="bold"))
        options = []
        for entry in self.found:
            text = plain_line(entry.name, 40, style="bold")
            text.append_text(plain_line(f"  {entry.client}", 20, style="cyan"))
            text.append("\n")
            style = "dim" if entry.spec else "yellow" if entry.usable else "red"
            text.append_text(plain_line(entry.summary, 100, style=style))
            text.append("\n")
            text.append_text(plain_line(entry.path, 100, style="dim"))
            # A server that only needs VS Code inputs answered is offered:
            # they are asked for on the terminal once the picker has closed.
            options.append(Option(text, disabled=not entry.usable))
        yield OptionList(*options)
        yield Footer()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.exit(self.found[event.option_index])

    def action_quit_picker(self) -> None:
        self.exit(None)


def pick_server() -> ServerSpec | None:
    from ..commands.inputs import terminal_asker
    from ..core.config import ConfigError

    found = discover()
    if not found:
        print("inspector: no MCP client config files found; name a server instead")
        return None
    chosen = PickerApp(found).run()
    if chosen is None:
        return None
    try:
        return chosen.resolve(terminal_asker())
    except ConfigError as exc:
        print(f"inspector: {chosen.name}: {exc}", file=sys.stderr)
        return None
