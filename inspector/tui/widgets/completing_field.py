"""A labelled text field that asks the server for completions as you type.

Suggestions come from `completion/complete`, matched whatever their case,
in a dropdown under the field as you type: up/down choose, enter or tab
accept, escape closes it (down opens it on an untouched field).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from inspector.core.protocol.client import Client
from inspector.core.protocol.errors import InspectorError
from inspector.core.safetext import one_line, visible
from inspector.tui.widgets.steady import set_text
from inspector.tui.widgets.vacancy import Vacancy

__all__ = [
    "CompletingField",
    "CompletionSource",
    "ask_completion",
    "fill_form",
    "focus_first_field",
    "form_fields",
    "matching",
]

# Fields a form keeps blank for a later item of more arguments, at most.
SPARE_FIELDS = 4

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


def matching(values: list[str], typed: str) -> list[str]:
    """The suggestions for *typed*, whatever its case: those starting with it
    first, then those containing it; the server's own list when none does
    (it may match in ways of its own)."""
    folded = typed.casefold()
    starts = [v for v in values if v.casefold().startswith(folded)]
    contains = [v for v in values if folded in v.casefold() and v not in starts]
    return starts + contains or list(values)


class _CompletionInput(Input):
    """The field's input: while its dropdown is open, up/down choose, enter
    or tab accept, escape closes it (and nothing else: those keys do not
    reach the form's or the app's bindings)."""

    DROPDOWN_KEYS = ("up", "down", "enter", "tab", "escape")

    async def _on_key(self, event: events.Key) -> None:
        field = self.parent
        if isinstance(field, CompletingField) and event.key in self.DROPDOWN_KEYS and field.dropdown_key(event.key):
            event.stop()
            event.prevent_default()


class CompletingField(Vacancy, Vertical):
    """A labelled text field with the server's completions in a dropdown under it."""

    DEFAULT_CSS = """
    CompletingField { height: auto; margin: 0 0 1 0; }
    CompletingField > Label { color: $text-muted; }
    CompletingField > .suggestions { color: $text-muted; height: auto; }
    CompletingField > .suggestions.-empty { display: none; }
    CompletingField > OptionList.completions {
        display: none; height: auto; max-height: 8; border: round $accent; margin: 0 0 0 1;
    }
    CompletingField > OptionList.completions.-open { display: block; }
    """

    class Changed(Message):
        """The field's text changed (typed, or a suggestion accepted)."""

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
        # What the server last suggested, and what the dropdown shows of it.
        self.last_values: list[str] = []
        self.shown: list[str] = []
        # A value put in by accepting a suggestion asks for no new ones.
        self._accepted: str | None = None

    def compose(self) -> ComposeResult:
        yield Label(self.label)
        # No id from the argument's name: a server's name need not be a valid one.
        yield _CompletionInput(value=self.initial, placeholder=self.placeholder)
        dropdown = OptionList(classes="completions")
        dropdown.can_focus = False  # focus stays in the field, which drives it
        yield dropdown
        yield Static("", classes="suggestions -empty")

    @property
    def _composed(self) -> bool:
        # A field mounted a moment ago (a pane's first item) may be asked
        # for its text, or given another item, before its widgets are in.
        return bool(self.children)

    @property
    def value(self) -> str:
        """The field's text (before its input is composed: the text it starts with)."""
        return self.query_one(Input).value if self._composed else self.initial

    def rebind(self, name: str, *, label: Text, source: CompletionSource | None, placeholder: str = "") -> None:
        """Become the field of another argument: its label, an empty value,
        no suggestions (nor an answer to a request made for the last one)."""
        self.workers.cancel_group(self, "completion")
        self.argument = name
        self.label = label
        self.source = source
        self.initial = ""
        self.placeholder = placeholder
        self.last_values = []
        self.shown = []
        self._accepted = None
        if not self._composed:
            return  # it will be composed from these
        set_text(self.query_one(Label), label)
        field = self.query_one(Input)
        # Emptied by the pane, not typed: no Changed, no request for suggestions.
        with self.prevent(Input.Changed):
            field.value = ""
        field.placeholder = placeholder
        self.dropdown.clear_options()
        self.close()
        self._note(Text())

    @property
    def dropdown(self) -> OptionList:
        """The list of suggestions under the field."""
        return self.query_one(".completions", OptionList)

    @property
    def dropdown_open(self) -> bool:
        """Whether the suggestions are showing."""
        return self.dropdown.has_class("-open")

    def _note(self, text: Text) -> None:
        note = self.query_one(".suggestions", Static)
        if not text.plain and note.has_class("-empty"):
            return  # hidden and to stay so: no update, whose layout a move along a list would pay
        note.update(text)
        note.set_class(not text.plain, "-empty")

    async def fetch(self, value: str) -> list[str]:
        """The server's completions of *value*, noting under the field how many it did not send; none, with the error
        noted, when the request fails."""
        if self.source is None:
            return []
        try:
            values, total, has_more = await self.source(self.argument, value)
        except InspectorError as exc:
            self._note(Text(f"completion failed: {one_line(str(exc), 80)}"))
            return []
        self.last_values = values
        note = Text()
        more = (total or len(values)) - len(values)
        if more > 0 or has_more:
            note.append(f"{len(values)} suggestions shown, {more if more > 0 else 'more'} not sent", style="dim")
        self._note(note)
        return values

    @work(group="completion", exclusive=True)
    async def suggest(self, value: str) -> None:
        """Ask for suggestions for *value* and open the dropdown with them."""
        values = await self.fetch(value)
        if self.value != value:
            return  # typed on meanwhile: the next request answers
        self.show(matching(values, value) if value else values)

    def show(self, values: list[str]) -> None:
        """Put *values* in the dropdown (a lone one equal to the text left out), open when there are any and the
        field has focus."""
        self.shown = [v for v in values if v != self.value] if len(values) == 1 else list(values)
        dropdown = self.dropdown
        dropdown.clear_options()
        dropdown.add_options(Option(Text(one_line(v, 80))) for v in self.shown)
        has_focus = self.app.focused is self.query_one(Input)
        dropdown.set_class(bool(self.shown) and has_focus, "-open")
        if self.shown:
            dropdown.highlighted = 0

    def vacate(self) -> None:
        """Blank it for a later item: no answer to a request for this one's suggestions opens them."""
        if not self.vacant:
            self.workers.cancel_group(self, "completion")
            if self._composed and self.dropdown_open:
                self.close()
        super().vacate()

    def close(self) -> None:
        """Hide the suggestions."""
        self.dropdown.remove_class("-open")

    def dropdown_key(self, key: str) -> bool:
        """A key for the dropdown; False when it is closed and the key is not its to take."""
        dropdown = self.dropdown
        if not self.dropdown_open:
            if key == "down" and self.source is not None:
                self.suggest(self.value)
                return True
            return False
        if key == "escape":
            self.close()
        elif key == "up":
            dropdown.action_cursor_up()
        elif key == "down":
            dropdown.action_cursor_down()
        else:
            self.accept()
        return True

    def accept(self) -> None:
        """Put the highlighted suggestion in the field and close the dropdown."""
        index = self.dropdown.highlighted
        self.close()
        if index is None or not 0 <= index < len(self.shown):
            return
        chosen = self.shown[index]
        field = self.query_one(Input)
        self._accepted = chosen
        field.value = chosen
        field.cursor_position = len(chosen)

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(self, event.value))
        if self._accepted is not None and event.value == self._accepted:
            self._accepted = None
            return
        self._accepted = None
        if self.source is not None:
            self.suggest(event.value)

    @on(events.DescendantBlur)
    def _blurred(self) -> None:
        self.close()


