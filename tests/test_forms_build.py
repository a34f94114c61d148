"""Building the form model from schemas: node kinds, attributes, fallbacks, state."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

import inspector.forms as forms
from inspector.forms import (
    UNSET,
    ArrayNode,
    BooleanNode,
    ConstNode,
    EnumNode,
    ExtrasNode,
    FormNode,
    IntegerNode,
    MultiSelectNode,
    NodeKind,
    NullableNode,
    NumberNode,
    ObjectNode,
    RawJsonNode,
    StringNode,
    UnionNode,
    build_form,
)


def field(form: FormNode, *path: str | int) -> FormNode:
    node = form.find(tuple(path))
    assert node is not None, path
    return node


def obj(schema: dict[str, Any], *, prefill: bool = False) -> ObjectNode:
    form = build_form(schema, prefill_defaults=prefill)
    assert isinstance(form, ObjectNode)
    return form


def one(prop: dict[str, Any], *, required: bool = False, prefill: bool = False) -> FormNode:
    """The node for a single property ``x`` with schema *prop*."""
    form = obj({"type": "object", "properties": {"x": prop}, "required": ["x"] if required else []}, prefill=prefill)
    return form.fields["x"]


# -- node kinds -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("prop", "cls"),
    [
        ({"type": "string"}, StringNode),
        ({"type": "string", "format": "email"}, StringNode),
        ({"minLength": 1}, StringNode),
        ({"type": "number"}, NumberNode),
        ({"maximum": 3}, NumberNode),
        ({"type": "integer"}, IntegerNode),
        ({"type": ["integer", "number"]}, NumberNode),
        ({"type": "boolean"}, BooleanNode),
        ({"enum": ["a", "b"]}, EnumNode),
        ({"type": "string", "enum": ["a"], "enumNames": ["A"]}, EnumNode),
        ({"type": ["string", "null"], "enum": ["a", None]}, EnumNode),
        ({"oneOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]}, EnumNode),
        ({"anyOf": [{"const": 1}, {"const": 2, "description": "two"}]}, EnumNode),
        ({"const": 3}, ConstNode),
        ({"type": "null"}, ConstNode),
        ({"type": "array", "items": {"type": "string"}}, ArrayNode),
        ({"type": "array", "items": {"enum": ["a", "b"]}}, MultiSelectNode),
        ({"type": "array", "items": {"oneOf": [{"const": "a", "title": "A"}]}}, MultiSelectNode),
        ({"items": {"type": "integer"}}, ArrayNode),
        ({"type": "object", "properties": {"a": {"type": "string"}}}, ObjectNode),
        ({"properties": {"a": {"type": "string"}}}, ObjectNode),
        ({"type": "object"}, ObjectNode),
        ({"type": ["string", "null"]}, NullableNode),
        ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, NullableNode),
        ({"oneOf": [{"type": "null"}, {"type": "string"}, {"type": "integer"}]}, NullableNode),
        ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, UnionNode),
        ({"anyOf": [{"type": "object"}, {"type": "array"}]}, UnionNode),
        ({"type": ["string", "boolean"]}, UnionNode),
        ({}, RawJsonNode),
        ({"description": "anything"}, RawJsonNode),
    ],
)
def test_node_kind(prop: dict[str, Any], cls: type[FormNode]) -> None:
    node = one(prop)
    assert type(node) is cls
    assert node.kind == cls.kind


def test_every_kind_has_a_class() -> None:
    kinds = {
        cls.kind
        for cls in (
            StringNode,
            NumberNode,
            IntegerNode,
            BooleanNode,
            EnumNode,
            MultiSelectNode,
            ConstNode,
            ArrayNode,
            ObjectNode,
            UnionNode,
            NullableNode,
            RawJsonNode,
        )
    }
    assert kinds == set(NodeKind)


# -- fallbacks -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prop", "reason"),
    [
        ({"not": {"type": "string"}}, "a 'not' schema with no type cannot be shown as a form"),
        ({"if": {"type": "string"}, "then": {"minLength": 1}}, "a conditional schema (if/then/else)"),
        ({"type": "object", "additionalProperties": {"type": "string"}}, "free-form keys"),
        ({"type": "object", "patternProperties": {"^a": {}}}, "free-form keys"),
        ({"type": "array", "prefixItems": [{"type": "string"}]}, "tuple-style array"),
        ({"type": "array", "items": [{"type": "string"}]}, "tuple-style array"),
        ({"type": "strin"}, "unknown type 'strin'"),
        ({"type": 5}, "'type' must be a string or a list of strings"),
        ({"$ref": "https://example.com/schema.json"}, "external $ref"),
        ({"$ref": "#/$defs/Missing"}, "does not resolve"),
        ({"$ref": "#nowhere"}, "no anchor named 'nowhere'"),
        ({"allOf": [{"type": "string"}, {"type": "integer"}]}, "have no value in common"),
        ({"allOf": [{"pattern": "a"}, {"pattern": "b"}]}, "two different 'pattern' values"),
        (
            {"allOf": [{"oneOf": [{"type": "string"}]}, {"oneOf": [{"type": "integer"}]}]},
            "two different 'oneOf' values",
        ),
        (False, "the schema allows no value here (false)"),
        ({"enum": []}, "'enum' must be a non-empty list"),
        ({"oneOf": []}, "'oneOf' must be a non-empty list"),
        ({}, "any JSON value (the schema sets no type)"),
    ],
)
def test_fallback_reason(prop: Any, reason: str) -> None:
    node = one(prop)
    assert isinstance(node, RawJsonNode)
    assert node.kind == NodeKind.RAW
    assert reason in node.reason


def test_fallback_keeps_title_description_and_default() -> None:
    node = one({"title": "Cond", "description": "d", "if": {}, "then": {}, "default": {"a": 1}})
    assert isinstance(node, RawJsonNode)
    assert (node.title, node.description) == ("Cond", "d")
    assert node.to_value() is UNSET and node.default == {"a": 1}
    assert node.fill_defaults() == [node]
    assert node.to_value() == {"a": 1}
    assert node.text() == '{"a": 1}'


def test_raw_fallback_at_the_root() -> None:
    form = build_form({"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}})
    assert isinstance(form, RawJsonNode)
    form.set_text('{"a": 1, "b": 2}')
    assert form.to_value() == {"a": 1, "b": 2}


def test_not_next_to_a_type_is_a_note() -> None:
    node = one({"type": "string", "not": {"const": "x"}})
    assert isinstance(node, StringNode)
    assert node.notes == ("'not' is checked on validation but not shown in the form",)


# -- $ref and allOf --------------------------------------------------------------------


def test_ref_resolution_defs_definitions_pointer_anchor() -> None:
    form = obj(
        {
            "type": "object",
            "$defs": {"A": {"type": "string", "title": "A title"}, "a/b": {"type": "integer"}},
            "definitions": {"B": {"type": "boolean"}},
            "properties": {
                "a": {"$ref": "#/$defs/A"},
                "b": {"$ref": "#/definitions/B"},
                "c": {"$ref": "#/$defs/a~1b"},
                "d": {"$ref": "#/properties/a"},
                "e": {"$ref": "#anchored"},
                "f": {"$ref": "#/$defs/A", "title": "Outer title", "description": "outer"},
                "g": {"$anchor": "anchored", "type": "number"},
            },
        }
    )
    kinds = {key: node.kind for key, node in form.fields.items()}
    assert kinds == {
        "a": "string",
        "b": "boolean",
        "c": "integer",
        "d": "string",
        "e": "number",
        "f": "string",
        "g": "number",
    }
    assert form.fields["a"].title == "A title"
    # Siblings of $ref win for annotations.
    assert (form.fields["f"].title, form.fields["f"].description) == ("Outer title", "outer")


def test_ref_to_own_id_is_local() -> None:
    form = obj(
        {
            "$id": "https://example.com/tool.json",
            "type": "object",
            "$defs": {"N": {"type": "integer"}},
            "properties": {"n": {"$ref": "https://example.com/tool.json#/$defs/N"}},
        }
    )
    assert form.fields["n"].kind == NodeKind.INTEGER


def test_recursion_guard() -> None:
    schema = {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#"}}}
    form = build_form(schema, recursion_limit=2)
    depth = 0
    node: FormNode = form
    while isinstance(node, ObjectNode):
        node = node.fields["next"]
        depth += 1
    assert isinstance(node, RawJsonNode)
    assert depth == 3
    assert "recursive $ref '#' nested more than 2 times" in node.reason


def test_recursion_guard_through_arrays_is_lazy() -> None:
    schema = {
        "$defs": {
            "Tree": {
                "type": "object",
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}},
            }
        },
        "$ref": "#/$defs/Tree",
    }
    form = build_form(schema)
    kids = field(form, "kids")
    assert isinstance(kids, ArrayNode)
    assert kids.items == []
    deep: dict[str, Any] = {"kids": [{"kids": [{"kids": [{"kids": [{"kids": []}]}]}]}]}
    form.load_value(deep)
    assert form.to_value() == deep
    raw = [n for n in form.walk() if isinstance(n, RawJsonNode) and not isinstance(n, ExtrasNode)]
    assert raw and "recursive $ref" in raw[0].reason


def test_self_referencing_allof_does_not_loop() -> None:
    node = one({"allOf": [{"$ref": "#/properties/x"}]})
    assert isinstance(node, RawJsonNode)
    assert "recursive $ref" in node.reason


def test_explosive_schema_is_bounded() -> None:
    defs = {
        f"L{i}": {"type": "object", "properties": {c: {"$ref": f"#/$defs/L{i + 1}"} for c in "abcd"}} for i in range(8)
    }
    defs["L8"] = {"type": "string"}
    form = build_form({"$defs": defs, "$ref": "#/$defs/L0"})
    count = sum(1 for _ in form.walk())
    assert count < 5000
    assert any(isinstance(n, RawJsonNode) and "too large" in n.reason for n in form.walk())


def test_max_depth() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(10):
        schema = {"type": "object", "properties": {"a": schema}}
    form = build_form(schema, max_depth=4)
    assert any(isinstance(n, RawJsonNode) and "nest more than 4 levels" in n.reason for n in form.walk())


def test_allof_merge() -> None:
    form = obj(
        {
            "type": "object",
            "$defs": {"C": {"properties": {"c": {"type": "boolean"}}}},
            "properties": {
                "x": {
                    "title": "Merged",
                    "allOf": [
                        {
                            "type": "object",
                            "properties": {"a": {"type": "string", "minLength": 1}},
                            "required": ["a"],
                        },
                        {"properties": {"a": {"maxLength": 5}, "b": {"type": "integer"}}, "required": ["b"]},
                        {"$ref": "#/$defs/C"},
                    ],
                }
            },
        }
    )
    node = form.fields["x"]
    assert isinstance(node, ObjectNode)
    assert node.title == "Merged"
    assert list(node.fields) == ["a", "b", "c"]
    assert node.required_keys == {"a", "b"}
    a = node.fields["a"]
    assert isinstance(a, StringNode)
    assert (a.min_length, a.max_length) == (1, 5)


def test_allof_number_bounds_and_types() -> None:
    node = one({"allOf": [{"type": "number", "minimum": 0, "maximum": 10}, {"type": "integer", "minimum": 2}]})
    assert isinstance(node, IntegerNode)
    assert (node.minimum, node.maximum) == (2, 10)


# -- attributes ---------------------------------------------------------------------


def test_common_attributes() -> None:
    node = one(
        {
            "type": "string",
            "title": "Name",
            "description": "Your name",
            "default": "Ada",
            "examples": ["Grace"],
            "readOnly": True,
            "deprecated": True,
        },
        required=True,
    )
    assert node.path == ("x",)
    assert node.key == "x"
    assert node.label == "Name"
    assert node.display_path == "x"
    assert node.required
    assert node.title == "Name" and node.description == "Your name"
    assert node.default == "Ada" and node.has_default
    assert node.examples == ("Grace",)
    assert node.read_only and node.deprecated and not node.write_only
    assert node.parent is not None and node.root is node.parent


def test_openapi_style_example() -> None:
    assert one({"type": "string", "example": "e"}).examples == ("e",)


def test_string_attributes() -> None:
    node = one({"type": "string", "format": "date", "minLength": 2, "maxLength": 10, "pattern": "^x"})
    assert isinstance(node, StringNode)
    assert (node.format, node.min_length, node.max_length, node.pattern) == ("date", 2, 10, "^x")
    assert node.placeholder == "YYYY-MM-DD"
    assert not node.multiline and not node.secret


@pytest.mark.parametrize(
    ("key", "prop", "multiline"),
    [
        ("name", {"type": "string"}, False),
        ("name", {"type": "string", "maxLength": 50}, False),
        ("name", {"type": "string", "maxLength": 5000}, True),
        ("name", {"type": "string", "contentMediaType": "text/markdown"}, True),
        ("name", {"type": "string", "description": "Markdown body of the issue"}, True),
        ("name", {"type": "string", "description": "Multi-line text"}, True),
        ("name", {"type": "string", "format": "textarea"}, True),
        ("body", {"type": "string"}, True),
        ("prompt", {"type": "string"}, True),
        ("city", {"type": "string", "description": "The city"}, False),
    ],
)
def test_multiline_hint(key: str, prop: dict[str, Any], multiline: bool) -> None:
    form = obj({"type": "object", "properties": {key: prop}})
    node = form.fields[key]
    assert isinstance(node, StringNode)
    assert node.multiline is multiline


def test_multiline_when_value_has_newlines() -> None:
    node = one({"type": "string"})
    assert isinstance(node, StringNode)
    node.load_value("a\nb")
    assert node.multiline


def test_secret_hint() -> None:
    assert one({"type": "string", "format": "password"}).secret  # type: ignore[attr-defined]
    assert one({"type": "string", "writeOnly": True}).secret  # type: ignore[attr-defined]


def test_number_attributes() -> None:
    node = one({"type": "number", "minimum": 0, "exclusiveMaximum": 1, "multipleOf": 0.25})
    assert isinstance(node, NumberNode)
    assert (node.minimum, node.maximum, node.exclusive_minimum, node.exclusive_maximum) == (0, None, None, 1)
    assert node.multiple_of == 0.25
    draft4 = one({"type": "integer", "minimum": 1, "exclusiveMinimum": True, "maximum": 9})
    assert isinstance(draft4, IntegerNode)
    assert (draft4.minimum, draft4.exclusive_minimum, draft4.maximum) == (None, 1, 9)
    assert one({"type": "integer", "minimum": 1, "maximum": 5}).placeholder == "1 … 5"


def test_enum_options_and_titles() -> None:
    legacy = one({"type": "string", "enum": ["#f00", "#0f0"], "enumNames": ["Red", "Green"]})
    titled = one({"type": "string", "oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}]})
    plain = one({"enum": ["a", 2, None]})
    for node in (legacy, titled):
        assert isinstance(node, EnumNode)
        assert [(o.value, o.label) for o in node.options] == [("#f00", "Red"), ("#0f0", "Green")]
    assert isinstance(plain, EnumNode)
    assert [o.label for o in plain.options] == ["a", "2", "null"]
    assert all(o.title is None for o in plain.options)


def selection(node: EnumNode) -> tuple[object, int | None, str]:
    """An enum node's value, option index and text, read afresh (after a select())."""
    return node.to_value(), node.selected_index, node.text()


