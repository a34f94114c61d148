"""Every key binding the app has, gathered from the bindings themselves."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

__all__ = ["HelpScreen", "key_table"]

EXTRA_KEYS = [
    ("tab / shift+tab", "move between fields and panes"),
    ("ctrl+p", "command palette: call: TOOL, read: URI, get: PROMPT, …"),
    ("/", "filter the focused list (escape clears)"),
    ("enter", "on a list: act on the item; on a resource link: read it"),
    ("y / n / escape", "answer a confirmation"),
]


def key_table(app_bindings: list[tuple[str, str, str]]) -> Table:
    table = Table(box=None, show_header=True, header_style="bold", padding=(0, 2))
    table.add_column("key", style="bold cyan", no_wrap=True)
    table.add_column("action")
    table.add_column("where", style="dim")
    for key, description, where in app_bindings:
        table.add_row(key, description, where)
    for key, description in EXTRA_KEYS:
        table.add_row(key, description, "")
    return table


def _collect(app: object) -> list[tuple[str, str, str]]:
    from ..panes.bottom import LogsPane, TrafficPane
    from ..panes.prompts import PromptsPane
    from ..panes.resources import ResourcesPane
    from ..panes.roots import RootsPane
    from ..panes.templates import TemplatesPane
    from ..panes.tools import ToolsPane
    from ..widgets.arguments import ArgumentsEditor

    rows: list[tuple[str, str, str]] = []
    owners = [
        ("everywhere", type(app)),
        ("tools", ToolsPane),
        ("arguments", ArgumentsEditor),
        ("resources", ResourcesPane),
        ("templates", TemplatesPane),
        ("prompts", PromptsPane),
        ("roots", RootsPane),
        ("traffic", TrafficPane),
        ("logs", LogsPane),
    ]
    for where, owner in owners:
        for binding in getattr(owner, "BINDINGS", []):
            if isinstance(binding, Binding):
                rows.append((binding.key_display or binding.key, binding.description, where))
    return rows


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,f1,question_mark", "close", "Close", id="close_help")]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90%; max-width: 110; height: 85%; border: thick $primary; background: $surface; padding: 1 2;
    }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = "Keys (escape closes)"
            yield Static(key_table(_collect(self.app)))

    def action_close(self) -> None:
        self.dismiss(None)
