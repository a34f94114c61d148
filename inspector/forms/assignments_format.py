"""A value back into ``key=value`` arguments: the reverse of `assignments`, for "copy as command line"."""

from __future__ import annotations

from inspector.forms.builder import build_form
from inspector.forms.container_nodes import ObjectNode
from inspector.forms.errors import FormValueError
from inspector.forms.node_base import FormNode
from inspector.forms.paths import format_path
from inspector.forms.values import UNSET, JSONObject, JSONValue, Schema, json_equal, json_text

__all__ = ["format_assignments"]


def format_assignments(schema: Schema, value: JSONObject) -> list[str]:
    """``key=value`` strings that `parse_assignments` turns back into *value*'s keys.

    Uses ``key=text`` where the field's text conversion reproduces the value
    exactly (``name=foo``, ``count=3``), else ``key:=json``.  Handy for a
    "copy as command line" action.
    """
    form = build_form(schema)
    fields = form.fields if isinstance(form, ObjectNode) else {}
    out: list[str] = []
    for key, item in value.items():
        shown = key if _plain_key(key) else f"[{json_text(key)}]"
        node = fields.get(key)
        text = _as_text(node, item) if node is not None else None
        out.append(f"{shown}={text}" if text is not None else f"{shown}:={json_text(item)}")
    return out


def _plain_key(key: str) -> bool:
    return bool(key) and format_path((key,)) == key and "=" not in key and ":" not in key


def _as_text(node: FormNode, item: JSONValue) -> str | None:
    if isinstance(item, dict | list):
        return None
    node.load_value(item)
    if node.is_raw:
        return None
    text = node.text()
    try:
        back = node.convert_text(text)
    except FormValueError:
        return None
    same = back is not UNSET and json_equal(back, item) and type(back) is type(item)
    return text if same else None
