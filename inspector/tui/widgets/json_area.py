"""The raw JSON editor's text area: ctrl+a selects the whole text.

A person replacing a JSON document selects all and pastes (or types): a
paste and a typed key already replace the selection in a TextArea.  The
area's own ctrl+a (line start) stays on home.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import TextArea

__all__ = ["JsonArea"]


class JsonArea(TextArea):
    """A text area for raw JSON, where ctrl+a selects the whole text."""

    BINDINGS = [Binding("ctrl+a", "select_all", "Select all", id="json_select_all", show=False)]
