"""Filterable lists: server items (tools, resources, templates, prompts) and
the app's own lists (roots, tasks) share the `/` filter and the row rules;
`item_list.ItemList` is the server items' kind."""

from __future__ import annotations

import math
import time
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any, Generic, TypeVar, overload

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.geometry import Size
from textual.message import Message
from textual.reactive import Reactive
from textual.widgets import Input

from inspector.core.protocol.items import Item
from inspector.tui.timers import call_later
from inspector.tui.widgets.row_list import RowList

__all__ = ["FilterList", "Shown"]

T = TypeVar("T")
RowRenderer = Callable[[Item], Text]
# Lines per row: one number for every row, or a function of the item.
RowLines = Callable[[Any], int] | int

# A move of the highlight by keys is shown in the pane after this long
# without another: a burst of arrow keys builds only the last detail.
ANNOUNCE_AFTER = 0.04
# The filter's haystacks (an item's searchable text, lowered) are made this
# many items per turn of the loop once a listing is in: 100,000 of them take
# 150 ms, which the first key typed in the filter would otherwise wait for.
HAYSTACK_SLICE = 2_000


class Shown(Sequence[T]):
    """The items a filter lets through, as a view (no list of 100,000 per keystroke)."""

    def __init__(self, items: list[T], rows: Sequence[int]) -> None:
        self._items = items
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self._items[i] for i in self.rows[index]]
        return self._items[self.rows[index]]

    def __iter__(self) -> Iterator[T]:
        items = self._items
        return (items[i] for i in self.rows)


