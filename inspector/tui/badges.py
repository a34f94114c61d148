"""Annotation hint badges: explicit hints and assumed defaults look different.

An assumed hint (the spec's default for a hint the tool does not declare)
is dimmed and carries a trailing `?` everywhere, in the list too, so the
difference survives a terminal without colours."""

from __future__ import annotations

from rich.text import Text

from inspector.core.extensions.apps import tool_ui
from inspector.core.protocol.items import Hint, Item
from inspector.tui import looks
from inspector.tui.gaps import hold_gaps
from inspector.tui.safe import plain_line

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
        return looks.HINT_ABSENT_RISKY if risky else looks.HINT_ABSENT
    if risky:
        return looks.HINT_DESTRUCTIVE if hint.name == "destructiveHint" else looks.HINT_CAUTION
    return looks.HINT_SAFE


def hint_badges(hints: list[Hint], *, long: bool = False) -> Text:
    """The applicable hints as badges: padded blocks with a legend (`long`),
    or compact words separated by one space for a list row."""
    text = Text(no_wrap=True)
    for hint in hints:
        if not hint.applies:
            continue
        yes, no = _BADGES[hint.name]
        label = yes if hint.value else no
        if not hint.explicit:
            label += "?"
        if long:
            text.append(f" {label} ", style=_style(hint))
            text.append(" ")
        else:
            if text:
                text.append(" ")
            text.append(label, style=_style(hint))
    if long and any(not h.explicit for h in hints if h.applies):
        text.append("(? = assumed)", style=looks.HINT_ABSENT)
    return text


def tool_row(item: Item) -> Text:
    """Always two lines (the list cuts each at its width with an ellipsis):
    the display name, then the raw name and the compact badges.  The raw
    name comes first: it is what `call` takes, and on a narrow list the
    badges are what the ellipsis may cut (the detail shows them in full)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    if item.problems:
        text.append("⚠ ", style=looks.ERROR_STRONG)
    text.append_text(plain_line(item.display_name, 80, style="bold" if item.ok else looks.ERROR))
    if "_meta" in item.data and tool_ui(item.data) is not None:
        # An MCP App: the detail names it, alt+a previews it.
        text.append("  app", style=looks.APP)
    text.append("\n")
    if item.title and item.title != item.name:
        # The gap in the name's style: a run of bare spaces reads as nothing in a screenshot's text.
        # Muted, not dim: a terminal's dim (half way to the background) reads
        # under 3:1 on the list's surface on most built-in themes.
        text.append_text(plain_line(item.name, 60, style=looks.MUTED))
        text.append("  ", style=looks.MUTED)
    text.append_text(hint_badges(item.hints()))
    return hold_gaps(text)


def uri_row(item: Item, marker: tuple[str, str] | None = None) -> Text:
    """Two lines for a resource or template: the name, then the URI."""
    text = Text(no_wrap=True, overflow="ellipsis")
    if item.problems:
        text.append("⚠ ", style=looks.ERROR_STRONG)
    if marker is not None:
        text.append(*marker)
    text.append_text(plain_line(item.display_name, 50, style="bold"))
    text.append("\n")
    text.append_text(plain_line(item.key, 80, style=looks.MUTED))
    return hold_gaps(text)
