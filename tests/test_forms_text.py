"""Text entry: set_text / text / convert_text with schema-aware conversion."""

from __future__ import annotations

import json
from typing import Any

import pytest

from inspector.forms import UNSET, FormNode, FormValueError, NullableNode, ObjectNode, UnionNode, build_form


def node_for(prop: dict[str, Any], key: str = "x") -> FormNode:
    form = build_form({"type": "object", "properties": {key: prop}})
    assert isinstance(form, ObjectNode)
    return form.fields[key]


def dump(value: Any) -> str:
    return "UNSET" if value is UNSET else json.dumps(value)


@pytest.mark.parametrize(
    ("prop", "text", "expected"),
    [
        # strings keep text exactly
        ({"type": "string"}, "3", "3"),
        ({"type": "string"}, "true", "true"),
        ({"type": "string"}, "null", "null"),
        ({"type": "string"}, "", ""),
        ({"type": "string"}, "  spaced  ", "  spaced  "),
        ({"type": "string"}, "[1]", "[1]"),
        # integers
        ({"type": "integer"}, "3", 3),
        ({"type": "integer"}, " -42 ", -42),
        ({"type": "integer"}, "+7", 7),
        ({"type": "integer"}, "3.0", 3),
        ({"type": "integer"}, "1e3", 1000),
        ({"type": "integer"}, "123456789012345678901234567890", 123456789012345678901234567890),
        ({"type": "integer"}, "", UNSET),
        # numbers
        ({"type": "number"}, "3", 3),
        ({"type": "number"}, "3.5", 3.5),
        ({"type": "number"}, "3.0", 3.0),
        ({"type": "number"}, "-1e-3", -0.001),
        ({"type": "number"}, ".5", 0.5),
        ({"type": "number"}, "   ", UNSET),
        # booleans
        ({"type": "boolean"}, "true", True),
        ({"type": "boolean"}, "False", False),
        ({"type": "boolean"}, "yes", True),
        ({"type": "boolean"}, "NO", False),
        ({"type": "boolean"}, "1", True),
        ({"type": "boolean"}, "0", False),
        ({"type": "boolean"}, "on", True),
        ({"type": "boolean"}, "off", False),
        ({"type": "boolean"}, "", UNSET),
        # enums: value, title, case-insensitive, JSON for non-strings
        ({"enum": ["red", "green"]}, "green", "green"),
        ({"enum": ["red", "green"]}, "GREEN", "green"),
        ({"type": "string", "enum": ["#f00", "#0f0"], "enumNames": ["Red", "Green"]}, "Green", "#0f0"),
        ({"oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}]}, "red", "#f00"),
        ({"enum": [1, 2, 3]}, "2", 2),
        ({"enum": [1, "1"]}, "1", "1"),
        ({"enum": [True, False]}, "false", False),
        ({"enum": [None, "x"]}, "null", None),
        ({"enum": ["", "a"]}, "", ""),
        ({"enum": ["a"]}, "", UNSET),
        # const
        ({"const": "fixed"}, "fixed", "fixed"),
        ({"const": 5}, "5", 5),
        ({"const": 5}, "5.0", 5),
        # multi-select: comma list, titles, JSON
        ({"type": "array", "items": {"enum": ["r", "g", "b"]}}, "r, b", ["r", "b"]),
        ({"type": "array", "items": {"enum": ["r", "g", "b"]}}, '["g"]', ["g"]),
        ({"type": "array", "items": {"anyOf": [{"const": "r", "title": "Red"}]}}, "Red", ["r"]),
        ({"type": "array", "items": {"anyOf": [{"const": "r", "title": "Red"}]}}, '["Red"]', ["r"]),
        ({"type": "array", "items": {"enum": ["r"]}}, "", []),
        # nullable: the literal null
        ({"type": ["string", "null"]}, "null", None),
        ({"type": ["string", "null"]}, "text", "text"),
        ({"type": ["integer", "null"]}, " null ", None),
        ({"type": ["integer", "null"]}, "4", 4),
        # unions: first variant whose conversion validates
        ({"oneOf": [{"type": "integer"}, {"type": "string"}]}, "7", 7),
        ({"oneOf": [{"type": "integer"}, {"type": "string"}]}, "seven", "seven"),
        ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, "7", "7"),
        ({"type": ["boolean", "number"]}, "1.5", 1.5),
        ({"type": ["boolean", "number"]}, "yes", True),
        ({"anyOf": [{"type": "string", "format": "date"}, {"type": "integer"}]}, "12", 12),
        # containers and raw take JSON
        ({"type": "object"}, '{"a": [1, 2]}', {"a": [1, 2]}),
        ({"type": "array", "items": {"type": "integer"}}, "[1, 2]", [1, 2]),
        ({}, '"just a string"', "just a string"),
        ({}, "12", 12),
        ({}, "", UNSET),
    ],
)
def test_convert_and_set_text(prop: dict[str, Any], text: str, expected: Any) -> None:
    node = node_for(prop)
    assert dump(node.convert_text(text)) == dump(expected)
    node.set_text(text)
    assert dump(node.to_value()) == dump(expected)
    assert node.text_error is None


@pytest.mark.parametrize(
    ("key", "prop", "text", "message"),
    [
        ("count", {"type": "integer"}, "3.5", "count: expected an integer, got '3.5'"),
        ("count", {"type": "integer"}, "three", "count: expected an integer, got 'three'"),
        ("count", {"type": "integer"}, "0x10", "count: expected an integer, got '0x10'"),
        ("ratio", {"type": "number"}, "NaN", "ratio: expected a number, got 'NaN'"),
        ("ratio", {"type": "number"}, "inf", "ratio: expected a number, got 'inf'"),
        ("ratio", {"type": "number"}, "1e999", "ratio: expected a number, got '1e999'"),
        ("ratio", {"type": "number"}, "1,5", "ratio: expected a number, got '1,5'"),
        (
            "flag",
            {"type": "boolean"},
            "maybe",
            "flag: expected a boolean (true/false, yes/no, 1/0), got 'maybe'",
        ),
        ("color", {"enum": ["red", "green"]}, "blue", 'color: expected one of "red", "green", got \'blue\''),
        ("kind", {"const": "circle"}, "square", "kind: expected \"circle\", got 'square'"),
        ("opts", {"type": "object"}, "[1]", "opts: expected a JSON object, got array"),
        (
            "opts",
            {"type": "object"},
            "{bad",
            "opts: invalid JSON: Expecting property name enclosed in double quotes",
        ),
        ("tags", {"type": "array"}, "a,b", "tags: invalid JSON"),
        ("raw", {}, "{", "raw: invalid JSON"),
        ("raw", {}, "NaN", "raw: invalid JSON: NaN is not valid JSON"),
        ("pick", {"type": "array", "items": {"enum": ["a"]}}, "a,z", "pick: expected one of \"a\", got 'z'"),
        ("limit", {"type": ["integer", "null"]}, "nil", "limit: expected an integer, got 'nil'"),
        (
            "id",
            {"oneOf": [{"type": "integer"}, {"type": "boolean"}]},
            "x",
            "id: matches none of the alternatives (integer: expected an integer, got 'x'; boolean: expected",
        ),
    ],
)
def test_text_errors(key: str, prop: dict[str, Any], text: str, message: str) -> None:
    node = node_for(prop, key)
    with pytest.raises(FormValueError) as caught:
        node.set_text(text)
    assert str(caught.value).startswith(message)
    assert caught.value.path == (key,)
    assert node.text_error == caught.value.message
    # The entry stays visible as typed; the value is unchanged.
    assert node.text() == text
    assert node.to_value() is UNSET or node.to_value() == node.default


def test_failed_text_keeps_previous_value_and_is_reported_by_validate() -> None:
    form = build_form({"type": "object", "properties": {"n": {"type": "integer"}}})
    n = form.find(("n",))
    assert n is not None
    n.set_text("5")
    with pytest.raises(FormValueError):
        n.set_text("5x")
    assert n.to_value() == 5
    assert n.text() == "5x"
    problems = form.validate()
    assert [(p.path, p.keyword, p.message) for p in problems] == [(("n",), "text", "expected an integer, got '5x'")]
    assert n.errors == problems
    n.set_text("6")
    assert n.text_error is None and n.text() == "6"
    assert form.validate() == []


@pytest.mark.parametrize(
    ("prop", "value", "text"),
    [
        ({"type": "string"}, "abc", "abc"),
        ({"type": "integer"}, 12, "12"),
        ({"type": "number"}, 2.5, "2.5"),
        ({"type": "number"}, 3.0, "3.0"),
        ({"type": "number"}, 1e-05, "1e-05"),
        ({"type": "boolean"}, True, "true"),
        ({"type": "boolean"}, False, "false"),
        ({"enum": ["a", 1]}, 1, "1"),
        ({"enum": ["a", 1]}, "a", "a"),
        ({"const": {"k": 1}}, {"k": 1}, '{"k": 1}'),
        ({"type": ["string", "null"]}, None, "null"),
        ({"type": ["string", "null"]}, "s", "s"),
        ({"type": "array", "items": {"enum": ["a", "b"]}}, ["b", "a"], '["b", "a"]'),
        ({"type": "object"}, {"a": 1}, '{"a": 1}'),
        ({}, [1, "x"], '[1, "x"]'),
    ],
)
def test_text_shows_value_and_converts_back(prop: dict[str, Any], value: Any, text: str) -> None:
    node = node_for(prop)
    node.load_value(value)
    assert node.text() == text
    again = node_for(prop)
    again.set_text(node.text())
    assert dump(again.to_value()) == dump(value)


def test_unset_fields_show_empty_text() -> None:
    for prop in ({"type": "string"}, {"type": "integer"}, {"type": "boolean"}, {"enum": ["a"]}, {}):
        assert node_for(prop).text() == ""


def test_nullable_string_can_still_hold_the_word_null() -> None:
    node = node_for({"type": ["string", "null"]})
    assert isinstance(node, NullableNode)
    node.set_text("null")
    assert node.to_value() is None
    node.inner.set_text("null")
    assert node.to_value() == "null"
    assert not node.is_null


def test_union_set_text_selects_the_variant() -> None:
    node = node_for({"oneOf": [{"type": "integer"}, {"type": "string"}]})
    assert isinstance(node, UnionNode)
    node.set_text("abc")
    assert node.selected == 1
    node.set_text("12")
    assert node.selected == 0 and node.to_value() == 12


def test_set_json_text_on_any_node() -> None:
    node = node_for({"type": "string"})
    node.set_json_text('"quoted"')
    assert node.to_value() == "quoted"
    node.set_json_text("  ")
    assert node.to_value() is UNSET
    node.set_json_text("42")
    assert node.is_raw and node.to_value() == 42
    with pytest.raises(FormValueError, match="x: invalid JSON"):
        node.set_json_text("{nope")


def test_text_is_never_markup_or_escape_processed() -> None:
    hostile = "[bold]x[/bold] \x1b]0;pwned\x07 \x1b[31m"
    node = node_for({"type": "string"})
    node.set_text(hostile)
    assert node.to_value() == hostile
    node = node_for({"type": "integer"}, "n")
    with pytest.raises(FormValueError) as caught:
        node.set_text(hostile)
    # The message quotes the entry with repr(), so control characters are escaped.
    assert "\x1b" not in str(caught.value)
