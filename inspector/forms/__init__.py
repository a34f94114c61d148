"""JSON Schema → form model → JSON value, for any face (no Textual, no Rich here).

Build a form from a schema, let a person (TUI) or a command line (CLI) fill
it, and get back the JSON value::

    form = build_form(tool["inputSchema"])       # a tree of FormNode
    form.fields["count"].set_text("3")           # schema-aware text entry
    form.load_value({"count": 3})                # from JSON (exact round trip)
    arguments = form.to_value()                  # back to JSON
    problems = form.validate()                   # also fills node.errors

    parse_assignments(schema, ["count=3", "address.city=Paris", "tags:=[\"a\"]"])
    validate_value(schema, value)                # list[Violation], [] when valid
    check_schema(schema)                         # the schema against its meta-schema
    apply_defaults(requested_schema)             # elicitation content from defaults

Module map: `builder` (schema → nodes), `expansion` (``$ref`` followed and
``allOf`` merged before a schema becomes a node), `node_base` / `leaf_nodes` /
`enum_nodes` / `container_nodes` / `choice_nodes` (the node classes),
`assignments` (CLI ``key=value``) and `assignments_format` (a value back into
them), `schema_validation` (jsonschema wrapper), `schema_keywords` (its regex
keywords), `schema_regex` (server patterns in bounded time), `limits` (depth
and ``$ref`` cycles), `elicitation`, `refs` (the one ``$ref`` resolver of
form, lint and validation), `merge` (``allOf``), `dialects`, `errors`,
`text_conversion`, `paths`, `values`.
"""

from inspector.forms.assignments import apply_assignments, parse_assignments
from inspector.forms.assignments_format import format_assignments
from inspector.forms.builder import build_form
from inspector.forms.choice_nodes import NullableNode, UnionNode, UnionVariant
from inspector.forms.container_nodes import ArrayNode, ObjectNode
from inspector.forms.dialects import Dialect, dialect_of
from inspector.forms.elicitation import apply_defaults
from inspector.forms.enum_nodes import EnumNode, EnumOption, MultiSelectNode
from inspector.forms.errors import AssignmentError, AssignmentProblem, FormValueError
from inspector.forms.leaf_nodes import (
    BooleanNode,
    ConstNode,
    ExtrasNode,
    IntegerNode,
    NumberNode,
    RawJsonNode,
    StringNode,
)
from inspector.forms.node_base import FormNode, NodeKind
from inspector.forms.paths import Path, format_path, parse_path
from inspector.forms.schema_validation import Violation, check_schema, validate_value
from inspector.forms.values import UNSET, JSONObject, JSONValue, Unset, json_equal

__all__ = [
    "UNSET",
    "ArrayNode",
    "AssignmentError",
    "AssignmentProblem",
    "BooleanNode",
    "ConstNode",
    "Dialect",
    "EnumNode",
    "EnumOption",
    "ExtrasNode",
    "FormNode",
    "FormValueError",
    "IntegerNode",
    "JSONObject",
    "JSONValue",
    "MultiSelectNode",
    "NodeKind",
    "NullableNode",
    "NumberNode",
    "ObjectNode",
    "Path",
    "RawJsonNode",
    "StringNode",
    "UnionNode",
    "UnionVariant",
    "Unset",
    "Violation",
    "apply_assignments",
    "apply_defaults",
    "build_form",
    "check_schema",
    "dialect_of",
    "format_assignments",
    "format_path",
    "json_equal",
    "parse_assignments",
    "parse_path",
    "validate_value",
]
