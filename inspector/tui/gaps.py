"""Spaces between differently styled parts of a line belong to the part
before them.

A terminal draws a space like any other cell, but the SVG of a screenshot
(README, snapshots) holds one text element per styled run and leaves out a
run of bare spaces, and readers of that text (copy and paste, search,
screen readers) drop a run's leading spaces: "✔ OK" + "  12.5 ms" reads
"✔ OK12.5 ms".  Styled like the character before them, the same spaces end
that character's run and survive every reading.
"""

from __future__ import annotations

import re

from rich.style import Style
from rich.text import Span, Text

from inspector.tui.looks import is_role, role_paints

__all__ = ["hold_gaps"]

_GAP = re.compile(r"(?<=[^ \n]) +")


def _painted(style: str | Style) -> bool:
    """A style that shows on a space (a badge's padding must keep it)."""
    if isinstance(style, str) and is_role(style):
        return role_paints(style)
    parsed = Style.parse(style) if isinstance(style, str) else style
    return bool(parsed.bgcolor or parsed.reverse or parsed.underline or parsed.strike)


def hold_gaps(text: Text) -> Text:
    """`text` with every run of spaces after a character styled as that
    character (in place; returned for chaining).  Spaces that show their
    style (a background, an underline) are left as they are."""
    spans = list(text.spans)
    for gap in _GAP.finditer(text.plain):
        start, end = gap.span()
        around = [s for s in spans if s.start < end and s.end > start - 1]
        if any(_painted(s.style) for s in around if s.start < end and s.end > start):
            continue
        kept: list[Span] = []
        for span in spans:
            covers_before = span.start <= start - 1 < span.end
            if covers_before and span.end < end:
                span = Span(span.start, end, span.style)  # the character's style runs over the gap
            elif not covers_before and start <= span.start < end:
                if span.end <= end:
                    continue  # a styled run of spaces only: the gap takes the character's style
                span = Span(end, span.end, span.style)
            kept.append(span)
        spans = kept
    text.spans = spans
    return text
