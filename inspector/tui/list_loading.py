"""A server's list fetched into its pane: the first page is shown as soon
as it arrives, and the list grows on screen while later pages come."""

from __future__ import annotations

import contextlib
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from rich.text import Text
from textual.css.query import NoMatches
from textual.timer import Timer
from textual.widget import Widget

from inspector.core.protocol.items import Item, ListResult
from inspector.tui.collector import lists_arriving, page_arrived
from inspector.tui.panes.prompts import PromptsPane
from inspector.tui.panes.resources import ResourcesPane
from inspector.tui.panes.templates import TemplatesPane
from inspector.tui.panes.tools import ToolsPane
from inspector.tui.timers import call_later
from inspector.tui.widgets.item_list import ItemList

if TYPE_CHECKING:
    from inspector.tui.server_view import ServerView

__all__ = ["LIST_CHANGED", "LIST_PANES", "load_list"]

# The lists a notification says have changed (fetched again when it comes).
LIST_CHANGED = {
    "notifications/tools/list_changed": ("tools",),
    "notifications/resources/list_changed": ("resources", "templates"),
    "notifications/prompts/list_changed": ("prompts",),
}

# While a long list arrives page by page, it is redrawn at most this often.
PAGE_PAINT_INTERVAL = 0.5
LIST_PANES: dict[str, type[Widget]] = {
    "tools": ToolsPane,
    "resources": ResourcesPane,
    "templates": TemplatesPane,
    "prompts": PromptsPane,
}


class _PagePainter:
    """The pane redrawn with the items so far: at once for the first page,
    then on a timer, so that redraws take at most a fifth of the loop."""

    def __init__(self, view: ServerView, pane: Widget, kind: str) -> None:
        self._view = view
        self._pane = pane
        self.arrived = ListResult(kind, complete=False)
        self._timer: Timer | None = None
        self._interval = PAGE_PAINT_INTERVAL

    def on_page(self, items: list[Item]) -> None:
        """Take in a page: shown now if it is the first, else at the next redraw."""
        first = not self.arrived.items
        self.arrived.items.extend(items)
        page_arrived()
        if first:
            self._show_so_far()
        elif self._timer is None:
            self._timer = call_later(self._view, self._interval, self._show_so_far)

    def stop(self) -> None:
        """No redraw after this (the whole listing is in, or its load failed)."""
        if self._timer is not None:
            self._timer.stop()
        with contextlib.suppress(NoMatches):
            self._pane.query_one(ItemList).arriving = False

    def _show_so_far(self) -> None:
        self._timer = None
        started = time.perf_counter()
        try:
            item_list = self._pane.query_one(ItemList)
        except NoMatches:
            return  # the pane is not composed yet: the whole listing will do
        arrived = self.arrived
        item_list.arriving = True
        self._pane.set_listing(replace(arrived, items=list(arrived.items)))  # type: ignore[attr-defined]
        item_list.border_subtitle = Text(f"loading… {len(arrived.items)} so far")
        # However costly a redraw of the list is, the redraws while
        # pages arrive take at most a fifth of the loop's time.
        self._interval = max(PAGE_PAINT_INTERVAL, 4 * (time.perf_counter() - started))


async def load_list(view: ServerView, kind: str, refresh: bool = True) -> None:
    """Fetch *view*'s list of *kind* into its pane (*refresh*: past the
    cache); the list grows every PAGE_PAINT_INTERVAL while pages come."""
    pane = view.query_one(LIST_PANES[kind])
    painter = _PagePainter(view, pane, kind)
    view.lists_loading += 1
    try:
        with lists_arriving():
            listing = await view.client.list_all(kind, refresh=refresh, on_page=painter.on_page)
    finally:
        view.lists_loading -= 1
        painter.stop()
        if not view.lists_loading:
            view.schedule_sync()  # the wire validation waited for the list
    view.lists[kind] = listing
    pane.set_listing(listing)  # type: ignore[attr-defined]
