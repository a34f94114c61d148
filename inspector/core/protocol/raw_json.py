"""Parameters sent as the exact JSON text a person wrote.

A person who types raw JSON (``call --args``, the TUI's raw editor, the raw
composer) is often testing how the server parses it: ``1.0`` must not become
``1``, ``"x\\u00e9"`` must not become ``"xé"``, and ``1e2`` must not become
``100.0``.  `RawJsonObject` is the parsed object (a dict, so validation, the
confirmation and the ``Mcp-Param`` headers read it like any other) that also
remembers its text; `encode_message` writes that text verbatim where the
object stands among a request's params.
"""

from __future__ import annotations

import copy
import json
import re
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["RawJsonObject", "encode_message", "one_line", "replace_member"]


class RawJsonObject(dict[str, Any]):
    """A JSON object parsed from *text*, sent as that text while it is unchanged.

    Line breaks between tokens become spaces (a stdio message is one line;
    inside a JSON string a line break is invalid anyway); everything else
    is kept byte for byte.  Once the dict is changed it is encoded like any
    other value.
    """

    def __init__(self, value: JSONObject, text: str) -> None:
        super().__init__(value)
        self.text = one_line(text)
        self._parsed = copy.deepcopy(value)

    @property
    def unchanged(self) -> bool:
        """Whether the dict still holds what its text says (so the text can be sent as is)."""
        return _same(dict(self), self._parsed)


def _same(a: Any, b: Any) -> bool:
    # Python's == says 1 == 1.0 == True; JSON text does not.
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def encode_message(message: Any, dumps: Callable[[Any], str]) -> str:
    """*message* encoded by *dumps*, with each unchanged `RawJsonObject` among
    its ``params`` values written as its own text."""
    params = message.get("params") if isinstance(message, dict) else None
    if not isinstance(params, dict):
        return dumps(message)
    raw = {key: value for key, value in params.items() if isinstance(value, RawJsonObject) and value.unchanged}
    if not raw:
        return dumps(message)
    marks = {key: f"raw-json-{uuid.uuid4().hex}" for key in raw}
    text = dumps({**message, "params": {**params, **marks}})
    for key, mark in marks.items():
        text = text.replace(json.dumps(mark), raw[key].text, 1)
    return text


def one_line(text: str) -> str:
    """JSON text on one line (a stdio message is one): line breaks can only
    stand between tokens (a JSON string cannot hold one), so they become spaces."""
    return text.strip().replace("\r", " ").replace("\n", " ")


_SPACE = re.compile(r"[ \t\n\r]*")


def replace_member(text: str, key: str, value_text: str) -> str | None:
    """*text* (a JSON object) with the value of each of its top-level *key*
    members replaced by *value_text*, every other byte kept; None when *text*
    is not an object or has no such member."""
    decoder = json.JSONDecoder()
    spans: list[tuple[int, int]] = []
    try:
        at = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
        if text[at : at + 1] != "{":
            return None
        at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
        while text[at : at + 1] not in ("}", ""):
            name, at = decoder.raw_decode(text, at)
            at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
            if not isinstance(name, str) or text[at : at + 1] != ":":
                return None
            start = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
            _value, end = decoder.raw_decode(text, start)
            if name == key:
                spans.append((start, end))
            at = _SPACE.match(text, end).end()  # type: ignore[union-attr]
            if text[at : at + 1] == ",":
                at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
    except ValueError:
        return None
    if not spans:
        return None
    for start, end in reversed(spans):
        text = text[:start] + value_text + text[end:]
    return text
