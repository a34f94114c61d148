"""Round trips: load_value(x) then to_value() gives back exactly x.

This is what lets the TUI toggle between the form and a raw JSON editor
without changing the value.  hypothesis is not available, so the cases are
written by hand: many schemas, each with many values (valid ones are checked
to really be valid, invalid ones must survive too).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from inspector.forms import UNSET, ArrayNode, FormNode, ObjectNode, build_form, validate_value


def dump(value: Any) -> str:
    # Type-exact and order-exact: 1 vs 1.0 vs true all differ, key order counts.
    return json.dumps(value, sort_keys=False)


def assert_round_trip(schema: dict[str, Any], value: Any) -> FormNode:
    form = build_form(schema)
    original = copy.deepcopy(value)
    form.load_value(value)
    assert dump(form.to_value()) == dump(original)
    assert dump(value) == dump(original), "load_value must not modify its argument"
    # Through JSON text, as a raw editor would do it.
    again = build_form(schema)
    again.set_json_text(form.json_text(indent=2))
    assert dump(again.to_value()) == dump(original)
    # Loading twice into the same form is stable.
    form.load_value(original)
    assert dump(form.to_value()) == dump(original)
    return form


ADDRESS = {
    "type": "object",
    "properties": {
        "street": {"type": "string"},
        "city": {"type": "string", "minLength": 1},
        "zip": {"type": "string", "pattern": "^[0-9]{5}$"},
        "country": {"type": "string", "default": "FR"},
    },
    "required": ["city"],
}

CASES: list[tuple[str, dict[str, Any], list[Any]]] = [
    ("string", {"type": "string"}, ["", "abc", "3", "null", "line1\nline2", "ünïcødé ✓", " padded "]),
    ("string-format", {"type": "string", "format": "date"}, ["2024-02-29", "1999-12-31"]),
    ("integer", {"type": "integer"}, [0, -1, 42, 10**30, 3.0]),
    ("integer-bounds", {"type": "integer", "minimum": 1, "maximum": 10}, [1, 5, 10]),
    ("number", {"type": "number"}, [0, 0.0, -2.5, 1e-9, 1e300, 7, 3.0]),
    ("boolean", {"type": "boolean"}, [True, False]),
    ("null", {"type": "null"}, [None]),
    ("enum", {"enum": ["red", "green", "blue"]}, ["red", "blue"]),
    (
        "enum-mixed",
        {"enum": [1, "1", True, None, 2.5, {"a": 1}, [1, 2]]},
        [1, "1", True, None, 2.5, {"a": 1}, [1, 2]],
    ),
    ("enum-names", {"type": "string", "enum": ["a", "b"], "enumNames": ["Apple", "Banana"]}, ["a", "b"]),
    (
        "titled-oneOf",
        {"type": "string", "oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}]},
        ["#f00", "#0f0"],
    ),
    ("titled-anyOf", {"anyOf": [{"const": 1, "title": "One"}, {"const": 2, "title": "Two"}]}, [1, 2]),
    ("const", {"const": "fixed"}, ["fixed"]),
    ("const-object", {"const": {"a": [1, 2]}}, [{"a": [1, 2]}]),
    ("array-strings", {"type": "array", "items": {"type": "string"}}, [[], ["a"], ["a", "b", "a"]]),
    ("array-ints", {"type": "array", "items": {"type": "integer"}, "minItems": 1}, [[1], [3, 2, 1]]),
    (
        "array-objects",
        {"type": "array", "items": ADDRESS},
        [[], [{"city": "Paris"}], [{"city": "Lyon", "zip": "69001"}, {"country": "DE", "city": "Berlin"}]],
    ),
    ("array-any", {"type": "array"}, [[], [1, "a", None, {"x": [True]}]]),
    (
        "array-nested",
        {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
        [[[1, 2.5], []]],
    ),
    (
        "multi-select",
        {"type": "array", "items": {"type": "string", "enum": ["r", "g", "b"]}, "uniqueItems": True},
        [[], ["g"], ["b", "r"], ["r", "g", "b"]],
    ),
    (
        "multi-select-titled",
        {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}, {"const": "y", "title": "Y"}]}},
        [["y", "x"], ["x"]],
    ),
    ("object-empty", {"type": "object", "additionalProperties": False}, [{}]),
    ("object-any", {"type": "object"}, [{}, {"a": 1, "b": [1, {"c": None}]}]),
    (
        "object",
        ADDRESS,
        [
            {"city": "Paris"},
            {"city": "Paris", "country": "FR"},
            {"zip": "75001", "city": "Paris", "street": "1 rue X"},
        ],
    ),
    (
        "object-extras",
        {"type": "object", "properties": {"a": {"type": "integer"}}},
        [{"a": 1, "z": "extra"}, {"z": 1, "a": 2, "y": {"deep": [1]}}],
    ),
    (
        "object-nested",
        {
            "type": "object",
            "properties": {
                "outer": {
                    "type": "object",
                    "properties": {
                        "inner": {"type": "object", "properties": {"leaf": {"type": "boolean"}}},
                        "n": {"type": "number"},
                    },
                }
            },
        },
        [{}, {"outer": {}}, {"outer": {"inner": {}}}, {"outer": {"inner": {"leaf": False}, "n": 1.5}}],
    ),
    ("nullable-type", {"type": ["string", "null"]}, [None, "", "x"]),
    ("nullable-int", {"type": ["integer", "null"], "minimum": 0}, [None, 0, 7]),
    ("nullable-anyOf", {"anyOf": [{"type": "string"}, {"type": "null"}]}, [None, "hi"]),
    ("nullable-oneOf-obj", {"oneOf": [{"type": "null"}, ADDRESS]}, [None, {"city": "Nice"}]),
    (
        "nullable-union",
        {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
        [None, "a", 3],
    ),
    ("multi-type", {"type": ["string", "integer", "boolean"]}, ["3", 3, True]),
    ("multi-type-null", {"type": ["number", "string", "null"]}, [1.5, "x", None]),
    (
        "union-objects",
        {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
                    "required": ["kind", "r"],
                },
                {
                    "type": "object",
                    "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
                    "required": ["kind", "side"],
                },
            ]
        },
        [{"kind": "circle", "r": 1}, {"side": 2.5, "kind": "square"}],
    ),
    (
        "union-primitive",
        {"oneOf": [{"type": "string", "format": "uuid"}, {"type": "integer"}]},
        ["123e4567-e89b-12d3-a456-426614174000", 5],
    ),
    (
        "union-array-or-string",
        {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
        ["a", ["a", "b"], []],
    ),
    (
        "sep2106-root-oneOf",
        {
            "type": "object",
            "oneOf": [
                {"properties": {"id": {"type": "string", "format": "uuid"}}, "required": ["id"]},
                {"properties": {"name": {"type": "string", "minLength": 1}}, "required": ["name"]},
            ],
        },
        [{"id": "123e4567-e89b-12d3-a456-426614174000"}, {"name": "bob"}],
    ),
    (
        "ref-defs",
        {
            "type": "object",
            "$defs": {"Addr": ADDRESS},
            "properties": {"home": {"$ref": "#/$defs/Addr"}, "work": {"$ref": "#/$defs/Addr"}},
        },
        [{}, {"home": {"city": "A"}, "work": {"city": "B", "zip": "12345"}}],
    ),
    (
        "ref-definitions",
        {
            "type": "object",
            "definitions": {"n": {"type": "integer"}},
            "properties": {"a": {"$ref": "#/definitions/n"}},
        },
        [{"a": 1}],
    ),
    (
        "allOf-objects",
        {
            "allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"type": "object", "properties": {"b": {"type": "integer"}}},
            ]
        },
        [{"a": "x"}, {"b": 2, "a": "y"}],
    ),
    (
        "recursive-tree",
        {
            "$defs": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    },
                    "required": ["name"],
                }
            },
            "$ref": "#/$defs/Node",
        },
        [
            {"name": "root"},
            {
                "name": "a",
                "children": [
                    {
                        "name": "b",
                        "children": [{"name": "c", "children": [{"name": "d", "children": [{"name": "e"}]}]}],
                    }
                ],
            },
        ],
    ),
    (
        "linked-list",
        {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#"}}},
        [{"v": 1}, {"v": 1, "next": {"v": 2, "next": {"v": 3, "next": {"v": 4, "next": {"v": 5}}}}}],
    ),
    (
        "conditional",
        {"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}},
        [{"a": 1, "b": 2}, {}],
    ),
    (
        "map",
        {"type": "object", "additionalProperties": {"type": "integer"}},
        [{}, {"x": 1, "y": 2}],
    ),
    ("pattern-props", {"type": "object", "patternProperties": {"^x-": {"type": "string"}}}, [{"x-a": "b"}]),
    ("tuple", {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}, [["a", 1]]),
    ("not", {"not": {"type": "string"}}, [1, None, [1]]),
    ("true-schema", {}, [1, "x", None, {"a": [1]}]),
    (
        "string-with-not",
        {"type": "string", "not": {"const": "forbidden"}},
        ["allowed"],
    ),
    (
        "defaults-everywhere",
        {
            "type": "object",
            "properties": {
                "s": {"type": "string", "default": "d"},
                "n": {"type": "number", "default": 1.5},
                "b": {"type": "boolean", "default": True},
                "e": {"enum": ["x", "y"], "default": "y"},
                "arr": {"type": "array", "items": {"type": "integer"}, "default": [1, 2]},
                "o": {"type": "object", "properties": {"k": {"type": "string"}}, "default": {"k": "v"}},
            },
        },
        # Loading is exact: a missing key stays missing even when it has a default.
        [{}, {"s": "other"}, {"arr": [], "o": {}}, {"b": False, "e": "x", "n": 0}],
    ),
]


def _case_ids() -> list[tuple[str, dict[str, Any], Any]]:
    return [(f"{name}-{i}", schema, value) for name, schema, values in CASES for i, value in enumerate(values)]


@pytest.mark.parametrize(("schema", "value"), [(s, v) for _, s, v in _case_ids()], ids=[n for n, _, _ in _case_ids()])
def test_valid_values_round_trip(schema: dict[str, Any], value: Any) -> None:
    assert validate_value(schema, value) == [], "the test case itself must be valid"
    assert_round_trip(schema, value)


# Values that do not match their schema must survive a round trip all the same.
INVALID: list[tuple[str, dict[str, Any], Any]] = [
    ("string-gets-number", {"type": "string"}, 42),
    ("string-gets-null", {"type": "string"}, None),
    ("string-gets-object", {"type": "string"}, {"a": 1}),
    ("integer-gets-float", {"type": "integer"}, 3.5),
    ("integer-gets-string", {"type": "integer"}, "3"),
    ("integer-gets-bool", {"type": "integer"}, True),
    ("number-out-of-range", {"type": "number", "maximum": 1}, 99),
    ("boolean-gets-int", {"type": "boolean"}, 1),
    ("enum-unknown", {"enum": ["a", "b"]}, "c"),
    ("enum-bool-vs-int", {"enum": [1, 2]}, True),
    ("const-other", {"const": "x"}, "y"),
    ("null-gets-value", {"type": "null"}, 0),
    ("array-gets-object", {"type": "array", "items": {"type": "string"}}, {"a": 1}),
    ("array-bad-items", {"type": "array", "items": {"type": "integer"}}, [1, "two", None, 3.5]),
    ("array-too-long", {"type": "array", "items": {"type": "integer"}, "maxItems": 1}, [1, 2, 3]),
    ("multi-select-unknown", {"type": "array", "items": {"enum": ["a"]}}, ["a", "zzz"]),
    ("multi-select-not-list", {"type": "array", "items": {"enum": ["a"]}}, "a"),
    ("object-gets-list", ADDRESS, [1, 2]),
    ("object-missing-required", ADDRESS, {"street": "x"}),
    ("object-wrong-field-types", ADDRESS, {"city": 5, "zip": ["x"], "street": None}),
    ("object-no-additional", {"type": "object", "additionalProperties": False}, {"x": 1}),
    (
        "object-closed-with-extras",
        {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
        {"b": 1, "a": "x"},
    ),
    ("nullable-wrong", {"type": ["string", "null"]}, 5),
    ("union-none", {"oneOf": [{"type": "string"}, {"type": "integer"}]}, [1]),
    (
        "union-type-match-but-invalid",
        {"oneOf": [{"type": "string", "maxLength": 1}, {"type": "integer"}]},
        "long",
    ),
    (
        "union-object-invalid",
        {
            "oneOf": [
                {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "integer"}}},
                {"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": "integer"}}},
            ]
        },
        {"kind": "b", "y": "not an int", "extra": True},
    ),
    (
        "deep-invalid",
        {"type": "object", "properties": {"a": {"type": "array", "items": ADDRESS}}},
        {"a": [{"city": 1}]},
    ),
    ("root-gets-string", {"type": "object", "properties": {"a": {"type": "string"}}}, "not an object"),
]


@pytest.mark.parametrize(("schema", "value"), [(s, v) for _, s, v in INVALID], ids=[n for n, _, _ in INVALID])
def test_invalid_values_round_trip(schema: dict[str, Any], value: Any) -> None:
    assert validate_value(schema, value) != [], "the test case itself must be invalid"
    assert_round_trip(schema, value)


def test_unrepresentable_value_goes_raw_with_reason() -> None:
    form = build_form({"type": "object", "properties": {"n": {"type": "integer"}}})
    form.load_value({"n": "seven"})
    node = form.find(("n",))
    assert node is not None
    assert node.is_raw
    assert node.raw_reason == "expected a number, got string"
    assert node.text() == '"seven"'
    # A user typing a proper value clears the raw override.
    node.set_text("7")
    assert not node.is_raw
    assert form.to_value() == {"n": 7}


def test_key_order_is_kept() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}
    form = build_form(schema)
    form.load_value({"b": "2", "zz": 0, "a": "1"})
    assert dump(form.to_value()) == '{"b": "2", "zz": 0, "a": "1"}'
    # Fields set later come after the loaded ones, in schema order.
    form.load_value({"b": "2"})
    form.find(("a",)).set_text("1")  # type: ignore[union-attr]
    assert dump(form.to_value()) == '{"b": "2", "a": "1"}'


def test_to_value_returns_fresh_copies() -> None:
    form = build_form({"type": "object"})
    form.load_value({"a": [1, 2]})
    first = form.to_value()
    assert isinstance(first, dict)
    first["a"].append(3)
    assert form.to_value() == {"a": [1, 2]}


def test_load_unset_clears_everything() -> None:
    form = build_form(ADDRESS, prefill_defaults=True)
    form.load_value({"city": "X", "zip": "1"})
    form.load_value(UNSET)
    assert form.to_value() is UNSET
    form.reset()
    assert form.to_value() == {"country": "FR"}


def test_switching_form_and_raw_json_many_times() -> None:
    schema = BIG_SCHEMA
    form = build_form(schema)
    for value in BIG_VALUES:
        form.load_value(value)
        text = form.json_text(indent=2)
        form.set_json_text(text)
        assert dump(form.to_value()) == dump(value)


# -- a big, realistic schema ------------------------------------------------------

BIG_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "title": "Create order",
    "$defs": {
        "Address": ADDRESS,
        "Money": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "exclusiveMinimum": 0},
                "currency": {"type": "string", "enum": ["EUR", "USD", "GBP"], "default": "EUR"},
            },
            "required": ["amount"],
        },
        "LineItem": {
            "type": "object",
            "properties": {
                "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"},
                "qty": {"type": "integer", "minimum": 1, "default": 1},
                "price": {"$ref": "#/$defs/Money"},
                "gift": {"type": "boolean"},
                "options": {
                    "type": "array",
                    "items": {"enum": ["wrap", "card", "express"]},
                    "uniqueItems": True,
                },
            },
            "required": ["sku", "qty"],
        },
        "Card": {
            "type": "object",
            "title": "Card",
            "properties": {
                "method": {"const": "card"},
                "number": {"type": "string", "format": "password", "minLength": 12},
                "expires": {"type": "string", "format": "date"},
            },
            "required": ["method", "number"],
        },
        "Bank": {
            "type": "object",
            "properties": {"method": {"const": "bank"}, "iban": {"type": "string"}},
            "required": ["method", "iban"],
        },
    },
    "properties": {
        "customer": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "email": {"type": "string", "format": "email"},
                "phone": {"type": ["string", "null"]},
                "address": {"$ref": "#/$defs/Address"},
            },
            "required": ["name", "email"],
        },
        "items": {"type": "array", "items": {"$ref": "#/$defs/LineItem"}, "minItems": 1},
        "payment": {"oneOf": [{"$ref": "#/$defs/Card"}, {"$ref": "#/$defs/Bank"}]},
        "priority": {
            "type": "string",
            "oneOf": [
                {"const": "low", "title": "Low"},
                {"const": "normal", "title": "Normal"},
                {"const": "high", "title": "High"},
            ],
            "default": "normal",
        },
        "deliver_at": {"type": "string", "format": "date-time"},
        "notes": {"type": "string", "description": "Free text, multiple lines allowed", "maxLength": 2000},
        "discount": {"anyOf": [{"$ref": "#/$defs/Money"}, {"type": "null"}], "default": None},
        "source": {"const": "inspector"},
        "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
        "version": {"type": "integer", "enum": [1, 2], "default": 2},
    },
    "required": ["customer", "items", "payment", "source"],
    "additionalProperties": False,
}

BIG_VALUES: list[Any] = [
    {
        "customer": {"name": "Ada", "email": "ada@example.com"},
        "items": [{"sku": "ABC-1", "qty": 1}],
        "payment": {"method": "bank", "iban": "FR76"},
        "source": "inspector",
    },
    {
        "customer": {
            "name": "Ada",
            "email": "ada@example.com",
            "phone": None,
            "address": {"city": "London", "zip": "12345", "country": "GB"},
        },
        "items": [
            {"sku": "ABC-1", "qty": 2, "price": {"amount": 9.99}, "options": ["wrap", "express"]},
            {"sku": "XYZ-42", "qty": 1, "gift": True, "price": {"amount": 5, "currency": "USD"}},
        ],
        "payment": {"method": "card", "number": "4111111111111111", "expires": "2030-01-31"},
        "priority": "high",
        "deliver_at": "2030-01-01T09:30:00Z",
        "notes": "Ring twice.\nLeave at the door.",
        "discount": {"amount": 1.5, "currency": "EUR"},
        "source": "inspector",
        "metadata": {"campaign": "spring", "ref": "x"},
        "version": 1,
    },
    {
        "source": "inspector",
        "payment": {"number": "000011112222", "method": "card"},
        "items": [{"qty": 3, "sku": "QQQ-9", "options": []}],
        "customer": {"email": "b@example.org", "name": "Bo", "phone": "+33 1"},
        "discount": None,
    },
]


@pytest.mark.parametrize("value", BIG_VALUES)
def test_big_schema_round_trip(value: Any) -> None:
    assert validate_value(BIG_SCHEMA, value) == []
    form = assert_round_trip(BIG_SCHEMA, value)
    assert form.validate() == []


def test_big_schema_initial_state() -> None:
    form = build_form(BIG_SCHEMA)
    assert isinstance(form, ObjectNode)
    # Nothing nobody gave: no defaults, no empty required containers, no
    # top-level const, no variant nobody chose.
    assert form.to_value() == {}
    # "Fill defaults" (or a form built to prefill them) adds them.
    form.fill_defaults()
    assert form.to_value() == {"priority": "normal", "discount": None, "version": 2}


def test_big_schema_filled_like_a_user() -> None:
    form = build_form(BIG_SCHEMA, prefill_defaults=True)
    assert isinstance(form, ObjectNode)
    customer = form.fields["customer"]
    assert isinstance(customer, ObjectNode)
    customer.fields["name"].set_text("Ada")
    customer.fields["email"].set_text("ada@example.com")
    items = form.fields["items"]
    assert isinstance(items, ArrayNode)
    item = items.add()
    assert isinstance(item, ObjectNode)
    item.fields["sku"].set_text("ABC-1")
    payment = form.fields["payment"]
    payment.select(1)  # type: ignore[attr-defined]
    payment.selected_node.fields["iban"].set_text("FR76")  # type: ignore[attr-defined]
    form.fields["source"].include()  # type: ignore[attr-defined]
    value = form.to_value()
    assert value == {
        "customer": {"name": "Ada", "email": "ada@example.com"},
        "items": [{"sku": "ABC-1", "qty": 1}],
        "payment": {"method": "bank", "iban": "FR76"},
        "priority": "normal",
        "discount": None,
        "source": "inspector",
        "version": 2,
    }
    assert form.validate() == []
    assert validate_value(BIG_SCHEMA, value) == []
