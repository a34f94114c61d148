"""CLI ``key=value`` arguments, converted through the form model."""

from __future__ import annotations

from typing import Any

import pytest

from inspector.forms import (
    AssignmentError,
    ObjectNode,
    apply_assignments,
    build_form,
    format_assignments,
    parse_assignments,
    parse_path,
    validate_value,
)
from inspector.forms.assignments import split_assignment
from inspector.forms.paths import APPEND, PathToken

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "count": {"type": "integer"},
        "name": {"type": "string"},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "address": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "zip": {"type": "integer"}},
            "additionalProperties": False,
        },
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"qty": {"type": "integer"}, "sku": {"type": "string"}},
            },
        },
        "note": {"type": ["string", "null"]},
        "limit": {"type": ["integer", "null"]},
        "color": {"oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}]},
        "colors": {"type": "array", "items": {"enum": ["red", "green", "blue"]}},
        "file.name": {"type": "string"},
        "id": {"oneOf": [{"type": "integer"}, {"type": "string"}]},
        "level": {"type": "integer", "default": 3},
    },
}


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["count=3"], {"count": 3}),
        (["name=3"], {"name": "3"}),
        (["name="], {"name": ""}),
        (["name=a=b"], {"name": "a=b"}),
        (["ratio=2.5"], {"ratio": 2.5}),
        (["ratio=2"], {"ratio": 2}),
        (["flag"], {"flag": True}),
        (["flag=no"], {"flag": False}),
        (['tags=["a","b"]'], {"tags": ["a", "b"]}),
        (["tags[]=a", "tags[]=b"], {"tags": ["a", "b"]}),
        (["tags[0]=a", "tags[1]=b", "tags[0]=z"], {"tags": ["z", "b"]}),
        (["address.city=Paris"], {"address": {"city": "Paris"}}),
        (["address.city=Paris", "address.zip=75001"], {"address": {"city": "Paris", "zip": 75001}}),
        (["items[0].qty=2"], {"items": [{"qty": 2}]}),
        (
            ["items[0].qty=2", "items[0].sku=X", "items[].qty=5"],
            {"items": [{"qty": 2, "sku": "X"}, {"qty": 5}]},
        ),
        (["note=null"], {"note": None}),
        (["note=hello"], {"note": "hello"}),
        (['note:="null"'], {"note": "null"}),
        (["limit=null"], {"limit": None}),
        (["limit=10"], {"limit": 10}),
        (["color=Green"], {"color": "#0f0"}),
        (["color=#f00"], {"color": "#f00"}),
        (["colors=red,blue"], {"colors": ["red", "blue"]}),
        (['colors=["green"]'], {"colors": ["green"]}),
        (["file.name=a.txt"], {"file.name": "a.txt"}),
        (['["file.name"]=b.txt'], {"file.name": "b.txt"}),
        (["id=7"], {"id": 7}),
        (["id=x7"], {"id": "x7"}),
        (["count:=3"], {"count": 3}),
        (['name:="quoted"'], {"name": "quoted"}),
        (['address:={"city": "Lyon"}'], {"address": {"city": "Lyon"}}),
        (["count:=3.5"], {"count": 3.5}),  # raw JSON is not converted (validation will complain)
        (["extra=5"], {"extra": 5}),
        (["extra=hello"], {"extra": "hello"}),
        (["extra=007"], {"extra": "007"}),
        (["extra=true"], {"extra": True}),
        (["extra=[1,2]"], {"extra": [1, 2]}),
        (["extra=NaN"], {"extra": "NaN"}),
        (['extra:={"a": 1}'], {"extra": {"a": 1}}),
        (["meta.a.b=1", "meta.a.c[]=x"], {"meta": {"a": {"b": 1, "c": ["x"]}}}),
        (["extra"], {"extra": True}),
    ],
)
def test_parse_assignments(args: list[str], expected: dict[str, Any]) -> None:
    assert parse_assignments(SCHEMA, args, prefill_defaults=False) == expected


