"""Turning untrusted server text into things Textual can draw safely.

Server text is never markup: it becomes a `rich.text.Text` (which Textual
draws literally) after every control character was made visible.
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text

from inspector.core.safetext import one_line, safe_json, visible
from inspector.tui.looks import ThemedSyntax

__all__ = ["json_syntax", "json_text", "plain", "plain_line", "styled"]


def plain(text: Any, style: str | Style = "") -> Text:
    """Multi-line server text, inert."""
    return Text(visible(text if isinstance(text, str) else str(text)), style=style, no_wrap=False)


def plain_line(text: Any, limit: int | None = None, style: str | Style = "") -> Text:
    """One line of server text, inert, cut at `limit`."""
    return Text(one_line(text if isinstance(text, str) else str(text), limit), style=style, no_wrap=True)


def styled(*parts: tuple[str, str] | Text) -> Text:
    """Assemble our own labels (trusted) and server text (already a Text)."""
    out = Text()
    for part in parts:
        if isinstance(part, Text):
            out.append_text(part)
        else:
            out.append(part[0], style=part[1])
    return out


def json_text(value: Any) -> str:
    """Pretty JSON with every control character escaped (json.dumps leaves DEL, C1 and bidi raw)."""
    return safe_json(value, indent=2)


def json_syntax(value: Any) -> Syntax:
    """*value* as pretty JSON, control characters escaped, highlighted in the app theme's colours."""
    return ThemedSyntax(json_text(value), "json", word_wrap=True, background_color="default")
