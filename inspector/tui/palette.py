"""Command palette entries.

`ServerCommands`: "verb: object" for what the server offers (call: TOOL,
read: URI, expand: TEMPLATE, get: PROMPT). `ActionCommands`: every action
of the app, taken from the bindings themselves (so a new binding shows up
here without a line written for it), with the keys in force after the
keymap; plus the bindings of whatever has focus, and the few actions that
have no key of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from rich.text import Text
from textual.binding import Binding
from textual.command import Hit, Hits, Provider

from inspector.core.protocol.items import ListResult
from inspector.core.safetext import one_line
from inspector.tui.keymap import keys_in_force

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.screen import Screen

    from inspector.tui.app import InspectorApp

__all__ = ["ActionCommands", "PaletteEntry", "ServerCommands", "action_entries", "binding_title"]


class PaletteEntry(NamedTuple):
    """A palette command: its title, its help line, and what choosing it runs."""

    title: str
    help: str
    run: Callable[[], Any]


# How an app binding reads in the palette, by the action's name: the key
# bar's one word ("Tools", "Panel") says little without the key beside it.
_TITLES = {
    "show_tab": "go to: {description} pane",
    "show_bottom": "panel: {description} tab",
    "toggle_bottom": "panel: show / hide",
    "help": "help: every key",
    "reconnect": "reconnect: restart / reconnect the server",
    "jump": "jump: a letter per field in view",
}

# Actions of a pane that the palette offers wherever focus is: (binding id, pane class name).
PANE_ACTIONS = (
    ("copy_command", "ToolsPane"),
    ("cancel_call", "ToolsPane"),
    ("toggle_mrtr_steps", "ToolsPane"),
    ("traffic_compose", "TrafficPane"),
)


def binding_title(binding: Binding) -> str:
    """How an app binding reads in the palette: its description, worded for its action where `_TITLES` says how."""
    name = binding.action.split("(", 1)[0]
    template = _TITLES.get(name)
    description = binding.description or name
    if template is None:
        return description
    return template.format(description=description)


def _key_help(app: InspectorApp, binding: Binding) -> str:
    from inspector.tui.screens.help import key_names

    return key_names(keys_in_force(binding, app.keymap))


def _app_entries(app: InspectorApp) -> Iterable[PaletteEntry]:
    seen: set[str] = set()
    for binding in type(app).BINDINGS:
        # One entry per action: the first binding of it names its key.
        if not isinstance(binding, Binding) or binding.action in seen:
            continue
        seen.add(binding.action)
        title = binding_title(binding)
        help_text = f"key: {_key_help(app, binding)}"
        if binding.tooltip and binding.tooltip not in title:
            help_text += f"; {binding.tooltip}"
        yield PaletteEntry(title, help_text, partial(app.run_action, binding.action))


def _focused_entries(app: InspectorApp, screen: Screen[Any]) -> Iterable[tuple[DOMNode, Binding]]:
    """Our own bindings on the focused widget and its parents (not the app's)."""
    from textual.app import App

    seen: set[tuple[int, str]] = set()
    for active in screen.active_bindings.values():
        node, binding = active.node, active.binding
        if isinstance(node, App) or not type(node).__module__.startswith("inspector."):
            continue
        if not active.enabled or (id(node), binding.action) in seen:
            continue
        seen.add((id(node), binding.action))
        yield node, binding


def action_entries(app: InspectorApp, screen: Screen[Any]) -> list[PaletteEntry]:
    """Every action the palette offers over *screen*: the app's bindings, those of what has focus, a few panes'
    actions, the matrix, the servers' entries and recording."""
    from inspector.tui.screens.help import where
    from inspector.tui.servers_compare import server_entries

    entries = list(_app_entries(app))
    taken: set[tuple[str, str]] = set()
    for node, binding in _focused_entries(app, screen):
        taken.add((type(node).__name__, binding.action))
        # As declared (every key it has), not the one key the map filed it under.
        declared = _binding_by_id(node, binding.id) if binding.id else None
        entries.append(
            PaletteEntry(
                f"{binding.description or binding.action} ({where(type(node))})",
                f"key: {_key_help(app, declared or binding)}",
                partial(app.run_action, binding.action, node),
            )
        )
    for binding_id, pane_name in PANE_ACTIONS:
        pane = next((node for node in app.view.query("*") if type(node).__name__ == pane_name), None)
        pane_binding = _binding_by_id(pane, binding_id) if pane is not None else None
        if pane is None or pane_binding is None or (pane_name, pane_binding.action) in taken:
            continue
        entries.append(
            PaletteEntry(
                f"{pane_binding.description} ({where(type(pane))})",
                f"key: {_key_help(app, pane_binding)} in the {where(type(pane))} pane",
                partial(app.run_action, pane_binding.action, pane),
            )
        )
    if app.recording is None:
        entries.append(
            PaletteEntry(
                "matrix: every revision, era and transport",
                "the server under each protocol revision it accepts, on connections of its own: what differs",
                partial(_open_matrix, app),
            )
        )
    entries.extend(server_entries(app))
    recording = app.recording_path
    entries.append(
        PaletteEntry(
            "record: stop" if recording else "record: start",
            f"stop writing the traffic to {recording}"
            if recording
            else "write this session's traffic to a JSON Lines file (inspector open / replay read it)",
            app.action_toggle_record,
        )
    )
    return entries


def _open_matrix(app: InspectorApp) -> None:
    from inspector.tui.screens.matrix import MatrixScreen

    app.push_screen(MatrixScreen(app.spec))


def _binding_by_id(node: DOMNode, binding_id: str) -> Binding | None:
    for owner in type(node).__mro__:
        for binding in owner.__dict__.get("BINDINGS", []):
            if isinstance(binding, Binding) and binding.id == binding_id:
                return binding
    return None


class _Entries(Provider):
    def _entries(self) -> list[tuple[str, str, object]]:
        raise NotImplementedError

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


class ActionCommands(_Entries):
    """The palette's actions, each with the keys in force."""

    def _entries(self) -> list[tuple[str, str, object]]:
        app: InspectorApp = self.app  # type: ignore[assignment]
        return [tuple(entry) for entry in action_entries(app, self.screen)]  # type: ignore[misc]


class ServerCommands(_Entries):
    """The palette's "verb: object" entries for what the shown server offers, and declining the requests that wait."""

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
        return entries


def _empty() -> ListResult:
    return ListResult("none")
