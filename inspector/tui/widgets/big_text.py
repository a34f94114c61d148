"""Large text drawn a screen at a time.

A `Static` holding a 100 KB JSON document lays out (wraps) and, with a
`Syntax`, highlights all of it on the UI loop before the first line shows.
`LazyText` keeps the text as lines, measures its wrapped height by
arithmetic, and renders (and, for JSON, colours) only the rows Textual asks
for: those on screen.  The text itself is prepared off the loop
(`prepare_json`, `prepare_text` in a thread).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import Any

from rich.cells import cell_len, chop_cells
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from inspector.core.safetext import safe_json, visible
from inspector.tui import looks
from inspector.tui.safe import json_syntax

__all__ = [
    "HIGHLIGHT_LIMIT",
    "LazyBody",
    "LazyText",
    "json_colours",
    "json_over_limit",
    "json_widget",
    "prepare_json",
    "prepare_text",
]

# Above this many characters, JSON and text go to a `LazyText` (prepared in a
# thread) instead of a `Static` with a `Syntax` built on the UI loop.
HIGHLIGHT_LIMIT = 16_384

_TOKEN = re.compile(
    r'(?P<string>"(?:[^"\\]|\\.)*")(?P<key>\s*:)?'
    r"|(?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"
    r"|(?P<literal>\btrue\b|\bfalse\b|\bnull\b)"
)
_STYLES = {
    "key": looks.JSON_KEY,
    "string": looks.JSON_STRING,
    "number": looks.JSON_NUMBER,
    "literal": looks.JSON_LITERAL,
}


def prepare_json(value: Any) -> str:
    """Pretty JSON with every control character escaped (run it in a thread for big values)."""
    return safe_json(value, indent=2)


def prepare_text(text: str) -> str:
    """Server text made inert (run it in a thread for big texts)."""
    return visible(text).expandtabs(4)


def json_over_limit(value: Any, limit: int = HIGHLIGHT_LIMIT) -> bool:
    """Whether *value* as JSON takes more than about *limit* characters,
    counted only as far as the limit (a 100 MB value costs what 16 KB do)."""
    budget = limit
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            budget -= len(item) + 2
        elif isinstance(item, dict):
            budget -= 2 + 4 * len(item)
            if budget < 0:
                return True
            for key, child in item.items():
                budget -= len(key) if isinstance(key, str) else 8
                stack.append(child)
        elif isinstance(item, list):
            budget -= 2 + len(item)
            if budget < 0:
                return True
            stack.extend(item)
        else:
            budget -= 8
        if budget < 0:
            return True
    return False


def json_colours(line: str) -> Text:
    """One line of pretty JSON, coloured by token (keys, strings, numbers, literals)."""
    text = Text(line, no_wrap=True, end="")
    for match in _TOKEN.finditer(line):
        kind = match.lastgroup
        if match.group("key") is not None:
            text.stylize(_STYLES["key"], match.start("string"), match.end("string"))
        elif kind is not None:
            text.stylize(_STYLES[kind], match.start(kind), match.end(kind))
    return text


class LazyText(Widget):
    """Prepared text (see `prepare_json`, `prepare_text`), wrapped to the
    width by character cells; only the rows on screen are rendered."""

    DEFAULT_CSS = """
    LazyText { height: auto; }
    """

    def __init__(self, text: str, *, json: bool = False, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.text = text
        self.json = json
        self._lines = text.split("\n")
        self._width = -1
        # Each wrapped row: (logical line, first cell-chunk index) → its text.
        self._rows: list[tuple[int, int]] = []
        self._chunks: dict[int, list[str]] = {}
        self._coloured: LRUCache[int, Text] = LRUCache(256)

    @property
    def line_count(self) -> int:
        """How many lines the text has, before wrapping."""
        return len(self._lines)

    def set_text(self, text: str, *, json: bool = False) -> None:
        """Show other prepared text."""
        self.text = text
        self.json = json
        self._lines = text.split("\n")
        self._width = -1
        self._rows = []
        self._chunks = {}
        self._coloured.clear()
        self.refresh(layout=True)

    def _wrap(self, width: int) -> None:
        width = max(1, width)
        if width == self._width:
            return
        self._width = width
        rows: list[tuple[int, int]] = []
        chunks: dict[int, list[str]] = {}
        for index, line in enumerate(self._lines):
            if line.isascii():
                count = max(1, -(-len(line) // width))
            else:
                pieces = chop_cells(line, width) or [""]
                chunks[index] = pieces
                count = len(pieces)
            rows.extend((index, part) for part in range(count))
        self._rows = rows
        self._chunks = chunks

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._wrap(width)
        return len(self._rows)

    def _line_text(self, index: int) -> Text:
        found = self._coloured.get(index)
        if found is None:
            line = self._lines[index]
            found = json_colours(line) if self.json else Text(line, no_wrap=True, end="")
            self._coloured[index] = found
        return found

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        self._wrap(width)
        style = self.rich_style
        if not 0 <= y < len(self._rows):
            return Strip.blank(width, style)
        index, part = self._rows[y]
        line = self._line_text(index)
        pieces = self._chunks.get(index)
        if pieces is None:
            start = part * self._width
            end = start + self._width
        else:
            start = sum(len(piece) for piece in pieces[:part])
            end = start + len(pieces[part])
        row = line[start:end]
        segments = [Segment(span_text, style + span_style) for span_text, span_style in _spans(row, self.app.console)]
        return Strip(segments, cell_len(row.plain)).extend_cell_length(width, style)


def _spans(text: Text, console: Console) -> list[tuple[str, Style]]:
    """The text's runs with their styles (spans of a token line do not overlap)."""
    plain = text.plain
    out: list[tuple[str, Style]] = []
    position = 0
    for span in sorted(text.spans, key=lambda s: s.start):
        if span.start > position:
            out.append((plain[position : span.start], Style()))
        # Role names resolve against the app's theme as the row is drawn.
        style = console.get_style(span.style)
        out.append((plain[span.start : span.end], style))
        position = span.end
    if position < len(plain):
        out.append((plain[position:], Style()))
    return out


class LazyBody(LazyText):
    """A `LazyText` whose text is prepared in a thread once it is mounted:
    `prepare()` returns (text, is JSON); "preparing…" shows until then."""

    def __init__(self, prepare: Callable[[], tuple[str, bool]], *, classes: str | None = None) -> None:
        super().__init__("preparing…", classes=classes)
        self._prepare = prepare
        self.prepared = False

    def on_mount(self) -> None:
        self.run_worker(self._prepare_in_thread, thread=True, group="prepare", exit_on_error=False)

    def _prepare_in_thread(self) -> None:
        text, is_json = self._prepare()
        try:
            self.app.call_from_thread(self._prepared, text, is_json)
        except RuntimeError:
            pass  # the app is closing

    def _prepared(self, text: str, is_json: bool) -> None:
        self.set_text(text, json=is_json)
        self.prepared = True


def _pretty_json(value: Any) -> tuple[str, bool]:
    return prepare_json(value), True


def json_widget(value: Any, *, classes: str | None = None) -> Widget:
    """A JSON value shown highlighted: a `Static` with a `Syntax` when it is
    small, else a `LazyBody` (prepared in a thread, coloured a screen at a time)."""
    if json_over_limit(value):
        return LazyBody(partial(_pretty_json, value), classes=classes)
    return Static(json_syntax(value), classes=classes)
