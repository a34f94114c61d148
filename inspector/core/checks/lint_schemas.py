"""The lint rules that look at a tool's JSON Schemas, and at the form built from one.

`schema_rules` walks an ``inputSchema`` or ``outputSchema`` and every
subschema under it: required names that are not defined, arguments without
a description, defaults their own schema rejects, enum or const values of
the wrong type, bounds no value can meet, patterns that need a backtracking
engine.  `form_rules` builds the inspector's form for an ``inputSchema`` and
reports what it can show only as raw JSON (or checks without showing).
A ``$ref`` resolves as the form and the validation resolve it
(`forms.refs.RefResolver`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeGuard

from inspector.core.checks.problems import Problem
from inspector.core.checks.rules import RULES, problem
from inspector.forms.paths import Path, format_path
from inspector.forms.values import json_type_name, short_json

if TYPE_CHECKING:
    from inspector.forms import FormNode, RawJsonNode
    from inspector.forms.refs import RefResolver
    from inspector.forms.values import JSONObject


__all__ = ["form_rules", "schema_rules"]

# A bound on each walk: a schema of any size costs at most this many nodes.
_MAX_SCHEMA_NODES = 2000


# How a subschema is reached: as a property value, as a member of
# allOf/anyOf/oneOf/prefixItems, or otherwise (the root, items, $defs, ...).
_PROPERTY, _MEMBER, _OTHER = "property", "member", "other"


def _subschemas(schema: Any, path: Path, how: str = _OTHER, depth: int = 0) -> Iterator[tuple[Path, JSONObject, str]]:
    """(path, subschema, how it is reached) for the schema and every subschema under it.

    Combinator members are marked: ``anyOf: [{required: [a]}, {required: [b]}]``
    is a legitimate way to say "a or b", so their `required` need not be
    defined next to it.
    """
    if not isinstance(schema, dict) or depth > 32:
        return
    yield path, schema, how
    for sub, sub_path, sub_how in _children(schema, path):
        yield from _subschemas(sub, sub_path, sub_how, depth + 1)


# Keywords whose value is one subschema, a map of named ones, or a list of members.
_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains")
_NAMED = ("$defs", "definitions", "patternProperties")
_MEMBERS = ("prefixItems", "allOf", "anyOf", "oneOf")


def _children(schema: JSONObject, path: Path) -> Iterator[tuple[Any, Path, str]]:
    """(value, path, how it is reached) for each keyword value directly under `schema` that may be a subschema."""
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for key, sub in properties.items():
            yield sub, (*path, "properties", key), _PROPERTY
    for key in _ONE:
        yield schema.get(key), (*path, key), _OTHER
    for key in _NAMED:
        group = schema.get(key)
        if isinstance(group, dict):
            for name, sub in group.items():
                yield sub, (*path, key, name), _OTHER
    for key in _MEMBERS:
        group = schema.get(key)
        if isinstance(group, list):
            for index, sub in enumerate(group):
                yield sub, (*path, key, index), _MEMBER


def _declared_names(schema: JSONObject) -> set[str]:
    names: set[str] = set()
    props = schema.get("properties")
    if isinstance(props, dict):
        names.update(props)
    for key in ("allOf", "anyOf", "oneOf"):
        group = schema.get(key)
        if isinstance(group, list):
            for sub in group:
                if isinstance(sub, dict) and isinstance(sub.get("properties"), dict):
                    names.update(sub["properties"])
    return names


def schema_rules(
    root: JSONObject, prefix: Path, revision: str | None, subject: str, *, describe: bool
) -> list[Problem]:
    """The problems of the schema `root` and every subschema under it, at paths under `prefix`
    (`describe`: also each top-level property without a description)."""
    from inspector.forms.refs import RefResolver
    from inspector.forms.schema_validation import make_validator

    out: list[Problem] = []
    validator: Any = None
    refs = RefResolver(root)
    for count, (path, schema, how) in enumerate(_subschemas(root, ())):
        if count > _MAX_SCHEMA_NODES:
            break
        where = format_path((*prefix, *path))
        if how != _MEMBER:
            out.extend(_required_rule(schema, where, revision, subject))
        if describe and how == _PROPERTY and len(path) == 2 and not _has_description(schema, refs):
            name = path[-1]
            out.append(
                problem(
                    "schema-property-no-description",
                    f"property {short_json(name)} has no description",
                    revision,
                    subject=subject,
                    path=where,
                )
            )
        out.extend(_type_rules(schema, where, revision, subject))
        out.extend(_pattern_rules(schema, where, revision, subject))
        if "default" in schema:
            if validator is None:
                try:
                    validator = make_validator(root)
                except (TypeError, ValueError, LookupError, AttributeError, RecursionError):
                    validator = False  # an unusable schema is reported by the metaschema check
            if validator:
                out.extend(_default_rule(validator, refs.scope_of(schema), schema, where, revision, subject))
    return out


def _pattern_rules(schema: JSONObject, where: str, revision: str | None, subject: str) -> list[Problem]:
    from inspector.forms.schema_regex import compile_pattern, reason_is_invalid

    found: list[tuple[str, str]] = []
    if isinstance(schema.get("pattern"), str):
        found.append(("pattern", schema["pattern"]))
    keys = schema.get("patternProperties")
    if isinstance(keys, dict):
        found.extend(("patternProperties", key) for key in keys if isinstance(key, str))
    out = []
    for keyword, pattern in found:
        compiled = compile_pattern(pattern)
        if compiled.engine == "backtracking":
            why = "needs a backtracking engine (a backreference or lookaround); the inspector gives it a time bound"
        elif not compiled.usable and not reason_is_invalid(compiled.error):
            why = f"is {compiled.error} to evaluate in linear time; values are not checked against it"
        else:
            continue  # linear-time, or not a regular expression (the metaschema check reports that)
        out.append(
            problem(
                "schema-pattern-backtracking",
                f"{keyword} {short_json(pattern, 60)} {why}",
                revision,
                subject=subject,
                path=where or "(root)",
            )
        )
    return out


def _has_description(schema: JSONObject, refs: RefResolver, scope: Any = None, depth: int = 0) -> bool:
    """A description or a title counts, on the property, its $ref target or any of its variants."""
    from inspector.forms.refs import RefError

    if depth > 8:
        return False
    for key in ("description", "title"):
        text = schema.get(key)
        if isinstance(text, str) and text.strip():
            return True
    ref = schema.get("$ref")
    if isinstance(ref, str):
        try:
            target = refs.lookup(ref, refs.scope_of(schema, scope))
        except RefError:
            pass  # the $ref check of the schema reports it
        else:
            if isinstance(target.schema, dict) and _has_description(target.schema, refs, target.scope, depth + 1):
                return True
    for key in ("anyOf", "oneOf"):
        variants = schema.get(key)
        if isinstance(variants, list) and any(
            isinstance(variant, dict) and _has_description(variant, refs, scope, depth + 1) for variant in variants
        ):
            return True
    return False


def _required_rule(schema: JSONObject, where: str, revision: str | None, subject: str) -> list[Problem]:
    required = schema.get("required")
    if not isinstance(required, list) or not required:
        return []
    if "$ref" in schema or "patternProperties" in schema:
        return []
    declared = _declared_names(schema)
    missing = [name for name in required if isinstance(name, str) and name not in declared]
    if not missing:
        return []
    shown = ", ".join(short_json(name) for name in missing[:10])
    message = f"required {shown} {'is' if len(missing) == 1 else 'are'} not defined in properties"
    severity = None
    if schema.get("additionalProperties") is False:
        message += " (and additionalProperties is false: no value can be valid)"
        severity = "error"
    rule = RULES["schema-required-undefined"]
    return [rule.problem(message, revision=revision, subject=subject, path=where or "(root)", severity=severity)]


_TYPE_OK = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _types(schema: JSONObject) -> list[str] | None:
    declared = schema.get("type")
    if isinstance(declared, str) and declared in _TYPE_OK:
        return [declared]
    if isinstance(declared, list) and declared and all(isinstance(t, str) and t in _TYPE_OK for t in declared):
        return list(declared)
    return None


def _fits(value: Any, types: list[str]) -> bool:
    return any(_TYPE_OK[t](value) for t in types)


_BOUNDS = (
    ("minimum", "maximum"),
    ("minLength", "maxLength"),
    ("minItems", "maxItems"),
    ("minProperties", "maxProperties"),
    ("minContains", "maxContains"),
)


def _type_rules(schema: JSONObject, where: str, revision: str | None, subject: str) -> list[Problem]:
    out: list[Problem] = []
    types = _types(schema)
    enum = schema.get("enum")
    if types is not None and isinstance(enum, list):
        wrong = [v for v in enum if not _fits(v, types)]
        if wrong:
            shown = ", ".join(short_json(v, 30) for v in wrong[:5])
            out.append(
                problem(
                    "schema-enum-type",
                    f"enum value(s) {shown} are not of type {' or '.join(types)}",
                    revision,
                    subject=subject,
                    path=where or "(root)",
                )
            )
    if types is not None and "const" in schema and not _fits(schema["const"], types):
        out.append(
            problem(
                "schema-enum-type",
                f"const {short_json(schema['const'], 30)} is a {json_type_name(schema['const'])}, "
                f"not {' or '.join(types)}",
                revision,
                subject=subject,
                path=where or "(root)",
            )
        )
    if isinstance(enum, list) and not enum:
        out.append(problem("schema-unsatisfiable", "enum is empty", revision, subject=subject, path=where or "(root)"))
    for low_key, high_key in _BOUNDS:
        low, high = _bound(schema.get(low_key)), _bound(schema.get(high_key))
        if low is not None and high is not None and low > high:
            out.append(
                problem(
                    "schema-unsatisfiable",
                    f"{low_key} {short_json(schema[low_key])} is greater than "
                    f"{high_key} {short_json(schema[high_key])}",
                    revision,
                    subject=subject,
                    path=where or "(root)",
                )
            )
    low, high = _bound(schema.get("exclusiveMinimum")), _bound(schema.get("exclusiveMaximum"))
    if low is not None and high is not None and low >= high:
        out.append(
            problem(
                "schema-unsatisfiable",
                f"exclusiveMinimum {short_json(schema['exclusiveMinimum'])} is not below "
                f"exclusiveMaximum {short_json(schema['exclusiveMaximum'])}",
                revision,
                subject=subject,
                path=where or "(root)",
            )
        )
    return out


def _bound(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return None


def _default_rule(
    validator: Any, scope: Any, schema: JSONObject, where: str, revision: str | None, subject: str
) -> list[Problem]:
    from inspector.forms.schema_validation import is_valid_against, validate_value

    default = schema["default"]
    checked = {k: v for k, v in schema.items() if k != "default"}
    if is_valid_against(validator, checked, default, scope):
        return []
    detail = ""
    if "$ref" not in checked:
        violations = validate_value(checked, default)
        if violations:
            detail = f": {violations[0].message}"
    return [
        problem(
            "schema-default-invalid",
            f"default {short_json(default, 40)} is not valid against its own schema{detail}",
            revision,
            subject=subject,
            path=where or "(root)",
        )
    ]


def form_rules(schema: JSONObject, revision: str | None, subject: str) -> list[Problem]:
    """What the inspector's form cannot show: raw-JSON fallbacks and keywords checked but not shown."""
    from inspector.forms import build_form

    try:
        root = build_form(schema, prefill_defaults=False)
    except (RecursionError, ValueError, TypeError) as exc:
        return [problem("form-unrenderable", f"no form can be built: {exc}", revision, subject=subject)]
    out: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    stack = [root]
    visited = 0
    while stack and visited < _MAX_SCHEMA_NODES:
        node = stack.pop()
        visited += 1
        where = _argument_path(node.path)
        for noted, message in _form_notes(node):
            if (where, noted) not in seen:
                seen.add((where, noted))
                out.append(problem("form-unrenderable", message, revision, subject=subject, path=where))
        stack.extend(_form_children(node))
    return out


