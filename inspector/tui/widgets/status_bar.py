"""The always-visible bars: the header (who we talk to, how, and in what
state) and the key bar at the bottom (the keys that work here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.reactive import reactive
from textual.widget import Widget

from inspector.core.safetext import one_line
from inspector.tui import looks
from inspector.tui.gaps import hold_gaps

__all__ = ["ConnectionFacts", "KeyBar", "KeyEntry", "StatusBar"]

_STATE_STYLE = {
    "idle": ("○", "dim"),
    "connecting": ("◌", looks.WARNING_STRONG),
    "connected": ("●", looks.OK_STRONG),
    "disconnected": ("✖", looks.ERROR_STRONG),
    "closed": ("○", "dim"),
    "offline": ("▣", looks.INFO_STRONG),
}


@dataclass(frozen=True)
class ConnectionFacts:
    """What the header shows of a connection (and, with several servers, which one the panes show)."""

    server: str = ""
    version: str = ""
    transport: str = ""
    revision: str = ""
    state: str = "idle"
    reason: str = ""
    in_flight: int = 0
    server_requests: int = 0
    trusted_tools: tuple[str, ...] = field(default_factory=tuple)
    # With several servers in the window: which one the panes show ("2/3 NAME").
    showing: str = ""


class StatusBar(Widget):
    """The header line: the server and its version, transport, revision, state, calls in flight and what waits."""

    DEFAULT_CSS = """
    StatusBar {
        dock: top;
        height: 1;
        background: $panel;
        color: $foreground;
        padding: 0 1;
    }
    """

    facts: reactive[ConnectionFacts] = reactive(ConnectionFacts())

    def render(self) -> Text:
        facts = self.facts
        # What must stay in view (state, calls in flight, server requests
        # waiting, tools that skip the confirmation) is laid out first; the
        # server's name and version get the width left, so on a narrow
        # terminal a long name is cut rather than the facts after it.
        tail = _facts_text(facts)
        head = Text()
        if facts.showing:
            # Several servers: which one the panes show comes first, in the
            # app's title's place (its columns keep the state in view at 100).
            head.append(f"▶ {one_line(facts.showing, 40)} ", style="bold reverse")
        server = one_line(facts.server, 40)
        brand = "" if facts.showing else "MCP inspector "
        # The cells left for the name and version (a separator before, a space after).
        room = (self.content_size.width or 200) - head.cell_len - tail.cell_len - len("│  ")
        keep_brand = bool(brand) and (not server or room - len(brand) >= min(_NAME_AT_LEAST, len(server)))
        text = Text(no_wrap=True, overflow="ellipsis")
        if keep_brand:
            text.append(brand, style="bold")
            room -= len(brand)
        text.append_text(head)
        if server:
            if text:
                text.append("│ ", style="dim")
            else:
                room += len("│ ")
            name, version = _fit(server, one_line(facts.version, 20), room)
            text.append(name, style="bold")
            if version:
                text.append(" " + version, style="dim")
            text.append(" ")
        text.append_text(tail)
        return hold_gaps(text)


def _facts_text(facts: ConnectionFacts) -> Text:
    """The header's right part: transport, revision, state, calls in flight, and what waits."""
    tail = Text()
    if facts.transport:
        tail.append("│ ", style="dim")
        tail.append(facts.transport + " ")
    if facts.revision:
        tail.append("│ ", style="dim")
        tail.append(facts.revision + " ")
    icon, style = _STATE_STYLE.get(facts.state, ("?", ""))
    tail.append("│ ", style="dim")
    tail.append(f"{icon} {facts.state}", style=style)
    if facts.reason and facts.state in ("disconnected", "connecting"):
        tail.append(": " + one_line(facts.reason, 60), style=style)
    tail.append(" ")
    # Always there, so a person learns where to look before it matters.
    tail.append("│ ", style="dim")
    tail.append(f"⧗ {facts.in_flight} in flight ", style=looks.WARNING_STRONG if facts.in_flight else "dim")
    if facts.server_requests:
        tail.append("│ ", style="dim")
        tail.append(f"✉ {facts.server_requests} server request(s) waiting ", style=looks.ACCENT_STRONG)
    if facts.trusted_tools:
        tail.append("│ ", style="dim")
        tail.append(f"no-confirm: {', '.join(one_line(t, 20) for t in facts.trusted_tools)}", style=looks.ERROR_STRONG)
    return tail


# The fewest characters of a server's name the header keeps (dropping the
# "MCP inspector" before it first), however narrow.
_NAME_AT_LEAST = 12


