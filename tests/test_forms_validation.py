"""Validation: validate_value, check_schema, dialects, node.errors, elicitation defaults."""

from __future__ import annotations

from typing import Any

import pytest

from inspector.forms import (
    ArrayNode,
    NullableNode,
    ObjectNode,
    UnionNode,
    Violation,
    apply_defaults,
    build_form,
    check_schema,
    dialect_of,
    format_path,
    validate_value,
)

DRAFT7 = "http://json-schema.org/draft-07/schema#"
DRAFT2019 = "https://json-schema.org/draft/2019-09/schema"
DRAFT2020 = "https://json-schema.org/draft/2020-12/schema"


def shown(violations: list[Violation]) -> list[str]:
    return [str(v) for v in violations]


ORDER = {
    "type": "object",
    "$defs": {
        "Item": {
            "type": "object",
            "properties": {"qty": {"type": "integer", "minimum": 1}, "sku": {"type": "string"}},
            "required": ["sku"],
        }
    },
    "properties": {
        "address": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 2},
                "zip": {"type": "string", "pattern": "^\\d+$"},
            },
            "required": ["city"],
            "additionalProperties": False,
        },
        "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}, "maxItems": 3, "uniqueItems": True},
        "email": {"type": "string", "format": "email"},
        "when": {"type": "string", "format": "date-time"},
        "day": {"type": "string", "format": "date"},
        "site": {"type": "string", "format": "uri"},
        "uid": {"type": "string", "format": "uuid"},
        "ip": {"type": "string", "format": "ipv4"},
        "count": {"type": "integer", "exclusiveMinimum": 0, "maximum": 10, "multipleOf": 2},
        "mode": {"enum": ["a", "b"]},
        "fixed": {"const": 1},
        "name": {"type": "string", "maxLength": 3},
        "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "any": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    },
    "required": ["address"],
}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"address": {"city": "Paris"}}, []),
        ({}, ["address: required property is missing"]),
        ({"address": {}}, ["address.city: required property is missing"]),
        ({"address": {"city": "P"}}, ["address.city: must be at least 2 characters long"]),
        ({"address": {"city": 5}}, ["address.city: expected string, got integer 5"]),
        ({"address": {"city": "Pa", "zip": "x1"}}, ['address.zip: does not match the pattern "^\\\\d+$"']),
        (
            {"address": {"city": "Pa", "x": 1, "y": 2}},
            [
                "address.x: property is not allowed by the schema",
                "address.y: property is not allowed by the schema",
            ],
        ),
        (
            {"address": {"city": "Pa"}, "items": [{"sku": "a"}, {"qty": 0}]},
            [
                "items[1].qty: must be at least 1",
                "items[1].sku: required property is missing",
            ],
        ),
        (
            {"address": {"city": "Pa"}, "items": [{"sku": "a"}] * 4},
            [
                "items: must have at most 3 items",
                "items: items must be unique",
            ],
        ),
        ({"address": {"city": "Pa"}, "email": "nope"}, ["email: is not a valid email"]),
        ({"address": {"city": "Pa"}, "when": "2024-01-01 10:00"}, ["when: is not a valid date-time"]),
        ({"address": {"city": "Pa"}, "when": "2024-13-01T10:00:00Z"}, ["when: is not a valid date-time"]),
        ({"address": {"city": "Pa"}, "when": "2024-01-01T10:00:00+02:00"}, []),
        ({"address": {"city": "Pa"}, "day": "2024-02-30"}, ["day: is not a valid date"]),
        ({"address": {"city": "Pa"}, "site": "not a uri"}, ["site: is not a valid uri"]),
        ({"address": {"city": "Pa"}, "site": "https://example.com/a?b=c"}, []),
        ({"address": {"city": "Pa"}, "uid": "1234"}, ["uid: is not a valid uuid"]),
        ({"address": {"city": "Pa"}, "ip": "999.1.1.1"}, ["ip: is not a valid ipv4"]),
        ({"address": {"city": "Pa"}, "count": 0}, ["count: must be greater than 0"]),
        ({"address": {"city": "Pa"}, "count": 12}, ["count: must be at most 10"]),
        ({"address": {"city": "Pa"}, "count": 3}, ["count: must be a multiple of 2"]),
        ({"address": {"city": "Pa"}, "count": True}, ["count: expected integer, got boolean true"]),
        ({"address": {"city": "Pa"}, "mode": "c"}, ['mode: must be one of: "a", "b"']),
        ({"address": {"city": "Pa"}, "fixed": 2}, ["fixed: must be 1"]),
        ({"address": {"city": "Pa"}, "name": "abcd"}, ["name: must be at most 3 characters long"]),
        ({"address": {"city": "Pa"}, "either": None}, ["either: matches none of the alternatives"]),
        ({"address": {"city": "Pa"}, "any": []}, ["any: matches none of the alternatives"]),
        ([], ["(root): expected object, got array []"]),
    ],
)
def test_validate_value_messages_and_paths(value: Any, expected: list[str]) -> None:
    assert shown(validate_value(ORDER, value)) == expected


