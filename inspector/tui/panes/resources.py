"""Resources: the list, reading by type, directory listings, subscriptions with an updated mark."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from inspector.core.protocol.cache import duration_text
from inspector.core.protocol.errors import InspectorError
from inspector.core.protocol.items import Item, ListResult
from inspector.core.protocol.listing import DIRECTORY_MIME, DIRECTORY_READ
from inspector.tui import looks
from inspector.tui.badges import uri_row
from inspector.tui.keymap import key_hint
from inspector.tui.panes.context import ServerContext
from inspector.tui.panes.messages import Notice
from inspector.tui.safe import plain, plain_line
from inspector.tui.widgets.big_text import json_widget
from inspector.tui.widgets.content_view import BlockView
from inspector.tui.widgets.item_list import ItemList
from inspector.tui.widgets.steady import SteadyScroll, SteadyStatic, set_text

__all__ = ["BackToDirectory", "DirectoryListing", "ResourcesPane", "contents_widgets"]


def contents_widgets(result: Any) -> list[Widget]:
    """`resources/read` contents, each a block drawn by its mimeType that can
    be focused and saved."""
    if not isinstance(result, dict) or not isinstance(result.get("contents"), list):
        return [
            Static(Text("the result has no contents array", style=looks.ERROR_STRONG)),
            json_widget(result),
        ]
    parts: list[Widget] = []
    for index, entry in enumerate(result["contents"]):
        if not isinstance(entry, dict):
            parts.append(Static(Text(f"invalid contents entry: {entry!r}", style=looks.ERROR)))
            continue
        parts.append(BlockView({"type": "resource", "resource": entry}, index))
    return parts


class DirectoryListing(OptionList):
    """A directory resource's children; enter reads a file or lists a subdirectory
    (`↑ ..` first, when the URI has a parent, lists that)."""

    def __init__(self, uri: str, children: list[Item], came_from: str | None = None) -> None:
        self.uri = uri
        self.entries = children
        self.up = parent_uri(uri)
        options = [Option(_child_prompt(child)) for child in children]
        if self.up is not None:
            up = Text("↑ ..  ", style=looks.INFO_STRONG)
            up.append_text(plain_line(self.up, 160, style="dim"))
            options.insert(0, Option(up))
        super().__init__(*options, id="directory-listing")
        # The child the person came back from (a subdirectory, a file read) is highlighted again.
        offset = 0 if self.up is None else 1
        keys = [child.key for child in children]
        if came_from in keys:
            self.highlighted = keys.index(came_from) + offset
        elif options:
            self.highlighted = offset if children else 0

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


class BackToDirectory(OptionList):
    """Above a file read from a directory listing: enter lists that directory again."""

    def __init__(self, directory: str, file: str) -> None:
        self.directory = directory
        self.file = file
        back = Text("↑ back to ", style=looks.INFO_STRONG)
        back.append_text(plain_line(directory, 160, style="dim"))
        super().__init__(Option(back), id="directory-back")
        self.highlighted = 0


def parent_uri(uri: str) -> str | None:
    """The URI one level up (`skill://a/b` -> `skill://a`); None at the top of its scheme."""
    scheme, found, rest = uri.partition("://")
    if not found or "/" not in rest.rstrip("/"):
        return None
    return f"{scheme}://{rest.rstrip('/').rsplit('/', 1)[0]}"


def _child_prompt(child: Item) -> Text:
    """One line a child: its name, its type, its URI (what a narrow pane cuts first)."""
    directory = child.data.get("mimeType") == DIRECTORY_MIME
    text = Text(
        "▸ " if directory else "  ", style=looks.INFO_STRONG if directory else "", no_wrap=True, overflow="ellipsis"
    )
    text.append_text(plain_line(child.display_name, 60, style="bold" if directory else ""))
    mime = child.data.get("mimeType")
    if isinstance(mime, str) and not directory:
        text.append("  ")
        text.append_text(plain_line(f"({mime})", 60, style="dim"))
    for problem in child.problems:
        text.append("  ⚠ ", style=looks.ERROR_STRONG)
        text.append_text(plain_line(problem, 120, style=looks.ERROR))
    text.append("  ")
    text.append_text(plain_line(child.key, 160, style="dim"))
    return text


def is_directory(item: Item | None) -> bool:
    """Whether *item* is a resource whose MIME type marks it a directory."""
    return item is not None and item.data.get("mimeType") == DIRECTORY_MIME


class ResourcesPane(Horizontal):
    """The Resources tab: the list, the chosen resource's contents, and subscriptions with an updated mark."""

    BINDINGS = [
        Binding("enter", "read", "Read", id="read_resource", show=False),
        Binding("escape", "to_list", "Back to the list", id="resources_to_list", show=False),
        Binding("ctrl+s", "toggle_subscription", "Subscribe", id="toggle_subscription"),
        Binding("ctrl+g", "reread", "Read again (no cache)", id="reread_resource", show=False),
    ]

    def __init__(self, server: ServerContext) -> None:
        super().__init__()
        self.server = server
        self.subscribed: set[str] = set()
        self.updated: set[str] = set()
        self.current: Item | None = None

    def compose(self) -> ComposeResult:
        yield ItemList("Resources", self._row, kind="resources", lines=2, on_highlight=self._show, id="resource-list")
        with Vertical(id="resource-detail"):
            yield SteadyStatic("No resource selected", id="resource-info")
            yield SteadyScroll(id="resource-contents")

    def _row(self, item: Item) -> Text:
        if item.key in self.updated:
            return uri_row(item, ("● ", looks.ACCENT_STRONG))
        return uri_row(item, ("◉ ", looks.INFO) if item.key in self.subscribed else None)

    def set_listing(self, listing: ListResult) -> None:
        """Show a fresh resources listing."""
        self.query_one(ItemList).set_listing(listing)

    def _show(self, item: Item | None) -> None:
        self.current = item
        info = self.query_one("#resource-info", Static)
        if item is None:
            set_text(info, "No resource selected", hold=True)
            return
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
        if self.server.client.server_capabilities.get("resources", {}).get("subscribe"):
            text.append(f"\n{state} ({key_hint(self.app, 'toggle_subscription')} toggles)", style=looks.INFO)
        if item.key in self.updated:
            text.append("\n● updated since last read", style=looks.ACCENT_STRONG)
        for problem in item.problems:
            text.append("\n⚠ ", style=looks.ERROR_STRONG)
            text.append_text(plain(problem, style=looks.ERROR))
        set_text(info, text, hold=True)

    @on(ItemList.Activated, "#resource-list")
    def _activated(self, event: ItemList.Activated) -> None:
        self.read(event.item.key, directory=is_directory(event.item))

    def action_read(self) -> None:
        if self.current is not None:
            self.read(self.current.key, directory=is_directory(self.current))

    def action_reread(self) -> None:
        if self.current is not None:
            self.read(self.current.key, force=True, directory=is_directory(self.current))

    def action_to_list(self) -> None:
        self.query_one(ItemList).focus_list()

    @on(OptionList.OptionSelected, "#directory-listing")
    def _child_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        listing = event.option_list
        target = listing.target(event.option_index) if isinstance(listing, DirectoryListing) else None
        if target is None or not isinstance(listing, DirectoryListing):
            return
        uri, directory = target
        if directory:
            # Up to the parent: the directory left is highlighted there.
            self.read(uri, directory=True, came_from=listing.uri if uri == listing.up else None)
        else:
            self.read(uri, listed_in=listing.uri)

    @on(OptionList.OptionSelected, "#directory-back")
    def _back_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        back = event.option_list
        if isinstance(back, BackToDirectory):
            self.read(back.directory, directory=True, came_from=back.file)

    @work(group="read-resource", exclusive=True)
    async def read(
        self,
        uri: str,
        force: bool = False,
        directory: bool = False,
        *,
        listed_in: str | None = None,
        came_from: str | None = None,
    ) -> None:
        """Read `uri` (list it, for a directory the server lets us list);
        `listed_in`: the directory listing it was chosen from (a way back is
        shown above the file); `came_from`: the child to highlight in a listing."""
        area = self.query_one("#resource-contents", VerticalScroll)
        await area.remove_children()
        area.border_title = plain_line(uri, 120)
        client = self.server.client
        if directory and client.directory_read:
            await self._list_directory(area, uri, came_from)
            return
        if listed_in is not None:
            back = BackToDirectory(listed_in, uri)
            await area.mount(back)
            back.focus()
        if directory:
            note = f"a directory resource; the server does not declare {DIRECTORY_READ}, so it is read as a resource"
            await area.mount(Static(Text(note, style="dim")))
        started = time.perf_counter()
        try:
            result, cached = await self.server.client.read_resource_cached(uri, refresh=force)
        except InspectorError as exc:
            await area.mount(Static(plain(f"✖ {exc}", style=looks.ERROR_STRONG)))
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

    async def _list_directory(self, area: VerticalScroll, uri: str, came_from: str | None = None) -> None:
        """`resources/directory/read`, every page: the children, the problems, how many pages."""
        try:
            listing = await self.server.client.read_directory(uri)
        except InspectorError as exc:
            await area.mount(Static(plain(f"✖ {exc}", style=looks.ERROR_STRONG)))
            return
        pages = len(listing.pages)
        count = len(listing.items)
        summary = f"directory: {count} entr{'y' if count == 1 else 'ies'} ({pages} page{'s' if pages != 1 else ''})"
        await area.mount(Static(Text(summary, style="dim"), id="directory-summary"))
        for problem in listing.problems:
            await area.mount(Static(plain(f"⚠ {problem}", style=looks.ERROR)))
        shown = DirectoryListing(uri, listing.items, came_from)
        await area.mount(shown)
        # The person asked for the listing: the keys go to it (escape: back to the list).
        shown.focus()

    @work(group="subscribe")
    async def action_toggle_subscription(self) -> None:
        item = self.current
        if item is None:
            return
        client = self.server.client
        if item.key in self.subscribed:
            await client.unsubscribe(item.key)
            self.subscribed.discard(item.key)
            self.post_message(Notice(f"unsubscribed from {item.key}"))
        else:
            await client.subscribe(item.key)
            self.subscribed.add(item.key)
            self.post_message(Notice(f"subscribed to {item.key}"))
        self.query_one(ItemList).refresh_rows()

    def mark_updated(self, uri: str) -> None:
        """Mark the resource at *uri* as updated in the list, and say so in a notice."""
        self.updated.add(uri)
        self.query_one(ItemList).refresh_rows()
        self.post_message(Notice(f"resource updated: {uri}"))
