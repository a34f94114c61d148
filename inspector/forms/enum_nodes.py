"""Nodes that choose among listed values: one of an enum, or several (an array of an enum).

The options come from ``enum`` (with legacy ``enumNames`` titles) or from a
``oneOf`` / ``anyOf`` list of ``{const, title}``; text names an option by its
value or its title.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from inspector.forms.node_base import FormNode, NodeKind
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

__all__ = ["EnumNode", "EnumOption", "MultiSelectNode"]


@dataclass(frozen=True, slots=True)
class EnumOption:
    """One allowed value of an enum, with its display title when the schema gives one."""

    value: JSONValue
    title: str | None = None
    description: str | None = None

    @property
    def label(self) -> str:
        """The title, else the value itself (strings as is, others as JSON)."""
        if self.title:
            return self.title
        return self.value if isinstance(self.value, str) else json_text(self.value)


def _option_index(options: tuple[EnumOption, ...], value: JSONValue) -> int | None:
    for i, option in enumerate(options):
        if json_equal(option.value, value):
            return i
    return None


def _match_option(options: tuple[EnumOption, ...], text: str) -> JSONValue:
    """The option value *text* names: a value first, then a title; raises ValueError."""
    stripped = text.strip()
    found = _exact_match(options, text, stripped) or _json_match(options, stripped) or _folded_match(options, stripped)
    if found is not None:
        return copy.deepcopy(found.value)
    shown = ", ".join(short_json(o.value, 30) for o in options[:10])
    if len(options) > 10:
        shown += f", … ({len(options)} in all)"
    raise ValueError(f"expected one of {shown}, got {text!r}")


def _exact_match(options: tuple[EnumOption, ...], text: str, stripped: str) -> EnumOption | None:
    """The string option that is *text* as typed, else the option titled *stripped*."""
    for option in options:
        if isinstance(option.value, str) and option.value == text:
            return option
    for option in options:
        if option.title is not None and option.title == stripped:
            return option
    return None


def _json_match(options: tuple[EnumOption, ...], stripped: str) -> EnumOption | None:
    """The non-string option *stripped* is the JSON text of (``3``, ``null``, ``{"a": 1}``)."""
    try:
        parsed = parse_json_text(stripped)
    except ValueError:
        return None
    for option in options:
        if not isinstance(option.value, str) and json_equal(option.value, parsed):
            return option
    return None


def _folded_match(options: tuple[EnumOption, ...], stripped: str) -> EnumOption | None:
    """The one option whose title or string value is *stripped* ignoring case (None when several are)."""
    folded = stripped.casefold()
    matches = [
        o
        for o in options
        if (o.title is not None and o.title.casefold() == folded)
        or (isinstance(o.value, str) and o.value.casefold() == folded)
    ]
    return matches[0] if len(matches) == 1 else None


class EnumNode(FormNode):
    """A single choice among ``options`` (tuple of `EnumOption`).

    Built from ``enum`` (with legacy ``enumNames`` titles) or from a ``oneOf`` /
    ``anyOf`` list of ``{const, title}``.  ``select(i)`` picks an option;
    ``selected_index`` tells which (None when unset or raw).  Text matches an
    option's value, then its title (case-insensitively when unambiguous).
    """

    kind = NodeKind.ENUM

    def __init__(self, *, options: tuple[EnumOption, ...], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.options = options
        self.value: JSONValue | Unset = UNSET

    @property
    def selected_index(self) -> int | None:
        """The index of the option chosen (None when unset or raw)."""
        if self.value is UNSET or self.raw_value is not UNSET:
            return None
        return _option_index(self.options, self.value)

    def select(self, index: int | None) -> None:
        """Pick option *index* (None clears)."""
        if index is None:
            self.clear()
        else:
            self.load_value(copy.deepcopy(self.options[index].value))

    def convert_text(self, text: str) -> JSONValue | Unset:
        """The option that *text* names by value, else by title; blank clears, unless an option is that text."""
        if not text.strip() and not any(o.value == text for o in self.options):
            return UNSET
        try:
            return _match_option(self.options, text)
        except ValueError as exc:
            raise self._error(str(exc)) from None

    def _accept(self, value: JSONValue) -> str | None:
        if _option_index(self.options, value) is None:
            return f"{short_json(value)} is not one of the options"
        self.value = copy.deepcopy(value)
        return None

    def _clear_state(self) -> None:
        self.value = UNSET

    def _state_value(self) -> JSONValue | Unset:
        return copy.deepcopy(self.value)

    def _format_text(self) -> str:
        if self.value is UNSET:
            return ""
        return self.value if isinstance(self.value, str) else json_text(self.value)


class MultiSelectNode(FormNode):
    """Several choices among ``options``: an array whose items are an enum.

    ``selected`` is the list of chosen values in order (UNSET when the array is
    absent).  ``toggle(i)``, ``is_selected(i)``, ``set_selected(indexes)``;
    ``min_items`` / ``max_items`` / ``unique_items`` from the array schema.
    Text is a JSON array, or comma-separated values or titles; blank text is
    the empty selection ``[]``.
    """

    kind = NodeKind.MULTI_SELECT

    def __init__(self, *, options: tuple[EnumOption, ...], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.options = options
        self.min_items = int_or_none(self.schema.get("minItems"))
        self.max_items = int_or_none(self.schema.get("maxItems"))
        self.unique_items = self.schema.get("uniqueItems") is True
        self.selected: list[JSONValue] | Unset = UNSET

    @property
    def selected_indexes(self) -> list[int]:
        """Indexes of the options currently chosen, in option order."""
        return [i for i in range(len(self.options)) if self.is_selected(i)]

    def is_selected(self, index: int) -> bool:
        """Whether option *index* is among the chosen values."""
        if self.selected is UNSET or self.raw_value is not UNSET:
            return False
        return any(json_equal(v, self.options[index].value) for v in self.selected)

    def toggle(self, index: int) -> None:
        """Choose option *index*, or un-choose it when chosen."""
        current = [] if self.selected is UNSET or self.raw_value is not UNSET else list(self.selected)
        option = self.options[index].value
        if any(json_equal(v, option) for v in current):
            current = [v for v in current if not json_equal(v, option)]
        else:
            current.append(copy.deepcopy(option))
        self.load_value(current)

    def set_selected(self, indexes: list[int]) -> None:
        """Choose exactly the options at *indexes*, in that order."""
        self.load_value([copy.deepcopy(self.options[i].value) for i in indexes])

    def convert_text(self, text: str) -> JSONValue | Unset:
        """The options that *text* names, as a JSON array or comma-separated values or titles; blank: ``[]``."""
        stripped = text.strip()
        if not stripped:
            return []
        out: list[JSONValue] = []
        try:
            if stripped.startswith("["):
                try:
                    items = parse_json_text(stripped)
                except ValueError as exc:
                    raise ValueError(str(exc)) from None
                if not isinstance(items, list):
                    raise ValueError("expected a JSON array")
                for item in items:
                    index = _option_index(self.options, item)
                    if index is None and isinstance(item, str):
                        out.append(_match_option(self.options, item))
                    elif index is None:
                        raise ValueError(f"{short_json(item)} is not one of the options")
                    else:
                        out.append(item)
            else:
                out = [_match_option(self.options, part.strip()) for part in stripped.split(",")]
        except ValueError as exc:
            raise self._error(str(exc)) from None
        return out

    def _accept(self, value: JSONValue) -> str | None:
        if not isinstance(value, list):
            return f"expected an array, got {json_type_name(value)}"
        for item in value:
            if _option_index(self.options, item) is None:
                return f"{short_json(item)} is not one of the options"
        self.selected = copy.deepcopy(value)
        return None

    def _clear_state(self) -> None:
        self.selected = UNSET

    def _state_value(self) -> JSONValue | Unset:
        return copy.deepcopy(self.selected)
