"""Server: identity, negotiated revision, capabilities, instructions."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from inspector.core.protocol.client import Client
from inspector.tui import looks
from inspector.tui.safe import json_text, plain, plain_line

__all__ = ["ServerPane"]


def json_syntax_text(value: object) -> Text:
    """*value* as indented JSON in plain text, control characters escaped (no highlighting)."""
    return Text(json_text(value))


class ServerPane(VerticalScroll):
    """The Server tab: identity, negotiated revision, transport, capabilities, instructions and the opening result."""

    def compose(self) -> ComposeResult:
        yield Static("not connected", id="server-identity")
        yield Static("", id="server-capabilities")
        yield Static("", id="server-instructions")
        yield Static("", id="server-raw")

    def show_recording(self, path: str, era: str, result: dict[str, object]) -> None:
        """Show what a recording at *path* says of its server: its era and its recorded opening *result*."""
        text = Text("Recording ", style="bold")
        text.append_text(plain_line(path, 160))
        text.append(f"\n{era} era (from the recorded handshake / discovery)", style="dim")
        self.query_one("#server-identity", Static).update(text)
        capabilities = result.get("capabilities")
        self.query_one("#server-capabilities", Static).update(
            json_syntax_text(capabilities if capabilities is not None else {})
        )
        instructions = result.get("instructions")
        self.query_one("#server-instructions", Static).update(
            plain(instructions) if isinstance(instructions, str) else Text("no instructions", style="dim")
        )
        self.query_one("#server-raw", Static).update(
            Text.assemble(("recorded opening result\n", "bold"), json_syntax_text(result))
        )

    def show(self, client: Client) -> None:
        """Show what the connected *client* learnt of its server."""
        info = client.server_info
        text = Text()
        text.append_text(plain_line(str(info.get("title") or info.get("name") or "?"), 80, style="bold"))
        for key in ("name", "version", "description", "websiteUrl"):
            if key in info:
                text.append(f"\n{key}: ", style="dim")
                text.append_text(plain_line(str(info[key]), 120))
        text.append("\nprotocol: ", style="dim")
        text.append(f"{client.protocol_version} ({client.era} era; offered {client.offered_version})")
        if client.transport is not None:
            text.append("\ntransport: ", style="dim")
            text.append_text(plain_line(client.transport.describe(), 160))
        modern = client.modern
        if modern is not None:
            _append_modern(text, client, modern.supported_versions)
        self.query_one("#server-identity", Static).update(text)
        capabilities = Text("Capabilities\n", style="bold")
        capabilities.append_text(Text(", ".join(sorted(client.server_capabilities)) or "(none)"))
        self.query_one("#server-capabilities", Static).update(capabilities)
        instructions = client.instructions
        self.query_one("#server-instructions", Static).update(
            plain(instructions) if instructions else Text("no instructions", style="dim")
        )
        # What opened the connection: a stateless-era server answered server/discover.
        opening = "server/discover result" if modern is not None else "initialize result"
        self.query_one("#server-raw", Static).update(
            Text.assemble((f"{opening}\n", "bold"), json_syntax_text(client.initialize_result))
        )


def _append_modern(text: Text, client: Client, supported: list[str]) -> None:
    """What a stateless-era server said in discovery, and its listen subscription."""
    text.append("\nsupported versions: ", style="dim")
    text.append_text(plain_line(", ".join(supported) or "(none listed)", 120))
    result = client.initialize_result
    for key in ("ttlMs", "cacheScope", "resultType"):
        if key in result:
            text.append(f"\n{key}: ", style="dim")
            text.append_text(plain_line(str(result[key]), 60))
    extensions = client.server_capabilities.get("extensions")
    if isinstance(extensions, dict):
        text.append("\nextensions: ", style="dim")
        text.append_text(plain_line(", ".join(extensions) or "(none)", 160))
    subscription = client.subscription
    if subscription is None:
        return
    text.append("\nlisten subscription: ", style="dim")
    if subscription.acknowledged is None:
        text.append("waiting for acknowledgement", style=looks.WARNING)
        return
    granted = ", ".join(k for k, v in subscription.acknowledged.items() if v) or "nothing"
    text.append_text(plain_line(f"#{subscription.id} honours {granted}", 160))
    if subscription.refused:
        text.append_text(plain_line(f"; not honoured: {', '.join(subscription.refused)}", 120, style=looks.WARNING))
