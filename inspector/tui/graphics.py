"""Terminal graphics for images: the Kitty graphics protocol or Sixel where
the terminal has one, character cells otherwise.

Finding out means asking the terminal, which is only possible before
Textual takes over the terminal, so `detect()` runs in `run_tui` before the
app starts; until it has run (tests, screenshots, pipes) images are drawn
in character cells, which look the same everywhere.  Inside tmux or screen
the terminal is not asked unless INSPECTOR_IMAGES=probe.
"""

from __future__ import annotations

import io
import logging
import os
import sys
from typing import Any

__all__ = ["detect", "graphics_widget", "protocol"]

_protocol: str | None = None


def detect() -> str | None:
    """Ask the terminal once; returns "tgp", "sixel" or None."""
    global _protocol
    choice = os.environ.get("INSPECTOR_IMAGES", "auto")
    if choice == "cells" or not sys.__stdout__ or not sys.__stdout__.isatty():
        return None
    if choice == "auto" and _multiplexed():
        # tmux and screen pass the graphics query on as text (tmux shows it
        # as the pane title) and answer nothing: ask only when told to.
        return None
    # A terminal that does not answer the cell-size query makes textual-image
    # log a warning with a traceback, which would land on the person's screen
    # before the app starts: character cells are the answer, silently.
    quiet = logging.getLogger("textual_image")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    try:
        from textual_image import renderable
        from textual_image.widget import Image  # noqa: F401 - importing caches the cell size
    except Exception:  # noqa: BLE001 - a terminal that answers oddly just gets character cells
        return None
    if renderable.Image is renderable.TGPImage:
        _protocol = "tgp"
    elif renderable.Image is renderable.SixelImage:
        _protocol = "sixel"
    return _protocol


def _multiplexed() -> bool:
    term = os.environ.get("TERM", "")
    return bool(os.environ.get("TMUX") or os.environ.get("STY")) or term.startswith(("screen", "tmux"))


def protocol() -> str | None:
    """The image protocol `detect` found: "tgp" (Kitty), "sixel", or None for character cells."""
    return _protocol


def graphics_widget(data: bytes, max_cells: int = 48) -> Any:
    """A widget drawing the image with the detected protocol, or None."""
    if _protocol is None:
        return None
    from PIL import Image as PILImage
    from textual_image.widget import Image

    picture = PILImage.open(io.BytesIO(data))
    widget = Image(picture)
    width = min(max_cells, max(4, picture.width // 8))
    widget.styles.width = width
    widget.styles.height = max(2, int(width * picture.height / max(picture.width, 1) / 2))
    return widget
