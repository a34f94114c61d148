"""The editors a form's row holds for its node: the one beside its label (a
select, a checkbox, buttons or a text field) or the blocks under its line
(multi-line text, raw JSON, a multiple choice)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Button, Checkbox, SelectionList, Static, TextArea

from inspector.core.safetext import has_controls, one_line, safe_json, visible
from inspector.forms import (
    UNSET,
    ArrayNode,
    BooleanNode,
    ConstNode,
    EnumNode,
    ExtrasNode,
    FormNode,
    MultiSelectNode,
    NullableNode,
    ObjectNode,
    RawJsonNode,
    StringNode,
    UnionNode,
)
from inspector.forms.values import json_text
from inspector.tui import looks
from inspector.tui.safe import plain
from inspector.tui.widgets.form_parts import FormInput, compact
from inspector.tui.widgets.form_select import BLANK, FormSelect
from inspector.tui.widgets.form_text import kind_text, select_prompt

__all__ = ["block_editors", "bool_choice", "enum_choice", "item_buttons", "line_editors", "text_placeholder"]


def enum_choice(node: EnumNode) -> Any:
    """What an enum's select holds: the chosen option's index, or blank."""
    current = node.selected_index
    return current if current is not None else BLANK


def bool_choice(node: BooleanNode) -> Any:
    """What a boolean's select holds: "true", "false", or blank."""
    state = node.to_value()
    return BLANK if state is UNSET else ("true" if state else "false")


def text_placeholder(node: FormNode) -> str:
    """What an empty text field shows: the node's placeholder, else its kind."""
    return visible(str(getattr(node, "placeholder", "") or kind_text(node)))


def _json_editor(node: FormNode) -> TextArea:
    value = node.to_value()
    text = "" if value is UNSET else safe_json(value, indent=2)
    if node.json_draft is not None:
        # JSON typed that does not parse: shown as typed, as it was.
        text = node.json_draft
    return TextArea(text, language="json", classes="raw-editor", soft_wrap=True)


def block_editors(node: FormNode) -> ComposeResult:
    """The editors that need rows of their own (under the line)."""
    if node.is_raw or (isinstance(node, StringNode) and has_controls(node.text())):
        # Server-supplied text (a default, say) may hold control
        # characters; an editor would send them to the terminal, so such
        # a value is edited as escaped JSON instead.
        if not node.is_raw:
            yield Static(plain("contains control characters: edited as escaped JSON", style=looks.WARNING))
        yield _json_editor(node)
    elif isinstance(node, StringNode) and node.multiline:
        yield TextArea(node.text(), classes="text-editor", soft_wrap=True)
    elif isinstance(node, MultiSelectNode):
        yield SelectionList[int](
            *[
                (Text(visible(option.label)), index, node.is_selected(index))
                for index, option in enumerate(node.options)
            ],
            classes="multi-editor",
        )
    elif isinstance(node, ExtrasNode):
        yield Static(plain("additional properties, as one JSON object", style="dim"))
        yield _json_editor(node)
    elif isinstance(node, RawJsonNode):
        reason = getattr(node, "reason", None) or "the form cannot show this part of the schema"
        yield Static(plain(f"raw JSON: {reason}", style=looks.WARNING))
        yield _json_editor(node)


def _kind_line(node: FormNode) -> Static:
    return Static(Text(one_line(kind_text(node), 30)), classes="field-kind")


def _enum_select(node: EnumNode) -> ComposeResult:
    options = [(Text(visible(option.label)), index) for index, option in enumerate(node.options)]
    yield compact(
        FormSelect(
            options,
            value=enum_choice(node),
            allow_blank=not node.required or node.selected_index is None,
            prompt=select_prompt(node),
            classes="enum-editor",
        )
    )


def _bool_select(node: BooleanNode) -> ComposeResult:
    yield compact(
        FormSelect(
            [("true", "true"), ("false", "false")],
            value=bool_choice(node),
            allow_blank=True,
            prompt=select_prompt(node),
            classes="bool-editor",
        )
    )


def _const_include(node: ConstNode) -> ComposeResult:
    yield Static(plain(f"constant {json_text(node.schema.get('const'))}"), classes="field-kind")
    if not node.fills_itself:
        yield compact(Checkbox("include", node.is_set, classes="const-include"))


def _array_buttons(node: ArrayNode) -> ComposeResult:
    # The item count that follows is the row's (it changes as items are typed into).
    if node.can_add:
        yield compact(Button("+ add", classes="array-add"))
    if not node.required and node.is_set:
        yield compact(Button("clear", classes="array-clear"))


def _object_buttons(node: ObjectNode) -> ComposeResult:
    # A required object shows its fields open (it is sent once one
    # of them is filled); an optional one waits to be included.
    if node.path and not node.required:
        if not node.present:
            yield compact(Button("+ include", classes="object-include"))
        else:
            yield compact(Button("leave out", classes="object-clear"))
    yield _kind_line(node)


def _union_select(node: UnionNode) -> ComposeResult:
    options = [(Text(visible(variant.title)), index) for index, variant in enumerate(node.variants)]
    yield compact(FormSelect(options, value=node.selected, allow_blank=False, classes="union-editor"))


def _null_toggle(node: NullableNode) -> ComposeResult:
    yield compact(Checkbox("null", node.is_null, classes="null-toggle"))
    yield _kind_line(node)


def _text_input(node: FormNode) -> ComposeResult:
    yield compact(
        FormInput(
            node.text(),
            placeholder=text_placeholder(node),
            password=bool(getattr(node, "secret", False)),
            classes="text-input",
        )
    )


# The first kind a node is decides its editor; any other node is typed as text.
_LINE_EDITORS: tuple[tuple[type[FormNode], Callable[[Any], ComposeResult]], ...] = (
    (EnumNode, _enum_select),
    (BooleanNode, _bool_select),
    (ConstNode, _const_include),
    (ArrayNode, _array_buttons),
    (ObjectNode, _object_buttons),
    (UnionNode, _union_select),
    (NullableNode, _null_toggle),
)


def line_editors(node: FormNode) -> ComposeResult:
    """The editor or buttons that sit beside the label (an array's item count aside)."""
    for kind, editors in _LINE_EDITORS:
        if isinstance(node, kind):
            return editors(node)
    return _text_input(node)


def item_buttons(node: FormNode) -> ComposeResult:
    """An array item's buttons: up, down, and remove when the array may shrink."""
    parent = node.parent
    if isinstance(parent, ArrayNode) and isinstance(node.key, int):
        yield compact(Button("↑", classes="item-up", tooltip="move up"))
        yield compact(Button("↓", classes="item-down", tooltip="move down"))
        if parent.can_remove:
            yield compact(Button("✕", classes="item-remove", tooltip="remove"))
