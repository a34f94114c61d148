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

`parse` and `loads` give exactly what `json.loads` gives (or raises); a big
text (a page of 5,000 tools) is decoded by msgspec, several times quicker,
and falls back to the standard library for anything msgspec refuses that
`json.loads` accepts (NaN, lone surrogates, a byte-order mark).  `dumps`
writes `json.dumps(value, ensure_ascii=False)`'s exact text for what was
decoded here, with msgspec while no decoded float would be written apart.
"""

from __future__ import annotations

import gc
import json
import re
from array import array
from itertools import accumulate
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = [
    "MAX_DEPTH",
    "ListPieces",
    "TooDeep",
    "dumps",
    "dumps_utf8",
    "id_type",
    "load_quick_path",
    "loads",
    "nested_deeper_than",
    "parse",
    "shallow_members",
    "too_deep_reason",
]

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
# Every byte but brackets and quotes: deleted for the quick scan of a big text.
_NOT_BRACKETS_OR_QUOTES = bytes(byte for byte in range(256) if byte not in b'[]{}"')
_SQUARE = bytes.maketrans(b"{}", b"[]")
_PASSES = 16
_OPEN = frozenset(b"[{")
_QUOTE = ord('"')
_SPACE = b" \t\r\n"
# How much of a member's value is decoded when looking for a scalar.
_SCALAR_WINDOW = 65536


def too_deep_reason(limit: int = MAX_DEPTH) -> str:
    """Why a message nested deeper than `limit` was not parsed."""
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


def _deeper_if_valid(raw: bytes, limit: int) -> bool:
    """`nested_deeper_than`, several times quicker on a big text, and exact
    when `raw` is valid JSON in UTF-8 (its escapes then pair up as below).

    Escaped backslashes and quotes are dropped first, so every quote left
    opens or closes a string; then only brackets (all made square) and
    quotes are kept.  A string with no bracket in it is left as `""`, and
    dropping such pairs keeps the parity of the quotes before every
    bracket, so usually no quote is left at all; otherwise every other
    stretch between quotes is string content.  What is left nests as the
    text does: each pass that drops every empty `[]` takes one level off.
    """
    if b"\\" in raw:
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    kept = raw.translate(_SQUARE, _NOT_BRACKETS_OR_QUOTES)
    if len(kept) <= limit:
        return False
    if kept.count(b'""') * 2 == kept.count(b'"'):
        # Every quote is in a pair `""` (what dropping them would find): no
        # string has a bracket, and deleting the quotes is many times quicker.
        kept = kept.translate(None, b'"')
    else:
        kept = kept.replace(b'""', b"")
        kept = b"".join(kept.split(b'"')[::2])
    levels = 0
    # A few passes take the bulk away (most brackets are leaves or near them);
    # a thin stack left is measured by running sums, not a pass per level.
    while kept and levels < _PASSES:
        kept = kept.replace(b"[]", b"")
        levels += 1
    if kept:
        levels += max(accumulate(array("b", kept.translate(_SIGNS))))
    return levels > limit


def shallow_members(raw: bytes, names: tuple[str, ...] = ("id", "method")) -> JSONObject:
    """The members `names` of a top-level JSON object whose values are scalars,
    read without parsing the nested values around them."""
    found: JSONObject = {}
    start = len(raw) - len(raw.lstrip(_SPACE))
    if raw[start : start + 1] != b"{":
        return found
    depth = 0
    for match in _TOKEN.finditer(raw, start):
        byte = raw[match.start()]
        if byte != _QUOTE:
            depth += 1 if byte in _OPEN else -1
            if depth <= 0:
                break
            continue
        if depth != 1:
            continue
        member = _scalar_member(raw, match, names, found)
        if member is not None:
            found[member[0]] = member[1]
    return found


def _scalar_member(
    raw: bytes, match: re.Match[bytes], names: tuple[str, ...], found: JSONObject
) -> tuple[str, Any] | None:
    """The member whose name the string `match` is, when it is one of `names`
    not found yet and its value a scalar."""
    colon = _skip_space(raw, match.end())
    if raw[colon : colon + 1] != b":":
        return None  # a value, not a member name
    try:
        name = json.loads(match.group())
    except ValueError:
        return None
    if name not in names or name in found:
        return None
    value_at = _skip_space(raw, colon + 1)
    if raw[value_at : value_at + 1] in (b"[", b"{", b""):
        return None
    window = raw[value_at : value_at + _SCALAR_WINDOW].decode("utf-8", errors="replace")
    try:
        value, _end = json.JSONDecoder().raw_decode(window)
    except ValueError:
        return None
    return name, value


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


# -- decoding and encoding, exactly as the standard library does ----------------------

# From this size on a text is decoded by msgspec; below it the standard
# library is as quick, and msgspec (8 ms to import) is not loaded at all.
FAST_FROM = 64 * 1024


class TooDeep(Exception):
    """A JSON text nested deeper than the bound: it was not parsed."""


class _Decoded:
    """What the texts decoded so far hold that msgspec would write apart from
    `json.dumps`: floats in exponent form (`1e-05`, `1e+16`), NaN, infinities."""

    divergent = 0
    msgspec: ModuleType | None = None
    decoder: Any = None
    encoder: Any = None


_DECODED = _Decoded()


def _float(text: str) -> float:
    value = float(text)
    # msgspec writes a float as repr() does unless repr() has an exponent
    # ('e') or it is not finite ('inf', 'nan').
    spelled = repr(value)
    if "e" in spelled or "n" in spelled:
        _DECODED.divergent += 1
    return value


def _constant(name: str) -> float:
    _DECODED.divergent += 1
    return float(name)  # NaN, Infinity, -Infinity: what json.loads makes of them


def _msgspec() -> ModuleType:
    module = _DECODED.msgspec
    if module is None:
        import msgspec

        _DECODED.decoder = msgspec.json.Decoder(float_hook=_float)
        _DECODED.encoder = msgspec.json.Encoder()
        _DECODED.msgspec = module = msgspec
    return module


def load_quick_path() -> None:
    """Load msgspec now, for a command whose texts are likely big (a whole
    list, page after page): while the server starts, not once its first
    big page has arrived and waits to be decoded."""
    _msgspec()


def _stdlib_loads(raw: bytes | str) -> Any:
    return json.loads(raw, parse_float=_float, parse_constant=_constant)


def loads(raw: bytes | str) -> Any:
    """`json.loads(raw)`: the same value, or the same exception."""
    if len(raw) >= FAST_FROM and isinstance(raw, bytes):
        _msgspec()
        try:
            # msgspec accepts a subset of what json.loads does (strict UTF-8
            # JSON), and makes the same value of it.
            return _DECODED.decoder.decode(raw)
        except (ValueError, RecursionError):
            pass  # the standard library decides, and words the error
    return _stdlib_loads(raw)


def parse(raw: bytes, limit: int = MAX_DEPTH) -> Any:
    """One inbound JSON text's value, as `json.loads` gives (or raises) it;
    `TooDeep` when it nests deeper than `limit`, without parsing it."""
    if len(raw) >= FAST_FROM and not _deeper_if_valid(raw, limit):
        _msgspec()
        # Decoding makes no reference cycles, yet the collector would walk
        # the young containers every few thousand made: it waits meanwhile.
        collecting = gc.isenabled()
        gc.disable()
        try:
            # Decoded, so valid UTF-8 JSON: the quick depth scan was exact.
            return _DECODED.decoder.decode(raw)
        except (ValueError, RecursionError):
            pass
        finally:
            if collecting:
                gc.enable()
    if nested_deeper_than(raw, limit):
        raise TooDeep(too_deep_reason(limit))
    return _stdlib_loads(raw)


_stdlib_dumps = json.JSONEncoder(ensure_ascii=False).encode


def dumps(value: Any) -> str:
    """`json.dumps(value, ensure_ascii=False)`, character for character, for
    a value built of what `parse`/`loads` decoded (and strings).

    msgspec writes the same text, compact, once no decoded float is
    spelled apart; `format(indent=0)` then adds the standard library's
    spaces after `,` and `:`, leaving strings and numbers as they are.
    """
    quick = _quick_dumps(value)
    return quick.decode() if quick is not None else _stdlib_dumps(value)


def dumps_utf8(value: Any, buffer: bytearray | None = None) -> bytes:
    """`dumps(value)` as UTF-8, a lone surrogate in it written as the
    "surrogatepass" error handler does (decoding with it gives `dumps(value)`).

    `buffer`, given again for each of many big values, is where msgspec
    encodes them before the spacing: it grows to their size once, where a
    new one would grow again for each, touching fresh memory every time
    (a fifth of the page faults of listing 100,000 tools)."""
    quick = _quick_dumps(value, buffer)
    return quick if quick is not None else _stdlib_dumps(value).encode("utf-8", "surrogatepass")


class ListPieces:
    """`dumps_utf8({key: [every item given], **rest})` in pieces (joined,
    the same bytes), a list of items at a time as they come (a page as it
    arrives), `rest` at the end: 100,000 tools are 40 MB, neither held whole
    nor copied once more to be spaced out, and each page is written while
    the server makes the next.

    The text has no line breaks, so a list's items are written alike wherever
    they stand, and items are joined by `, ` in either encoder."""

    def __init__(self, key: str) -> None:
        self.key = key
        self._separator: bytes | None = None  # None: nothing written yet
        self._buffer = bytearray()  # for `dumps_utf8`: each page is encoded in it

    def items(self, items: list[Any]) -> list[bytes | memoryview]:
        """The pieces that put *items* next in the list (the text's head
        first); the items' text is a view of the encoded list within its
        brackets (a page is 2 MB: not copied once more to drop two bytes)."""
        pieces: list[bytes | memoryview] = []
        if self._separator is None:
            # The list comes first in the object: its head is the same whatever `rest` holds.
            head, _tail = dumps_utf8({self.key: []}).split(b"[]", 1)
            pieces.append(head + b"[")
            self._separator = b""
        inner = memoryview(dumps_utf8(items, self._buffer))[1:-1]
        if inner:
            pieces += [self._separator, inner]
            self._separator = b", "
        return pieces

    @property
    def started(self) -> bool:
        """Whether the text's head has been given (the object is open)."""
        return self._separator is not None

    def end(self, rest: dict[str, Any]) -> list[bytes | memoryview]:
        """The pieces that close the list and the object, with *rest*'s fields."""
        _head, tail = dumps_utf8({self.key: [], **rest}).split(b"[]", 1)
        return [*self.items([]), b"]" + tail]


def _quick_dumps(value: Any, buffer: bytearray | None = None) -> bytes | None:
    """msgspec's UTF-8 of `dumps(value)` (encoded in `buffer` when given), or
    None where only the standard library writes it."""
    module = _DECODED.msgspec
    if module is not None and not _DECODED.divergent:
        try:
            if buffer is None:
                compact = _DECODED.encoder.encode(value)
            else:
                _DECODED.encoder.encode_into(value, buffer)
                compact = buffer
            formatted: bytes = module.json.format(compact, indent=0)
            return formatted
        except (TypeError, ValueError, OverflowError, module.EncodeError):
            pass  # a lone surrogate, a type msgspec does not write: the standard library's text
    return None
