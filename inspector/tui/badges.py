"""Annotation hint badges: explicit hints and assumed defaults look different."""

from __future__ import annotations

from rich.text import Text

from ..core.items import Hint, Item
from .safe import plain_line

__all__ = ["hint_badges", "tool_row", "uri_row"]

# name -> (label when true, label when false, style when true is risky)
_BADGES = {
    "readOnlyHint": ("RO", "RW"),
    "destructiveHint": ("DESTR", "SAFE"),
    "idempotentHint": ("IDEM", "NON-IDEM"),
    "openWorldHint": ("OPEN", "CLOSED"),
}


def _style(hint: Hint) -> str:
    risky = (hint.name == "destructiveHint" and hint.value) or (hint.name == "openWorldHint" and hint.value)
    risky = risky or (hint.name == "readOnlyHint" and not hint.value)
    if not hint.explicit:
        return "dim italic red" if risky else "dim italic"
    if risky:
        return "bold white on dark_red" if hint.name == "destructiveHint" else "bold yellow"
    return "green"


def hint_badges(hints: list[Hint], *, long: bool = False) -> Text:
    text = Text(no_wrap=True)
    for hint in hints:
        if not hint.applies:
            continue
        yes, no = _BADGES[hint.name]
        label = yes if hint.value else no
        if long and not hint.explicit:
            label += "?"
        text.append(f" {label} ", style=_style(hint))
        text.append(" ")
    if any(not h.explicit for h in hints if h.applies):
        text.append("(? = assumed)" if long else "", style="dim italic")
    return text


def tool_row(item: Item) -> Text:
    """Two lines: the display name, then the badges and the raw name."""
    text = Text(no_wrap=True, overflow="ellipsis")
    if item.problems:
        text.append("⚠ ", style="bold red")
    text.append_text(plain_line(item.display_name, 44, style="bold" if item.ok else "red"))
    text.append("\n")
    text.append_text(hint_badges(item.hints()))
    if item.title and item.title != item.name:
        text.append_text(plain_line(item.name, 24, style="dim"))
    return text


def uri_row(item: Item, marker: tuple[str, str] | None = None) -> Text:
    """Two lines for a resource or template: the name, then the URI."""
    text = Text(no_wrap=True, overflow="ellipsis")
    if item.problems:
        text.append("⚠ ", style="bold red")
    if marker is not None:
        text.append(*marker)
    text.append_text(plain_line(item.display_name, 50, style="bold"))
    text.append("\n")
    text.append_text(plain_line(item.key, 80, style="dim"))
    return text
