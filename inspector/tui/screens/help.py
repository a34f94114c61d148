"""Every key the app has, gathered from the bindings themselves, so the help
cannot drift from the code; plus the few keys widgets handle in `on_key`."""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.keys import key_to_character
from textual.screen import ModalScreen
from textual.widgets import Static

from inspector.tui import looks
from inspector.tui.keymap import keys_in_force

__all__ = ["EXTRA_KEYS", "HelpScreen", "all_bindings", "key_names", "key_table", "where"]

# Keys that are not Binding objects: Textual's own, and keys widgets read in on_key.
EXTRA_KEYS = [
    ("tab / shift+tab", "move between fields and panes", "everywhere"),
    (
        "ctrl+p",
        "command palette: every action above, record on/off; call: TOOL (then confirm), read: URI, get: PROMPT,"
        " expand: TEMPLATE",
        "everywhere",
    ),
    ("enter", "focus the form (a prompt or template with nothing to fill: get / read it); read a resource", "lists"),
]

# Where each binding owner's keys work, in the order the help lists them.
_WHERE = {
    "InspectorApp": "everywhere",
    "FilterList": "any list",
    "ItemList": "tool / resource / template / prompt lists",
    "ToolsPane": "tools",
    "ArgumentsEditor": "tool arguments",
    "JsonArea": "raw JSON editors (arguments, composer)",
    "ResourcesPane": "resources",
    "TemplatesPane": "templates",
    "PromptsPane": "prompts",
    "RootsPane": "roots",
    "TasksPane": "tasks",
    "AuthPane": "auth",
    "TrafficPane": "traffic",
    "TrafficTable": "traffic / stderr / logs tables",
    "StderrPane": "stderr",
    "ProblemsPane": "problems",
    "BlockView": "a content block in a result",
    "ConfirmCallScreen": "call confirmation",
    "SamplingScreen": "sampling request",
    "ElicitationScreen": "elicitation request",
    "RoundScreen": "multi round-trip step",
    "ComposerScreen": "raw message composer",
    "ConnectErrorScreen": "connection error",
    "HelpScreen": "this help",
    "PickerApp": "server picker (before the inspector starts)",
    "RowList": "any list",
    "ServerView": "several servers in one window",
}

_KEY_NAMES = {"question_mark": "?", "slash": "/", "delete": "delete", "escape": "escape", "enter": "enter"}


def where(owner: type) -> str:
    """Where a binding of *owner* works, in the help's words: a known place, else its class name's words."""
    known = _WHERE.get(owner.__name__)
    if known is not None:
        return known
    words = re.findall(r"[A-Z][a-z]*", owner.__name__)
    return " ".join(w.lower() for w in words if w not in ("Pane", "Screen", "Widget")) or owner.__name__


def key_names(binding: Binding) -> str:
    """Every key of a binding, spelled out (not the footer's ^ shorthand)."""
    keys = [key.strip() for key in binding.key.split(",") if key.strip()]
    if binding.key_display and len(keys) == 1:
        return binding.key_display
    names = []
    for key in keys:
        name = _KEY_NAMES.get(key)
        if name is None:
            character = key_to_character(key) if len(key) > 1 and "+" not in key else None
            name = character if character and character.isprintable() else key
        names.append(name)
    return " / ".join(names)


def _modules() -> list[str]:
    """Every module of the TUI (some folders are namespace packages)."""
    root = Path(__file__).resolve().parent.parent
    names = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(("inspector", "tui", *parts)))
    return names


def all_bindings() -> list[tuple[type, Binding]]:
    """Each Binding as written in a class of the TUI, with that class."""
    found: list[tuple[type, Binding]] = []
    for name in _modules():
        module = importlib.import_module(name)
        for owner in vars(module).values():
            if not inspect.isclass(owner) or owner.__module__ != module.__name__:
                continue
            for binding in owner.__dict__.get("BINDINGS", []):
                if isinstance(binding, Binding):
                    found.append((owner, binding))
    order = list(_WHERE)
    found.sort(key=lambda pair: order.index(pair[0].__name__) if pair[0].__name__ in order else len(order))
    return found


def _rows(keymap: Mapping[str, str]) -> list[tuple[str, str, str, str]]:
    rows = []
    for owner, binding in all_bindings():
        description = binding.description or binding.action
        if binding.tooltip:
            description += f" ({binding.tooltip})"
        rows.append((key_names(keys_in_force(binding, keymap)), description, where(owner), binding.id or ""))
    return rows


def key_table(keymap: Mapping[str, str] | None = None, more: Sequence[tuple[str, str, str, str]] = ()) -> Table:
    """Every key (with a keymap: the keys it gives in place of the declared
    ones) and the binding's id, which a keymap names."""
    table = Table(box=None, show_header=True, header_style="bold", padding=(0, 2))
    table.add_column("key", style=looks.INFO_STRONG, no_wrap=True)
    table.add_column("action")
    table.add_column("where", style="dim")
    table.add_column("id (keymap)", style="dim", no_wrap=True)
    extra = [(key, description, place, "") for key, description, place in EXTRA_KEYS]
    for key, description, place, binding_id in [*_rows(keymap or {}), *more, *extra]:
        # Our own words, but never read as markup all the same.
        table.add_row(Text(key), Text(description), Text(place), Text(binding_id))
    return table


class HelpScreen(ModalScreen[None]):
    """Every key, what it does, where it works and its binding id (the keys as the keymap sets them)."""

    BINDINGS = [Binding("escape,q,f1,question_mark", "close", "Close", id="close_help")]

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = "Keys (escape closes)"
            # An app with keys of its own (`inspector demo`'s presenter keys) lists them too.
            more = getattr(self.app, "help_rows", ())
            yield Static(key_table(keymap=getattr(self.app, "keymap", {}), more=more), id="help-keys")

    def action_close(self) -> None:
        self.dismiss(None)
