"""Resources: the list, reading by type, subscriptions with an updated mark."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from ...core.cache import duration_text
from ...core.errors import InspectorError
from ...core.items import Item, ListResult
from ..badges import uri_row
from ..keymap import key_hint
from ..safe import json_syntax, plain, plain_line
from ..widgets.content_view import BlockView
from ..widgets.item_list import ItemList

if TYPE_CHECKING:
    from ..app import InspectorApp

__all__ = ["ResourcesPane", "contents_widgets"]


def contents_widgets(result: Any) -> list[Widget]:
    """`resources/read` contents, each a block drawn by its mimeType that can
    be focused and saved."""
    if not isinstance(result, dict) or not isinstance(result.get("contents"), list):
        return [
            Static(Text("the result has no contents array", style="bold red")),
            Static(json_syntax(result)),
        ]
    parts: list[Widget] = []
    for index, entry in enumerate(result["contents"]):
        if not isinstance(entry, dict):
            parts.append(Static(Text(f"invalid contents entry: {entry!r}", style="red")))
            continue
        parts.append(BlockView({"type": "resource", "resource": entry}, index))
    return parts


class ResourcesPane(Horizontal):
    BINDINGS = [
        Binding("enter", "read", "Read", id="read_resource", show=False),
        Binding("ctrl+s", "toggle_subscription", "Subscribe", id="toggle_subscription"),
        Binding("ctrl+g", "reread", "Read again (no cache)", id="reread_resource", show=False),
    ]

    DEFAULT_CSS = """
    ResourcesPane > ItemList { width: 40%; min-width: 28; }
    ResourcesPane > #resource-detail { width: 1fr; }
    #resource-info { height: auto; max-height: 10; border: round $primary-muted; padding: 0 1; }
    #resource-contents { height: 1fr; border: round $primary-muted; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.subscribed: set[str] = set()
        self.updated: set[str] = set()
        self.current: Item | None = None

    @property
    def inspector(self) -> InspectorApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield ItemList("Resources", self._row, kind="resources", lines=2, id="resource-list")
        with Vertical(id="resource-detail"):
            yield Static("No resource selected", id="resource-info")
            yield VerticalScroll(id="resource-contents")

    def _row(self, item: Item) -> Text:
        if item.key in self.updated:
            return uri_row(item, ("● ", "bold magenta"))
        return uri_row(item, ("◉ ", "cyan") if item.key in self.subscribed else None)

    def set_listing(self, listing: ListResult) -> None:
        self.query_one(ItemList).set_listing(listing)

    @on(ItemList.Highlighted, "#resource-list")
    def _show(self, event: ItemList.Highlighted) -> None:
        self.current = event.item
        info = self.query_one("#resource-info", Static)
        if event.item is None:
            info.update("No resource selected")
            return
        item = event.item
        text = Text()
        text.append_text(plain_line(item.display_name, 80, style="bold"))
        text.append("\n")
        text.append_text(plain_line(item.key, 200, style="underline"))
        for key in ("mimeType", "size"):
            if key in item.data:
                text.append(f"\n{key}: ", style="dim")
                text.append_text(plain_line(str(item.data[key]), 80))
        if item.description:
            text.append("\n")
            text.append_text(plain(item.description))
        state = "subscribed" if item.key in self.subscribed else "not subscribed"
        if self.inspector.client.server_capabilities.get("resources", {}).get("subscribe"):
            text.append(f"\n{state} ({key_hint(self.app, 'toggle_subscription')} toggles)", style="cyan")
        if item.key in self.updated:
            text.append("\n● updated since last read", style="bold magenta")
        for problem in item.problems:
            text.append("\n⚠ ", style="bold red")
            text.append_text(plain(problem, style="red"))
        info.update(text)

    @on(ItemList.Activated, "#resource-list")
    def _activated(self, event: ItemList.Activated) -> None:
        self.read(event.item.key)

    def action_read(self) -> None:
        if self.current is not None:
            self.read(self.current.key)

    def action_reread(self) -> None:
        if self.current is not None:
            self.read(self.current.key, force=True)

    @work(group="read-resource", exclusive=True)
    async def read(self, uri: str, force: bool = False) -> None:
        area = self.query_one("#resource-contents", VerticalScroll)
        await area.remove_children()
        area.border_title = plain_line(uri, 120)
        started = time.perf_counter()
        try:
            result, cached = await self.inspector.client.read_resource_cached(uri, refresh=force)
        except InspectorError as exc:
            await area.mount(Static(plain(f"✖ {exc}", style="bold red")))
            return
        elapsed = time.perf_counter() - started
        self.updated.discard(uri)
        if cached is not None:
            note = (
                f"served from cache ({duration_text(cached.age * 1000)} old, ttl {duration_text(cached.ttl_ms)}); "
                f"{key_hint(self.app, 'reread_resource')} reads again"
            )
        else:
            note = f"read in {elapsed * 1000:.1f} ms"
            ttl = result.get("ttlMs") if isinstance(result, dict) else None
            if isinstance(ttl, int):
                note += f"; ttl {duration_text(ttl)}, scope {result.get('cacheScope')}"
        await area.mount(Static(Text(note, style="dim")))
        await area.mount_all(contents_widgets(result))
        self.query_one(ItemList).refresh_rows()

    @work(group="subscribe")
    async def action_toggle_subscription(self) -> None:
        item = self.current
        if item is None:
            return
        client = self.inspector.client
        if item.key in self.subscribed:
            await client.unsubscribe(item.key)
            self.subscribed.discard(item.key)
            self.inspector.notify_plain(f"unsubscribed from {item.key}")
        else:
            await client.subscribe(item.key)
            self.subscribed.add(item.key)
            self.inspector.notify_plain(f"subscribed to {item.key}")
        self.query_one(ItemList).refresh_rows()

    def mark_updated(self, uri: str) -> None:
        self.updated.add(uri)
        self.query_one(ItemList).refresh_rows()
        self.inspector.notify_plain(f"resource updated: {uri}")