def test_enum_select() -> None:
    node = one({"enum": ["a", "b", "c"]})
    assert isinstance(node, EnumNode)
    assert node.selected_index is None
    node.select(2)
    assert selection(node) == ("c", 2, "c")
    node.select(None)
    assert node.to_value() is UNSET


def test_multi_select_operations() -> None:
    node = one(
        {
            "type": "array",
            "items": {"anyOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}, {"const": "b"}]},
            "minItems": 1,
            "maxItems": 2,
            "uniqueItems": True,
        }
    )
    assert isinstance(node, MultiSelectNode)
    assert (node.min_items, node.max_items, node.unique_items) == (1, 2, True)
    assert node.to_value() is UNSET
    node.toggle(1)
    node.toggle(0)
    assert node.to_value() == ["g", "r"]
    assert node.selected_indexes == [0, 1]
    assert node.is_selected(0) and not node.is_selected(2)
    node.toggle(1)
    assert node.to_value() == ["r"]
    node.set_selected([2, 0])
    assert node.to_value() == ["b", "r"]
    assert node.parent is not None and node.parent.to_value() == {"x": ["b", "r"]}


def test_multi_select_elicitation_default() -> None:
    node = one(
        {"type": "array", "items": {"type": "string", "enum": ["Red", "Green", "Blue"]}, "default": ["Green"]},
        prefill=True,
    )
    assert node.to_value() == ["Green"]
    assert node.is_default


# -- defaults and set / unset state -----------------------------------------------------


DEFAULTS = {
    "type": "object",
    "properties": {
        "a": {"type": "string", "default": "x"},
        "b": {"type": "integer"},
        "c": {"type": "boolean", "default": False},
        "n": {"type": "integer", "default": 10},
        "since": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        "opt": {"type": "object", "properties": {"deep": {"type": "string", "default": "d"}}},
        "tags": {"type": "array", "items": {"type": "string"}, "default": ["t"]},
    },
}


def test_defaults_are_shown_not_sent() -> None:
    form = obj(DEFAULTS)
    assert form.to_value() == {}
    assert [node.placeholder for node in (form.fields["a"], form.fields["n"], form.fields["since"])] == [
        "default: x",
        "default: 10",
        "default: null",
    ]
    assert form.fields["b"].placeholder == ""
    assert form.fields["tags"].default_text == '["t"]'


def test_fill_defaults_fills_empty_fields_only() -> None:
    form = obj(DEFAULTS)
    form.fields["a"].set_text("mine")
    filled = form.fill_defaults()
    assert [node.display_path for node in filled] == ["c", "n", "since", "tags"]
    # The absent optional object stays absent: its field's default is no reason to send it.
    assert form.to_value() == {"a": "mine", "c": False, "n": 10, "since": None, "tags": ["t"]}
    assert form.fill_defaults() == []


def test_defaults_are_prefilled_and_included() -> None:
    form = obj(
        {
            "type": "object",
            "properties": {
                "a": {"type": "string", "default": "x"},
                "b": {"type": "integer"},
                "c": {"type": "boolean", "default": False},
            },
        },
        prefill=True,
    )
    assert form.to_value() == {"a": "x", "c": False}
    assert form.fields["a"].is_set and form.fields["a"].is_default
    assert not form.fields["b"].is_set
    form.fields["a"].clear()
    assert form.to_value() == {"c": False}
    form.reset()
    assert form.to_value() == {"a": "x", "c": False}


def test_prefill_defaults_off() -> None:
    form = build_form(
        {"type": "object", "properties": {"a": {"type": "string", "default": "x"}}}, prefill_defaults=False
    )
    assert form.to_value() == {}
    assert form.find(("a",)).default == "x"  # type: ignore[union-attr]


def test_required_fields_and_containers_start_unset() -> None:
    """Nothing the person never gave is sent, not even an empty object or
    array for a required one: validation says it is missing."""
    form = obj(
        {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "flag": {"type": "boolean"},
                "opts": {"type": "object", "properties": {"v": {"type": "integer"}}},
                "list": {"type": "array", "items": {"type": "string"}},
                "maybe": {"type": "object", "properties": {"v": {"type": "integer"}}},
            },
            "required": ["name", "flag", "opts", "list"],
        }
    )
    assert form.to_value() == {}
    missing = {v.path for v in form.validate() if v.keyword == "required"}
    assert missing == {("name",), ("flag",), ("opts",), ("list",)}
    form.fields["opts"].fields["v"].set_text("3")  # type: ignore[attr-defined]
    form.fields["list"].add().set_text("x")  # type: ignore[attr-defined]
    assert form.to_value() == {"opts": {"v": 3}, "list": ["x"]}


