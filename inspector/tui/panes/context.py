"""What a server's panes read of it, handed down by its view.

A pane never walks up the tree to its `ServerView`: the view builds one
`ServerContext` and gives it to each pane it composes.  What changes while
the view lives (whether a revision was negotiated, how many lists are
loading) reaches a pane as a reactive the view binds (`data_bind`); what a
pane wants done it posts as a message (`inspector.tui.panes.messages` and
the pane's own message classes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.core.protocol.client import Client
from inspector.core.protocol.items import ListResult
from inspector.core.record.traffic import TrafficLog
from inspector.core.servers.spec import ServerSpec

__all__ = ["ServerContext"]


@dataclass(frozen=True)
class ServerContext:
    """One server as its panes see it: the same objects for the view's whole life."""

    spec: ServerSpec
    client: Client
    traffic: TrafficLog
    # The roots the client offers (roots/list): the Roots pane edits this list.
    roots: list[dict[str, Any]]
    # The last full listing of each kind (tools, resources, ...), as the view loaded it.
    lists: dict[str, ListResult]
    # A reopened recording: everything is shown, nothing is sent.
    recording: bool
