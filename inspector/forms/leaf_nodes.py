"""Nodes for single values: text, numbers, booleans, constants, raw JSON (choices: `enum_nodes`)."""

from __future__ import annotations

import copy
import re
from typing import Any

from inspector.forms.node_base import FormNode, NodeKind
from inspector.forms.text_conversion import number_text, parse_boolean, parse_integer, parse_number
from inspector.forms.values import (
    UNSET,
    JSONValue,
    Unset,
    int_or_none,
    json_equal,
    json_text,
    json_type_name,
    parse_json_text,
    short_json,
)

__all__ = [
    "BooleanNode",
    "ConstNode",
    "ExtrasNode",
    "IntegerNode",
    "NumberNode",
    "RawJsonNode",
    "StringNode",
]


def _number_or_none(value: Any) -> int | float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


# -- strings ---------------------------------------------------------------

MULTILINE_MAX_LENGTH = 200
"""A ``maxLength`` above this suggests a multi-line editor."""

_MULTILINE_FORMATS = {"textarea", "multiline", "markdown", "html", "text"}
_MULTILINE_KEYS = {
    "body",
    "code",
    "content",
    "contents",
    "description",
    "html",
    "markdown",
    "message",
    "notes",
    "prompt",
    "script",
    "source",
    "template",
    "text",
}
_MULTILINE_WORDS = re.compile(
    r"\b(multi-?line|multiple lines|long text|paragraphs?|markdown|html|source code|code snippet"
    r"|script|body|essay|article|document|json text|yaml|csv|newlines?)\b",
    re.IGNORECASE,
)

_FORMAT_PLACEHOLDERS = {
    "date": "YYYY-MM-DD",
    "date-time": "YYYY-MM-DDThh:mm:ssZ",
    "time": "hh:mm:ss",
    "email": "name@example.com",
    "uri": "https://…",
    "uuid": "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",
    "ipv4": "0.0.0.0",
    "ipv6": "::1",
}


class StringNode(FormNode):
    """A text field.

    ``format``, ``min_length``, ``max_length``, ``pattern``,
    ``content_media_type``, ``content_encoding`` come from the schema.
    ``multiline`` hints at a multi-line editor, ``secret`` at a masked input
    (``format: password`` or ``writeOnly``), ``placeholder`` at hint text.
    ``set_text`` keeps text as typed: ``"3"`` stays the string "3" and ``""``
    is the empty string (use ``clear()`` to leave the field out).
    """

    kind = NodeKind.STRING

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        s = self.schema
        self.format: str | None = s.get("format") if isinstance(s.get("format"), str) else None
        self.min_length = int_or_none(s.get("minLength"))
        self.max_length = int_or_none(s.get("maxLength"))
        self.pattern: str | None = s.get("pattern") if isinstance(s.get("pattern"), str) else None
        media = s.get("contentMediaType")
        self.content_media_type: str | None = media if isinstance(media, str) else None
        encoding = s.get("contentEncoding")
        self.content_encoding: str | None = encoding if isinstance(encoding, str) else None
        self.secret = self.format == "password" or self.write_only
        self.value: str | Unset = UNSET

    @property
    def multiline(self) -> bool:
        """Whether a multi-line editor fits: the schema suggests long text, or the value has newlines."""
        if isinstance(self.value, str) and "\n" in self.value:
            return True
        if self.content_media_type is not None or self.format in _MULTILINE_FORMATS:
            return True
        if self.max_length is not None and self.max_length > MULTILINE_MAX_LENGTH:
            return True
        if isinstance(self.key, str) and self.key.lower() in _MULTILINE_KEYS:
            return True
        words = " ".join(t for t in (self.title, self.description) if t)
        return bool(_MULTILINE_WORDS.search(words))

    @property
    def placeholder(self) -> str:
        """Hint text for an empty input: the default, the first example, or a hint for the format."""
        if self.has_default:
            return super().placeholder
        for example in self.examples:
            if isinstance(example, str):
                return example
        return _FORMAT_PLACEHOLDERS.get(self.format or "", "")

    def convert_text(self, text: str) -> JSONValue | Unset:
        """The text as it is: any text is a string (blank included)."""
        return text

    def _accept(self, value: JSONValue) -> str | None:
        if not isinstance(value, str):
            return f"expected a string, got {json_type_name(value)}"
        self.value = value
        return None

    def _clear_state(self) -> None:
        self.value = UNSET

    def _state_value(self) -> JSONValue | Unset:
        return self.value

    def _format_text(self) -> str:
        return self.value if isinstance(self.value, str) else ""


