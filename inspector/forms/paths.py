"""Paths into JSON values: tuples of keys and indices, and their display form.

A path is a tuple such as ``("items", 2, "qty")``; it displays as
``items[2].qty``.  Keys that are not plain words display quoted:
``meta["content-type"]`` stays readable, ``a["x.y"]`` stays unambiguous.

`parse_path` reads the same notation back (used by ``key=value`` CLI
arguments), plus ``[]`` meaning "append to this array".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TypeAlias

__all__ = ["APPEND", "Path", "PathSegment", "PathToken", "format_path", "parse_path"]

PathSegment: TypeAlias = str | int
Path: TypeAlias = tuple[PathSegment, ...]

_BARE_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$\-]*\Z")


def format_path(path: Path) -> str:
    """Display form of a path: ``address.city``, ``items[2].qty``; ``""`` for the root."""
    out: list[str] = []
    for seg in path:
        if isinstance(seg, int):
            out.append(f"[{seg}]")
        elif _BARE_KEY.match(seg):
            out.append(f".{seg}" if out else seg)
        else:
            out.append(f"[{json.dumps(seg, ensure_ascii=False)}]")
    return "".join(out)


class _Append:
    def __repr__(self) -> str:
        return "APPEND"


APPEND = _Append()
"""Token for ``[]`` in a parsed path: append a new item to the array."""


@dataclass(frozen=True, slots=True)
class PathToken:
    """One step of a parsed path.

    ``value`` is a key (str), an index (int) or `APPEND`.  ``bare`` is true for a
    key written without quotes and joined to the next bare key by a dot, so a
    schema property literally named ``"a.b"`` can still be matched.
    """

    value: str | int | _Append
    bare: bool = False


def parse_path(text: str) -> list[PathToken]:
    """Parse ``a.b[0].c``, ``tags[]``, ``meta["x.y"]`` into tokens.

    Raises ``ValueError`` on malformed brackets or empty keys.
    """
    tokens: list[PathToken] = []
    i, n = 0, len(text)
    expect_key = True
    while i < n:
        ch = text[i]
        if ch == "[":
            end, token = _parse_bracket(text, i)
            tokens.append(token)
            i = end
            expect_key = False
            continue
        if ch == ".":
            if expect_key:
                raise ValueError(f"empty key in path {text!r}")
            i += 1
            expect_key = True
            if i >= n:
                raise ValueError(f"path {text!r} ends with '.'")
            continue
        if not expect_key:
            raise ValueError(f"expected '.' or '[' at position {i} in {text!r}")
        j = i
        while j < n and text[j] not in ".[":
            j += 1
        tokens.append(PathToken(text[i:j], bare=True))
        i = j
        expect_key = False
    if not tokens:
        raise ValueError("empty path")
    return tokens


def _parse_bracket(text: str, start: int) -> tuple[int, PathToken]:
    close = text.find("]", start)
    if close < 0:
        raise ValueError(f"unclosed '[' in path {text!r}")
    inner = text[start + 1 : close]
    if inner == "":
        return close + 1, PathToken(APPEND)
    if inner.isdigit():
        return close + 1, PathToken(int(inner))
    if inner.startswith('"'):
        # A quoted key may itself contain "]": scan for the closing quote first.
        decoder = json.JSONDecoder()
        try:
            key, end = decoder.raw_decode(text, start + 1)
        except json.JSONDecodeError:
            raise ValueError(f"bad quoted key in path {text!r}") from None
        if not isinstance(key, str) or end >= len(text) or text[end] != "]":
            raise ValueError(f"bad quoted key in path {text!r}")
        return end + 1, PathToken(key)
    raise ValueError(f'bad index [{inner}] in path {text!r} (use [N], [] or ["key"])')