def test_child_default_does_not_make_optional_parent_appear() -> None:
    form = obj(
        {
            "type": "object",
            "properties": {"addr": {"type": "object", "properties": {"country": {"type": "string", "default": "FR"}}}},
        },
        prefill=True,
    )
    assert form.to_value() == {}
    addr = form.fields["addr"]
    assert isinstance(addr, ObjectNode)
    assert not addr.present
    addr.present = True
    assert form.to_value() == {"addr": {"country": "FR"}}
    addr.present = False
    assert form.to_value() == {}


def test_setting_a_nested_field_makes_ancestors_present() -> None:
    form = obj(
        {
            "type": "object",
            "properties": {
                "a": {
                    "type": "object",
                    "properties": {"b": {"type": "object", "properties": {"c": {"type": "string"}}}},
                }
            },
        }
    )
    field(form, "a", "b", "c").set_text("deep")
    assert form.to_value() == {"a": {"b": {"c": "deep"}}}
    field(form, "a", "b", "c").clear()
    assert form.to_value() == {"a": {"b": {}}}


def test_const_fills_itself_only_inside_what_the_person_opened() -> None:
    """A required const among the top-level arguments is sent only when
    included; one inside an object (a variant chosen, an item added) fills
    itself in once that object is given."""
    form = obj(
        {
            "type": "object",
            "properties": {
                "kind": {"const": "circle"},
                "tag": {"const": 7},
                "shape": {"type": "object", "properties": {"kind": {"const": "square"}}, "required": ["kind"]},
            },
            "required": ["kind", "shape"],
        }
    )
    assert form.to_value() == {}
    kind, tag = form.fields["kind"], form.fields["tag"]
    assert isinstance(kind, ConstNode) and isinstance(tag, ConstNode)
    assert not kind.fills_itself and not tag.fills_itself
    kind.include()
    tag.include()
    assert form.to_value() == {"kind": "circle", "tag": 7}
    shape = form.fields["shape"]
    assert isinstance(shape, ObjectNode) and shape.fields["kind"].fills_itself  # type: ignore[attr-defined]
    shape.present = True
    assert form.to_value() == {"kind": "circle", "tag": 7, "shape": {"kind": "square"}}


