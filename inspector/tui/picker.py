"""A small app, run before the inspector, to choose one of the servers other
clients on this machine are configured with."""

from __future__ import annotations

import sys

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from inspector.core.servers.discovery import Discovered, discover
from inspector.core.servers.spec import ServerSpec
from inspector.tui import looks
from inspector.tui.safe import plain_line

__all__ = ["PickerApp", "pick_servers"]


class PickerApp(App[Discovered | list[Discovered] | None]):
    """The `--pick` list of servers found in client config files: answers with the one chosen, those marked, or None."""

    BINDINGS = [
        Binding("escape,q", "quit_picker", "Quit", id="quit_picker"),
        Binding("space", "mark", "Mark (several in one window)", id="pick_mark"),
    ]

    CSS = """
    OptionList { height: 1fr; border: round $primary; }
    """

    def __init__(self, found: list[Discovered]) -> None:
        super().__init__()
        looks.install(self)
        self.found = found
        # Indexes marked with space: enter opens them all, in one window.
        self.marked: list[int] = []

    def compose(self) -> ComposeResult:
        yield Static(
            Text(
                f"{len(self.found)} server(s) found in client config files; enter connects"
                " (space marks several: enter opens them in one window)",
                style="bold",
            )
        )
        yield OptionList(*(Option(self._prompt(entry, False), disabled=not entry.usable) for entry in self.found))
        yield Footer()

    def _prompt(self, entry: Discovered, marked: bool) -> Text:
        text = Text("✓ ", style=looks.OK_STRONG) if marked else Text()
        text.append_text(plain_line(entry.name, 40, style="bold"))
        text.append_text(plain_line(f"  {entry.client}", 20, style=looks.INFO))
        text.append("\n")
        style = "dim" if entry.spec else looks.WARNING if entry.usable else looks.ERROR
        text.append_text(plain_line(entry.summary, 100, style=style))
        text.append("\n")
        text.append_text(plain_line(entry.path, 100, style="dim"))
        # A server that only needs VS Code inputs answered is offered:
        # they are asked for on the terminal once the picker has closed.
        return text

    def action_mark(self) -> None:
        options = self.query_one(OptionList)
        index = options.highlighted
        if index is None or options.get_option_at_index(index).disabled:
            return
        if index in self.marked:
            self.marked.remove(index)
        else:
            self.marked.append(index)
        options.replace_option_prompt_at_index(index, self._prompt(self.found[index], index in self.marked))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if self.marked:
            self.exit([self.found[index] for index in self.marked])
        else:
            self.exit(self.found[event.option_index])

    def action_quit_picker(self) -> None:
        self.exit(None)


def pick_servers() -> list[ServerSpec]:
    """The server or servers chosen (none: nothing to open)."""
    from inspector.commands.inputs import terminal_asker
    from inspector.core.servers.client_configs import ConfigError

    found = discover()
    if not found:
        print("inspector: no MCP client config files found; name a server instead")
        return []
    chosen = PickerApp(found).run()
    if chosen is None:
        return []
    specs = []
    for entry in chosen if isinstance(chosen, list) else [chosen]:
        try:
            specs.append(entry.resolve(terminal_asker()))
        except ConfigError as exc:
            print(f"inspector: {entry.name}: {exc}", file=sys.stderr)
            return []
    return specs