# -- numbers -----------------------------------------------------------------


class NumberNode(FormNode):
    """A number field: ``minimum``, ``maximum``, ``exclusive_minimum``, ``exclusive_maximum``,
    ``multiple_of`` (None when absent).  Text accepts ``3``, ``-2.5``, ``1e-3``;
    blank text clears the field.
    """

    kind = NodeKind.NUMBER

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        s = self.schema
        self.minimum = _number_or_none(s.get("minimum"))
        self.maximum = _number_or_none(s.get("maximum"))
        self.exclusive_minimum = _number_or_none(s.get("exclusiveMinimum"))
        self.exclusive_maximum = _number_or_none(s.get("exclusiveMaximum"))
        # draft-04: exclusiveMinimum/Maximum are booleans qualifying minimum/maximum.
        if s.get("exclusiveMinimum") is True:
            self.exclusive_minimum, self.minimum = self.minimum, None
        if s.get("exclusiveMaximum") is True:
            self.exclusive_maximum, self.maximum = self.maximum, None
        self.multiple_of = _number_or_none(s.get("multipleOf"))
        self.value: int | float | Unset = UNSET

    @property
    def placeholder(self) -> str:
        """Hint text for an empty input: the default, the first numeric example, or the bounds."""
        if self.has_default:
            return super().placeholder
        for example in self.examples:
            if isinstance(example, int | float) and not isinstance(example, bool):
                return number_text(example)
        return self.bounds_text

    @property
    def bounds_text(self) -> str:
        """The bounds as a person reads them (``1 … 10``, ``integer ≥ 1``), or ""."""
        low = _domain_bound(self.minimum if self.minimum is not None else self.exclusive_minimum)
        high = _domain_bound(self.maximum if self.maximum is not None else self.exclusive_maximum)
        if low is not None and high is not None:
            return f"{number_text(low)} … {number_text(high)}"
        if low is not None:
            return f"{self.kind} {'>' if self.minimum is None else '≥'} {number_text(low)}"
        if high is not None:
            return f"{self.kind} {'<' if self.maximum is None else '≤'} {number_text(high)}"
        return ""

    def _parse(self, text: str) -> int | float:
        return parse_number(text)

    def convert_text(self, text: str) -> JSONValue | Unset:
        """The number *text* stands for (blank clears); `FormValueError` for text that is not one."""
        if not text.strip():
            return UNSET
        try:
            return self._parse(text)
        except ValueError as exc:
            raise self._error(str(exc)) from None

    def _accept(self, value: JSONValue) -> str | None:
        # A number that breaks the bounds (or 3.5 in an integer field) is still
        # held and shown; validation reports it.
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"expected a number, got {json_type_name(value)}"
        self.value = value
        return None

    def _clear_state(self) -> None:
        self.value = UNSET

    def _state_value(self) -> JSONValue | Unset:
        return self.value

    def _format_text(self) -> str:
        return "" if self.value is UNSET else number_text(self.value)


# Zod's `.int()` (the TypeScript SDK's servers) bounds every integer by the
# safe-integer range: a limit of the language, not of the field.
_SAFE_INTEGER = 2**53 - 1


def _domain_bound(bound: int | float | None) -> int | float | None:
    """*bound*, or None when it is only the safe-integer limit."""
    return None if bound is not None and abs(bound) == _SAFE_INTEGER else bound


class IntegerNode(NumberNode):
    """A whole-number field; text must be an integer (``"3.0"`` and ``"1e3"`` are accepted)."""

    kind = NodeKind.INTEGER

    def _parse(self, text: str) -> int | float:
        return parse_integer(text)


# -- booleans ----------------------------------------------------------------


class BooleanNode(FormNode):
    """A true/false field.  Text: true/false, yes/no, y/n, 1/0, on/off; blank clears.

    A required boolean with no default starts unset (not False), so a UI
    should offer three states or make the user choose.
    """

    kind = NodeKind.BOOLEAN

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.value: bool | Unset = UNSET

    def convert_text(self, text: str) -> JSONValue | Unset:
        """true or false from the words the class names (blank clears); `FormValueError` for others."""
        if not text.strip():
            return UNSET
        try:
            return parse_boolean(text)
        except ValueError as exc:
            raise self._error(str(exc)) from None

    def _accept(self, value: JSONValue) -> str | None:
        if not isinstance(value, bool):
            return f"expected a boolean, got {json_type_name(value)}"
        self.value = value
        return None

    def _clear_state(self) -> None:
        self.value = UNSET

    def _state_value(self) -> JSONValue | Unset:
        return self.value

    def _format_text(self) -> str:
        return "" if self.value is UNSET else ("true" if self.value else "false")


