"""The jump overlay: a letter beside every field and button in view; typing
the letter focuses it (escape or any other key leaves focus where it was)."""

from __future__ import annotations

import string

from textual import events
from textual.app import ComposeResult
from textual.errors import NoWidget
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Static

__all__ = ["JumpScreen", "jump_targets"]

# Lower case first (no shift needed), then upper case, then digits.
LETTERS = string.ascii_lowercase + string.ascii_uppercase + string.digits


def jump_targets(screen: Screen[object]) -> list[Widget]:
    """Focusable widgets that are on screen now, in focus order."""
    found = []
    for widget in screen.focus_chain:
        try:
            geometry = screen.find_widget(widget)
        except NoWidget:
            continue
        # Wholly in view: a field scrolled half out of its form is not offered.
        if geometry.region.area and geometry.visible_region == geometry.region:
            found.append(widget)
    return found[: len(LETTERS)]


class JumpScreen(ModalScreen[Widget | None]):
    """A letter over each target: answers with the widget whose letter is typed, None for any other key."""

    def __init__(self, targets: list[Widget]) -> None:
        super().__init__()
        self.targets = dict(zip(LETTERS, targets, strict=False))

    def compose(self) -> ComposeResult:
        for letter, widget in self.targets.items():
            label = Static(letter, classes="jump-label")
            label.styles.offset = (widget.region.x, widget.region.y)
            yield label

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self.dismiss(self.targets.get(event.character or ""))
