"""Text that stays readable on a row's own background (a list's highlighted row, the traffic cursor).

The colour roles (`looks`) are chosen to read on the theme's background; a
cursor row is painted in another colour ($block-cursor-background: dark
blue on textual-light, where dark green or dark red text all but vanish).
On such a row, any piece of text under `MIN_CONTRAST`:1 against what it is
drawn on takes the row's own text colour instead (or, where that does not
read either, black or white), keeping its bold and italic: the words of a
badge still say what it means.
"""

from __future__ import annotations

from functools import lru_cache

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.strip import Strip

__all__ = ["MIN_CONTRAST", "contrast", "legible"]

# WCAG 2's ratio for large text and for the parts of an interface that must
# be seen (1.4.3 large text, 1.4.11).  Textual's own $text-success and
# $text-warning sit at 3.2-3.8 on its light themes, so the 4.5:1 of body
# text would reject the theme's own design.
MIN_CONTRAST = 3.0

# How a terminal draws dim text, as Textual's DimFilter does: half way to the background.
_DIM = 0.5


def _luminance(color: Color) -> float:
    def channel(value: int) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(one: Color, other: Color) -> float:
    """The WCAG 2 contrast ratio of two opaque colours, from 1 to 21."""
    high, low = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _seen(style: Style) -> tuple[Color, Color] | None:
    """The text colour as seen (dimmed or not) and its background; None for a
    terminal's own colours, which have no value to measure."""
    color, ground = style.color, style.bgcolor
    if color is None or ground is None or color.triplet is None or ground.triplet is None:
        return None
    back = Color(*ground.triplet)
    fore = Color(*color.triplet)
    return (back.blend(fore, _DIM) if style.dim else fore), back


@lru_cache(maxsize=1024)
def _legible_style(style: Style, text: RichColor) -> Style:
    seen = _seen(style)
    if seen is None or contrast(*seen) >= MIN_CONTRAST:
        return style
    ground = seen[1]
    replacement = Color(*text.triplet) if text.triplet is not None else None
    if replacement is None or contrast(replacement, ground) < MIN_CONTRAST:
        replacement = ground.get_contrast_text(1.0)
    return style + Style(color=replacement.rich_color, dim=False)


def legible(strip: Strip, text: RichColor | None) -> Strip:
    """*strip* with every piece of text that reads under `MIN_CONTRAST`:1 on
    its background redrawn in *text* (the row's own text colour)."""
    if text is None:
        return strip
    segments = list(strip)
    changed = False
    for index, segment in enumerate(segments):
        style = segment.style
        if style is None or segment.control or not segment.text.strip():
            continue
        better = _legible_style(style, text)
        if better is not style:
            segments[index] = Segment(segment.text, better)
            changed = True
    return Strip(segments, strip.cell_length) if changed else strip
