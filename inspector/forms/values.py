"""JSON values as the forms layer sees them: the UNSET sentinel and small helpers.

A form field either holds a JSON value or holds nothing at all.  "Nothing" is
not ``None`` (that is JSON ``null``, a real value) but the `UNSET` sentinel:
an unset optional field is left out of the produced arguments.
"""

from __future__ import annotations

import enum
import json
import math
from typing import Any, Final, TypeAlias

__all__ = [
    "UNSET",
    "JSONObject",
    "JSONValue",
    "Schema",
    "Unset",
    "int_or_none",
    "json_equal",
    "json_text",
    "json_type_name",
    "parse_json_text",
    "short_json",
]

JSONValue: TypeAlias = Any
"""Any JSON-compatible Python value: None, bool, int, float, str, list, dict."""

JSONObject: TypeAlias = dict[str, JSONValue]
"""A JSON object: a message, its params or result, capabilities, a schema in its object form."""

Schema: TypeAlias = Any
"""A JSON Schema: a mapping, or ``True`` / ``False`` (boolean schemas)."""


class Unset(enum.Enum):
    """Type of the `UNSET` sentinel (an enum so that ``x is UNSET`` narrows types)."""

    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Final = Unset.UNSET
"""The value of a field that holds nothing (left out of the produced JSON)."""


def json_type_name(value: JSONValue) -> str:
    """The JSON Schema type name of a Python JSON value ("integer" for whole ints)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def int_or_none(value: Any) -> int | None:
    """*value* when it is a JSON integer (a boolean is not), else None: a count such as ``maxLength``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def json_equal(a: JSONValue, b: JSONValue) -> bool:
    """JSON equality as JSON Schema defines it for ``enum`` / ``const``.

    Unlike Python ``==``, booleans never equal numbers (``True != 1``), while
    ``1`` and ``1.0`` are equal numbers.
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if type(a) is not type(b):
        return False
    return bool(a == b)


def json_text(value: JSONValue, indent: int | None = None) -> str:
    """Serialise a JSON value for display or editing (non-ASCII kept as is)."""
    return json.dumps(value, ensure_ascii=False, indent=indent)


def short_json(value: JSONValue, limit: int = 60) -> str:
    """Compact JSON text for a message, cut to about *limit* characters."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def parse_json_text(text: str) -> JSONValue:
    """Parse strict JSON text: ``NaN``/``Infinity`` and numbers too big for a float are refused.

    Raises ``ValueError`` with a short, human-readable message.
    """
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except ValueError as exc:
        raise ValueError(f"invalid JSON: {exc}") from None
    except RecursionError:
        raise ValueError("invalid JSON: nested too deeply") from None
    if not _all_finite(value):
        raise ValueError("invalid JSON: number out of range")
    return value


def _all_finite(value: JSONValue) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_all_finite(v) for v in value)
    if isinstance(value, dict):
        return all(_all_finite(v) for v in value.values())
    return True
