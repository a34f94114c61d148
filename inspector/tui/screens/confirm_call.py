"""The confirmation before every tools/call: the tool, its hints with the
spec's defaults applied, and the exact JSON that will be sent."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from inspector.core.protocol.items import Item
from inspector.tui import looks
from inspector.tui.badges import hint_badges
from inspector.tui.gaps import hold_gaps
from inspector.tui.safe import json_syntax, plain_line

__all__ = ["TRUST", "ConfirmCallScreen"]

TRUST = "trust"


def _read_only(tool: Item) -> bool:
    annotations = tool.data.get("annotations")
    return isinstance(annotations, dict) and annotations.get("readOnlyHint") is True


class ConfirmCallScreen(ModalScreen[bool | str]):
    """The confirmation before a tools/call: answers True to call, False not to, or `TRUST` to call a read-only tool
    and not ask again."""

    BINDINGS = [
        Binding("y", "answer('yes')", "Call", id="confirm_yes"),
        Binding("n,escape", "answer('no')", "Don't call", id="confirm_no"),
        Binding("a", "answer('trust')", "Don't ask again (read-only)", id="confirm_trust", show=False),
    ]

    def __init__(
        self, tool: Item, arguments: dict[str, Any], origin: str | None = None, server: str | None = None
    ) -> None:
        super().__init__()
        self.tool = tool
        self.arguments = arguments
        # Which server gets the call, when several share the window ("2 everything").
        self.server = server
        # Who asks, when it is not the person (e.g. "the MCP App of weather").
        self.origin = origin
        self.can_trust = _read_only(tool)
        # The answer given, for whoever watches the screen (a walkthrough): None until then.
        self.answer: bool | str | None = None

    def compose(self) -> ComposeResult:
        tool = self.tool
        with Vertical():
            title = Text("Call tool ", style="bold")
            title.append_text(plain_line(tool.key, 80, style=looks.WARNING_STRONG))
            if tool.title:
                title.append_text(plain_line(f"  ({tool.title})", 60, style="dim"))
            if self.server is not None:
                title.append(" on server ", style="bold")
                title.append_text(plain_line(self.server, 40, style="bold reverse"))
            title.append("?")
            yield Static(hold_gaps(title))
            if self.origin is not None:
                asked = Text("Asked by ", style=looks.ACCENT_STRONG)
                asked.append_text(plain_line(self.origin, 80, style=looks.ACCENT_STRONG))
                asked.append(", not by you.", style=looks.ACCENT_STRONG)
                yield Static(asked, id="confirm-origin")
            yield Static(hint_badges(tool.hints(), long=True))
            if not any(h.explicit for h in tool.hints()):
                yield Static(
                    Text(
                        "This tool declares no hints: assume it may destroy data and reach the outside world.",
                        style=looks.ERROR_STRONG,
                    )
                )
            yield Static(
                Text(
                    f"arguments ({len(json.dumps(self.arguments))} bytes, sent exactly as shown):",
                    style="dim",
                )
            )
            with VerticalScroll(id="confirm-args"):
                yield Static(json_syntax(self.arguments))
            keys = "y call · n / escape cancel"
            if self.can_trust:
                keys += " · a call and don't ask again for this tool (this session)"
            yield Static(Text(keys, style="dim"))
            with Horizontal():
                yield Button("Call (y)", id="yes", variant="warning")
                yield Button("Cancel (n)", id="no")
                if self.can_trust:
                    yield Button("Always for this tool (a)", id="trust")

    # The box's share of the screen's height (its max-height above) and the
    # arguments' own limit; a short terminal gives the arguments less, so the
    # buttons stay on screen (at 100x30 a 15-line JSON pushed them off).
    BOX_SHARE = 0.9
    ARGS_AT_MOST = 24
    ARGS_AT_LEAST = 3

    def on_mount(self) -> None:
        self.call_after_refresh(self._fit_arguments)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit_arguments)

    def _fit_arguments(self) -> None:
        box = self.query_one(Vertical)
        args = self.query_one("#confirm-args", VerticalScroll)
        others = box.styles.gutter.height + sum(
            child.outer_size.height + child.styles.margin.top + child.styles.margin.bottom
            for child in box.children
            if child is not args and child.display
        )
        # max-height counts the arguments' border too (border-box).
        fitted = max(self.ARGS_AT_LEAST, min(self.ARGS_AT_MOST, int(self.size.height * self.BOX_SHARE) - others))
        if args.styles.max_height is None or args.styles.max_height.value != fitted:
            args.styles.max_height = fitted

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_answer(event.button.id or "no")

    def action_answer(self, answer: str) -> None:
        if answer == "yes":
            self.answer = True
        elif answer == "trust" and self.can_trust:
            self.answer = TRUST
        elif answer != "trust":
            self.answer = False
        else:
            return
        self.dismiss(self.answer)
