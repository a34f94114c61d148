"""Roots: the client's roots as the server will see them, editable."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from ..safe import plain_line

if TYPE_CHECKING:
    from ..app import InspectorApp

__all__ = ["RootsPane"]


class RootsPane(Vertical):
    BINDINGS = [Binding("delete", "remove_root", "Remove root", id="remove_root")]

    DEFAULT_CSS = """
    RootsPane { padding: 0 1; }
    RootsPane > #roots-list { height: 1fr; border: round $primary-muted; }
    RootsPane > Horizontal { height: auto; }
    RootsPane Input { width: 1fr; }
    """

    @property
    def inspector(self) -> InspectorApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Static(
            Text(
                "Roots the client offers (roots/list). Changes send notifications/roots/list_changed.",
                style="dim",
            )
        )
        yield OptionList(id="roots-list")
        with Horizontal():
            yield Input(placeholder="a directory path or file:// URI, then enter", id="root-input")
            yield Button("Add", id="root-add")

    def on_mount(self) -> None:
        self._render_roots()

    def _render_roots(self) -> None:
        options = self.query_one("#roots-list", OptionList)
        options.clear_options()
        for root in self.inspector.handlers.roots:
            text = plain_line(str(root.get("uri")), 200, style="bold")
            if root.get("name"):
                text.append_text(plain_line(f"  {root['name']}", 60, style="dim"))
            options.add_option(Option(text))
        options.border_title = f"Roots ({len(self.inspector.handlers.roots)})"

    @on(Input.Submitted, "#root-input")
    @on(Button.Pressed, "#root-add")
    def _add(self) -> None:
        field = self.query_one("#root-input", Input)
        value = field.value.strip()
        if not value:
            return
        if value.startswith("file://"):
            uri, name = value, value.rstrip("/").rsplit("/", 1)[-1]
        else:
            path = Path(value).expanduser().resolve()
            uri, name = path.as_uri(), path.name or str(path)
        self.inspector.handlers.roots.append({"uri": uri, "name": name})
        field.value = ""
        self._render_roots()
        self._announce()

    def action_remove_root(self) -> None:
        options = self.query_one("#roots-list", OptionList)
        index = options.highlighted
        roots = self.inspector.handlers.roots
        if index is not None and 0 <= index < len(roots):
            roots.pop(index)
            self._render_roots()
            self._announce()

    @work(group="roots")
    async def _announce(self) -> None:
        client = self.inspector.client
        if client.state == "connected":
            await client.roots_changed()
