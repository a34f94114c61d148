"""The text a form's row shows: its label, its kind, the dimmed note under it,
a blank select's prompt, its marks and an array's item count."""

from __future__ import annotations

from rich.text import Text

from inspector.core.safetext import one_line, visible
from inspector.forms import ArrayNode, EnumNode, FormNode
from inspector.forms.values import json_text
from inspector.tui import looks
from inspector.tui.safe import plain

__all__ = [
    "array_count",
    "errors_text",
    "field_label",
    "has_note",
    "is_item",
    "kind_text",
    "note_text",
    "select_prompt",
]


def is_item(node: FormNode) -> bool:
    """Whether *node* is an item of an array."""
    return isinstance(node.parent, ArrayNode) and isinstance(node.key, int)


def field_label(node: FormNode) -> Text:
    """The property's key (what `call` and the raw JSON need), `[i]` for an
    item, "value" for a root that is not an object; `*` when required."""
    text = Text()
    if isinstance(node.key, int):
        text.append(f"[{node.key}]", style="bold")
    else:
        text.append(visible(one_line(str(node.key) if node.key is not None else "value", 60)), style="bold")
    if node.required and node.path and not is_item(node):
        text.append(" *", style=looks.ERROR_STRONG)
    return text


def kind_text(node: FormNode) -> str:
    """The node's JSON type (all of a list of types), with its format."""
    hint = node.schema.get("type")
    if isinstance(hint, list):
        return "/".join(str(h) for h in hint)
    fmt = node.schema.get("format")
    return str(node.kind) + (f", {fmt}" if isinstance(fmt, str) else "")


def has_note(node: FormNode) -> bool:
    """Whether the node's row has a note under its line (`note_text` is not empty)."""
    return bool(node.description or node.has_default or node.deprecated or (node.title and node.title != node.key))


def note_text(node: FormNode) -> Text:
    """The dimmed line under a field: its title when it differs from the key,
    the default, and the description (one line until the field has focus)."""
    text = Text()
    parts: list[Text] = []
    if node.title and node.title != node.key:
        parts.append(Text(visible(one_line(node.title, 60)), style="italic"))
    if node.has_default:
        parts.append(Text(f"default {one_line(json_text(node.default), 40)}"))
    if node.deprecated:
        parts.append(Text("deprecated", style=looks.WARNING))
    if node.description:
        parts.append(plain(node.description))
    for i, part in enumerate(parts):
        if i:
            text.append(" · ")
        text.append_text(part)
    return text


def select_prompt(node: FormNode) -> str:
    """What a blank choice shows: the default when there is one (a hint; it is
    sent only when picked or filled in by "fill defaults")."""
    if node.has_default:
        label = json_text(node.default)
        if isinstance(node, EnumNode):
            label = next((o.label for o in node.options if o.value == node.default), label)
        return visible(one_line(f"default: {label}", 40))
    return "Select"


def errors_text(node: FormNode) -> Text:
    """The node's marks, one `✖` line each: its violations, a text that did not convert, why it is raw JSON."""
    messages = [v.message for v in node.errors]
    if node.text_error and node.text_error not in messages:
        messages.append(node.text_error)
    if node.is_raw and node.raw_reason:
        messages.append(f"held as raw JSON: {node.raw_reason}")
    return plain("\n".join(f"✖ {m}" for m in messages), style=looks.ERROR) if messages else Text()


def array_count(node: ArrayNode) -> Text:
    """An array's "N items, M empty (left out)" line."""
    items = node.children()
    left_out = sum(1 for item in items if not item.is_set)
    count = f"{len(items)} item{'s' if len(items) != 1 else ''}"
    if left_out:
        count += f", {left_out} empty (left out)"
    return Text(count, style=looks.WARNING if left_out else "dim")