def _argument_path(path: Path) -> str:
    shown = format_path(path)
    return "arguments" if not shown else "arguments" + (shown if shown.startswith("[") else "." + shown)


def _is_raw(node: FormNode) -> TypeGuard[RawJsonNode]:
    """A value the form edits as raw JSON (the extra-properties box of an object is not a fallback)."""
    from inspector.forms import ExtrasNode, RawJsonNode

    return isinstance(node, RawJsonNode) and not isinstance(node, ExtrasNode)


def _form_notes(node: FormNode) -> list[tuple[str, str]]:
    """(what is noted, the finding's message) for each thing the form does not show of `node`."""
    if _is_raw(node):
        return [(node.reason, f"edited as raw JSON: {node.reason}")]
    return [(note, note) for note in getattr(node, "notes", ())]


def _form_children(node: FormNode) -> list[FormNode]:
    """The nodes under `node` to look at: every union variant, one array item, no raw-JSON insides."""
    from inspector.forms import ArrayNode, ExtrasNode, UnionNode

    if _is_raw(node):
        return []
    if isinstance(node, UnionNode):
        return [variant.node for variant in node.variants]
    if isinstance(node, ArrayNode):
        if not node.items and node.can_add:
            node.add()
        return node.items[:1]
    return [child for child in node.children() if not isinstance(child, ExtrasNode)]