def test_string_empty_text_is_empty_string_clear_unsets() -> None:
    node = one({"type": "string"})
    node.set_text("")
    assert node.to_value() == ""
    node.clear()
    assert node.to_value() is UNSET


# -- arrays ------------------------------------------------------------------------------


def test_array_operations_and_paths() -> None:
    form = obj(
        {
            "type": "object",
            "properties": {"xs": {"type": "array", "items": {"type": "integer"}, "maxItems": 3}},
        }
    )
    xs = form.fields["xs"]
    assert isinstance(xs, ArrayNode)
    assert not xs.present and xs.can_add and not xs.can_remove
    a = xs.add(1)
    b = xs.add()
    b.set_text("2")
    c = xs.add(0, index=0)
    assert form.to_value() == {"xs": [0, 1, 2]}
    assert [n.path for n in xs.items] == [("xs", 0), ("xs", 1), ("xs", 2)]
    assert not xs.can_add
    assert xs.move_down(0) == 1
    assert form.to_value() == {"xs": [1, 0, 2]}
    assert xs.move_up(2) == 1
    assert form.to_value() == {"xs": [1, 2, 0]}
    assert xs.move(0, 99) == 2
    assert form.to_value() == {"xs": [2, 0, 1]}
    assert (b.path, c.path, a.path) == (("xs", 0), ("xs", 1), ("xs", 2))
    xs.remove(1)
    assert form.to_value() == {"xs": [2, 1]}
    assert a.path == ("xs", 1) and a.display_path == "xs[1]" and a.label == "[1]"


