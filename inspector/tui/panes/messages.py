"""What any pane may ask of its server's view (a pane's own requests are
message classes on the pane, as `ToolsPane.CallRequested`)."""

from __future__ import annotations

from textual.message import Message

__all__ = ["Notice", "ResourceRequested"]


class Notice(Message):
    """A toast about this server whose text may come from the server: the
    view shows it as plain text, named with the server's label when several
    servers share the window."""

    def __init__(self, text: str, *, title: str = "", severity: str = "information") -> None:
        super().__init__()
        self.text = text
        self.title = title
        self.severity = severity


class ResourceRequested(Message):
    """Read *uri* in the Resources pane (a resource link in a result)."""

    def __init__(self, uri: str) -> None:
        super().__init__()
        self.uri = uri
