"""Spaces between differently styled parts of a line belong to the part
before them.

A terminal draws a leading space like any other cell, but the SVG of a
screenshot (README, snapshots) holds one text element per styled run, and
readers of that text (copy and paste, search, screen readers) drop a run's
leading spaces: "✔ OK" + "  12.5 ms" reads "✔ OK12.5 ms".  Moved to the end
of the run before, the same spaces survive every reading.
"""

from __future__ import annotations

from rich.text import Span, Text

__all__ = ["hold_gaps"]


def hold_gaps(text: Text) -> Text:
    """`text` with each styled span's leading spaces handed to the span(s)
    ending where it starts (in place; returned for chaining)."""
    plain = text.plain
    spans = list(text.spans)
    for index, span in enumerate(spans):
        start = span.start
        if start == 0:
            continue
        stop = start
        while stop < span.end and plain[stop] == " ":
            stop += 1
        if stop == start or stop == span.end:
            continue
        for other, before in enumerate(spans):
            if before.end == start and before.start < start:
                spans[other] = Span(before.start, stop, before.style)
        spans[index] = Span(stop, span.end, span.style)
    text.spans = spans
    return text
