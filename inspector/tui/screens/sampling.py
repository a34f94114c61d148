"""A server asks the client's model for a message: the person reads the
request and writes the reply (or rejects it)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Select, Static, TextArea

from inspector.tui import looks
from inspector.tui.handlers import RequestScreen
from inspector.tui.safe import json_syntax, plain, plain_line
from inspector.tui.widgets.content_view import BlockView

__all__ = ["SamplingScreen", "sampling_reply"]

STOP_REASONS = ("endTurn", "stopSequence", "maxTokens", "toolUse")


def sampling_reply(text: str, model: str, stop_reason: str) -> dict[str, Any]:
    """The sampling/createMessage result for the person's reply: *text* as the assistant's, from *model* ("human"
    when blank), with *stop_reason*."""
    return {
        "role": "assistant",
        "content": {"type": "text", "text": text},
        "model": model or "human",
        "stopReason": stop_reason,
    }


class SamplingScreen(RequestScreen):
    """A server's sampling/createMessage: the request, and the reply the person writes; answers with the result, None
    to reject."""

    BINDINGS = [
        Binding("ctrl+s", "send", "Send reply", id="sampling_send", priority=True),
        Binding("escape", "reject", "Reject", id="sampling_reject"),
    ]

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__()
        self.params = params

    def compose(self) -> ComposeResult:
        params = self.params
        with Vertical():
            yield Static(Text("The server asks for a model reply (sampling/createMessage)", style="bold"))
            yield self.queue_note()
            with VerticalScroll(id="sampling-request"):
                if isinstance(params.get("systemPrompt"), str):
                    yield Static(Text("system prompt", style="bold"))
                    yield Static(plain(params["systemPrompt"], style="italic"))
                messages: list[Any] = params["messages"] if isinstance(params.get("messages"), list) else []
                for index, message in enumerate(messages):
                    if not isinstance(message, dict):
                        continue
                    yield Static(plain_line(f"── {message.get('role', '?')}", 40, style=looks.INFO_STRONG))
                    content = message.get("content")
                    blocks = content if isinstance(content, list) else [content]
                    for block in blocks:
                        yield BlockView(block, index)
                facts = {
                    k: params[k]
                    for k in (
                        "modelPreferences",
                        "maxTokens",
                        "temperature",
                        "stopSequences",
                        "includeContext",
                        "metadata",
                        "tools",
                        "toolChoice",
                    )
                    if k in params
                }
                if facts:
                    yield Static(Text("request settings", style="bold"))
                    yield Static(json_syntax(facts))
            yield Static(Text("your reply (as the assistant):", style="dim"))
            yield TextArea("", id="sampling-reply")
            with Horizontal():
                yield Input(value="human", placeholder="model name", id="sampling-model")
                yield Select([(r, r) for r in STOP_REASONS], value="endTurn", allow_blank=False, id="sampling-stop")
                yield Button("Send (ctrl+s)", id="send", variant="primary")
                yield Button("Reject (escape)", id="reject", variant="error")

    def on_mount(self) -> None:
        self.query_one("#sampling-reply", TextArea).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "send":
            self.action_send()
        else:
            self.action_reject()

    def action_send(self) -> None:
        stop = self.query_one("#sampling-stop", Select).value
        self.dismiss(
            sampling_reply(
                self.query_one("#sampling-reply", TextArea).text,
                self.query_one("#sampling-model", Input).value.strip(),
                stop if isinstance(stop, str) else "endTurn",
            )
        )

    def action_reject(self) -> None:
        self.dismiss(None)
