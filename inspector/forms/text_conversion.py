"""Schema-aware conversion of typed text into JSON values.

Each function takes the text of one input and returns a value or raises
``ValueError`` with a message meant for a person (the caller adds the field's
path).  Shared by the TUI's text inputs and the CLI's ``key=value`` arguments.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

from inspector.forms.values import JSONValue, parse_json_text

__all__ = [
    "BOOLEAN_FALSE",
    "BOOLEAN_TRUE",
    "infer_json",
    "number_text",
    "parse_boolean",
    "parse_integer",
    "parse_number",
]

BOOLEAN_TRUE = frozenset({"true", "yes", "y", "1", "on"})
BOOLEAN_FALSE = frozenset({"false", "no", "n", "0", "off"})

_INTEGER = re.compile(r"[+-]?\d+\Z")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\Z")


def parse_integer(text: str) -> int:
    """``"42"`` → 42.  Whole decimals (``"3.0"``, ``"1e3"``) are accepted; ``"3.5"`` is not."""
    stripped = text.strip()
    if _INTEGER.match(stripped):
        return int(stripped)
    if _NUMBER.match(stripped):
        try:
            exact = Decimal(stripped)
        except InvalidOperation:
            exact = Decimal("NaN")
        if exact.is_finite() and exact == exact.to_integral_value() and abs(exact.adjusted()) < 400:
            return int(exact)
    raise ValueError(f"expected an integer, got {text!r}")


def parse_number(text: str) -> int | float:
    """``"3"`` → 3, ``"3.5"`` → 3.5, ``"1e-3"`` → 0.001.  No NaN, no infinity, no hex."""
    stripped = text.strip()
    if _INTEGER.match(stripped):
        return int(stripped)
    if _NUMBER.match(stripped):
        value = float(stripped)
        if math.isfinite(value):
            return value
    raise ValueError(f"expected a number, got {text!r}")


def parse_boolean(text: str) -> bool:
    """true/false, yes/no, y/n, 1/0, on/off (any case)."""
    word = text.strip().lower()
    if word in BOOLEAN_TRUE:
        return True
    if word in BOOLEAN_FALSE:
        return False
    raise ValueError(f"expected a boolean (true/false, yes/no, 1/0), got {text!r}")


def number_text(value: int | float) -> str:
    """Text for a number that parses back to the same value (``3.0`` stays ``"3.0"``)."""
    return str(value) if isinstance(value, int) else repr(value)


def infer_json(text: str) -> JSONValue:
    """A value for text with no schema to go by: JSON if it parses, else the text itself.

    ``"3"`` → 3, ``"true"`` → True, ``"[1]"`` → [1], ``"007"`` and ``"hello"`` stay strings.
    """
    try:
        return parse_json_text(text)
    except ValueError:
        return text