def test_defaults_are_sent_only_when_asked() -> None:
    assert parse_assignments(SCHEMA, ["count=1"]) == {"count": 1}
    assert parse_assignments(SCHEMA, []) == {}
    assert parse_assignments(SCHEMA, ["count=1"], with_defaults=True) == {"level": 3, "count": 1}
    assert parse_assignments(SCHEMA, ["level=5"], with_defaults=True) == {"level": 5}


def test_base_value() -> None:
    base = {"count": 1, "address": {"city": "A"}}
    assert parse_assignments(SCHEMA, ["address.zip=2"], base=base) == {
        "count": 1,
        "address": {"city": "A", "zip": 2},
    }
    assert base == {"count": 1, "address": {"city": "A"}}


def test_all_errors_reported_together_with_their_keys() -> None:
    with pytest.raises(AssignmentError) as caught:
        parse_assignments(
            SCHEMA,
            [
                "count=3.5",
                "flag=maybe",
                "name=fine",
                "address.zipp=1",
                "items[5].qty=1",
                "color=Purple",
                "=x",
                "tags=a",
                "address.zip=x",
                "name",
                "count:={bad",
                "address[0]=x",
                "tags.x=1",
                "name.first=x",
                "a..b=1",
            ],
        )
    lines = str(caught.value).splitlines()
    assert lines == [
        "count: expected an integer, got '3.5'",
        "flag: expected a boolean (true/false, yes/no, 1/0), got 'maybe'",
        "address.zipp: unknown property 'zipp' of address (did you mean 'zip'?); known: city, zip",
        "items[5].qty: index 5 is past the end of items (0 items; use [] to append)",
        'color: expected one of "#f00", "#0f0", got \'Purple\'',
        "=x: expected key=value, got '=x'",
        'tags: invalid JSON: Expecting value (line 1, column 1); expected a JSON array such as ["a", "b"];'
        " or add items one by one with KEY[]=VALUE",
        "address.zip: expected an integer, got 'x'",
        "name: needs a value (key=VALUE); only a boolean field can be given alone",
        "count: invalid JSON: Expecting property name enclosed in double quotes (line 1, column 2)",
        "address[0]: address is an object; use .key, not an index",
        "tags.x: tags is an array; use [N] or []",
        "name.first: name is a string field and has no 'first'",
        "a..b: empty key in path 'a..b'",
    ]
    assert [p.key for p in caught.value.problems][:3] == ["count", "flag", "address.zipp"]


def test_unknown_key_when_additional_properties_false() -> None:
    schema = {
        "type": "object",
        "properties": {"count": {"type": "integer"}, "name": {"type": "string"}},
        "additionalProperties": False,
    }
    with pytest.raises(AssignmentError) as caught:
        parse_assignments(schema, ["cuont=1", "zzz=2"])
    assert str(caught.value) == (
        "cuont: unknown property 'cuont' (did you mean 'count'?); known: count, name\n"
        "zzz: unknown property 'zzz'; known: count, name"
    )


def test_additional_properties_schema_converts_unknown_keys() -> None:
    typed = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "additionalProperties": {"type": "string"},
    }
    assert parse_assignments(typed, ["a=1", "b=2"]) == {"a": 1, "b": "2"}
    free_map = {"type": "object", "additionalProperties": {"type": "string"}}
    assert parse_assignments(free_map, ["x=3", "y:=4"]) == {"x": "3", "y": 4}
    patterned = {
        "type": "object",
        "patternProperties": {"^n_": {"type": "integer"}},
        "additionalProperties": {"type": "boolean"},
    }
    assert parse_assignments(patterned, ["n_a=3", "b=yes", "c"]) == {"n_a": 3, "b": True, "c": True}
    with pytest.raises(AssignmentError, match="n_b: expected an integer, got 'x'"):
        parse_assignments(patterned, ["n_b=x"])