class FormLine(Static):
    """A line of a form after its fields (a hint, a warning): kept while the next item's form has the same."""

    def __init__(self, text: Text) -> None:
        super().__init__(text, classes="form-line")
        self.line_text = text.plain


def fill_form(
    form: Widget,
    header: Text,
    fields: list[tuple[str, Text]],
    source: CompletionSource | None,
    lines: list[Text],
) -> None:
    """An item's form in *form*: a header, a field per (argument, label),
    then *lines*.  What the form already holds is given the new item's
    (header text, argument, label; values and suggestions emptied) rather
    than built again, and fields it has too many of stay blank where they
    are (`Vacancy`) for a later item: a move along a list of items of one
    or two arguments mounts nothing and lays nothing out.  Done as it is
    called: what it mounts or removes follows in the next turns."""
    children = list(form.children)
    top = children[0] if children else None
    if not isinstance(top, Static) or not top.has_class("form-header"):
        form.remove_children()
        form.mount_all(
            [
                Static(header, classes="form-header"),
                *(CompletingField(name, label=label, source=source) for name, label in fields),
                *(FormLine(line) for line in lines),
            ]
        )
        return
    set_text(top, header)
    old = [child for child in children if isinstance(child, CompletingField)]
    for field, (name, label) in zip(old, fields, strict=False):
        field.occupy()
        field.rebind(name, label=label, source=source)
    extra = old[len(fields) :]
    for field in extra[:SPARE_FIELDS]:
        field.vacate()
    stale: list[Widget] = [*extra[SPARE_FIELDS:]]
    kept_lines = [child for child in children if isinstance(child, FormLine)]
    if [line.line_text for line in kept_lines] != [line.plain for line in lines]:
        stale += kept_lines
        kept_lines = []
    if stale:
        form.remove_children(stale)
    new_fields = [CompletingField(name, label=label, source=source) for name, label in fields[len(old) :]]
    if new_fields:
        form.mount_all(new_fields, before=kept_lines[0] if kept_lines else None)
    if not kept_lines and lines:
        form.mount_all([FormLine(line) for line in lines])


def form_fields(container: Widget) -> list[CompletingField]:
    """The fields of the item shown in *container* (none kept blank), in order."""
    return [field for field in container.query(CompletingField) if not field.vacant]


def focus_first_field(container: Widget) -> bool:
    """Focus the first completing field in `container`; False when it has none."""
    for field in form_fields(container):
        field.query_one(Input).focus()
        return True
    return False
