"""A reopened recording shown in a server's view: the header says what the
recorded server was, the panes list what it listed, nothing is sent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import TabbedContent

from inspector.core.protocol.items import ListResult
from inspector.core.record.traffic import TrafficLog
from inspector.tui.list_loading import LIST_PANES
from inspector.tui.panes.bottom import BottomPanel
from inspector.tui.panes.server import ServerPane
from inspector.tui.widgets.status_bar import ConnectionFacts

if TYPE_CHECKING:
    from inspector.tui.server_view import ServerView

__all__ = ["show_recording"]


def show_recording(view: ServerView, path: str, traffic: TrafficLog) -> None:
    """Fill *view* from the recording at *path* (its *traffic*): facts, server pane, lists."""
    from inspector.core.record.recording_files import lists_from_traffic, opening

    era, result = opening(traffic)
    info = result.get("serverInfo") or (result.get("_meta") or {}).get("io.modelcontextprotocol/serverInfo") or {}
    view.facts = ConnectionFacts(
        server=str(info.get("title") or info.get("name") or path),
        version=str(info.get("version") or ""),
        transport="recording",
        revision=str(result.get("protocolVersion") or ", ".join(result.get("supportedVersions") or [])),
        state="offline",
        reason=f"read-only: {path}",
    )
    view.query_one(ServerPane).show_recording(path, era, result)
    # In place: the panes were handed this dict.
    view.lists.update(lists_from_traffic(traffic))
    for kind, pane in LIST_PANES.items():
        view.query_one(pane).set_listing(view.lists.get(kind) or ListResult(kind))  # type: ignore[attr-defined]
    view.query_one("#main", TabbedContent).hide_tab("tasks")
    view.query_one(BottomPanel).sync()
    view.notify(f"{len(traffic.frames)} frames from {path}; read-only, nothing is sent")
