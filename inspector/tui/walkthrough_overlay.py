"""The caption a walkthrough shows over the app: the step's text, where the
walkthrough is, and the presenter's keys."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from inspector.core.safetext import visible
from inspector.tui import looks

__all__ = ["CaptionOverlay"]


class CaptionOverlay(Static):
    """Drawn on the screen's overlay layer, so the panes keep their rows."""

    def __init__(self, keys: str = "", end_keys: str = "") -> None:
        super().__init__(id="walkthrough-caption")
        self.keys = keys
        # The keys that still do something once the walkthrough is over (back, quit).
        self.end_keys = end_keys
        self.at_end = False
        self.caption = ""
        self.position_text = ""
        self.paused = False
        # At the top instead, while the bottom rows are what the step shows (the traffic).
        self.at_top = False

    def on_mount(self) -> None:
        self.place()

    def on_resize(self) -> None:
        self.place()

    def place(self) -> None:
        """Put the caption under the header, or at the bottom above the key bar."""
        if self.at_top:
            # Below the header row.
            self.styles.offset = (0, 1)
            return
        # Bottom of the screen, above the key bar's row.
        height = self.outer_size.height or 4
        self.styles.offset = (0, max(0, self.screen.size.height - height - 1))

    def show_step(self, caption: str, position: str, *, at_top: bool = False, end: bool = False) -> None:
        """Show a step's *caption* and *position*; *at_top*: under the header, leaving the bottom rows in view;
        *end*: the walkthrough is over."""
        self.caption = caption
        self.position_text = position
        self.at_top = at_top
        self.at_end = end
        self._draw()

    def set_paused(self, paused: bool) -> None:
        """Show or clear the paused mark."""
        self.paused = paused
        self.set_class(paused, "-paused")
        self._draw()

    def _draw(self) -> None:
        text = Text()
        # The file's words, shown as written: never markup, no terminal escapes.
        text.append(visible(self.caption), style="bold")
        footer = Text(style="dim")
        footer.append(self.position_text)
        if self.paused:
            footer.append("  paused", style=looks.WARNING_STRONG)
        keys = self.end_keys if self.at_end and self.end_keys else self.keys
        if keys:
            footer.append(f"  ·  {keys}")
        if self.caption:
            text.append("\n")
        text.append_text(footer)
        self.update(text)
        self.call_after_refresh(self.place)