def test_root_union_picks_the_variant_with_the_key() -> None:
    schema = {
        "type": "object",
        "oneOf": [
            {"properties": {"id": {"type": "string", "format": "uuid"}}, "required": ["id"]},
            {"properties": {"name": {"type": "string", "minLength": 1}}, "required": ["name"]},
        ],
    }
    assert parse_assignments(schema, ["name=bob"]) == {"name": "bob"}
    uuid = "123e4567-e89b-12d3-a456-426614174000"
    assert parse_assignments(schema, [f"id={uuid}"]) == {"id": uuid}


def test_nested_union_and_nullable_paths() -> None:
    schema = {
        "type": "object",
        "properties": {
            "shape": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
                        "required": ["kind"],
                    },
                    {
                        "type": "object",
                        "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
                        "required": ["kind"],
                    },
                ]
            },
            "owner": {"anyOf": [{"type": "null"}, {"type": "object", "properties": {"name": {"type": "string"}}}]},
        },
        "required": ["shape"],
    }
    assert parse_assignments(schema, ["shape.side=2", "owner.name=Ada"]) == {
        "shape": {"kind": "square", "side": 2},
        "owner": {"name": "Ada"},
    }
    # The required shape nobody gave is not invented (validation reports it missing).
    assert parse_assignments(schema, ["owner=null"]) == {"owner": None}


def test_raw_node_paths() -> None:
    schema = {"type": "object", "properties": {"cond": {"if": {}, "then": {}}}}
    assert parse_assignments(schema, ["cond.a=1", "cond.b[]=x"]) == {"cond": {"a": 1, "b": ["x"]}}
    with pytest.raises(AssignmentError, match="cannot set key 'b' in a array"):
        parse_assignments(schema, ["cond:=[1]", "cond.b=2"])


def test_apply_assignments_to_an_existing_form() -> None:
    form = build_form(SCHEMA, prefill_defaults=False)
    assert isinstance(form, ObjectNode)
    apply_assignments(form, ["count=2", "tags[]=x"])
    assert form.to_value() == {"count": 2, "tags": ["x"]}
    assert form.fields["count"].text() == "2"


def test_result_validates() -> None:
    args = parse_assignments(SCHEMA, ["count=3", "address.city=Paris", "colors=red", "note=null"])
    assert validate_value(SCHEMA, args) == []


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("a=b", ("a", "=", "b")),
        ("a:=1", ("a", ":=", "1")),
        ("a", ("a", None, "")),
        ("a==b", ("a", "=", "=b")),
        ("a=b:=c", ("a", "=", "b:=c")),
        ('m["x=y"]=1', ('m["x=y"]', "=", "1")),
        ('m["a]b"]:=2', ('m["a]b"]', ":=", "2")),
        ("t[]=v", ("t[]", "=", "v")),
    ],
)
def test_split_assignment(text: str, parts: tuple[str, str | None, str]) -> None:
    assert split_assignment(text) == parts


@pytest.mark.parametrize(
    ("path", "tokens"),
    [
        ("a", [PathToken("a", bare=True)]),
        ("a.b", [PathToken("a", bare=True), PathToken("b", bare=True)]),
        ("items[2].qty", [PathToken("items", bare=True), PathToken(2), PathToken("qty", bare=True)]),
        ("tags[]", [PathToken("tags", bare=True), PathToken(APPEND)]),
        ('m["x.y"]', [PathToken("m", bare=True), PathToken("x.y")]),
        ('m["a]b"].c', [PathToken("m", bare=True), PathToken("a]b"), PathToken("c", bare=True)]),
    ],
)
def test_parse_path(path: str, tokens: list[PathToken]) -> None:
    assert parse_path(path) == tokens