def _fit(name: str, version: str, room: int) -> tuple[str, str]:
    """The name and version cut to *room* cells: the version goes first, then
    the name is cut (never below `_NAME_AT_LEAST`)."""
    if len(name) + (len(version) + 1 if version else 0) <= room:
        return name, version
    left_for_version = room - len(name) - 1
    if version and left_for_version >= 8:
        return name, one_line(version, left_for_version)
    return one_line(name, max(room, _NAME_AT_LEAST)), ""


class KeyEntry(NamedTuple):
    """A key the key bar offers: the key, how it is shown, what it does, whether it works now, and its action."""

    key: str
    display: str
    description: str
    enabled: bool
    action: str

    @property
    def width(self) -> int:
        """The cells it takes in the bar, its spaces included."""
        return len(self.display) + len(self.description) + 3


class KeyBar(Widget):
    """The bottom line of keys: the app's, then a few of the focused widget's.

    Textual's Footer lists the focused widget's keys first and cuts the line
    at the terminal's edge, so on a narrow terminal the app's own keys
    (help, reconnect) fell off.  Here the app's keys come first and always
    fit; the focused widget and its parents get the rest of the width, at
    most `max_local` keys.  Every key is on the help screen.
    """

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-foreground;
    }
    KeyBar > .key-bar--key { color: $footer-key-foreground; text-style: bold; }
    KeyBar > .key-bar--description { color: $footer-description-foreground; }
    KeyBar > .key-bar--disabled { color: $text-disabled; }
    KeyBar > .key-bar--separator { color: $foreground-muted; }
    """

    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description", "key-bar--disabled", "key-bar--separator"}

    def __init__(self, *, max_local: int = 4, id: str | None = None) -> None:
        super().__init__(id=id)
        self.max_local = max_local
        # (start, end, key) of each key drawn, for clicks.
        self._spots: list[tuple[int, int, str]] = []

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: Any) -> None:
        self.refresh()

    def keys(self) -> tuple[list[KeyEntry], list[KeyEntry]]:
        """The shown keys: (the focused widget's and its parents', the app's)."""
        local: list[KeyEntry] = []
        app_keys: list[KeyEntry] = []
        seen: set[tuple[int, str]] = set()
        app = self.app
        active = self.screen.active_bindings
        for node, binding, enabled, _tooltip in active.values():
            if not binding.show or (id(node), binding.action) in seen:
                continue
            seen.add((id(node), binding.action))
            entry = KeyEntry(binding.key, app.get_key_display(binding), binding.description, enabled, binding.action)
            (app_keys if node is app else local).append(entry)
        # The app's keys in the order the app lists them (Textual's own quit would come first).
        order = [binding.action for binding in getattr(type(app), "BINDINGS", []) if isinstance(binding, Binding)]
        app_keys.sort(key=lambda entry: order.index(entry.action) if entry.action in order else len(order))
        # What the arrows do where focus is, when that is not plain to see
        # (a table beside a scrolling detail): first among the local keys.
        hint = getattr(self.screen.focused, "arrow_hint", None)
        if isinstance(hint, str) and hint:
            local.insert(0, KeyEntry("down", "↑↓", hint, True, "arrows"))
        palette = active.get(app.COMMAND_PALETTE_BINDING)
        if app.ENABLE_COMMAND_PALETTE and palette is not None and palette.node is app:
            binding = palette.binding
            app_keys.append(KeyEntry(binding.key, app.get_key_display(binding), "Palette", True, binding.action))
        return local, app_keys

    def render(self) -> Text:
        local, app_keys = self.keys()
        key_style = self.get_component_rich_style("key-bar--key", partial=True)
        description_style = self.get_component_rich_style("key-bar--description", partial=True)
        disabled_style = self.get_component_rich_style("key-bar--disabled", partial=True)
        separator_style = self.get_component_rich_style("key-bar--separator", partial=True)
        room = self.size.width - sum(entry.width for entry in app_keys) - 2
        shown: list[KeyEntry] = []
        for entry in local[: self.max_local]:
            if entry.width > room:
                break
            shown.append(entry)
            room -= entry.width
        text = Text(no_wrap=True, overflow="crop")
        spots: list[tuple[int, int, str]] = []

        def add(entry: KeyEntry) -> None:
            start = len(text)
            text.append(" ")
            text.append(entry.display, style=key_style if entry.enabled else disabled_style)
            text.append(f" {entry.description} ", style=description_style if entry.enabled else disabled_style)
            spots.append((start, len(text), entry.key))

        for entry in app_keys:
            add(entry)
        if shown:
            text.append("│", style=separator_style)
            for entry in shown:
                add(entry)
        self._spots = spots
        return hold_gaps(text)

    def on_click(self, event: events.Click) -> None:
        for start, end, key in self._spots:
            if start <= event.x < end:
                self.app.simulate_key(key)
                return