def test_violation_fields() -> None:
    [violation] = validate_value(ORDER, {"address": {"city": "Pa"}, "items": [{"sku": "a", "qty": 0}]})
    assert violation.path == ("items", 0, "qty")
    assert violation.display_path == "items[0].qty"
    assert violation.keyword == "minimum"
    assert violation.message == "must be at least 1"


def test_oneof_matching_several() -> None:
    schema = {"oneOf": [{"type": "number"}, {"type": "integer"}]}
    assert shown(validate_value(schema, 1)) == ["(root): matches more than one alternative (oneOf allows exactly one)"]


def test_false_schema_message() -> None:
    schema = {
        "type": "object",
        "properties": {"gone": False, "list": {"type": "array", "prefixItems": [True, False]}},
        "$defs": {"F": False},
        "patternProperties": {"^x": {"$ref": "#/$defs/F"}},
    }
    assert shown(validate_value(schema, {"gone": 1, "list": [1, 2], "xy": 0})) == [
        "gone: no value is allowed here",
        "list[1]: no value is allowed here",
        "xy: no value is allowed here",
    ]
    # const / enum / default values that are false are data, not schemas.
    data = {"type": "object", "properties": {"f": {"const": False, "default": False}, "e": {"enum": [False]}}}
    assert validate_value(data, {"f": False, "e": False}) == []
    assert shown(validate_value(data, {"f": True})) == ["f: must be false"]


def test_messages_do_not_embed_huge_values() -> None:
    violations = validate_value({"type": "string"}, {"k": "x" * 10_000})
    assert len(violations[0].message) < 100


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ((), ""),
        (("a",), "a"),
        (("address", "city"), "address.city"),
        (("items", 2, "qty"), "items[2].qty"),
        ((0,), "[0]"),
        (("first-name",), "first-name"),
        (("x.y",), '["x.y"]'),
        (("a", "with space"), 'a["with space"]'),
        (("",), '[""]'),
        (("ünï",), '["ünï"]'),
    ],
)
def test_format_path(path: tuple[str | int, ...], text: str) -> None:
    assert format_path(path) == text


# -- dialects --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "name", "known"),
    [
        (None, "2020-12", True),
        (DRAFT2020, "2020-12", True),
        ("https://json-schema.org/draft/2020-12/schema#", "2020-12", True),
        (DRAFT2019, "2019-09", True),
        (DRAFT7, "draft-07", True),
        ("https://json-schema.org/draft-07/schema", "draft-07", True),
        ("http://json-schema.org/draft-04/schema#", "draft-04", True),
        ("https://example.com/my-dialect", "2020-12", False),
    ],
)
def test_dialect_of(uri: str | None, name: str, known: bool) -> None:
    schema = {} if uri is None else {"$schema": uri}
    dialect = dialect_of(schema)
    assert (dialect.name, dialect.known) == (name, known)


def test_default_dialect_is_2020_12() -> None:
    # dependentRequired exists from 2019-09 on; draft-07 ignores it.
    schema = {"type": "object", "dependentRequired": {"a": ["b"]}}
    assert shown(validate_value(schema, {"a": 1})) == ["(root): 'b' is a dependency of 'a'"]
    assert validate_value({**schema, "$schema": DRAFT7}, {"a": 1}) == []
    assert validate_value({**schema, "$schema": DRAFT2019}, {"a": 1}) != []


