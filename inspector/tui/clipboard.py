"""Copying to the clipboard: the system clipboard when there is one, else the
terminal's (OSC 52), which also works over SSH.

Every copy goes through `copy_text`, which escapes control characters
first: what lands on the clipboard is pasted into shells, and a server's
ESC, BEL or C1 bytes there act on the terminal (`ESC[201~` ends a
bracketed paste and runs the rest).
"""

from __future__ import annotations

from typing import Any

from textual.app import App

from inspector.core.safetext import copy_safe

__all__ = ["copy_text"]


def copy_text(app: App[Any], text: str) -> str:
    """Copy *text*, control characters escaped, to the system clipboard, else the terminal's; returns which."""
    text = copy_safe(text)
    try:
        import pyperclip

        pyperclip.copy(text)
        return "system clipboard"
    except Exception:  # pyperclip raises its own error types when no clipboard exists  # noqa: BLE001
        app.copy_to_clipboard(text)
        return "terminal clipboard (OSC 52)"
