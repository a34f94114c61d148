"""Resources: the list, reading by type, directory listings, subscriptions with an updated mark."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...core.cache import duration_text
from ...core.client import DIRECTORY_MIME, DIRECTORY_READ
from ...core.errors import InspectorError
from ...core.items import Item, ListResult
from ..badges import uri_row
from ..keymap import key_hint
from ..safe import json_syntax, plain, plain_line
from ..widgets.content_view import BlockView
from ..widgets.item_list import ItemList

if TYPE_CHECKING:
    from ..server_view import ServerView

__all__ = ["DirectoryListing", "ResourcesPane", "contents_widgets"]


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


class DirectoryListing(OptionList):
    """A directory resource's children; enter reads a file or lists a subdirectory
    (`↑ ..` first, when the URI has a parent, lists that)."""

    DEFAULT_CSS = """
    DirectoryListing { height: auto; max-height: 100%; }
    """

    def __init__(self, uri: str, children: list[Item]) -> None:
        self.entries = children
        self.up = parent_uri(uri)
        options = [Option(_child_prompt(child)) for child in children]
        if self.up is not None:
            up = Text("↑ ..  ", style="bold cyan")
            up.append_text(plain_line(self.up, 160, style="dim"))
            options.insert(0, Option(up))
        super().__init__(*options, id="directory-listing")

    def target(self, index: int) -> tuple[str, bool] | None:
        """(uri, is a directory) of the option at `index`."""
        if self.up is not None:
            if index == 0:
                return self.up, True
            index -= 1
        if 0 <= index < len(self.entries):
            child = self.entries[index]
            return child.key, is_directory(child)
        return None


def parent_uri(uri: str) -> str | None:
    """The URI one level up (`skill://a/b` -> `skill://a`); None at the top of its scheme."""
    scheme, found, rest = uri.partition("://")
    if not found or "/" not in rest.rstrip("/"):
        return None
    return f"{scheme}://{rest.rstrip('/').rsplit('/', 1)[0]}"


def _child_prompt(child: Item) -> Text:
    directory = child.data.get("mimeType") == DIRECTORY_MIME
    text = Text("▸ " if directory else "  ", style="bold cyan" if directory else "")
    text.append_text(plain_line(child.display_name, 60, style="bold" if directory else ""))
    text.append("  ")
    text.append_text(plain_line(child.key, 160, style="dim"))
    mime = child.data.get("mimeType")
    if isinstance(mime, str) and not directory:
        text.append("  ")
        text.append_text(plain_line(f"({mime})", 60, style="dim"))
    for problem in child.problems:
        text.append("  ⚠ ", style="bold red")
        text.append_text(plain_line(problem, 120, style="red"))
    return text


def is_directory(item: Item | None) -> bool:
    return item is not None and item.data.get("mimeType") == DIRECTORY_MIME


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
    def inspector(self) -> ServerView:
        from ..server_view import owner_of

        return owner_of(self)

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
        self.read(event.item.key, directory=is_directory(event.item))

    def action_read(self) -> None:
        if self.current is not None:
            self.read(self.current.key, directory=is_directory(self.current))

    def action_reread(self) -> None:
        if self.current is not None:
            self.read(self.current.key, force=True, directory=is_directory(self.current))

    @on(OptionList.OptionSelected, "#directory-listing")
    def _child_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        listing = event.option_list
        target = listing.target(event.option_index) if isinstance(listing, DirectoryListing) else None
        if target is not None:
            self.read(target[0], directory=target[1])

    @work(group="read-resource", exclusive=True)
    async def read(self, uri: str, force: bool = False, directory: bool = False) -> None:
        area = self.query_one("#resource-contents", VerticalScroll)
        await area.remove_children()
        area.border_title = plain_line(uri, 120)
        client = self.inspector.client
        if directory and client.directory_read:
            await self._list_directory(area, uri)
            return
        if directory:
            note = f"a directory resource; the server does not declare {DIRECTORY_READ}, so it is read as a resource"
            await area.mount(Static(Text(note, style="dim")))
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

    async def _list_directory(self, area: VerticalScroll, uri: str) -> None:
        """`resources/directory/read`, every page: the children, the problems, how many pages."""
        try:
            listing = await self.inspector.client.read_directory(uri)
        except InspectorError as exc:
            await area.mount(Static(plain(f"✖ {exc}", style="bold red")))
            return
        pages = len(listing.pages)
        count = len(listing.items)
        summary = f"directory: {count} entr{'y' if count == 1 else 'ies'} ({pages} page{'s' if pages != 1 else ''})"
        await area.mount(Static(Text(summary, style="dim"), id="directory-summary"))
        for problem in listing.problems:
            await area.mount(Static(plain(f"⚠ {problem}", style="red")))
        await area.mount(DirectoryListing(uri, listing.items))

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