def test_ref_siblings_follow_the_dialect() -> None:
    schema = {
        "definitions": {"s": {"type": "string"}},
        "type": "object",
        "properties": {"x": {"$ref": "#/definitions/s", "maxLength": 1}},
    }
    assert validate_value(schema, {"x": "abc"}) != []
    assert validate_value({**schema, "$schema": DRAFT7}, {"x": "abc"}) == []


def test_draft7_tuple_items_and_formats() -> None:
    schema = {
        "$schema": DRAFT7,
        "type": "object",
        "properties": {
            "pair": {
                "type": "array",
                "items": [{"type": "string"}, {"type": "integer"}],
                "additionalItems": False,
            },
            "mail": {"type": "string", "format": "email"},
        },
    }
    assert validate_value(schema, {"pair": ["a", 1]}) == []
    assert shown(validate_value(schema, {"pair": ["a", "b"], "mail": "x"})) == [
        'pair[1]: expected integer, got string "b"',
        "mail: is not a valid email",
    ]


def test_unknown_dialect_validates_as_2020_12() -> None:
    schema = {"$schema": "https://example.com/custom", "type": "integer"}
    assert shown(validate_value(schema, "x")) == ['(root): expected integer, got string "x"']


def test_remote_refs_are_never_fetched() -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": "http://127.0.0.1:9/never.json"}}}
    [violation] = validate_value(schema, {"a": 1})
    assert violation.keyword == "schema"
    assert "cannot be used for validation" in violation.message


def test_unusable_schemas_do_not_raise() -> None:
    assert validate_value({"type": "strin"}, 1)[0].keyword == "schema"
    assert validate_value({"type": "string", "pattern": "("}, "x")[0].keyword == "schema"
    assert validate_value({"$ref": "#"}, 1)[0].keyword == "schema"


# -- check_schema -----------------------------------------------------------------------


def test_check_schema_valid() -> None:
    assert check_schema(ORDER) == []
    assert check_schema({"$schema": DRAFT7, "type": "object", "definitions": {}}) == []
    assert check_schema(True) == []


def test_check_schema_problems() -> None:
    schema = {
        "$schema": "https://example.com/unknown",
        "type": "object",
        "properties": {
            "a": {"type": "strin"},
            "b": {"pattern": "("},
            "c": {"minLength": -1},
            "d": {"$ref": "#/$defs/Nope"},
            "e": {"$ref": "https://example.com/x.json"},
        },
        "required": "a",
    }
    problems = check_schema(schema)
    by_path = {v.display_path: v for v in problems}
    assert by_path["$schema"].keyword == "$schema"
    assert "unknown dialect" in by_path["$schema"].message
    assert "properties.a.type" in by_path
    assert by_path["properties.b.pattern"].message == '"(" is not a valid regular expression'
    assert "properties.c.minLength" in by_path
    assert by_path["properties.d.$ref"].message == "$ref '#/$defs/Nope' does not resolve: nothing at '$defs'"
    assert "is not followed" in by_path["properties.e.$ref"].message
    assert "required" in by_path


def test_check_schema_rejects_non_schemas() -> None:
    assert shown(check_schema([1])) == ["(root): a schema must be an object or a boolean, not array"]


# -- errors filed on nodes ----------------------------------------------------------------


def test_form_validate_files_errors_next_to_fields() -> None:
    form = build_form(ORDER)
    assert isinstance(form, ObjectNode)
    form.load_value(
        {
            "address": {"zip": "x", "extra": 1},
            "items": [{"sku": "a"}, {"qty": 0}],
            "count": 3,
            "either": None,
        }
    )
    problems = form.validate()
    assert len(problems) == 7
    address = form.fields["address"]
    assert isinstance(address, ObjectNode)
    assert shown(address.fields["city"].errors) == ["address.city: required property is missing"]
    assert shown(address.fields["zip"].errors) == ['address.zip: does not match the pattern "^\\\\d+$"']
    assert shown(address.extras.errors) == ["address.extra: property is not allowed by the schema"]
    items = form.fields["items"]
    assert isinstance(items, ArrayNode)
    second = items.items[1]
    assert isinstance(second, ObjectNode)
    assert [v.keyword for v in second.fields["qty"].errors] == ["minimum"]
    assert [v.keyword for v in second.fields["sku"].errors] == ["required"]
    assert [v.keyword for v in form.fields["count"].errors] == ["multipleOf"]
    assert [v.keyword for v in form.fields["either"].errors] == ["oneOf"]
    # validate() on a sub-node returns that subtree's problems.
    assert [v.display_path for v in address.validate()] == ["address.city", "address.zip", "address.extra"]
    # Fixing clears them on the next validate().
    address.fields["city"].set_text("Paris")
    form.validate()
    assert address.fields["city"].errors == []


