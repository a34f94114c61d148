"""The lint rules that look at listed items: tools, resources, templates, prompts.

Each check is a plain function over `Item`s (the lenient parse of a list) and
returns `Problem`s; `lint.py` runs them after listing everything and adds
the rules that need the live connection (capabilities, pagination) and the
wire validation of the whole session.  Paths are relative to the item
(``inputSchema.properties.city``) and the subject names it (``tool "add"``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from inspector.core.checks.problems import Problem
from inspector.core.checks.rules import RULES, problem
from inspector.core.protocol.items import Item
from inspector.forms.paths import Path, format_path
from inspector.forms.values import json_type_name, short_json

if TYPE_CHECKING:
    from inspector.forms.refs import RefResolver
    from inspector.forms.values import JSONObject


__all__ = [
    "check_prompts",
    "check_resources",
    "check_templates",
    "check_tools",
    "template_errors",
]


def _noun(kind: str, key: str) -> str:
    noun = {"tools": "tool", "resources": "resource", "templates": "template", "prompts": "prompt"}[kind]
    return f"{noun} {short_json(key, 80)}"


# -- tools ---------------------------------------------------------------------------


class _Repeated:
    """How many items share each value of a key (a name, a URI), for a problem told once per value."""

    def __init__(self, items: list[Item], key: str) -> None:
        self.counts: dict[str, int] = {}
        for item in items:
            value = item.data.get(key)
            if isinstance(value, str):
                self.counts[value] = self.counts.get(value, 0) + 1
        self.told: set[str] = set()

    def first_of_many(self, value: str) -> int:
        """How many items have `value`, the first time it is asked of a value more than one has; else 0."""
        count = self.counts.get(value, 0)
        if count <= 1 or value in self.told:
            return 0
        self.told.add(value)
        return count


_TOOL_NAME_CHARS = re.compile(r"[A-Za-z0-9_.\-]+")
_MAX_SCHEMA_NODES = 2000


def check_tools(items: list[Item], revision: str | None) -> list[Problem]:
    out: list[Problem] = []
    repeated = _Repeated(items, "name")
    for item in items:
        raw = item.data
        name = raw.get("name")
        if not isinstance(name, str):
            continue  # the wire validation reports it
        subject = _noun("tools", name)
        if not 1 <= len(name) <= 128:
            out.append(
                problem("tool-name-length", f"the name is {len(name)} characters long", revision, subject=subject)
            )
        if name and not _TOOL_NAME_CHARS.fullmatch(name):
            bad = sorted({c for c in name if not _TOOL_NAME_CHARS.fullmatch(c)})
            shown = ", ".join(short_json(c) for c in bad[:10])
            out.append(problem("tool-name-chars", f"the name contains {shown}", revision, subject=subject))
        if count := repeated.first_of_many(name):
            out.append(
                problem(
                    "tool-name-duplicate",
                    f"{count} tools are named {short_json(name)}",
                    revision,
                    subject=subject,
                )
            )
        description = raw.get("description")
        if not isinstance(description, str) or not description.strip():
            out.append(problem("tool-description-missing", "the tool has no description", revision, subject=subject))
        schema = raw.get("inputSchema")
        if isinstance(schema, dict):
            out.extend(_schema_rules(schema, ("inputSchema",), revision, subject, describe=True))
            out.extend(_form_rules(schema, revision, subject))
        output = raw.get("outputSchema")
        if isinstance(output, dict):
            out.extend(_schema_rules(output, ("outputSchema",), revision, subject, describe=False))
        annotations = raw.get("annotations")
        if (
            isinstance(annotations, dict)
            and annotations.get("readOnlyHint") is True
            and annotations.get("destructiveHint") is True
        ):
            out.append(
                problem(
                    "tool-annotations-contradiction",
                    "readOnlyHint is true and destructiveHint is true",
                    revision,
                    subject=subject,
                    path="annotations",
                )
            )
    return out


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
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for key, sub in properties.items():
            yield from _subschemas(sub, (*path, "properties", key), _PROPERTY, depth + 1)
    for key in ("items", "additionalProperties", "not", "if", "then", "else", "contains"):
        yield from _subschemas(schema.get(key), (*path, key), _OTHER, depth + 1)
    for key in ("$defs", "definitions", "patternProperties"):
        group = schema.get(key)
        if isinstance(group, dict):
            for name, sub in group.items():
                yield from _subschemas(sub, (*path, key, name), _OTHER, depth + 1)
    for key in ("prefixItems", "allOf", "anyOf", "oneOf"):
        group = schema.get(key)
        if isinstance(group, list):
            for index, sub in enumerate(group):
                yield from _subschemas(sub, (*path, key, index), _MEMBER, depth + 1)


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


def _schema_rules(
    root: JSONObject, prefix: Path, revision: str | None, subject: str, *, describe: bool
) -> list[Problem]:
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


def _form_rules(schema: JSONObject, revision: str | None, subject: str) -> list[Problem]:
    """What the inspector's form cannot show: raw-JSON fallbacks and keywords checked but not shown."""
    from inspector.forms import ArrayNode, ExtrasNode, RawJsonNode, UnionNode, build_form

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
        shown = format_path(node.path)
        where = "arguments" if not shown else "arguments" + (shown if shown.startswith("[") else "." + shown)
        if isinstance(node, RawJsonNode) and not isinstance(node, ExtrasNode):
            key = (where, node.reason)
            if key not in seen:
                seen.add(key)
                out.append(
                    problem(
                        "form-unrenderable", f"edited as raw JSON: {node.reason}", revision, subject=subject, path=where
                    )
                )
            continue
        for note in getattr(node, "notes", ()):
            key = (where, note)
            if key not in seen:
                seen.add(key)
                out.append(problem("form-unrenderable", note, revision, subject=subject, path=where))
        if isinstance(node, UnionNode):
            for variant in node.variants:
                stack.append(variant.node)
            continue
        if isinstance(node, ArrayNode):
            if not node.items and node.can_add:
                node.add()
            stack.extend(node.items[:1])
            continue
        stack.extend(child for child in node.children() if not isinstance(child, ExtrasNode))
    return out


