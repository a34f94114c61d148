"""The always-visible header: who we talk to, how, and in what state."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from ...core.safetext import one_line

__all__ = ["ConnectionFacts", "StatusBar"]

_STATE_STYLE = {
    "idle": ("○", "dim"),
    "connecting": ("◌", "bold yellow"),
    "connected": ("●", "bold green"),
    "disconnected": ("✖", "bold red"),
    "closed": ("○", "dim"),
    "offline": ("▣", "bold blue"),
}


@dataclass(frozen=True)
class ConnectionFacts:
    server: str = ""
    version: str = ""
    transport: str = ""
    revision: str = ""
    state: str = "idle"
    reason: str = ""
    in_flight: int = 0
    server_requests: int = 0
    trusted_tools: tuple[str, ...] = field(default_factory=tuple)


class StatusBar(Widget):
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
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("MCP inspector ", style="bold")
        if facts.server:
            text.append("│ ", style="dim")
            text.append(one_line(facts.server, 40), style="bold")
            if facts.version:
                text.append(" " + one_line(facts.version, 20), style="dim")
            text.append(" ")
        if facts.transport:
            text.append("│ ", style="dim")
            text.append(facts.transport + " ")
        if facts.revision:
            text.append("│ ", style="dim")
            text.append(facts.revision + " ")
        icon, style = _STATE_STYLE.get(facts.state, ("?", ""))
        text.append("│ ", style="dim")
        text.append(f"{icon} {facts.state}", style=style)
        if facts.reason and facts.state in ("disconnected", "connecting"):
            text.append(": " + one_line(facts.reason, 60), style=style)
        text.append(" ")
        if facts.in_flight:
            text.append("│ ", style="dim")
            text.append(f"⧗ {facts.in_flight} in flight ", style="bold yellow")
        if facts.server_requests:
            text.append("│ ", style="dim")
            text.append(f"✉ {facts.server_requests} server request(s) waiting ", style="bold magenta")
        if facts.trusted_tools:
            text.append("│ ", style="dim")
            text.append(f"no-confirm: {', '.join(one_line(t, 20) for t in facts.trusted_tools)}", style="bold red")
        return text
