"""Merge schemas that all apply to one value (``allOf``, ``$ref`` with siblings).

The form needs one schema per field; validation keeps using the real schema,
so the merge only has to be a faithful *picture* for the common, simple
cases.  When the members disagree in a way one schema cannot express (two
different patterns, incompatible types, two ``oneOf`` lists, …) the merge
gives up with `MergeConflict` and the builder falls back to raw JSON.

Earlier schemas win for annotations (title, description, default, …), so an
outer schema's title overrides the title of the ``$ref`` target it wraps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inspector.forms.values import JSONObject, json_equal

__all__ = ["MergeConflict", "merge_schemas"]


class MergeConflict(Exception):
    """The schemas cannot be merged into one; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _types(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, list):
        return {t for t in value if isinstance(t, str)}
    raise MergeConflict("'type' is neither a string nor a list")


def _merge_type(a: Any, b: Any) -> Any:
    def widen(types: set[str]) -> set[str]:
        # "integer" is a subset of "number".
        return types | {"integer"} if "number" in types else types

    ta, tb = _types(a), _types(b)
    both = widen(ta) & widen(tb)
    if "number" in both:
        both.discard("integer")
    if not both:
        raise MergeConflict(f"the types {sorted(ta)} and {sorted(tb)} have no value in common")
    ordered: list[str] = []
    for t in a if isinstance(a, list) else [a]:
        t = "integer" if t == "number" and "integer" in both else t
        if t in both and t not in ordered:
            ordered.append(t)
    ordered += sorted(both - set(ordered))
    return ordered[0] if len(ordered) == 1 else ordered


def _larger(a: Any, b: Any) -> Any:
    return b if _num(b) > _num(a) else a


def _smaller(a: Any, b: Any) -> Any:
    return b if _num(b) < _num(a) else a


def _num(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MergeConflict(f"expected a number, found {value!r}")
    return float(value)


def _union_list(a: Any, b: Any) -> Any:
    if not isinstance(a, list) or not isinstance(b, list):
        raise MergeConflict("'required' is not a list")
    return a + [x for x in b if x not in a]


def _intersect_enum(a: Any, b: Any) -> Any:
    if not isinstance(a, list) or not isinstance(b, list):
        raise MergeConflict("'enum' is not a list")
    both = [x for x in a if any(json_equal(x, y) for y in b)]
    if not both:
        raise MergeConflict("the enums have no value in common")
    return both


def _merge_const(a: Any, b: Any) -> Any:
    if not json_equal(a, b):
        raise MergeConflict("two different 'const' values")
    return a


def _same(keyword: str) -> Callable[[Any, Any], Any]:
    def merge(a: Any, b: Any) -> Any:
        if a != b:
            raise MergeConflict(f"two different '{keyword}' values")
        return a

    return merge


def _merge_properties(a: Any, b: Any) -> Any:
    if not isinstance(a, dict) or not isinstance(b, dict):
        raise MergeConflict("'properties' is not an object")
    out = dict(a)
    for key, schema in b.items():
        out[key] = {"allOf": [out[key], schema]} if key in out else schema
    return out


def _merge_subschema(a: Any, b: Any) -> Any:
    if a is False or b is False:
        return False
    if a is True or a == {}:
        return b
    if b is True or b == {}:
        return a
    if isinstance(a, list) or isinstance(b, list):
        raise MergeConflict("tuple-style 'items' cannot be merged")
    return {"allOf": [a, b]}


def _merge_not(a: Any, b: Any) -> Any:
    # not A and not B  ==  not (A or B)
    return {"anyOf": [a, b]}


_ANNOTATIONS = {
    "title",
    "description",
    "default",
    "examples",
    "example",
    "$comment",
    "readOnly",
    "writeOnly",
    "deprecated",
    "enumNames",
    "$id",
    "$schema",
    "$anchor",
    "$defs",
    "definitions",
}

_MERGERS: dict[str, Callable[[Any, Any], Any]] = {
    "type": _merge_type,
    "properties": _merge_properties,
    "required": _union_list,
    "additionalProperties": _merge_subschema,
    "unevaluatedProperties": _merge_subschema,
    "items": _merge_subschema,
    "minimum": _larger,
    "exclusiveMinimum": _larger,
    "minLength": _larger,
    "minItems": _larger,
    "minProperties": _larger,
    "maximum": _smaller,
    "exclusiveMaximum": _smaller,
    "maxLength": _smaller,
    "maxItems": _smaller,
    "maxProperties": _smaller,
    "enum": _intersect_enum,
    "const": _merge_const,
    "uniqueItems": lambda a, b: bool(a) or bool(b),
    "not": _merge_not,
}


def merge_schemas(schemas: list[Any]) -> JSONObject:
    """Merge schemas that must all hold into one dict schema.

    Members must already have their top-level ``$ref``/``allOf`` expanded;
    nested schemas (property schemas, ``items``) may still hold them: where two
    members describe the same property the result is ``{"allOf": [a, b]}`` for
    the builder to expand later.  Raises `MergeConflict`.
    """
    out: JSONObject = {}
    for schema in schemas:
        if schema is True:
            continue
        if schema is False:
            raise MergeConflict("one of the combined schemas allows no value at all (false)")
        if not isinstance(schema, dict):
            raise MergeConflict("one of the combined schemas is not an object")
        for key, value in schema.items():
            if key not in out:
                out[key] = value
            elif key in _ANNOTATIONS:
                continue
            elif key in _MERGERS:
                out[key] = _MERGERS[key](out[key], value)
            else:
                out[key] = _same(key)(out[key], value)
    return out