def test_array_item_paths_of_nested_objects_follow_moves() -> None:
    form = obj(
        {
            "type": "object",
            "properties": {
                "rows": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"q": {"type": "integer"}}},
                }
            },
        }
    )
    rows = form.fields["rows"]
    assert isinstance(rows, ArrayNode)
    rows.load_value([{"q": 1}, {"q": 2}])
    rows.move(1, 0)
    assert field(form, "rows", 0, "q").to_value() == 2
    assert field(form, "rows", 1, "q").path == ("rows", 1, "q")


def test_new_array_item_gets_item_default() -> None:
    item = {"type": "object", "properties": {"n": {"type": "integer", "default": 1}}}
    node = one({"type": "array", "items": item}, prefill=True)
    assert isinstance(node, ArrayNode)
    node.add()
    assert node.to_value() == [{"n": 1}]
    plain = one({"type": "array", "items": item})
    assert isinstance(plain, ArrayNode)
    plain.add()
    assert plain.to_value() == [{}]


def test_blank_array_items_are_left_out_and_reported() -> None:
    node = one({"type": "array", "items": {"type": "string"}})
    assert isinstance(node, ArrayNode)
    node.add("a")
    node.add()
    node.add("c")
    assert node.to_value() == ["a", "c"]
    problems = node.validate()
    assert [(p.path, p.keyword) for p in problems] == [(("x", 1), "empty-item")]


