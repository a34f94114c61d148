"""Widgets of a detail pane, which a list's highlight redraws at every move.

Two costs of Textual's, each a layout of the whole screen, that such a
pane need not pay at each move:

- `Static.update` lays the screen out again whatever the text; a detail's
  header usually keeps its height from one item to the next, and then a
  repaint is all it takes (`set_text`).
- A widget whose content changes size in a layout asks for a second layout
  (its virtual size is a reactive that lays out); a container of a fixed
  size, or a text whose size the first layout already took, need not: a
  scrollbar that appears or goes asks for its own layout
  (`SteadyStatic`, `SteadyScroll`).
"""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Static

__all__ = ["SteadyScroll", "SteadyStatic", "set_text"]


def set_text(static: Static, text: Text | str, *, hold: bool = False) -> None:
    """Show *text* in *static*; the screen is laid out again only when it
    takes a different number of lines than the last text (or is not on
    screen yet, where its height is not known).  *hold*: the widget grows to
    the tallest text it has shown and keeps that height for a shorter one (a
    detail whose items take four lines or five, a field some have, lays the
    screen out once, not at every other move)."""
    width = static.size.width
    if not width or not static.display:
        static.update(text)
        return
    static.update(text, layout=False)
    height = static.get_content_height(static.size, static.app.size, width)
    if hold:
        if height > static.size.height:
            # Its least height from now on (in the box's own terms: border and padding in).
            static.styles.min_height = height + static.gutter.height
    elif height != static.size.height:
        static.refresh(layout=True)


class SteadyStatic(Static):
    """A Static whose content changing size asks for no second layout of the screen."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)


class SteadyScroll(VerticalScroll):
    """A VerticalScroll whose content changing size asks for no second layout (a scrollbar that comes or goes still
    does)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)