@pytest.mark.parametrize("bad", ["", ".a", "a.", "a..b", "a[", "a[x]", "a[0]b", 'a["x]'])
def test_parse_path_errors(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_path(bad)


def test_format_assignments_round_trip() -> None:
    value = {
        "count": 3,
        "name": "3",
        "flag": True,
        "tags": ["a"],
        "note": None,
        "ratio": 2.0,
        "color": "#f00",
        "zzz": "x",
        "file.name": "q",
    }
    args = format_assignments(SCHEMA, value)
    assert args == [
        "count=3",
        "name=3",
        "flag=true",
        'tags:=["a"]',
        "note=null",
        "ratio=2.0",
        "color=#f00",
        'zzz:="x"',
        '["file.name"]=q',
    ]
    assert parse_assignments(SCHEMA, args, prefill_defaults=False) == value
    tricky = {"note": "null", "name": "", "count": 1.0}
    assert parse_assignments(SCHEMA, format_assignments(SCHEMA, tricky), prefill_defaults=False) == tricky


TRAVEL = {
    "type": "object",
    "properties": {
        "transport": {
            "oneOf": [
                {
                    "title": "Train",
                    "type": "object",
                    "properties": {"mode": {"const": "train"}, "line": {"type": "string"}},
                    "required": ["mode"],
                },
                {
                    "title": "Car",
                    "type": "object",
                    "properties": {"mode": {"const": "car"}, "seats": {"type": "integer"}},
                    "required": ["mode"],
                    "additionalProperties": False,
                },
            ]
        },
        "who": {
            "anyOf": [
                {"title": "Person", "type": "object", "properties": {"name": {"type": "string"}}},
                {
                    "title": "Team",
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "size": {"type": "integer"}},
                },
            ]
        },
    },
}


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["transport.mode=car"], {"transport": {"mode": "car"}}),
        (["transport.seats=3"], {"transport": {"mode": "car", "seats": 3}}),
        (["transport.line=RER B"], {"transport": {"mode": "train", "line": "RER B"}}),
        (["transport.seats=2", "transport.mode=car"], {"transport": {"mode": "car", "seats": 2}}),
        (["who.name=x", "who.size=2"], {"who": {"name": "x", "size": 2}}),
    ],
)
def test_dotted_path_picks_the_alternative_the_arguments_fit(args: list[str], expected: dict[str, Any]) -> None:
    notes: list[str] = []
    assert parse_assignments(TRAVEL, args, notes=notes) == expected
    assert notes == []


def test_a_note_says_which_alternative_when_several_fit() -> None:
    notes: list[str] = []
    assert parse_assignments(TRAVEL, ["who.name=x"], notes=notes) == {"who": {"name": "x"}}
    assert notes == ["who: the arguments fit 2 alternatives (Person, Team); chose 'Person'"]


def test_no_alternative_fits_reports_the_problem() -> None:
    with pytest.raises(AssignmentError) as caught:
        parse_assignments(TRAVEL, ["transport.mode=bike"])
    assert [p.key for p in caught.value.problems] == ["transport.mode"]


def test_untouched_required_containers_are_not_invented() -> None:
    schema = {
        "type": "object",
        "properties": {
            "who": {"type": "object", "properties": {"home": {"type": "object"}}, "required": ["home"]},
            "stops": {"type": "array", "items": {"type": "string"}},
            "n": {"type": "integer"},
        },
        "required": ["who", "stops"],
    }
    assert parse_assignments(schema, ["n=1"]) == {"n": 1}
    assert parse_assignments(schema, ["n=1"], with_defaults=True) == {"n": 1}
    assert parse_assignments(schema, ["stops[]=a", "who.home:={}"]) == {"who": {"home": {}}, "stops": ["a"]}
    assert parse_assignments(schema, ["stops:=[]"]) == {"stops": []}


def test_lenient_sends_what_does_not_fit_as_written() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "e": {"enum": ["x", "y"]}},
        "additionalProperties": False,
    }
    with pytest.raises(AssignmentError):
        parse_assignments(schema, ["a=x", "c=3"])
    value = parse_assignments(schema, ["a=x", "b=2", "c=3", "d:=[1]", "e=z", "flag"], lenient=True)
    assert value == {"a": "x", "b": 2, "e": "z", "c": 3, "d": [1], "flag": True}