# -- unions and nullables ----------------------------------------------------------------


SHAPES = {
    "oneOf": [
        {"$ref": "#/$defs/Circle"},
        {
            "type": "object",
            "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
            "required": ["kind", "side"],
        },
        {"type": "string", "title": "By name"},
    ],
    "$defs": {
        "Circle": {
            "type": "object",
            "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
            "required": ["kind", "r"],
        }
    },
}


def test_union_variants_and_titles() -> None:
    form = build_form(SHAPES)
    assert isinstance(form, UnionNode)
    assert form.keyword == "oneOf"
    assert [v.title for v in form.variants] == ["Circle", "kind: square", "By name"]
    assert form.selected == 0
    assert form.to_value() is UNSET  # nothing chosen yet
    form.select(0)
    assert form.to_value() == {"kind": "circle"}


def test_union_infers_variant_from_value_and_keeps_per_variant_state() -> None:
    form = build_form(SHAPES)
    assert isinstance(form, UnionNode)
    form.load_value({"kind": "square", "side": 2})
    assert form.selected == 1
    form.load_value("named")
    assert form.selected == 2
    form.select(1)
    assert form.to_value() == {"kind": "square", "side": 2}
    form.select(2)
    assert form.to_value() == "named"
    # Invalid but shaped like a circle: the discriminator decides.
    assert form.infer_variant({"kind": "circle", "r": "big"}) == 0
    assert form.infer_variant({"kind": "square"}) == 1
    assert form.infer_variant(5) is None


