"""Plain-text renderings for a terminal: lists, content blocks, messages.

Every string from the server passes through `visible()` (via Output.line),
so nothing here can emit a control sequence.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from inspector.core.extensions.apps import tool_ui
from inspector.core.protocol.items import Hint, Item
from inspector.core.safetext import one_line, safe_json

__all__ = [
    "abbreviate",
    "abbreviated_lines",
    "content_lines",
    "hint_summary",
    "item_line",
    "json_lines",
    "resource_contents_lines",
]

_HINT_LABELS = {
    "readOnlyHint": ("read-only", "writes"),
    "destructiveHint": ("destructive", "non-destructive"),
    "idempotentHint": ("idempotent", "not idempotent"),
    "openWorldHint": ("open-world", "closed-world"),
}


def hint_summary(hints: list[Hint]) -> str:
    """e.g. `writes, destructive (assumed), not idempotent (assumed), open-world`."""
    parts = []
    for hint in hints:
        if not hint.applies:
            continue
        yes, no = _HINT_LABELS[hint.name]
        label = yes if hint.value else no
        if not hint.explicit:
            label += " (assumed)"
        parts.append(label)
    return ", ".join(parts)


def item_line(item: Item, width: int = 100) -> str:
    """A list item in brief (key, title, hints, type or arguments), its description, app and problems below."""
    line = one_line(_item_head(item), width)
    description = one_line(item.description, width - 4) if item.description else ""
    text = line + (f"\n    {description}" if description else "")
    if item.kind == "tools":
        ui = tool_ui(item.data)
        if ui is not None:
            text += "\n    app: " + one_line(ui.summary(), width - 9)
            for problem in ui.problems:
                text += f"\n    ! app: {problem}"
    for problem in item.problems:
        text += f"\n    ! {problem}"
    return text


def _item_head(item: Item) -> str:
    """The key, the title, and what kind of item says in brief: a tool's hints,
    a resource's MIME type, a prompt's arguments (`*` required)."""
    head = item.key
    if item.title and item.title != item.key:
        head += f" — {item.title}"
    if item.kind == "tools":
        head += f"  [{hint_summary(item.hints())}]"
    elif item.kind in ("resources", "templates"):
        mime = item.data.get("mimeType")
        if isinstance(mime, str):
            head += f"  ({mime})"
    elif item.kind == "prompts":
        args = item.data.get("arguments")
        if isinstance(args, list):
            names = [(a.get("name", "?") + ("*" if a.get("required") else "")) for a in args if isinstance(a, dict)]
            if names:
                head += f"  ({', '.join(str(n) for n in names)})"
    return head


def json_lines(value: Any) -> list[str]:
    """*value* as indented JSON lines, control characters escaped as `--json` escapes them."""
    # Escaped like --json output (a `\\u202e` in a string reads as JSON);
    # anything else a line may hold is made visible when it is printed.
    return safe_json(value, indent=2).splitlines()


_LONG_BLOB = 120
_ABBREVIATE_DEPTH = 64
_BASE64 = re.compile(r"[A-Za-z0-9+/=_-]+\Z")
_DATA_URI = re.compile(r"data:([^,;]*)((?:;[^,;]*)*),", re.IGNORECASE)


def abbreviate(value: Any, depth: int = 0) -> Any:
    """*value* with long base64 strings and ``data:`` URIs (blobs, icons) cut
    to a short description, for human output; ``--json`` keeps them whole.
    Below _ABBREVIATE_DEPTH levels a value is shown as it is: a message may
    nest hundreds of levels, and each level costs stack frames here."""
    if depth > _ABBREVIATE_DEPTH:
        return value
    if isinstance(value, dict):
        return {key: _icons(item) if key == "icons" else abbreviate(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [abbreviate(item, depth + 1) for item in value]
    if isinstance(value, str) and len(value) > _LONG_BLOB:
        uri = _DATA_URI.match(value)
        if uri is not None:
            return f"<data: URI, {uri.group(1) or 'no type'}, {len(value)} characters; --json shows it>"
        if _BASE64.match(value):
            return f"<base64, {_blob_summary(value)}; --json shows it>"
    return value


def _icons(value: Any) -> Any:
    if isinstance(value, list) and value and all(isinstance(icon, dict) and "src" in icon for icon in value):
        types = ", ".join(sorted({str(icon.get("mimeType", "?")) for icon in value}))
        return f"<{len(value)} icon(s): {types}; --json shows them>"
    return abbreviate(value)


def abbreviated_lines(value: Any) -> list[str]:
    """`json_lines` of *value* with its long blobs and icons cut short (`abbreviate`)."""
    return json_lines(abbreviate(value))


def _blob_summary(data: Any) -> str:
    if not isinstance(data, str):
        return "invalid base64 (not a string)"
    try:
        size = len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return f"invalid base64 ({len(data)} characters)"
    return f"{size} bytes"


def resource_contents_lines(contents: Any) -> list[str]:
    """One resource contents entry: a header with URI and type, then the text, or the size of a blob."""
    lines: list[str] = []
    if not isinstance(contents, dict):
        return [f"(invalid resource contents: {contents!r})"]
    uri = contents.get("uri", "?")
    mime = contents.get("mimeType") or "unknown type"
    if "text" in contents:
        lines.append(f"── {uri} ({mime})")
        text = contents.get("text")
        lines.extend(str(text).splitlines() or [""])
    elif "blob" in contents:
        lines.append(f"── {uri} ({mime}, {_blob_summary(contents.get('blob'))}; use --json for the data)")
    else:
        lines.append(f"── {uri}: neither text nor blob")
    return lines


def content_lines(block: Any) -> list[str]:
    """One content block (tool result or prompt message) as text lines."""
    if not isinstance(block, dict):
        return [f"(invalid content block: {block!r})"]
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        text = text if isinstance(text, str) else repr(text)
        try:
            parsed = json.loads(text)
        except ValueError:
            return text.splitlines() or [""]
        if isinstance(parsed, (dict, list)):
            return json_lines(parsed)
        return text.splitlines() or [""]
    if kind in ("image", "audio"):
        mime = block.get("mimeType", "?")
        return [f"[{kind} {mime}, {_blob_summary(block.get('data'))}; use --json for the data]"]
    if kind == "resource_link":
        name = block.get("name") or ""
        return [f"[resource link] {block.get('uri', '?')} {name}".rstrip()]
    if kind == "resource":
        return ["[embedded resource]", *resource_contents_lines(block.get("resource"))]
    return [f"[{kind} block]", *json_lines(block)]
