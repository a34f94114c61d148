"""The server list beside the panes (several servers in one window): each
server's number, name and state; choosing one shows its panes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from inspector.tui import looks
from inspector.tui.safe import plain_line

if TYPE_CHECKING:
    from inspector.tui.server_view import ServerView

__all__ = ["STATE_STYLE", "ServerList", "server_entry"]

STATE_STYLE = {
    "connecting": ("◌", looks.WARNING),
    "connected": ("●", looks.OK),
    "failed": ("✗", looks.ERROR_STRONG),
    "exited": ("■", looks.ERROR_STRONG),
    "recording": ("◆", looks.INFO),
}


def server_entry(number: int, view: ServerView, shown: bool) -> Text:
    """Server *number*'s two lines in the list: an arrow when it is *shown*, its label, then its state."""
    state, _reason = view.list_state()
    icon, style = STATE_STYLE.get(state, ("?", ""))
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{'▶' if shown else ' '}{number} ", style="bold" if shown else "dim")
    # The label may come from a config file: one plain line.
    text.append_text(plain_line(view.label, 24, style="bold" if shown else ""))
    text.append("\n   ")
    text.append(f"{icon} {state}", style=style)
    return text


class ServerList(OptionList):
    """The servers in one window, listed beside the panes: choosing one shows it."""

    def __init__(self, views: list[ServerView]) -> None:
        super().__init__(*(self._option(number, view) for number, view in enumerate(views, start=1)))
        self.views = views
        self.border_title = "servers"
        self._shown: dict[int, str] = {}

    def show_keys(self) -> None:
        """The key that shows the next server, as the keymap in force has it,
        where a presenter looks for it (the key bar has no room left)."""
        from inspector.tui.keymap import key_hint

        self.border_subtitle = f"{key_hint(self.app, 'next_server', ' / ')} next"

    def _option(self, number: int, view: ServerView) -> Option:
        shown = getattr(view.app, "view", None) is view if view.is_attached else number == 1
        return Option(server_entry(number, view, shown), id=f"server-{number}")

    def update_view(self, view: ServerView) -> None:
        """Redraw the entries that changed (the arrow follows the shown server;
        the state its server): the header asks on every view sync."""
        for number, one in enumerate(self.views, start=1):
            entry = server_entry(number, one, one is view.app.view)  # type: ignore[attr-defined]
            if entry.plain != self._shown.get(number):
                self._shown[number] = entry.plain
                self.replace_option_prompt(f"server-{number}", entry)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.app.show_server(self.views[event.option_index])  # type: ignore[attr-defined]
