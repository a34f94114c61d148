"""Prompts: an argument form with completions, and the messages by role."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static

from inspector.core.protocol.errors import InspectorError
from inspector.core.protocol.items import Item, ListResult
from inspector.core.safetext import one_line, visible
from inspector.tui import looks
from inspector.tui.keymap import key_hint
from inspector.tui.panes.context import ServerContext
from inspector.tui.safe import plain, plain_line
from inspector.tui.widgets.completing_field import ask_completion, fill_form, focus_first_field, form_fields
from inspector.tui.widgets.content_view import BlockView
from inspector.tui.widgets.item_list import ItemList

__all__ = ["PromptsPane", "message_widgets"]

_ROLE_STYLE = {"user": looks.INFO_STRONG, "assistant": looks.OK_STRONG}
# A prompt argument's description is shown whole up to this many characters.
ARGUMENT_DESCRIPTION_LIMIT = 1000


def message_widgets(result: Any) -> list[Any]:
    """The widgets that show a prompts/get result: its description, then each message under its role (a red line for
    what is malformed)."""
    if not isinstance(result, dict):
        return [Static(Text("the result is not an object", style=looks.ERROR_STRONG))]
    parts: list[Any] = []
    if isinstance(result.get("description"), str):
        parts.append(Static(plain(result["description"], style="italic")))
    messages = result.get("messages")
    if not isinstance(messages, list):
        return [*parts, Static(Text("messages is missing or not an array", style=looks.ERROR_STRONG))]
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            parts.append(Static(Text(f"message {index + 1} is not an object", style=looks.ERROR)))
            continue
        role = str(message.get("role", "?"))
        parts.append(Static(Text(f"── {visible(role)}", style=_ROLE_STYLE.get(role, looks.ERROR_STRONG))))
        parts.append(BlockView(message.get("content"), index))
    return parts


def _listed_arguments(item: Item) -> list[dict[str, Any]]:
    arguments = item.data.get("arguments")
    return [a for a in arguments if isinstance(a, dict)] if isinstance(arguments, list) else []


def _row_lines(item: Item) -> int:
    """A row's height without drawing it: the name, then the arguments if any."""
    return 2 if _listed_arguments(item) else 1


class PromptsPane(Horizontal):
    """The Prompts tab: the list, the chosen prompt's argument form with completions, and the messages it gave."""

    BINDINGS = [
        Binding("ctrl+enter,ctrl+j", "get", "Get prompt", id="get_prompt", priority=True, key_display="^⏎/^j"),
        Binding("escape", "to_list", "Back to the list", id="prompt_form_to_list", show=False),
    ]

    def __init__(self, server: ServerContext) -> None:
        super().__init__()
        self.server = server
        self.current: Item | None = None

    def compose(self) -> ComposeResult:
        yield ItemList(
            "Prompts", self._row, kind="prompts", lines=_row_lines, on_highlight=self._show, id="prompt-list"
        )
        with Vertical(id="prompt-detail"):
            yield VerticalScroll(id="prompt-form")
            yield VerticalScroll(id="prompt-messages")

    def _row(self, item: Item) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        if item.problems:
            text.append("⚠ ", style=looks.ERROR_STRONG)
        text.append_text(plain_line(item.display_name, 50, style="bold"))
        arguments = _listed_arguments(item)
        if arguments:
            names = ", ".join(str(a.get("name")) + ("*" if a.get("required") else "") for a in arguments)
            text.append("\n")
            text.append_text(plain_line(names, 60, style="dim"))
        return text

    def set_listing(self, listing: ListResult) -> None:
        """Show a fresh prompts listing."""
        self.query_one(ItemList).set_listing(listing)

    async def _completion(self, argument: str, value: str) -> tuple[list[str], int | None, bool]:
        if self.current is None:
            return [], None, False
        ref = {"type": "ref/prompt", "name": self.current.key}
        return await ask_completion(self.server.client, ref, argument, value, self.values())

    def _show(self, item: Item | None) -> None:
        current = self.current
        if item is not None and current is not None and item.key == current.key and item.raw == current.raw:
            return  # the same one, listed again: keep what was typed and read
        self.current = item
        # Nothing of the previous prompt stays: not its fields, not the
        # messages it gave (nor a get still on its way).
        self.workers.cancel_group(self, "get-prompt")
        form = self.query_one("#prompt-form", VerticalScroll)
        form.border_title = None
        messages = self.query_one("#prompt-messages", VerticalScroll)
        if messages.children:
            messages.remove_children()
        if item is None:
            form.remove_children()
            return
        form.border_title = plain_line(item.key, 120)
        header = Text()
        header.append_text(plain_line(item.display_name, 80, style="bold"))
        if item.description:
            header.append("\n")
            header.append_text(plain(item.description))
        for problem in item.problems:
            header.append("\n⚠ ", style=looks.ERROR_STRONG)
            header.append_text(plain(problem, style=looks.ERROR))
        fields = []
        completions = "completions" in self.server.client.server_capabilities
        for argument in item.data.get("arguments") or []:
            if not isinstance(argument, dict) or not isinstance(argument.get("name"), str):
                continue
            name = argument["name"]
            label = Text(visible(name), style="bold")
            if argument.get("required"):
                label.append(" *", style=looks.ERROR_STRONG)
            if isinstance(argument.get("description"), str):
                # Whole and wrapped: an argument's allowed values are often
                # only in its description, at the end (FastMCP's "Provide a
                # value matching the following JSON schema: {…}").
                label.append("  ")
                label.append(one_line(argument["description"], ARGUMENT_DESCRIPTION_LIMIT), style="dim")
            fields.append((name, label))
        hint = Text(f"{key_hint(self.app, 'get_prompt')} gets the prompt", style="dim")
        fill_form(form, header, fields, self._completion if completions else None, [hint])

    @on(ItemList.Activated, "#prompt-list")
    def _activate(self, event: ItemList.Activated) -> None:
        """enter on the list: into the form; with nothing to fill, get the prompt at once."""
        if not focus_first_field(self) and self.current is not None:
            self.action_get()

    def action_to_list(self) -> None:
        self.query_one(ItemList).focus_list()

    def values(self) -> dict[str, str]:
        """The argument form's text, by argument name."""
        return {field.argument: field.value for field in form_fields(self)}

    @work(group="get-prompt", exclusive=True)
    async def action_get(self) -> None:
        item = self.current
        if item is None:
            return
        arguments = {k: v for k, v in self.values().items() if v != ""}
        area = self.query_one("#prompt-messages", VerticalScroll)
        await area.remove_children()
        started = time.perf_counter()
        try:
            result = await self.server.client.get_prompt(item.key, arguments or None)
        except InspectorError as exc:
            await area.mount(Static(plain(f"✖ {exc}", style=looks.ERROR_STRONG)))
            return
        await area.mount(Static(Text(f"got in {(time.perf_counter() - started) * 1000:.1f} ms", style="dim")))
        await area.mount_all(message_widgets(result))
