"""A labelled text field that asks the server for completions as you type.

Suggestions come from `completion/complete`; the first one shows inline
(→ or tab accepts it) and all of them are listed under the field.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.suggester import Suggester
from textual.widget import Widget
from textual.widgets import Input, Label, Static

from ...core.client import Client
from ...core.errors import InspectorError
from ...core.safetext import one_line, visible

__all__ = ["CompletingField", "CompletionSource", "ask_completion", "focus_first_field"]

# (argument name, current value) -> (values, total, hasMore)
CompletionSource = Callable[[str, str], Awaitable[tuple[list[str], int | None, bool]]]


async def ask_completion(
    client: Client, ref: dict[str, Any], argument: str, value: str, others: dict[str, str]
) -> tuple[list[str], int | None, bool]:
    """`completion/complete` for one argument, the other filled-in values as context."""
    context = {k: v for k, v in others.items() if k != argument and v}
    result = await client.complete(ref, argument, value, context or None)
    completion = result.get("completion") if isinstance(result, dict) else None
    if not isinstance(completion, dict):
        return [], None, False
    values = [visible(str(v)) for v in completion.get("values") or []]
    total = completion.get("total")
    return values, total if isinstance(total, int) else None, completion.get("hasMore") is True


class _ServerSuggester(Suggester):
    def __init__(self, field: CompletingField) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.field = field

    async def get_suggestion(self, value: str) -> str | None:
        values = await self.field.fetch(value)
        for candidate in values:
            if candidate.startswith(value) and candidate != value:
                return candidate
        return None


class CompletingField(Vertical):
    DEFAULT_CSS = """
    CompletingField { height: auto; margin: 0 0 1 0; }
    CompletingField > Label { color: $text-muted; }
    CompletingField > .suggestions { color: $text-muted; height: auto; }
    """

    class Changed(Message):
        def __init__(self, field: CompletingField, value: str) -> None:
            super().__init__()
            self.field = field
            self.value = value

    def __init__(
        self,
        name: str,
        *,
        label: Text,
        source: CompletionSource | None,
        value: str = "",
        placeholder: str = "",
    ) -> None:
        super().__init__()
        self.argument = name
        self.label = label
        self.source = source
        self.initial = value
        self.placeholder = placeholder
        self.last_values: list[str] = []

    def compose(self) -> ComposeResult:
        yield Label(self.label)
        suggester = _ServerSuggester(self) if self.source is not None else None
        yield Input(value=self.initial, placeholder=self.placeholder, suggester=suggester, id=f"field-{self.argument}")
        yield Static("", classes="suggestions")

    @property
    def value(self) -> str:
        return self.query_one(Input).value

    async def fetch(self, value: str) -> list[str]:
        if self.source is None:
            return []
        try:
            values, total, has_more = await self.source(self.argument, value)
        except InspectorError as exc:
            self.query_one(".suggestions", Static).update(Text(f"completion failed: {one_line(str(exc), 80)}"))
            return []
        self.last_values = values
        shown = Text()
        if values:
            shown.append("suggestions: ", style="dim")
            shown.append(", ".join(one_line(v, 40) for v in values[:12]))
            more = (total or len(values)) - min(len(values), 12)
            if more > 0 or has_more:
                shown.append(f"  (+{more if more > 0 else 'more'})", style="dim")
        self.query_one(".suggestions", Static).update(shown)
        return values

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(self, event.value))


def focus_first_field(container: Widget) -> bool:
    """Focus the first completing field in `container`; False when it has none."""
    for field in container.query(CompletingField):
        field.query_one(Input).focus()
        return True
    return False
