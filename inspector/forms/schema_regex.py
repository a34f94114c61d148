"""Regular expressions from schemas, evaluated in bounded time.

A JSON Schema ``pattern`` (and a ``patternProperties`` key, and a value of
``format: regex``) comes from the server: it is untrusted code.  Python's
``re`` backtracks, so ``^(a+)+$`` against thirty ``a``s and a ``!`` runs for
minutes, holding the GIL.  Here every such pattern is run by RE2, which
matches in linear time; the few patterns RE2 cannot express (backreferences,
lookaround) go to the ``regex`` module with a timeout, and a match that runs
out of time raises `PatternNotChecked` ("too slow") instead of hanging.

JSON Schema patterns are ECMA-262 and unanchored (``search``, not ``match``).
The translation below covers what differs in practice: ``\\uXXXX`` escapes,
``$`` meaning the very end of the text, ``\\d``/``\\w`` meaning ASCII only.

Safe to call from any thread: compiled patterns are cached (``lru_cache`` is
thread-safe), RE2 objects are immutable, and the time budget is per thread.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import re2
import regex

__all__ = [
    "MATCH_TIMEOUT",
    "MAX_PATTERN_LENGTH",
    "PatternNotChecked",
    "SchemaPattern",
    "compile_pattern",
    "pattern_search",
    "regex_budget",
]

MATCH_TIMEOUT = 1.0
"""Seconds one backtracking match may run before it is abandoned."""

MAX_PATTERN_LENGTH = 10_000
"""Longer patterns are not compiled at all."""

_MAX_EXPANSION = 100_000
"""A backtracking pattern whose counted repetitions expand past this is not compiled:
the ``regex`` module unrolls ``(a{1000}){1000}`` while compiling, which no timeout covers."""

# RE2 says so on its own error log (stderr) unless told not to.
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False
_RE2_OPTIONS.max_mem = 8 << 20

# RE2 refusals that a backtracking engine would not fix (sizes, not syntax).
_RE2_SIZE_ERRORS = ("repetition size", "too large", "max_mem", "bad repetition")


class PatternNotChecked(Exception):
    """The pattern could not be applied; ``reason`` is a short phrase ("too slow")."""

    def __init__(self, pattern: str, reason: str) -> None:
        super().__init__(f"pattern not checked: {reason}")
        self.pattern = pattern
        self.reason = reason

    @property
    def invalid(self) -> bool:
        """Whether the pattern is not a regular expression at all (the schema's fault)."""
        return reason_is_invalid(self.reason)


_INVALID = "not a valid regular expression"


def reason_is_invalid(reason: str) -> bool:
    """Whether a `PatternNotChecked` reason says the pattern is not a regular expression at all."""
    return reason.startswith(_INVALID)


@dataclass(frozen=True, slots=True)
class SchemaPattern:
    """One compiled schema pattern; ``engine`` is "re2", "backtracking" or "" (unusable)."""

    source: str
    engine: str
    compiled: Any = None
    error: str = ""

    @property
    def usable(self) -> bool:
        """Whether the pattern compiled (False: ``error`` says why)."""
        return self.compiled is not None

    def search(self, text: str) -> bool:
        """Whether the pattern matches somewhere in *text*; raises `PatternNotChecked`."""
        if self.compiled is None:
            raise PatternNotChecked(self.source, self.error)
        if self.engine == "re2":
            return self.compiled.search(text) is not None
        timeout = _budget_left()
        if timeout <= 0 or _known_slow(self.source, text):
            raise PatternNotChecked(self.source, "too slow")
        started = time.monotonic()
        try:
            return self.compiled.search(text, timeout=timeout, concurrent=True) is not None
        except TimeoutError:
            _remember_slow(self.source, text)
            raise PatternNotChecked(self.source, "too slow") from None
        finally:
            _spend(time.monotonic() - started)


def pattern_search(pattern: str, text: str) -> bool:
    """`compile_pattern` then `SchemaPattern.search`."""
    return compile_pattern(pattern).search(text)


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> SchemaPattern:
    """The pattern compiled for linear-time matching where possible (cached)."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        return SchemaPattern(pattern, "", error=f"too long ({len(pattern)} characters)")
    try:
        for_re2, for_backtracking, expansion = _translate(pattern)
    except ValueError as exc:
        return SchemaPattern(pattern, "", error=f"{_INVALID} ({exc})")
    try:
        return SchemaPattern(pattern, "re2", re2.compile(for_re2, _RE2_OPTIONS))
    except re2.error as exc:
        reason = _re2_reason(exc)
    if any(word in reason for word in _RE2_SIZE_ERRORS):
        return SchemaPattern(pattern, "", error="too large")
    if expansion > _MAX_EXPANSION:
        return SchemaPattern(pattern, "", error="too large")
    try:
        compiled = regex.compile(for_backtracking, regex.ASCII | regex.V0)
    except (regex.error, OverflowError, RecursionError, ValueError) as exc:
        return SchemaPattern(pattern, "", error=f"{_INVALID} ({_first_line(exc)})")
    return SchemaPattern(pattern, "backtracking", compiled)


def is_valid_pattern(pattern: str) -> bool:
    """Whether *pattern* is a regular expression (for ``format: regex``); never runs a match.

    One too large or too long to compile here is not known to be wrong.
    """
    compiled = compile_pattern(pattern)
    return compiled.usable or not reason_is_invalid(compiled.error)


def _re2_reason(exc: BaseException) -> str:
    arg = exc.args[0] if exc.args else ""
    text = arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)
    return text


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return (lines[0] if lines else type(exc).__name__)[:200]


# -- ECMA-262 → RE2 / regex ------------------------------------------------------

_HEX = frozenset("0123456789abcdefABCDEF")


def _translate(pattern: str) -> tuple[str, str, int]:
    """(RE2 text, backtracking-engine text, rough expanded size) for an ECMA-262 pattern.

    The size multiplies counted repetitions through groups, as an unrolling
    compiler would.  Raises ValueError for an unbalanced pattern.
    """
    translation = _Translation(pattern)
    i = 0
    while i < len(pattern):
        i = translation.step(i)
    return translation.result()


class _Translation:
    """What `_translate` has written so far for both engines, and the sizes of the open groups."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.re2: list[str] = []
        self.bt: list[str] = []
        # Per open group: its size so far and the size of its last atom.
        self.stack: list[list[int]] = [[0, 0]]
        self.in_class = False

    def step(self, i: int) -> int:
        """Translate what starts at *i*; returns the index after it."""
        ch = self.pattern[i]
        if ch == "\\" and i + 1 < len(self.pattern):
            return self._escape(i)
        if self.in_class:
            self.in_class = ch != "]"
            self._verbatim(ch)
        elif ch == "[":
            self.in_class = True
            self._atom(ch, ch)
        elif ch == "(":
            self.stack.append([0, 0])
            self._verbatim(ch)
        elif ch == ")":
            self._close_group()
        elif ch == "{" and (close := self._count_end(i)) is not None:
            return self._repeat(i, close)
        elif ch == "$":
            # ECMA's $ (no multiline flag) is the end of the text, never before a final newline.
            self._atom("$", r"\Z", 0)
        else:
            self._atom(ch, ch)
        return i + 1

    def result(self) -> tuple[str, str, int]:
        if self.in_class:
            raise ValueError("unterminated character class")
        if len(self.stack) != 1:
            raise ValueError("missing closing parenthesis")
        return "".join(self.re2), "".join(self.bt), self.stack[0][0]

    def _atom(self, text_re2: str, text_bt: str, size: int = 1) -> None:
        self._written(text_re2, text_bt)
        if not self.in_class:
            self.stack[-1][0] += size
            self.stack[-1][1] = size

    def _written(self, text_re2: str, text_bt: str) -> None:
        self.re2.append(text_re2)
        self.bt.append(text_bt)

    def _verbatim(self, text: str) -> None:
        self._written(text, text)

    def _escape(self, i: int) -> int:
        """``\\uXXXX`` and ``\\k<name>`` in each engine's words; any other escape as written."""
        pattern, n = self.pattern, len(self.pattern)
        nxt = pattern[i + 1]
        if nxt == "u" and i + 6 <= n and all(c in _HEX for c in pattern[i + 2 : i + 6]):
            code = pattern[i + 2 : i + 6]
            self._atom(f"\\x{{{code}}}", f"\\u{code}")
            return i + 6
        if nxt == "k" and i + 2 < n and pattern[i + 2] == "<" and ">" in pattern[i + 3 :]:
            name = pattern[i + 3 : pattern.index(">", i + 3)]
            self._atom(pattern[i : i + len(name) + 4], f"(?P={name})")
            return i + len(name) + 4
        self._atom(pattern[i : i + 2], pattern[i : i + 2])
        return i + 2

    def _close_group(self) -> None:
        if len(self.stack) == 1:
            raise ValueError("unbalanced parenthesis")
        size = max(self.stack.pop()[0], 1)
        self._verbatim(")")
        self.stack[-1][0] += size
        self.stack[-1][1] = size

    def _count_end(self, i: int) -> int | None:
        """Where the counted repetition ``{n}``, ``{n,}`` or ``{n,m}`` at *i* closes (None: a plain brace)."""
        close = self.pattern.find("}", i)
        counts = self.pattern[i + 1 : close].split(",") if close > 0 else []
        if counts and all(c.strip().isdigit() or (k == 1 and not c.strip()) for k, c in enumerate(counts)):
            return close
        return None

    def _repeat(self, i: int, close: int) -> int:
        """Copy the counted repetition from *i* to *close* and multiply the last atom's size by it."""
        counts = self.pattern[i + 1 : close].split(",")
        times = max(int(c) for c in counts if c.strip())
        last = self.stack[-1][1]
        self.stack[-1][0] += last * max(times - 1, 0)
        self.stack[-1][1] = last * times
        self._verbatim(self.pattern[i : close + 1])
        return close + 1


# -- texts a pattern was too slow on --------------------------------------------------------

# The same arguments are checked more than once (before sending, then in the
# traffic log): a match that ran out of time is not tried again.
_SLOW_MAX = 256
_slow: OrderedDict[tuple[str, str], None] = OrderedDict()
_slow_lock = threading.Lock()


def _known_slow(pattern: str, text: str) -> bool:
    with _slow_lock:
        return (pattern, text) in _slow


def _remember_slow(pattern: str, text: str) -> None:
    if len(text) > 100_000:
        return
    with _slow_lock:
        _slow[pattern, text] = None
        if len(_slow) > _SLOW_MAX:
            _slow.popitem(last=False)


# -- a time budget per validation, per thread -------------------------------------------

_local = threading.local()


def _budget_left() -> float:
    left = getattr(_local, "left", None)
    return MATCH_TIMEOUT if left is None else min(MATCH_TIMEOUT, left)


def _spend(seconds: float) -> None:
    left = getattr(_local, "left", None)
    if left is not None:
        _local.left = left - seconds


@contextlib.contextmanager
def regex_budget(seconds: float) -> Iterator[None]:
    """Bound the backtracking matches run in this thread inside the block to *seconds* in all.

    One validation may apply many patterns (each key against each
    ``patternProperties`` entry); the budget keeps the sum bounded, not only
    each match.  Nested blocks keep the smaller budget.
    """
    previous = getattr(_local, "left", None)
    _local.left = seconds if previous is None else min(previous, seconds)
    try:
        yield
    finally:
        spent_inside = (seconds if previous is None else min(previous, seconds)) - _local.left
        _local.left = None if previous is None else previous - spent_inside
