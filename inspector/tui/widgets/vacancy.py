"""Widgets kept in place, blank, for a later item to take (`Vacancy`).

Moving along a list whose items differ by a field (a tool of two arguments,
then one of three) would otherwise remove a widget and mount it again on
every arrow key, and each lays the whole screen out.  A vacant widget keeps
its place and size and draws nothing: the next item that needs it takes it
with a repaint.
"""

from __future__ import annotations

from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

__all__ = ["Vacancy"]


def _no_lines(crop: Region) -> list[Strip]:
    # Fewer lines than its region: the compositor paints what is beneath
    # (the vacant widget's own background) where none are given.
    return []


class Vacancy(Widget):
    """A container that can stand blank where it is (`vacate`) and be shown again (`occupy`).

    Vacant, its widgets draw no lines, and it is disabled without the
    restyle that setting `disabled` does: a click or focus finds nothing
    there, and nothing is drawn that a :disabled look would change.  Other
    ways of hiding cost more on an arrow key, or hide less: visibility and
    display lay the screen out, a class or `disabled` restyles every widget
    inside, and an opacity of 0 blends colours, which an ANSI theme's do
    not (the text stayed)."""

    _vacant = False
    _restyled = False

    @property
    def vacant(self) -> bool:
        """Whether it stands blank, kept for a later item (`vacate`)."""
        return self._vacant

    def vacate(self) -> None:
        """Blank it where it stands."""
        if self._vacant:
            return
        self._vacant = True
        self._restyled = False
        self.set_reactive(Widget.disabled, True)
        for widget in self._drawn_parts():
            widget.render_lines = _no_lines  # type: ignore[method-assign]
            widget.refresh()

    def occupy(self) -> None:
        """Draw it again."""
        if not self._vacant:
            return
        self._vacant = False
        for widget in self._drawn_parts():
            widget.__dict__.pop("render_lines", None)
            widget.refresh()
        self.set_reactive(Widget.disabled, False)
        if self._restyled:
            # Restyled while disabled (another theme chosen): the :disabled look goes.
            self.update_node_styles(animate=False)

    def _drawn_parts(self) -> list[Widget]:
        """Its widgets, with their scrollbars (drawn apart, outside the DOM: a text area's)."""
        parts: list[Widget] = []
        for widget in self.walk_children(Widget):
            parts.append(widget)
            parts.extend(widget._get_virtual_dom())
        return parts

    def notify_style_update(self) -> None:
        """Restyled: if vacant, noted (`occupy` undoes the :disabled look it was given)."""
        super().notify_style_update()
        if self._vacant:
            self._restyled = True
