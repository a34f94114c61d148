"""Filterable lists: server items (tools, resources, templates, prompts) and
the app's own lists (roots, tasks) share the `/` filter and the row rules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from ...core.cache import duration_text
from ...core.items import Item, ListResult
from ...core.safetext import one_line

__all__ = ["FilterList", "ItemList"]

T = TypeVar("T")
RowRenderer = Callable[[Item], Text]


class FilterList(Vertical, Generic[T]):
    """A bordered option list with a `/` filter box.

    Rows never wrap: every line is cut with an ellipsis at the list's width,
    so each row keeps the height it was designed with whatever the width,
    the scrollbar or the server's names (a row that wrapped made rows of
    different heights and the option list's line cache went stale).
    """

    DEFAULT_CSS = """
    FilterList { border: round $primary-muted; width: 1fr; }
    FilterList:focus-within { border: round $primary; }
    FilterList > Input { display: none; height: 3; }
    FilterList.filtering > Input { display: block; }
    FilterList > OptionList { height: 1fr; border: none; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    BINDINGS = [
        Binding("slash", "filter", "Filter", key_display="/", id="filter_list"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="clear_filter"),
    ]

    class Highlighted(Message):
        def __init__(self, item_list: FilterList[Any], item: Any) -> None:
            super().__init__()
            self.item_list = item_list
            self.item = item

        @property
        def control(self) -> FilterList[Any]:
            return self.item_list

    class Activated(Message):
        def __init__(self, item_list: FilterList[Any], item: Any) -> None:
            super().__init__()
            self.item_list = item_list
            self.item = item

        @property
        def control(self) -> FilterList[Any]:
            return self.item_list

    def __init__(
        self,
        label: str,
        render_row: Callable[[T], Text],
        *,
        haystack: Callable[[T], str] = str,
        placeholder: str = "filter",
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.label = label
        self.render_row = render_row
        self.haystack = haystack
        self.placeholder = placeholder
        self.items: list[T] = []
        self.shown: list[T] = []
        self.filter_text = ""
        # The item last highlighted: a filter that hid everything and is
        # then cleared comes back to it, not to the first row.
        self._last: T | None = None

    def compose(self) -> ComposeResult:
        yield Input(placeholder=self.placeholder, id="filter")
        yield OptionList(id="options")

    def on_mount(self) -> None:
        self._update_title()

    @property
    def options(self) -> OptionList:
        return self.query_one("#options", OptionList)

    def set_items(self, items: list[T]) -> None:
        """Replace the items; the highlighted one stays highlighted if it still exists."""
        current = self.highlighted_item
        self.items = list(items)
        self._apply_filter(keep=current)

    def _matches(self, item: T) -> bool:
        if not self.filter_text:
            return True
        return self.filter_text.lower() in self.haystack(item).lower()

    def _same(self, a: T, b: T) -> bool:
        return a is b or a == b

    def _apply_filter(self, keep: T | None = None) -> None:
        self.shown = [item for item in self.items if self._matches(item)]
        options = self.options
        options.clear_options()
        options.add_options(Option(self.render_row(item)) for item in self.shown)
        index = 0
        if keep is None:
            keep = self._last
        if keep is not None:
            for i, item in enumerate(self.shown):
                if self._same(item, keep):
                    index = i
                    break
        if self.shown:
            options.highlighted = index
        self._update_title()
        self._post_highlighted()

    def _post_highlighted(self) -> None:
        item = self.highlighted_item
        if item is not None:
            self._last = item
        self.post_message(self.Highlighted(self, item))

    def _update_title(self) -> None:
        total = len(self.items)
        if self.filter_text:
            self.border_title = f"{self.label} ({len(self.shown)}/{total})"
        else:
            self.border_title = f"{self.label} ({total})"

    @property
    def highlighted_item(self) -> T | None:
        try:
            index = self.options.highlighted
        except Exception:  # before compose  # noqa: BLE001
            return None
        if index is None or not (0 <= index < len(self.shown)):
            return None
        return self.shown[index]

    def refresh_rows(self) -> None:
        """Re-render rows (an item's state changed, e.g. subscribed)."""
        self._apply_filter(keep=self.highlighted_item)

    @on(OptionList.OptionHighlighted, "#options")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._post_highlighted()

    @on(OptionList.OptionSelected, "#options")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        item = self.highlighted_item
        if item is not None:
            self.post_message(self.Activated(self, item))

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.filter_text = event.value
        self._apply_filter(keep=self.highlighted_item)

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.options.focus()

    def action_filter(self) -> None:
        self.add_class("filtering")
        self.query_one("#filter", Input).focus()

    def reset_filter(self) -> None:
        """Show every item again, at once."""
        self.filter_text = ""
        with self.prevent(Input.Changed):
            self.query_one("#filter", Input).value = ""
        self.remove_class("filtering")
        self._apply_filter(keep=self.highlighted_item)

    def action_clear_filter(self) -> None:
        filter_input = self.query_one("#filter", Input)
        if self.filter_text:
            filter_input.value = ""
        self.remove_class("filtering")
        self.options.focus()

    def focus_list(self) -> None:
        self.options.focus()


def _item_haystack(item: Item) -> str:
    return "\n".join((item.key, item.title or "", item.description))


class ItemList(FilterList[Item]):
    """The list of one kind of server item, with its cache facts and problems."""

    BINDINGS = [
        Binding("r", "refresh(False)", "Refresh", id="refresh_list"),
        Binding("R", "refresh(True)", "Refresh (bypass cache)", id="force_refresh_list", show=False),
    ]

    class RefreshRequested(Message):
        def __init__(self, item_list: ItemList, force: bool) -> None:
            super().__init__()
            self.item_list = item_list
            self.force = force

        @property
        def control(self) -> ItemList:
            return self.item_list

    def __init__(self, label: str, render_row: RowRenderer, *, kind: str = "", id: str | None = None) -> None:
        super().__init__(
            label, render_row, haystack=_item_haystack, placeholder="filter (name, title, description)", id=id
        )
        self.kind = kind
        self.cache_note = ""
        self.problems: list[str] = []

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
        self.problems = list(problems or [])
        super().set_items(items)

    def _same(self, a: Item, b: Item) -> bool:
        # A refreshed listing has new objects: the same key is the same item.
        return a.key == b.key

    def _update_title(self) -> None:
        super()._update_title()
        broken = sum(1 for item in self.items if item.problems)
        parts = []
        if broken:
            parts.append(f"⚠ {broken} with problems")
        elif self.problems:
            parts.append("⚠ " + self.problems[0])
        if self.cache_note:
            parts.append(self.cache_note)
        # Problems quote server text: a Text is never read as markup.
        self.border_subtitle = Text(one_line(" · ".join(parts), 200))

    def select_key(self, key: str) -> bool:
        """Highlight the item with this key, clearing a filter that hides it."""
        if self.filter_text and all(item.key != key for item in self.shown):
            if all(item.key != key for item in self.items):
                return False
            self.reset_filter()
        for i, item in enumerate(self.shown):
            if item.key == key:
                self.options.highlighted = i
                return True
        return False
