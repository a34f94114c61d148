"""Resource templates: a field per URI-template variable, completions, the
expanded URI shown live, and reading it."""

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
from inspector.tui import looks
from inspector.tui.badges import uri_row
from inspector.tui.keymap import key_hint
from inspector.tui.panes.context import ServerContext
from inspector.tui.panes.resources import contents_widgets
from inspector.tui.safe import plain, plain_line
from inspector.tui.widgets.completing_field import (
    CompletingField,
    ask_completion,
    fill_form,
    focus_first_field,
    form_fields,
)
from inspector.tui.widgets.item_list import ItemList
from inspector.tui.widgets.steady import set_text

__all__ = ["TemplatesPane", "expand_template", "template_variables"]


def template_variables(template: str) -> list[str]:
    """The variable names of a URI template, in order (none for a malformed one)."""
    import uritemplate

    try:
        return list(uritemplate.URITemplate(template).variable_names)
    except Exception:  # uritemplate raises assorted errors on malformed templates  # noqa: BLE001
        return []


def expand_template(template: str, values: dict[str, Any]) -> str:
    """The URI that *template* gives with *values*, leaving out variables left blank."""
    import uritemplate

    return str(uritemplate.expand(template, {k: v for k, v in values.items() if v != ""}))


class TemplatesPane(Horizontal):
    """The Templates tab: the list, a field per variable of the chosen template with completions, the expanded URI
    and its contents."""

    BINDINGS = [
        Binding("ctrl+enter,ctrl+j", "read", "Read URI", id="read_template", priority=True, key_display="^⏎/^j"),
        Binding("escape", "to_list", "Back to the list", id="template_form_to_list", show=False),
    ]

    def __init__(self, server: ServerContext) -> None:
        super().__init__()
        self.server = server
        self.current: Item | None = None

    def compose(self) -> ComposeResult:
        yield ItemList("Templates", uri_row, kind="templates", lines=2, on_highlight=self._show, id="template-list")
        with Vertical(id="template-detail"):
            yield VerticalScroll(id="template-form")
            yield Static("", id="template-uri")
            yield VerticalScroll(id="template-contents")

    def set_listing(self, listing: ListResult) -> None:
        """Show a fresh resource templates listing."""
        self.query_one(ItemList).set_listing(listing)

    async def _completion(self, argument: str, value: str) -> tuple[list[str], int | None, bool]:
        item = self.current
        if item is None:
            return [], None, False
        ref = {"type": "ref/resource", "uri": item.key}
        return await ask_completion(self.server.client, ref, argument, value, self.values())

    def _show(self, item: Item | None) -> None:
        current = self.current
        if item is not None and current is not None and item.key == current.key and item.raw == current.raw:
            return  # the same one, listed again: keep what was typed and read
        self.current = item
        # Nothing of the previous template stays: not its fields, not what
        # reading it gave (nor a read still on its way).
        self.workers.cancel_group(self, "read-template")
        contents = self.query_one("#template-contents", VerticalScroll)
        contents.border_title = None
        form = self.query_one("#template-form", VerticalScroll)
        form.border_title = None
        if contents.children:
            contents.remove_children()
        if item is None:
            form.remove_children()
            self.query_one("#template-uri", Static).update("")
            return
        form.border_title = plain_line(item.key, 120)
        header = Text()
        header.append_text(plain_line(item.display_name, 80, style="bold"))
        if item.description:
            header.append("\n")
            header.append_text(plain(item.description))
        variables = template_variables(item.key)
        lines = [] if variables else [Text("no variables (or the template is not valid RFC 6570)", style=looks.WARNING)]
        completions = "completions" in self.server.client.server_capabilities
        fields = []
        for name in variables:
            label = Text(name, style="bold")
            if completions:
                label.append("  (server completions)", style="dim")
            fields.append((name, label))
        fill_form(form, header, fields, self._completion if completions else None, lines)
        self._update_uri()

    @on(ItemList.Activated, "#template-list")
    def _activate(self, event: ItemList.Activated) -> None:
        """enter on the list: into the form; with nothing to fill, read the URI at once."""
        if not focus_first_field(self) and self.current is not None:
            self.action_read()

    def action_to_list(self) -> None:
        self.query_one(ItemList).focus_list()

    def values(self) -> dict[str, str]:
        """The variables' fields' text, by variable name."""
        return {field.argument: field.value for field in form_fields(self)}

    def expanded(self) -> str | None:
        """The URI the chosen template gives with the fields' values (None with no template chosen, or one that does
        not expand)."""
        if self.current is None:
            return None
        # Every variable, empty until typed: the fields of a template shown
        # for the first time are mounted after it is (`fill_form`).
        values = dict.fromkeys(template_variables(self.current.key), "") | self.values()
        try:
            return expand_template(self.current.key, values)
        except Exception:  # a malformed template cannot be expanded  # noqa: BLE001
            return None

    def _update_uri(self) -> None:
        uri = self.expanded()
        text = Text("URI: ", style="dim")
        text.append_text(plain_line(uri or "(cannot expand this template)", 200, style="bold"))
        text.append(f"   {key_hint(self.app, 'read_template')} reads it", style="dim")
        set_text(self.query_one("#template-uri", Static), text)

    @on(CompletingField.Changed)
    def _field_changed(self, event: CompletingField.Changed) -> None:
        self._update_uri()

    @work(group="read-template", exclusive=True)
    async def action_read(self) -> None:
        uri = self.expanded()
        if not uri:
            return
        area = self.query_one("#template-contents", VerticalScroll)
        await area.remove_children()
        area.border_title = plain_line(uri, 120)
        started = time.perf_counter()
        try:
            result = await self.server.client.read_resource(uri)
        except InspectorError as exc:
            await area.mount(Static(plain(f"✖ {exc}", style=looks.ERROR_STRONG)))
            return
        await area.mount(Static(Text(f"read in {(time.perf_counter() - started) * 1000:.1f} ms", style="dim")))
        await area.mount_all(contents_widgets(result))
