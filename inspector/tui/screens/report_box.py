"""The frame of a report shown over the panes (the matrix, the diff of two
servers): a box most of the screen wide, centred, closed with escape."""

from __future__ import annotations

from textual.screen import ModalScreen

__all__ = ["ReportScreen"]


class ReportScreen(ModalScreen[None]):
    """A report's box over the panes, centred and most of the screen wide (screens.tcss).

    Each report binds escape under its own binding id (a keymap names it).
    """