def test_errors_inside_union_variant_and_nullable() -> None:
    schema = {
        "type": "object",
        "properties": {
            "shape": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"kind": {"const": "c"}, "r": {"type": "number", "minimum": 0}},
                        "required": ["kind", "r"],
                    },
                    {"type": "string"},
                ]
            },
            "limit": {"type": ["integer", "null"], "minimum": 1},
        },
    }
    form = build_form(schema)
    assert isinstance(form, ObjectNode)
    form.load_value({"shape": {"kind": "c", "r": -1}, "limit": 0})
    form.validate()
    shape = form.fields["shape"]
    assert isinstance(shape, UnionNode)
    variant = shape.selected_node
    assert isinstance(variant, ObjectNode)
    assert [v.keyword for v in shape.errors] == ["oneOf"]
    limit = form.fields["limit"]
    assert isinstance(limit, NullableNode)
    assert [v.keyword for v in limit.errors] == ["minimum"]
    # An error on a value held raw is filed on the raw node.
    form.load_value({"shape": {"kind": "c", "r": "x"}})
    form.validate()
    r = variant.fields["r"]
    assert r.is_raw
    assert shape.errors != [] or r.errors != []


def test_blank_required_field_reports_required() -> None:
    form = build_form({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
    assert shown(form.validate()) == ["name: required property is missing"]
    assert form.find(("name",)).errors  # type: ignore[union-attr]


def test_root_unset_reports() -> None:
    form = build_form({"type": "object"})
    form.clear()
    assert shown(form.validate()) == ["(root): no value"]


# -- elicitation ---------------------------------------------------------------------------


ELICIT = {
    "type": "object",
    "properties": {
        "email": {"type": "string", "format": "email", "default": "user@example.com"},
        "age": {"type": "integer", "minimum": 0, "default": 50},
        "subscribe": {"type": "boolean", "default": False},
        "color": {"type": "string", "enum": ["Red", "Green"], "default": "Red"},
        "hex": {"type": "string", "oneOf": [{"const": "#f00", "title": "Red"}], "default": "#f00"},
        "colors": {
            "type": "array",
            "items": {"type": "string", "enum": ["Red", "Green"]},
            "default": ["Red"],
        },
        "nickname": {"type": "string"},
    },
    "required": ["email"],
}


def test_apply_defaults() -> None:
    assert apply_defaults(ELICIT) == {
        "email": "user@example.com",
        "age": 50,
        "subscribe": False,
        "color": "Red",
        "hex": "#f00",
        "colors": ["Red"],
    }
    assert validate_value(ELICIT, apply_defaults(ELICIT)) == []


def test_apply_defaults_keeps_given_content_and_does_not_mutate() -> None:
    content = {"age": 7, "nickname": "z"}
    result = apply_defaults(ELICIT, content)
    assert result["age"] == 7 and result["nickname"] == "z" and result["email"] == "user@example.com"
    assert content == {"age": 7, "nickname": "z"}
    result["colors"].append("Green")
    assert ELICIT["properties"]["colors"]["default"] == ["Red"]  # type: ignore[index]


def test_apply_defaults_follows_refs_and_nested_objects() -> None:
    schema = {
        "type": "object",
        "$defs": {"Prefs": {"type": "object", "properties": {"theme": {"type": "string", "default": "dark"}}}},
        "properties": {"prefs": {"$ref": "#/$defs/Prefs", "default": {}}, "n": {"$ref": "#/$defs/N"}},
    }
    assert apply_defaults(schema) == {"prefs": {"theme": "dark"}}


def test_form_matches_apply_defaults_for_elicitation() -> None:
    assert build_form(ELICIT, prefill_defaults=True).to_value() == apply_defaults(ELICIT)
    form = build_form(ELICIT)
    form.fill_defaults()
    assert form.to_value() == apply_defaults(ELICIT)
