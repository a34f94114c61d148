"""Where a command's output goes, and in which form (JSON or text).

Everything printed passes here made safe for a terminal: human text through
`visible()` (controls shown, not acted on), JSON with every control
character and bidi mark inside its strings written as a `\\u` escape (still
valid JSON, parsing back to the same value).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import IO, Any

from inspector.core.safetext import escape_json, visible

__all__ = ["Output"]

_SLICE = 1 << 20


class Output:
    """Where a command writes, as JSON or as text, every character made safe for a terminal."""

    def __init__(self, json_mode: bool, stream: IO[str] | None = None) -> None:
        self.json = json_mode
        self.stream = stream if stream is not None else sys.stdout

    @classmethod
    def for_args(cls, args: argparse.Namespace) -> Output:
        """JSON with --json, text with --human, else JSON when stdout is not a terminal."""
        if getattr(args, "json", None):
            return cls(True)
        if getattr(args, "human", None):
            return cls(False)
        return cls(not sys.stdout.isatty())

    def json_value(self, value: Any, stream: IO[str] | None = None) -> None:
        """The value as one line of JSON, as received (key order kept)."""
        target = stream if stream is not None else self.stream
        self.write_text(json.dumps(value, ensure_ascii=False), target)

    def write_text(self, text: str, stream: IO[str] | None = None) -> None:
        """One line of already-encoded JSON, its control characters escaped."""
        self.write_parts([text], stream)

    def write_parts(self, parts: list[str], stream: IO[str] | None = None) -> None:
        """One line of already-encoded JSON given in pieces (written one after
        the other, never joined), its control characters escaped."""
        target = stream if stream is not None else self.stream
        for part in parts:
            _write_escaped(part, target)
        target.write("\n")
        target.flush()

    def write_utf8_parts(
        self, parts: Iterable[bytes | memoryview], stream: IO[str] | None = None, *, end: bool = True
    ) -> None:
        """One line of already-encoded JSON given as UTF-8 pieces (a lone
        surrogate as "surrogatepass" writes it; each piece whole characters),
        written one after the other (never joined), its control characters
        escaped; *end*: the line ends here (else more pieces follow).

        A piece with nothing to escape (ASCII without DEL: the encoder escaped
        the C0 controls) goes to the stream's bytes as it is: 100,000 tools
        are 40 MB, not decoded here to be encoded again on the way out.
        """
        target = stream if stream is not None else self.stream
        binary = getattr(target, "buffer", None)
        for part in parts:
            if binary is None or not _as_it_is(part):
                _write_escaped(str(part, "utf-8", "surrogatepass"), target)
                continue
            target.flush()  # what was written as text comes first
            binary.write(part)
        if end:
            target.write("\n")
        target.flush()

    def line(self, text: str = "") -> None:
        """Untrusted text made safe for the terminal, then printed."""
        self.stream.write(visible(text) + "\n")

    def lines(self, texts: list[str]) -> None:
        """Each text as its own `line`."""
        for text in texts:
            self.line(text)


def _as_it_is(part: bytes | memoryview) -> bool:
    """Whether *part* is ASCII without DEL, so nothing in it is escaped.

    A view is judged by the whole it views: ASCII there is ASCII in any of
    its slices; where the whole is not, the escaping path, right for any
    text, decides."""
    whole = part.obj if isinstance(part, memoryview) else part
    return isinstance(whole, (bytes, bytearray)) and whole.isascii() and b"\x7f" not in whole


def _write_escaped(text: str, target: IO[str]) -> None:
    # Each control character is escaped on its own, so piece by piece is
    # the same as all at once.
    escaped = escape_json(text)
    # A huge result is written in slices so no second full copy is made.
    for start in range(0, len(escaped), _SLICE):
        target.write(escaped[start : start + _SLICE])