def test_union_of_titles_from_type_and_required() -> None:
    node = one(
        {
            "anyOf": [
                {"properties": {"id": {"type": "string"}}, "required": ["id"]},
                {"properties": {"name": {"type": "string"}}, "required": ["name"]},
                {"type": "integer"},
                {"type": "integer"},
            ]
        }
    )
    assert isinstance(node, UnionNode)
    assert [v.title for v in node.variants] == ["id", "name", "integer (3)", "integer (4)"]


def test_optional_union_of_objects_starts_absent_and_select_includes_it() -> None:
    form = obj({"type": "object", "properties": {"shape": SHAPES}, "$defs": SHAPES["$defs"]})
    assert form.to_value() == {}
    shape = form.fields["shape"]
    assert isinstance(shape, UnionNode)
    shape.select(1)
    assert form.to_value() == {"shape": {"kind": "square"}}


def test_type_list_union() -> None:
    node = one({"type": ["string", "integer"], "minimum": 1})
    assert isinstance(node, UnionNode)
    assert node.keyword == "type"
    assert [v.title for v in node.variants] == ["string", "integer"]
    node.load_value(4)
    assert node.selected == 1
    variant = node.selected_node
    assert isinstance(variant, IntegerNode) and variant.minimum == 1


def test_nullable_toggle() -> None:
    node = one({"type": ["integer", "null"], "title": "Limit"})
    assert isinstance(node, NullableNode)
    assert isinstance(node.inner, IntegerNode)
    assert node.title == "Limit" and node.inner.title is None
    assert node.to_value() is UNSET
    node.set_null(True)
    assert (node.to_value(), node.text()) == (None, "null")
    node.inner.set_text("5")
    assert not node.is_null and node.to_value() == 5
    node.set_null(True)
    node.set_null(False)
    assert node.to_value() is UNSET


def test_nullable_default_null() -> None:
    node = one({"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}, prefill=True)
    assert isinstance(node, NullableNode)
    assert node.is_null and node.to_value() is None
    untouched = one({"anyOf": [{"type": "string"}, {"type": "null"}], "default": None})
    assert not untouched.is_set and untouched.to_value() is UNSET


# -- tree helpers and hygiene ------------------------------------------------------------


def test_walk_and_find() -> None:
    form = obj({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}}})
    paths = [n.path for n in form.walk() if not isinstance(n, ExtrasNode)]
    assert paths == [(), ("a",), ("a", "b")]
    assert form.find(("a", "b")) is field(form, "a", "b")
    assert form.find(("zz",)) is None


def test_extras_node() -> None:
    form = obj({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False})
    assert not form.allows_additional and not form.show_extras
    form.load_value({"a": "x", "b": 1})
    assert form.show_extras
    assert form.extras.to_value() == {"b": 1}
    open_form = obj({"type": "object", "properties": {"a": {"type": "string"}}})
    assert open_form.allows_additional and open_form.show_extras
    open_form.extras.set_text('{"k": [1]}')
    assert open_form.to_value() == {"k": [1]}


def test_public_api_is_declared() -> None:
    for name in forms.__all__:
        assert hasattr(forms, name), name


def test_forms_import_no_ui_libraries() -> None:
    code = "import inspector.forms, sys, json; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    loaded = {m.split(".")[0] for m in json.loads(out)}
    assert not loaded & {"textual", "rich"}
