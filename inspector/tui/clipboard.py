"""Copying to the clipboard: the system clipboard when there is one, else the
terminal's (OSC 52), which also works over SSH."""

from __future__ import annotations

from typing import Any

from textual.app import App

__all__ = ["copy_text"]


def copy_text(app: App[Any], text: str) -> str:
    try:
        import pyperclip

        pyperclip.copy(text)
        return "system clipboard"
    except Exception:  # pyperclip raises its own error types when no clipboard exists  # noqa: BLE001
        app.copy_to_clipboard(text)
        return "terminal clipboard (OSC 52)"