# -- resources and templates ---------------------------------------------------------------

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


def check_resources(items: list[Item], revision: str | None) -> list[Problem]:
    out: list[Problem] = []
    repeated = _Repeated(items, "uri")
    for item in items:
        uri = item.data.get("uri")
        if not isinstance(uri, str):
            continue
        subject = _noun("resources", uri)
        if count := repeated.first_of_many(uri):
            out.append(problem("resource-uri-duplicate", f"{count} resources have this URI", revision, subject=subject))
        if not _SCHEME.match(uri):
            out.append(
                problem(
                    "resource-uri-invalid", "the URI has no scheme (e.g. file://, https://)", revision, subject=subject
                )
            )
    return out


# RFC 6570, section 2: literals, expressions, operators, variable specs.
_LITERAL_BAD = set(" \"'<>\\^`{|}")
_OPERATORS = set("+#./;?&")
_RESERVED_OPERATORS = set("=,!@|")
_VARCHAR = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})"
_VARSPEC = re.compile(rf"{_VARCHAR}+(?:\.{_VARCHAR}+)*(?::[1-9][0-9]{{0,3}}|\*)?")


def template_errors(template: str) -> list[str]:
    """Why `template` is not a valid RFC 6570 URI template ([] when it is)."""
    errors: list[str] = []
    i = 0
    n = len(template)
    while i < n:
        ch = template[i]
        if ch == "{":
            end = template.find("}", i + 1)
            nested = template.find("{", i + 1)
            if end == -1 or (nested != -1 and nested < end):
                errors.append(f"unclosed expression at position {i}")
                if end == -1:
                    break
                i = nested
                continue
            errors.extend(_expression_errors(template[i + 1 : end], i))
            i = end + 1
            continue
        if ch == "}":
            errors.append(f"'}}' without '{{' at position {i}")
        elif ch == "%":
            if not re.fullmatch(r"%[0-9A-Fa-f]{2}", template[i : i + 3]):
                errors.append(f"'%' not followed by two hex digits at position {i}")
            else:
                i += 3
                continue
        elif ch in _LITERAL_BAD or ord(ch) < 0x20 or ord(ch) == 0x7F:
            errors.append(f"character {short_json(ch)} is not allowed outside an expression (position {i})")
        i += 1
    return errors


def _expression_errors(body: str, at: int) -> list[str]:
    if not body:
        return [f"empty expression '{{}}' at position {at}"]
    if body[0] in _RESERVED_OPERATORS:
        return [f"operator {short_json(body[0])} is reserved for future extensions (position {at})"]
    if body[0] in _OPERATORS:
        body = body[1:]
    errors = []
    for spec in body.split(","):
        if not _VARSPEC.fullmatch(spec):
            errors.append(f"{short_json(spec)} is not a valid variable name (position {at})")
    return errors


def check_templates(items: list[Item], revision: str | None) -> list[Problem]:
    out: list[Problem] = []
    repeated = _Repeated(items, "uriTemplate")
    for item in items:
        template = item.data.get("uriTemplate")
        if not isinstance(template, str):
            continue
        subject = _noun("templates", template)
        errors = template_errors(template)
        for error in errors[:5]:
            out.append(problem("template-invalid", error, revision, subject=subject, path="uriTemplate"))
        if not errors and "{" not in template:
            out.append(problem("template-no-variables", "the template has no {variables}", revision, subject=subject))
        if count := repeated.first_of_many(template):
            out.append(
                problem(
                    "template-duplicate",
                    f"{count} templates have this uriTemplate",
                    revision,
                    subject=subject,
                )
            )
    return out


# -- prompts ---------------------------------------------------------------------------------


def check_prompts(items: list[Item], revision: str | None) -> list[Problem]:
    out: list[Problem] = []
    repeated = _Repeated(items, "name")
    for item in items:
        name = item.data.get("name")
        if not isinstance(name, str):
            continue
        subject = _noun("prompts", name)
        if count := repeated.first_of_many(name):
            out.append(
                problem(
                    "prompt-name-duplicate",
                    f"{count} prompts are named {short_json(name)}",
                    revision,
                    subject=subject,
                )
            )
        arguments = item.data.get("arguments")
        if not isinstance(arguments, list):
            continue
        seen: dict[str, int] = {}
        for index, argument in enumerate(arguments):
            arg_name = argument.get("name") if isinstance(argument, dict) else None
            if isinstance(arg_name, str) and not arg_name.strip():
                # A missing or non-string name is a schema error, reported by the wire validation.
                out.append(
                    RULES["prompt-argument-name"].problem(
                        "the argument's name is empty",
                        revision=revision,
                        subject=subject,
                        path=f"arguments[{index}].name",
                    )
                )
            elif isinstance(arg_name, str):
                if arg_name in seen:
                    out.append(
                        problem(
                            "prompt-argument-duplicate",
                            f"arguments[{seen[arg_name]}] and arguments[{index}] are both named {short_json(arg_name)}",
                            revision,
                            subject=subject,
                            path=f"arguments[{index}].name",
                        )
                    )
                else:
                    seen[arg_name] = index
    return out
