"""Command palette entries as "verb: object": call: TOOL, read: URI, get: PROMPT."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from rich.text import Text
from textual.command import Hit, Hits, Provider

from ..core.items import ListResult
from ..core.safetext import one_line

if TYPE_CHECKING:
    from .app import InspectorApp

__all__ = ["ServerCommands"]


class ServerCommands(Provider):
    def _entries(self) -> list[tuple[str, str, object]]:
        app: InspectorApp = self.app  # type: ignore[assignment]
        entries: list[tuple[str, str, object]] = []
        for item in app.lists.get("tools", _empty()).items:
            entries.append(
                (
                    f"call: {one_line(item.key, 60)}",
                    "call with the form's arguments (after the confirmation)",
                    partial(app.call_from_palette, item.key),
                )
            )
        for item in app.lists.get("resources", _empty()).items:
            entries.append(
                (
                    f"read: {one_line(item.key, 80)}",
                    "read this resource",
                    partial(app.open_resource, item.key),
                )
            )
        for item in app.lists.get("templates", _empty()).items:
            entries.append(
                (
                    f"expand: {one_line(item.key, 80)}",
                    "fill the template",
                    partial(app.select_item, "templates", item.key),
                )
            )
        for item in app.lists.get("prompts", _empty()).items:
            entries.append(
                (
                    f"get: {one_line(item.key, 60)}",
                    "fill the arguments and get",
                    partial(app.select_item, "prompts", item.key),
                )
            )
        if app.handlers.waiting:
            entries.append(
                (
                    "decline: all pending server requests",
                    f"decline the {len(app.handlers.waiting)} sampling / elicitation request(s) waiting for you",
                    app.handlers.decline_all,
                )
            )
        entries.append(("reconnect: server", "restart / reconnect the server", app.action_reconnect))
        entries.append(("toggle: traffic panel", "show or hide the bottom panel", app.action_toggle_bottom))
        entries.append(("help: keys", "every key binding", app.action_help))
        return entries

    async def discover(self) -> Hits:
        for name, help_text, callback in self._entries():
            yield Hit(1.0, Text(name), callback, text=name, help=help_text)  # type: ignore[arg-type]

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self._entries():
            score, offsets = matcher.fuzzy_search.match(query, name)
            if score > 0:
                # Textual's own highlight() parses the candidate as markup, and
                # these names come from the server: highlight plain text here.
                display = Text(name)
                for offset in offsets:
                    display.stylize("bold underline", offset, offset + 1)
                yield Hit(score, display, callback, text=name, help=help_text)  # type: ignore[arg-type]


def _empty() -> ListResult:
    return ListResult("none")
