"""Roots: the client's roots as the server will see them, editable."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from inspector.tui.panes.context import ServerContext
from inspector.tui.safe import plain_line
from inspector.tui.widgets.filter_list import FilterList

__all__ = ["RootsPane", "root_row"]

Root = dict[str, Any]


def root_row(root: Root) -> Text:
    """A root's line: its URI, then its name if it has one."""
    text = plain_line(str(root.get("uri")), 200, style="bold")
    if root.get("name"):
        text.append_text(plain_line(f"  {root['name']}", 60, style="dim"))
    return text


def _root_haystack(root: Root) -> str:
    return f"{root.get('uri')}\n{root.get('name') or ''}"


class RootsPane(Vertical):
    """The Roots tab: the roots the client offers, to add to and remove from."""

    BINDINGS = [Binding("delete", "remove_root", "Remove root", id="remove_root")]

    def __init__(self, server: ServerContext) -> None:
        super().__init__()
        self.server = server

    def compose(self) -> ComposeResult:
        yield Static(
            Text(
                "Roots the client offers (roots/list). Changes send notifications/roots/list_changed.",
                style="dim",
            )
        )
        yield FilterList(
            "Roots", root_row, haystack=_root_haystack, lines=1, placeholder="filter (URI, name)", id="roots-list"
        )
        with Horizontal():
            yield Input(placeholder="a directory path or file:// URI, then enter", id="root-input")
            yield Button("Add", id="root-add")

    def on_mount(self) -> None:
        self._render_roots()

    @property
    def roots_list(self) -> FilterList[Root]:
        """The list of roots."""
        return self.query_one("#roots-list", FilterList)

    def _render_roots(self) -> None:
        self.roots_list.set_items(list(self.server.roots))

    @on(Input.Submitted, "#root-input")
    @on(Button.Pressed, "#root-add")
    def _add(self) -> None:
        field = self.query_one("#root-input", Input)
        value = field.value.strip()
        if not value:
            return
        if value.startswith("file://"):
            uri, name = value, value.rstrip("/").rsplit("/", 1)[-1]
        else:
            path = Path(value).expanduser().resolve()
            uri, name = path.as_uri(), path.name or str(path)
        self.server.roots.append({"uri": uri, "name": name})
        field.value = ""
        self._render_roots()
        self._announce()

    def action_remove_root(self) -> None:
        root = self.roots_list.highlighted_item
        roots = self.server.roots
        # By identity: the filter may hide some, so the list's index is not the roots' index.
        for index, candidate in enumerate(roots):
            if candidate is root:
                roots.pop(index)
                self._render_roots()
                self._announce()
                return

    @work(group="roots")
    async def _announce(self) -> None:
        client = self.server.client
        if client.state == "connected":
            await client.roots_changed()