class ConstNode(FormNode):
    """A field with exactly one allowed value, ``const``.

    A required one inside an object the person opened, added or chose
    (``fills_itself``) starts set to that value, so discriminator fields such
    as ``{"kind": {"const": "circle"}}`` fill themselves in; one among the
    top-level arguments waits to be included, as any other argument would
    (it is sent only when the person asks).  ``include()`` sets it,
    ``clear()`` leaves it out.
    """

    kind = NodeKind.CONST

    def __init__(self, *, const: JSONValue, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.const = copy.deepcopy(const)
        self.value: JSONValue | Unset = UNSET

    @property
    def fills_itself(self) -> bool:
        """Whether the field starts set to its value: required, and not among the top-level arguments."""
        parent = self.parent
        top_level = parent is not None and parent.parent is None and parent.kind == NodeKind.OBJECT
        return self.required and not top_level

    def include(self) -> None:
        """Set the field to its one value."""
        self.load_value(copy.deepcopy(self.const))

    def convert_text(self, text: str) -> JSONValue | Unset:
        """The const, for text that is it or its JSON (blank clears); `FormValueError` for anything else."""
        if isinstance(self.const, str) and text == self.const:
            return self.const
        if not text.strip():
            return UNSET
        try:
            parsed = parse_json_text(text)
        except ValueError:
            parsed = UNSET
        if parsed is not UNSET and json_equal(parsed, self.const):
            return copy.deepcopy(self.const)
        raise self._error(f"expected {short_json(self.const)}, got {text!r}")

    def _accept(self, value: JSONValue) -> str | None:
        if not json_equal(value, self.const):
            return f"expected {short_json(self.const)}"
        self.value = copy.deepcopy(value)
        return None

    def _clear_state(self) -> None:
        self.value = UNSET

    def _reset_state(self) -> None:
        self.value = copy.deepcopy(self.const) if self.fills_itself else UNSET

    def _state_value(self) -> JSONValue | Unset:
        return copy.deepcopy(self.value)

    def _format_text(self) -> str:
        if self.value is UNSET:
            return ""
        return self.value if isinstance(self.value, str) else json_text(self.value)


# -- raw JSON ----------------------------------------------------------------


class RawJsonNode(FormNode):
    """Any JSON value, edited as JSON text: the fallback for schemas a form cannot show.

    ``reason`` says why this part is raw JSON ("conditional schema (if/then/else)
    …", "recursive $ref …", "any JSON value (the schema sets no type)").
    Blank text clears the field.
    """

    kind = NodeKind.RAW

    def __init__(self, *, reason: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.reason = reason
        self.value: JSONValue | Unset = UNSET

    def convert_text(self, text: str) -> JSONValue | Unset:
        """Any JSON value typed as text (blank clears); `FormValueError` for text that does not parse."""
        if not text.strip():
            return UNSET
        try:
            return parse_json_text(text)
        except ValueError as exc:
            raise self._error(str(exc)) from None

    def _accept(self, value: JSONValue) -> str | None:
        self.value = copy.deepcopy(value)
        return None

    def _clear_state(self) -> None:
        self.value = UNSET

    def _state_value(self) -> JSONValue | Unset:
        return copy.deepcopy(self.value)


class ExtrasNode(RawJsonNode):
    """An object's properties that its schema does not declare, as one JSON object.

    Lives in `ObjectNode.extras`; its keys never repeat a declared property
    (``reserved``).
    """

    def __init__(self, *, reserved: frozenset[str], **kwargs: Any) -> None:
        super().__init__(reason="properties the schema does not declare", **kwargs)
        self.reserved = reserved
        if self.title is None:
            self.title = "Additional properties"

    def convert_text(self, text: str) -> JSONValue | Unset:
        """A JSON object whose keys are not declared properties (blank clears); `FormValueError` otherwise."""
        value = super().convert_text(text)
        if value is not UNSET:
            problem = self._problem(value)
            if problem:
                raise self._error(problem)
        return value

    def _problem(self, value: JSONValue) -> str | None:
        if not isinstance(value, dict):
            return f"expected a JSON object, got {json_type_name(value)}"
        clash = sorted(k for k in value if k in self.reserved)
        if clash:
            return f"{', '.join(map(repr, clash))} declared in the schema; set it in its own field"
        return None

    def _accept(self, value: JSONValue) -> str | None:
        problem = self._problem(value)
        if problem:
            return problem
        return super()._accept(value)
