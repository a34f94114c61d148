"""A filterable list of server items (tools, resources, templates, prompts)."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from ...core.items import Item, ListResult
from ...core.safetext import one_line

__all__ = ["ItemList"]

RowRenderer = Callable[[Item], Text]


class ItemList(Vertical):
    DEFAULT_CSS = """
    ItemList { border: round $primary-muted; width: 1fr; }
    ItemList:focus-within { border: round $primary; }
    ItemList > Input { display: none; height: 3; }
    ItemList.filtering > Input { display: block; }
    ItemList > OptionList { height: 1fr; border: none; }
    """

    BINDINGS = [
        Binding("slash", "filter", "Filter", key_display="/"),
        Binding("escape", "clear_filter", "Clear filter", show=False),
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

    class Highlighted(Message):
        def __init__(self, item_list: ItemList, item: Item | None) -> None:
            super().__init__()
            self.item_list = item_list
            self.item = item

        @property
        def control(self) -> ItemList:
            return self.item_list

    class Activated(Message):
        def __init__(self, item_list: ItemList, item: Item) -> None:
            super().__init__()
            self.item_list = item_list
            self.item = item

        @property
        def control(self) -> ItemList:
            return self.item_list

    def __init__(self, label: str, render_row: RowRenderer, *, kind: str = "", id: str | None = None) -> None:
        super().__init__(id=id)
        self.label = label
        self.kind = kind
        self.cache_note = ""
        self.render_row = render_row
        self.items: list[Item] = []
        self.shown: list[Item] = []
        self.problems: list[str] = []
        self.filter_text = ""

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter (name, title, description)", id="filter")
        yield OptionList(id="options")

    def on_mount(self) -> None:
        self._update_title()

    @property
    def options(self) -> OptionList:
        return self.query_one("#options", OptionList)

    def set_listing(self, listing: ListResult) -> None:
        """A fresh listing: its items (excluded ones last) and its cache facts."""
        note = ""
        if listing.from_cache:
            note = f"from cache, {listing.age:.0f}s old (R bypasses)"
        elif listing.ttl_ms:
            note = f"ttl {listing.ttl_ms / 1000:g}s {listing.cache_scope or ''}".rstrip()
        self.cache_note = note
        self.set_items([*listing.items, *listing.excluded], listing.problems)

    def action_refresh(self, force: bool) -> None:
        self.post_message(self.RefreshRequested(self, force))

    def set_items(self, items: list[Item], problems: list[str] | None = None) -> None:
        """Replace the items; the highlighted one stays highlighted if it still exists."""
        current = self.highlighted_item
        self.items = list(items)
        self.problems = list(problems or [])
        self._apply_filter(keep=current.key if current else None)

    def _matches(self, item: Item) -> bool:
        if not self.filter_text:
            return True
        needle = self.filter_text.lower()
        return any(needle in text.lower() for text in (item.key, item.title or "", item.description))

    def _apply_filter(self, keep: str | None = None) -> None:
        self.shown = [item for item in self.items if self._matches(item)]
        options = self.options
        options.clear_options()
        options.add_options(Option(self.render_row(item)) for item in self.shown)
        index = 0
        if keep is not None:
            for i, item in enumerate(self.shown):
                if item.key == keep:
                    index = i
                    break
        if self.shown:
            options.highlighted = index
        self._update_title()
        self.post_message(self.Highlighted(self, self.highlighted_item))

    def _update_title(self) -> None:
        total = len(self.items)
        if self.filter_text:
            self.border_title = f"{self.label} ({len(self.shown)}/{total})"
        else:
            self.border_title = f"{self.label} ({total})"
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

    @property
    def highlighted_item(self) -> Item | None:
        try:
            index = self.options.highlighted
        except Exception:  # before compose  # noqa: BLE001
            return None
        if index is None or not (0 <= index < len(self.shown)):
            return None
        return self.shown[index]

    def select_key(self, key: str) -> bool:
        for i, item in enumerate(self.shown):
            if item.key == key:
                self.options.highlighted = i
                return True
        return False

    def refresh_rows(self) -> None:
        """Re-render rows (an item's state changed, e.g. subscribed)."""
        self._apply_filter(keep=self.highlighted_item.key if self.highlighted_item else None)

    @on(OptionList.OptionHighlighted, "#options")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.post_message(self.Highlighted(self, self.highlighted_item))

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
        self._apply_filter(keep=self.highlighted_item.key if self.highlighted_item else None)

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.options.focus()

    def action_filter(self) -> None:
        self.add_class("filtering")
        self.query_one("#filter", Input).focus()

    def action_clear_filter(self) -> None:
        filter_input = self.query_one("#filter", Input)
        if self.filter_text:
            filter_input.value = ""
        self.remove_class("filtering")
        self.options.focus()

    def focus_list(self) -> None:
        self.options.focus()