class FilterInput(Input):
    """The filter box.  Textual's Input sets its virtual width to the text's
    on every key, and a virtual size change lays the whole screen out again;
    this box has a fixed size, so a repaint is enough.

    `on_value` is called as the value changes, before the frame is drawn: the
    box and the rows it filters reach the screen in one frame, not in two
    (the second after Input.Changed comes round the message queue)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def __init__(self, on_value: Callable[[str], None], *, placeholder: str, id: str | None = None) -> None:
        super().__init__(placeholder=placeholder, id=id)
        self._on_value = on_value

    def _watch_value(self, value: str) -> None:
        super()._watch_value(value)
        self._on_value(value)


class FilterList(Vertical, Generic[T]):
    """A bordered list of items with a `/` filter box.

    The rows are a `RowList`: drawn when they come into view, kept drawn
    until the items change.  Filtering keeps a list of the matching item
    indices; a longer query searches only the previous matches.  Rows never
    wrap: every line is cut with an ellipsis at the list's width, so each
    row keeps the height it was designed with whatever the width.
    """

    DEFAULT_CSS = """
    FilterList { border: round $primary-muted; width: 1fr; }
    FilterList:focus-within { border: round $primary; }
    FilterList > Input { display: none; height: 3; }
    FilterList.filtering > Input { display: block; }
    FilterList > RowList { height: 1fr; border: none; }
    """

    BINDINGS = [
        Binding("slash", "filter", "Filter", key_display="/", id="filter_list"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="clear_filter"),
    ]

    class Highlighted(Message):
        """The highlight rests on *item* (None: no row)."""

        def __init__(self, item_list: FilterList[Any], item: Any) -> None:
            super().__init__()
            self.item_list = item_list
            self.item = item

        @property
        def control(self) -> FilterList[Any]:
            """The list that sent the message."""
            return self.item_list

    class Activated(Message):
        """Enter or a click on *item*."""

        def __init__(self, item_list: FilterList[Any], item: Any) -> None:
            super().__init__()
            self.item_list = item_list
            self.item = item

        @property
        def control(self) -> FilterList[Any]:
            """The list that sent the message."""
            return self.item_list

    def __init__(
        self,
        label: str,
        render_row: Callable[[T], Text],
        *,
        haystack: Callable[[T], str] = str,
        lines: RowLines | None = None,
        placeholder: str = "filter",
        on_highlight: Callable[[T | None], None] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.label = label
        # Shows the highlighted item (None: no row) as it changes, in the
        # same turn: the pane's detail reaches the screen in the frame that
        # draws the move.  Without one, a Highlighted message is posted.
        self._on_highlight = on_highlight
        self.render_row = render_row
        self.haystack = haystack
        self.lines = lines
        self.placeholder = placeholder
        self.items: list[T] = []
        self.shown: Shown[T] = Shown(self.items, range(0))
        self.filter_text = ""
        # The lowered haystack of each item, made a slice at a time once a
        # listing is in (HAYSTACK_SLICE), the rest at the first filter key.
        self._haystacks: list[str] = []
        self._haystack_turns = 0
        # While a listing's pages still arrive, no haystack is made: the
        # whole list reaches the screen first (the first filter key makes
        # what is missing).
        self.arriving = False
        self._heights: list[int] | int = 1
        # The query the shown rows answer: a longer one searches only them.
        self._query = ""
        # The item (index) last highlighted: a filter that hid everything and
        # is then cleared comes back to it, not to the first row.
        self._last: int | None = None
        self._generation = 0
        self._pending = 0  # the generation of the announcement waiting; 0: none
        self._due = 0.0
        self._moved_at = -math.inf  # when the highlight last moved (monotonic)
        # Asked for on every key: kept rather than queried.
        self._rows = RowList(self._render_index, self._announce_later, id="options")

    def compose(self) -> ComposeResult:
        yield FilterInput(self._value_changed, placeholder=self.placeholder, id="filter")
        yield self._rows

    def on_mount(self) -> None:
        self._update_title()

    def on_unmount(self) -> None:
        self._cancel_pending()

    @property
    def options(self) -> RowList:
        """The rows under the filter box."""
        return self._rows

    def _render_index(self, index: int) -> Text:
        return self.render_row(self.items[index])

    # -- items and filtering ----------------------------------------------------------

    def set_items(self, items: list[T]) -> None:
        """Replace the items; the highlighted one stays highlighted if it still exists."""
        current = self.highlighted_item
        if current is None and self._last is not None and self._last < len(self.items):
            current = self.items[self._last]
        before = self.items
        # A list growing page by page keeps what was made for its first items.
        grown = 0 < len(before) <= len(items) and items[0] is before[0] and items[len(before) - 1] is before[-1]
        self.items = list(items)
        if not grown:
            self._haystacks = []
        self._query = ""
        self.shown = Shown(self.items, range(len(self.items)))
        self._heights = self._measure(len(before) if grown else 0)
        self._make_haystacks_soon()
        self._last = None
        keep = self._find(current) if current is not None else None
        self.options.forget()
        self._apply_filter(keep)

    def _measure(self, known: int = 0) -> list[int] | int:
        """The lines of each item's row (one number when all rows have the
        same); the first *known* items are measured already."""
        lines = self.lines
        if isinstance(lines, int):
            return lines
        before = self._heights
        if known and isinstance(before, int):
            heights: list[int] = [before] * known
        elif known and isinstance(before, list):
            heights = before[:known]
        else:
            heights, known = [], 0
        new = self.items[known:]
        if lines is None:
            heights += [self.render_row(item).plain.count("\n") + 1 for item in new]
        else:
            heights += [lines(item) for item in new]
        if heights and heights.count(heights[0]) == len(heights):
            return heights[0]
        return heights

    def _make_haystacks_soon(self) -> None:
        """Make the haystacks still missing, a slice per turn of the loop."""
        self._haystack_turns += 1
        if not self.arriving and len(self._haystacks) < len(self.items):
            # After the list is drawn: a person sees the rows before the filter is ready.
            self.call_after_refresh(self._make_haystacks, self._haystack_turns)

    def _make_haystacks(self, turn: int | None = None) -> None:
        """The next slice of haystacks (all of them when *turn* is None)."""
        if turn is not None and turn != self._haystack_turns:
            return  # the items changed since: a newer turn goes on
        made = self._haystacks
        end = len(self.items) if turn is None else min(len(self.items), len(made) + HAYSTACK_SLICE)
        haystack = self.haystack
        made.extend(haystack(item).lower() for item in self.items[len(made) : end])
        if turn is not None and len(made) < len(self.items):
            self.call_later(self._make_haystacks, turn)

    def _find(self, item: T) -> int | None:
        """The index of this item (or its successor in a new listing) among the items."""
        return next((i for i, candidate in enumerate(self.items) if self._same(candidate, item)), None)

    def _same(self, a: T, b: T) -> bool:
        return a is b or a == b

    def _matching(self) -> Sequence[int]:
        query = self.filter_text.lower()
        if not query:
            rows: Sequence[int] = range(len(self.items))
        else:
            if len(self._haystacks) < len(self.items):
                self._make_haystacks()
            haystacks = self._haystacks
            # Every match of a longer query matched the shorter one.
            previous = self.shown.rows if self._query in query else range(len(haystacks))
            rows = [i for i in previous if query in haystacks[i]]
        self._query = query
        return rows

    def _row_of(self, index: int) -> int | None:
        rows = self.shown.rows
        if isinstance(rows, range):
            return index if index in rows else None
        row = bisect_left(rows, index)
        return row if row < len(rows) and rows[row] == index else None

    def _apply_filter(self, keep: int | None = None) -> None:
        """Show the items the filter lets through, `keep` (an item index) highlighted if shown."""
        self.shown = Shown(self.items, self._matching())
        if keep is None:
            keep = self._last
        row = self._row_of(keep) if keep is not None else None
        if row is None and self.shown:
            row = 0
        self.options.set_rows(self.shown.rows, self._heights, row)
        self._update_title()
        self._announce_now()

    def _update_title(self) -> None:
        total = len(self.items)
        count = f"{len(self.shown)}/{total}" if self.filter_text else str(total)
        title = f"{self.label} ({count})"
        # Setting a title repaints the whole list, rows included: not when
        # a filter key leaves the count as it was.
        if title != self.border_title:
            self.border_title = title

    @property
    def highlighted_index(self) -> int | None:
        """The item index of the highlighted row."""
        row = self.options.highlighted
        if row is None or not (0 <= row < len(self.shown)):
            return None
        return self.shown.rows[row]

    @property
    def highlighted_item(self) -> T | None:
        """The item highlighted, if any."""
        index = self.highlighted_index
        return None if index is None else self.items[index]

    def refresh_rows(self) -> None:
        """Re-render rows (an item's state changed, e.g. subscribed)."""
        self.options.forget()
        self._update_title()
        self._announce_now()

    def highlight_index(self, index: int) -> bool:
        """Highlight an item (by index) and show it at once; False when the filter hides it."""
        row = self._row_of(index)
        if row is None:
            return False
        self.options.set_rows(self.shown.rows, self._heights, row)
        self._announce_now()
        return True

    # -- telling the pane ------------------------------------------------------------

    def _announce_now(self) -> None:
        """Tell the pane the highlighted item, which it shows."""
        self._cancel_pending()
        index = self.highlighted_index
        if index is not None:
            self._last = index
        item = None if index is None else self.items[index]
        if self._on_highlight is not None:
            self._on_highlight(item)
        else:
            self.post_message(self.Highlighted(self, item))

    def _announce_later(self) -> None:
        """Tell it now when the move is the first in a while (one key: its
        detail drawn with the move), else once the keys stop for
        ANNOUNCE_AFTER (a burst: only the last item's detail is built).  A key
        that acts on the pane (enter, a letter, ctrl+j) flushes it first
        (inspector.tui.key_order)."""
        index = self.highlighted_index
        if index is not None:
            self._last = index
        now = time.monotonic()
        lone = now - self._moved_at > ANNOUNCE_AFTER
        self._moved_at = now
        if lone and not self._pending:
            self._announce_now()
            return
        # A move made while an announcement waits joins the burst: it waits
        # for the keys to stop.
        self._due = now + ANNOUNCE_AFTER
        if self._pending:
            return
        self._generation += 1
        self._pending = self._generation
        order = getattr(self.app, "key_order", None)
        if order is not None:
            order.defer(self, self._announce_now)
        call_later(self, ANNOUNCE_AFTER, partial(self._when_due, self._pending))

    def _when_due(self, generation: int) -> None:
        if self._pending != generation:
            return  # announced already
        wait = self._due - time.monotonic()
        if wait > 0.002:
            call_later(self, wait, partial(self._when_due, generation))
        else:
            self._announce_now()

    def _cancel_pending(self) -> None:
        if self._pending:
            self._pending = 0
            order = getattr(self.app, "key_order", None)
            if order is not None:
                order.undefer(self)

    @on(RowList.Selected, "#options")
    def _selected(self, event: RowList.Selected) -> None:
        event.stop()
        self._announce_now()
        item = self.highlighted_item
        if item is not None:
            self.post_message(self.Activated(self, item))

    def _value_changed(self, value: str) -> None:
        if value != self.filter_text:
            self.filter_text = value
            self._apply_filter(self.highlighted_index)

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        # Filtered already, as the value changed (FilterInput.on_value).
        event.stop()

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
        self._apply_filter(self.highlighted_index)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_filter":
            # With no filter to clear, escape goes on to the pane (the Skills
            # pane's files list back to its skills, a form back to its list).
            return self.has_class("filtering") or bool(self.filter_text)
        return True

    def action_clear_filter(self) -> None:
        filter_input = self.query_one("#filter", Input)
        if self.filter_text:
            filter_input.value = ""
        self.remove_class("filtering")
        self.options.focus()

    def focus_list(self) -> None:
        """Focus the rows."""
        self.options.focus()
