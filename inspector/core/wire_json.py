"""Reading one inbound JSON text without trusting its shape.

A server decides how deep its JSON nests.  Python's parser, and every walk
over a parsed message afterwards (validation, masking, rendering), recurses
once per level, so a message nested thousands of levels deep would end in a
`RecursionError` wherever it first got walked.  The bound is applied once,
before parsing: a message nested deeper than `MAX_DEPTH` is not parsed at all,
and everything downstream may assume the bound.

For a message too deep to parse, `shallow_members` reads the scalar members
of its top-level object (`id`, `method`) without parsing the rest, so the
request it answers can still be failed at once.
"""

from __future__ import annotations

import json
import re
from array import array
from itertools import accumulate
from typing import Any

__all__ = ["MAX_DEPTH", "id_type", "nested_deeper_than", "shallow_members", "too_deep_reason"]

# Deep enough for any real message (schemas nest tens of levels), and far
# enough below the interpreter's recursion limit (1000) that a walk of one
# frame per level still has room on top of the stack it starts from.
MAX_DEPTH = 512

# A JSON string, escapes included: brackets inside one are text, not nesting.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
# A JSON string or one bracket, for the shallow walk of the top level.
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
# Openers become +1 and closers -1 (0xFF as a signed byte); the rest is deleted.
_SIGNS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKETS = bytes(byte for byte in range(256) if byte not in b"[]{}")
_OPEN = frozenset(b"[{")
_QUOTE = ord('"')
_SPACE = b" \t\r\n"
# How much of a member's value is decoded when looking for a scalar.
_SCALAR_WINDOW = 65536


def too_deep_reason(limit: int = MAX_DEPTH) -> str:
    return f"nested deeper than {limit} levels (not parsed)"


def nested_deeper_than(raw: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether the JSON text nests arrays/objects more than `limit` deep.

    Counting the brackets first settles almost every message without a scan:
    a text with no more than `limit` of them cannot nest deeper.  Otherwise
    strings are dropped, each remaining bracket becomes +1 or -1, and the
    deepest running sum is the depth: all of it in C loops, which matters for
    a 100 MB answer.
    """
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    if b'"' in raw:
        raw = _STRING.sub(b"", raw)
    signs = array("b", raw.translate(_SIGNS, _NOT_BRACKETS))
    return max(accumulate(signs), default=0) > limit


def shallow_members(raw: bytes, names: tuple[str, ...] = ("id", "method")) -> dict[str, Any]:
    """The members `names` of a top-level JSON object whose values are scalars,
    read without parsing the nested values around them."""
    found: dict[str, Any] = {}
    start = len(raw) - len(raw.lstrip(_SPACE))
    if raw[start : start + 1] != b"{":
        return found
    depth = 0
    for match in _TOKEN.finditer(raw, start):
        begin, end = match.span()
        byte = raw[begin]
        if byte != _QUOTE:
            depth += 1 if byte in _OPEN else -1
            if depth <= 0:
                break
            continue
        if depth != 1:
            continue
        colon = _skip_space(raw, end)
        if raw[colon : colon + 1] != b":":
            continue  # a value, not a member name
        try:
            name = json.loads(match.group())
        except ValueError:
            continue
        if name not in names or name in found:
            continue
        value_at = _skip_space(raw, colon + 1)
        if raw[value_at : value_at + 1] in (b"[", b"{", b""):
            continue
        window = raw[value_at : value_at + _SCALAR_WINDOW].decode("utf-8", errors="replace")
        try:
            found[name], _end = json.JSONDecoder().raw_decode(window)
        except ValueError:
            continue
    return found


def _skip_space(raw: bytes, index: int) -> int:
    while raw[index : index + 1] in (b" ", b"\t", b"\r", b"\n"):
        index += 1
    return index


def id_type(value: Any) -> str:
    """How a JSON-RPC id reads in a message about mismatched ids."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "the number"
    if isinstance(value, float):
        return "a number with a fraction part"
    if isinstance(value, str):
        return "a string"
    return "null" if value is None else f"a {type(value).__name__}"
