"""A server asks the person for input: a form from `requestedSchema`, or a
URL to visit (URL mode, 2025-11-25)."""

from __future__ import annotations

import webbrowser
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from inspector.tui.clipboard import copy_text
from inspector.tui.handlers import RequestScreen, TuiHandlers
from inspector.tui.safe import plain, plain_line
from inspector.tui.widgets.schema_form import SchemaForm

__all__ = ["ElicitationScreen"]


class ElicitationScreen(RequestScreen):
    """A server's elicitation/create: a form for its schema, or its URL to open; answers with the accept, decline or
    cancel result."""

    BINDINGS = [
        # Priority: the form's inputs must not swallow the answer keys.
        Binding("ctrl+s", "accept", "Accept", id="elicit_accept", priority=True),
        Binding("ctrl+d", "decline", "Decline", id="elicit_decline", priority=True),
        Binding("escape", "cancel", "Cancel", id="elicit_cancel"),
        Binding("ctrl+o", "open_url", "Open URL", id="elicit_open", show=False),
        Binding("ctrl+y", "copy_url", "Copy URL", id="elicit_copy", show=False),
    ]

    def __init__(self, params: dict[str, Any], handlers: TuiHandlers | None = None) -> None:
        super().__init__()
        self.params = params
        self.handlers = handlers
        self.url_mode = params.get("mode") == "url"

    @property
    def url(self) -> str:
        """The URL a URL-mode request asks the person to visit ("" when it gives none)."""
        url = self.params.get("url")
        return url if isinstance(url, str) else ""

    def compose(self) -> ComposeResult:
        with Vertical():
            title = "The server asks you to visit a URL" if self.url_mode else "The server asks for input"
            yield Static(Text(title + " (elicitation/create)", style="bold"))
            yield self.queue_note()
            yield Static(plain(str(self.params.get("message", "")), style="italic"))
            with VerticalScroll(id="elicit-body"):
                if self.url_mode:
                    yield Static(Text("URL (check it before opening):", style="dim"))
                    yield Static(plain_line(self.url, 400, style="bold underline"))
                    elicitation_id = self.params.get("elicitationId")
                    if isinstance(elicitation_id, str):
                        yield Static(plain_line(f"elicitation id: {elicitation_id}", 120, style="dim"))
                else:
                    yield SchemaForm(id="elicit-form")
            keys = "ctrl+s accept · ctrl+d decline · escape cancel"
            if self.url_mode:
                keys += " · ctrl+o open in browser · ctrl+y copy URL"
            yield Static(Text(keys, style="dim"))
            with Horizontal():
                yield Button("Accept", id="accept", variant="primary")
                yield Button("Decline", id="decline")
                yield Button("Cancel", id="cancel")
                if self.url_mode:
                    yield Button("Open URL", id="open")
                    yield Button("Copy URL", id="copy")

    def on_mount(self) -> None:
        if not self.url_mode:
            schema = self.params.get("requestedSchema")
            form = self.query_one(SchemaForm)
            form.load_schema(schema if isinstance(schema, dict) else {"type": "object"})
            if form.root is not None:
                # Unlike a tool's arguments, an elicitation form starts with
                # its defaults: the spec asks clients to pre-populate them.
                form.root.fill_defaults()
                form.rebuild()
            form.focus_first()

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        action = {
            "accept": "accept",
            "decline": "decline",
            "cancel": "cancel",
            "open": "open_url",
            "copy": "copy_url",
        }.get(event.button.id or "")
        if action is not None:
            await self.run_action(action)

    async def action_accept(self) -> None:
        if self.url_mode:
            self.dismiss({"action": "accept"})
            return
        form = self.query_one(SchemaForm)
        value, errors = form.value_and_errors()
        if errors:
            self.app.notify("; ".join(errors[:3]), severity="error", markup=False)
            return
        violations = await form.check_now()
        if violations:
            self.app.notify("fix the highlighted fields first", severity="error")
            return
        self.dismiss({"action": "accept", "content": value if isinstance(value, dict) else {}})

    def action_decline(self) -> None:
        self.dismiss({"action": "decline"})

    def action_cancel(self) -> None:
        self.dismiss({"action": "cancel"})

    def action_open_url(self) -> None:
        if self.url_mode and self.url.startswith(("https://", "http://")):
            webbrowser.open(self.url)
        else:
            self.app.notify("only http(s) URLs are opened", severity="warning")

    def action_copy_url(self) -> None:
        if self.url_mode:
            how = copy_text(self.app, self.url)
            self.app.notify(f"URL copied ({how})")
