"""Mutable state of one demo server instance, shared by its tools, resources and handlers.

Kept in one object built by `build_server()` (not module globals) so two servers in one process,
as in tests, never see each other's notes or subscriptions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, get_args

from mcp.server.context import ServerRequestContext
from mcp_types import LoggingLevel

LOG_LEVELS: tuple[LoggingLevel, ...] = get_args(LoggingLevel)
"""Every syslog level the protocol knows, least severe first."""

NOTES_URI = "demo://notes"
EXTRA_TOOL = "bonus_fortune"
EXTRA_PROMPT = "bonus_haiku"
EXTRA_RESOURCE = "demo://extras/bonus.txt"


@dataclass
class DemoState:
    """What one demo server remembers: the notes, the subscriptions and log levels per connection, the extras."""

    notes: list[str] = field(default_factory=lambda: ["First note: the demo server started."])
    notes_changed_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    subscriptions: dict[str, set[str]] = field(default_factory=dict)
    """Handshake-era `resources/subscribe` URIs, per connection."""
    log_levels: dict[str, LoggingLevel] = field(default_factory=dict)
    """Handshake-era `logging/setLevel` choice, per connection."""
    extras: set[str] = field(default_factory=set)
    """Which of "tool", "prompt", "resource" the `toggle_extras` tool has switched on."""

    def add_note(self, text: str) -> int:
        """Append a note; returns how many there are."""
        self.notes.append(text)
        self.notes_changed_at = datetime.now(UTC)
        return len(self.notes)

    def notes_text(self) -> str:
        """The notes as `demo://notes` reads: numbered, under when they last changed."""
        stamp = self.notes_changed_at.strftime("%Y-%m-%d %H:%M:%S UTC")
        lines = [f"{n}. {note}" for n, note in enumerate(self.notes, start=1)]
        return f"Notes (last changed {stamp})\n\n" + "\n".join(lines) + "\n"

    def wants_log(self, key: str, level: LoggingLevel) -> bool:
        """Whether connection *key*'s chosen level (debug until set) lets a message at *level* through."""
        threshold = self.log_levels.get(key, "debug")
        return LOG_LEVELS.index(level) >= LOG_LEVELS.index(threshold)


def connection_key(request_context: ServerRequestContext[Any, Any]) -> str:
    """A stable name for the client connection a request came in on.

    The SDK gives handlers no public handle on the connection, so this reads what the transport
    left on the request: the Streamable HTTP session header, or the legacy SSE `session_id` query
    parameter. stdio serves exactly one connection per process, hence the fixed fallback.
    """
    request = request_context.request
    headers = getattr(request, "headers", None)
    if headers is not None and (session := headers.get("mcp-session-id")):
        return f"http:{session}"
    query = getattr(request, "query_params", None)
    if query is not None and (session := query.get("session_id")):
        return f"sse:{session}"
    return "local"
