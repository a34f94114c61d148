"""The list of one kind of server item (tools, resources, templates,
prompts): a filter list with cache facts and problems."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.binding import Binding
from textual.content import Content
from textual.message import Message

from inspector.core.protocol.cache import duration_text
from inspector.core.protocol.items import KIND_FIELDS, Item, ListResult
from inspector.core.safetext import one_line
from inspector.tui.widgets.filter_list import FilterList, RowLines, RowRenderer

__all__ = ["ItemList"]


def _item_haystack(item: Item) -> str:
    """An item's searchable text: its key, name (when not the key), title and description."""
    quick = _plain_haystack(item)
    if quick is not None:
        return quick
    # A resource's or template's key is its URI: its name is searched too.
    name = item.name if item.name != item.key else ""
    return "\n".join((item.key, name, item.title or "", item.description))


def _plain_haystack(item: Item) -> str | None:
    """`_item_haystack` read straight from the item's JSON, twice as quick
    (100,000 are made once a listing is in); None for an item with a field
    of another type than JSON gives, left to `Item`'s properties."""
    raw = item.raw
    if type(raw) is not dict:
        return None
    get = raw.get
    key, name, title, description = get(KIND_FIELDS[item.kind][1]), get("name"), get("title"), get("description")
    if type(key) is not str or _not_text(name) or _not_text(title) or _not_text(description):
        return None
    if not title and item.kind == "tools":
        annotations = get("annotations")
        title = annotations.get("title") if type(annotations) is dict else None
        if _not_text(title):
            return None
    return "\n".join((key, "" if name is None or name == key else name, title or "", description or ""))


def _not_text(value: object) -> bool:
    return value is not None and type(value) is not str


class ItemList(FilterList[Item]):
    """The list of one kind of server item, with its cache facts and problems."""

    BINDINGS = [
        Binding("r", "refresh(False)", "Refresh", id="refresh_list"),
        Binding("R", "refresh(True)", "Refresh (bypass cache)", id="force_refresh_list", show=False),
    ]

    class RefreshRequested(Message):
        """The person asked for the list again; *force*: bypassing the cache."""

        def __init__(self, item_list: ItemList, force: bool) -> None:
            super().__init__()
            self.item_list = item_list
            self.force = force

        @property
        def control(self) -> ItemList:
            """The list that sent the message."""
            return self.item_list

    def __init__(
        self,
        label: str,
        render_row: RowRenderer,
        *,
        kind: str = "",
        lines: RowLines | None = None,
        on_highlight: Callable[[Item | None], None] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(
            label,
            render_row,
            haystack=_item_haystack,
            lines=lines,
            placeholder="filter (name, title, description)",
            on_highlight=on_highlight,
            id=id,
        )
        self.kind = kind
        self.cache_note = ""
        self.problems: list[str] = []
        self._broken = 0

    def set_listing(self, listing: ListResult) -> None:
        """A fresh listing: its items (excluded ones last) and its cache facts."""
        note = ""
        if listing.from_cache:
            note = f"from cache, {duration_text(listing.age * 1000)} old (R bypasses)"
        elif listing.ttl_ms:
            note = f"ttl {duration_text(listing.ttl_ms)} {listing.cache_scope or ''}".rstrip()
        self.cache_note = note
        self.set_items([*listing.items, *listing.excluded], listing.problems)

    def action_refresh(self, force: bool) -> None:
        self.post_message(self.RefreshRequested(self, force))

    def set_items(self, items: list[Item], problems: list[str] | None = None) -> None:
        """Show *items* and the listing's *problems*, counting the items that have problems of their own."""
        self.problems = list(problems or [])
        # A list growing page by page is shown again every half second: only
        # the items added since are counted (a refresh has new item objects).
        before = self.items
        grown = 0 < len(before) <= len(items) and items[0] is before[0] and items[len(before) - 1] is before[-1]
        start, broken = (len(before), self._broken) if grown else (0, 0)
        self._broken = broken + sum(1 for item in items[start:] if item.problems)
        super().set_items(items)

    def _same(self, a: Item, b: Item) -> bool:
        # A refreshed listing has new objects: the same key is the same item.
        return a.key == b.key

    def _find(self, item: Item) -> int | None:
        key = item.key
        return next((i for i, candidate in enumerate(self.items) if candidate.key == key), None)

    def _update_title(self) -> None:
        super()._update_title()
        parts = []
        if self._broken:
            parts.append(f"⚠ {self._broken} with problems")
        elif self.problems:
            parts.append("⚠ " + self.problems[0])
        if self.cache_note:
            parts.append(self.cache_note)
        # Problems quote server text: a Text is never read as markup.
        subtitle = one_line(" · ".join(parts), 200)
        if Content(subtitle).markup != self.border_subtitle:
            self.border_subtitle = Text(subtitle)

    def select_key(self, key: str) -> bool:
        """Highlight the item with this key, clearing a filter that hides it."""
        index = next((i for i, item in enumerate(self.items) if item.key == key), None)
        if index is None:
            return False
        if self._row_of(index) is None:
            self.reset_filter()
        return self.highlight_index(index)
