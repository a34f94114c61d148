"""A virtual list of rows of one or more lines, drawn on demand.

A server may list 100,000 tools: there is no option object or widget per
row.  The list holds the indices of the rows shown (the owner's filter
result) and asks the owner for a row's text only when it comes into view;
finished strips are kept in an LRU cache keyed by row and look, so moving
the highlight redraws two rows and filtering redraws none it has seen.

It looks and answers keys as Textual's `OptionList` does (whose layout of
every option on each change is what made big lists slow): up/down wrap,
page keys move by the visible height, enter and a click select.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual, visualize

from inspector.tui.legible import legible

__all__ = ["RowList"]

# Rows kept rendered: a few screens' worth at any width.
STRIP_CACHE = 1024


class RowList(ScrollView, can_focus=True):
    """Rows `render(i)` for each `i` of `rows`, `heights` lines each."""

    COMPONENT_CLASSES = {"row-list--row", "row-list--highlighted", "row-list--hover"}

    # OptionList's look, so a list reads the same as the pickers and dialogs.
    DEFAULT_CSS = """
    RowList {
        height: 1fr;
        color: $foreground;
        overflow-x: hidden;
        background: $surface;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        & > .row-list--highlighted {
            color: $foreground;
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus {
            background-tint: $foreground 5%;
            & > .row-list--highlighted {
                color: $block-cursor-foreground;
                background: $block-cursor-background;
                text-style: $block-cursor-text-style;
            }
        }
        & > .row-list--hover { background: $block-hover-background; }
    }
    """

    BINDINGS = [
        Binding("down", "cursor(1)", "Next row", show=False, id="list_down"),
        Binding("up", "cursor(-1)", "Previous row", show=False, id="list_up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="list_page_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="list_page_up"),
        Binding("home", "first", "First row", show=False, id="list_first"),
        Binding("end", "last", "Last row", show=False, id="list_last"),
        Binding("enter", "select", "Select", show=False, id="list_select"),
    ]

    # The position in `rows` (not the item index) of the highlighted row.
    highlighted: reactive[int | None] = reactive(None, init=False)

    class Selected(Message):
        """Enter or a click on a row."""

        def __init__(self, row_list: RowList) -> None:
            super().__init__()
            self.row_list = row_list

        @property
        def control(self) -> RowList:
            """The list that sent the message."""
            return self.row_list

    def __init__(self, render: Callable[[int], Text], on_move: Callable[[], None], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._row_text = render
        # Told of each move by the person (keys, a click) as it happens, not
        # by a message: the owner's detail can reach the screen in the same
        # frame as the move.
        self._on_move = on_move
        self.rows: Sequence[int] = []
        # Lines per item (all items, by item index), or one height for all.
        self._heights: Sequence[int] | int = 1
        # Where each shown row starts (only when heights differ), plus the end.
        self._starts: list[int] = [0]
        self._hover: int | None = None
        self._visuals: LRUCache[int, Visual] = LRUCache(STRIP_CACHE)
        self._strips: LRUCache[tuple[int, object], list[Strip]] = LRUCache(STRIP_CACHE)
        self._width = -1

    # -- data ------------------------------------------------------------------------

    @property
    def option_count(self) -> int:
        """How many rows are shown."""
        return len(self.rows)

    def set_rows(self, rows: Sequence[int], heights: Sequence[int] | int, highlighted: int | None) -> None:
        """Show these rows (item indices in order) and highlight one, without announcing it."""
        before = self._on_screen()
        self.rows = rows
        self._heights = heights
        if isinstance(heights, int):
            self._starts = []
            total = len(rows) * heights
        else:
            self._starts = [0, *accumulate(heights[i] for i in rows)]
            total = self._starts[-1]
        self._hover = None
        size = Size(0, total)
        if size != self.virtual_size:
            # The list's own size does not follow its rows: only the
            # scrollbar does, so no layout of the screen (a layout per filter
            # key cost more than the filtering).
            self.set_reactive(RowList.virtual_size, size)
            if self.is_mounted:
                self._scroll_update(size)
        if highlighted is not None and not (0 <= highlighted < len(rows)):
            highlighted = 0 if rows else None
        self.set_reactive(RowList.highlighted, highlighted)
        if self.is_mounted:
            self.scroll_to_highlight()
            # A filter key that leaves the screenful as it was (every row
            # still matches) draws nothing.
            if before is None or self._on_screen() != before:
                self.refresh()

    def _on_screen(self) -> tuple[object, ...] | None:
        """What the list shows now: its scroll, highlight and visible rows (None: unknown)."""
        if not self.is_mounted or not isinstance(self._heights, int):
            return None
        top = int(self.scroll_y)
        height = self.scrollable_content_region.height
        first, last = top // self._heights, (top + height) // self._heights + 1
        return (top, self.highlighted, self._hover, len(self.rows), list(self.rows[first:last]))

    def forget(self) -> None:
        """Every row must be drawn again (items changed how they look)."""
        self._visuals.clear()
        self._strips.clear()
        if self.is_mounted:
            self.refresh()

    # -- geometry ----------------------------------------------------------------------

    def _start(self, row: int) -> int:
        heights = self._heights
        return row * heights if isinstance(heights, int) else self._starts[row]

    def _height(self, row: int) -> int:
        heights = self._heights
        return heights if isinstance(heights, int) else heights[self.rows[row]]

    def _locate(self, line: int) -> tuple[int, int] | None:
        """The row at a virtual line, and the line within it."""
        if line < 0:
            return None
        heights = self._heights
        if isinstance(heights, int):
            row, offset = divmod(line, heights)
        else:
            row = bisect_right(self._starts, line) - 1
            offset = line - self._starts[row] if row >= 0 else 0
        if not (0 <= row < len(self.rows)):
            return None
        return row, offset

    def scroll_to_highlight(self) -> None:
        """Scroll at once so the highlighted row is in view."""
        row = self.highlighted
        if row is None or not self.is_mounted:
            return
        region = Region(0, self._start(row), max(1, self.scrollable_content_region.width), self._height(row))
        self.scroll_to_region(region, force=True, animate=False, immediate=True)

    # -- moving --------------------------------------------------------------------

    def watch_highlighted(self, old: int | None, new: int | None) -> None:
        if new is not None and not (0 <= new < len(self.rows)):
            self.highlighted = max(0, min(new, len(self.rows) - 1)) if self.rows else None
            return
        for row in (old, new):
            if row is not None and row < len(self.rows):
                self.refresh_lines(self._start(row), self._height(row))
        self.scroll_to_highlight()
        self._on_move()

    def action_cursor(self, step: int) -> None:
        count = len(self.rows)
        if not count:
            return
        if self.highlighted is None:
            self.highlighted = 0 if step > 0 else count - 1
        else:
            self.highlighted = (self.highlighted + step) % count

    def action_page(self, direction: int) -> None:
        if not self.rows:
            return
        if self.highlighted is None:
            self.highlighted = 0 if direction < 0 else len(self.rows) - 1
            return
        total = self.virtual_size.height
        line = self._start(self.highlighted) + direction * self.scrollable_content_region.height
        found = self._locate(max(0, min(line, total - 1)))
        if found is not None:
            self.highlighted = found[0]

    def action_first(self) -> None:
        if self.rows:
            self.highlighted = 0

    def action_last(self) -> None:
        if self.rows:
            self.highlighted = len(self.rows) - 1

    def action_select(self) -> None:
        if self.highlighted is not None:
            self.post_message(self.Selected(self))

    def _row_at(self, y: int) -> int | None:
        found = self._locate(int(self.scroll_y) + y)
        return None if found is None else found[0]

    def on_click(self, event: events.Click) -> None:
        row = self._row_at(event.y)
        if row is not None:
            self.highlighted = row
            self.action_select()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self._row_at(event.y))

    def on_leave(self, event: events.Leave) -> None:
        self._set_hover(None)

    def _set_hover(self, row: int | None) -> None:
        if row != self._hover:
            for old in (self._hover, row):
                if old is not None and old < len(self.rows):
                    self.refresh_lines(self._start(old), self._height(old))
            self._hover = row

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, theme: object) -> None:
        # The cached rows hold the old theme's colours, resolved when they were first drawn.
        self._visuals.clear()
        self._strips.clear()
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.scroll_to_highlight)

    # -- drawing -------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if width != self._width:
            self._strips.clear()
            self._width = width
        found = self._locate(int(self.scroll_y) + y)
        if found is None:
            return Strip.blank(width, self.get_visual_style("row-list--row").rich_style)
        row, offset = found
        item = self.rows[row]
        if row == self.highlighted:
            style = self.get_visual_style("row-list--row", "row-list--highlighted")
        elif row == self._hover:
            style = self.get_visual_style("row-list--row", "row-list--hover")
        else:
            style = self.get_visual_style("row-list--row")
        # The style object carries focus and theme: a new look is a new key.
        key = (item, style)
        strips = self._strips.get(key)
        if strips is None:
            visual = self._visuals.get(item)
            if visual is None:
                visual = visualize(self, self._row_text(item), markup=False)
                self._visuals[item] = visual
            rich_style = style.rich_style
            strips = [
                strip.extend_cell_length(width, rich_style)
                for strip in Visual.to_strips(self, visual, width, None, style)
            ]
            if row == self.highlighted or row == self._hover:
                # Its own background: the roles' colours may not read on it.
                strips = [legible(strip, rich_style.color) for strip in strips]
            self._strips[key] = strips
        if offset < len(strips):
            return strips[offset]
        return Strip.blank(width, style.rich_style)
