"""The text at the top of the Tools pane's detail (`#tool-header`): the tool's
name, hints, task support, app, problems, icons, `_meta` and description."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from inspector.core.extensions.apps import tool_ui
from inspector.core.protocol.items import Item
from inspector.core.safetext import one_line, safe_json
from inspector.tui import looks
from inspector.tui.badges import hint_badges
from inspector.tui.gaps import hold_gaps
from inspector.tui.safe import plain, plain_line

__all__ = ["icon_line", "tool_header"]


def icon_line(icon: Any) -> Text:
    """One icon as text: where it comes from, its type and sizes (a data:
    URI is summarised; nothing is fetched or drawn)."""
    if not isinstance(icon, dict):
        return plain_line(f"not an object: {safe_json(icon)}", 120, style=looks.ERROR)
    src = icon.get("src")
    text = Text()
    if isinstance(src, str) and src.startswith("data:"):
        text.append_text(plain_line(src.split(",", 1)[0], 60))
        text.append(f",… ({len(src)} chars)", style="dim")
    else:
        text.append_text(plain_line(src if isinstance(src, str) else f"src: {safe_json(src)}", 120))
    facts = []
    for key in ("mimeType", "sizes", "theme"):
        value = icon.get(key)
        if value is not None:
            facts.append(" ".join(map(str, value)) if isinstance(value, list) else str(value))
    if facts:
        text.append_text(plain_line(f"  ({', '.join(facts)})", 80, style="dim"))
    return text


def tool_header(item: Item, preview_url: str | None = None) -> Text:
    """The tool's name, hints, app, problems, icons, `_meta` and description;
    `preview_url`: where its MCP App preview is being served."""
    text = Text()
    text.append_text(plain_line(item.display_name, 80, style="bold"))
    if item.title:
        text.append_text(plain_line(f"  ({item.name})", 60, style="dim"))
    text.append("\n")
    if preview_url is not None:
        # Kept in view (a toast goes away), right under the name so that a
        # short terminal's header shows it too: it may be opened on another machine.
        # The URL first: on a narrow pane it keeps a line of its own.
        text.append(preview_url, style=looks.ACCENT_STRONG)
        text.append("  the app's preview (alt+a again opens it in your browser)\n", style="dim")
    text.append_text(hint_badges(item.hints(), long=True))
    execution = item.data.get("execution")
    if isinstance(execution, dict) and execution.get("taskSupport"):
        text.append_text(plain_line(f"  tasks: {execution.get('taskSupport')}", 40, style=looks.INFO))
    _append_app(text, item, preview_url)
    for problem in item.problems:
        text.append("\n⚠ ", style=looks.ERROR_STRONG)
        text.append_text(plain(problem, style=looks.ERROR))
    _append_icons(text, item.data.get("icons"))
    if "_meta" in item.data:
        text.append("\n_meta: ", style="dim")
        text.append(one_line(safe_json(item.data["_meta"]), 300))
    if item.description:
        text.append("\n")
        text.append_text(plain(item.description))
    return hold_gaps(text)


def _append_app(text: Text, item: Item, preview_url: str | None) -> None:
    """The MCP App the tool declares, and what is wrong with it."""
    ui = tool_ui(item.data)
    if ui is None:
        return
    # Shown only: the app is served when the person runs `inspector app TOOL`.
    text.append("\napp: ", style="dim")
    text.append_text(plain_line(ui.summary(), 120, style=looks.ACCENT))
    if preview_url is None:
        text.append("  (preview: alt+a, or inspector app TOOL)", style="dim")
    for problem in ui.problems:
        text.append("\n⚠ app: ", style=looks.ERROR_STRONG)
        text.append_text(plain_line(problem, 120, style=looks.ERROR))


def _append_icons(text: Text, icons: Any) -> None:
    if isinstance(icons, list):
        for icon in icons:
            text.append("\nicon: ", style="dim")
            text.append_text(icon_line(icon))
    elif icons is not None:
        text.append_text(plain_line(f"\nicons is not an array: {safe_json(icons)}", 120, style=looks.ERROR))
