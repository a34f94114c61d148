"""Validate values against schemas, and schemas against their meta-schema.

Built on ``jsonschema``.  The dialect comes from ``$schema`` (2020-12 when
absent, per SEP-2106), ``format`` is checked, and ``$ref`` is resolved by
`refs` (what the form and lint use too), which never fetches from the network
(SEP-2106: no automatic remote dereferencing), so an external reference shows
up as a violation, in the same words as in the form, instead of a request.

Messages are rewritten for people ("must be at least 1", "required property
is missing") and never embed a whole (possibly huge, untrusted) value.
Errors about a missing required property or a disallowed extra property are
reported *at that property's path*, so a form can show them next to the field.
"""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import jsonschema
import jsonschema.exceptions
import referencing
import referencing.exceptions

from inspector.forms.dialects import dialect_of
from inspector.forms.limits import MAX_SCHEMA_DEPTH, nested_deeper_than, ref_cycles
from inspector.forms.paths import Path, format_path
from inspector.forms.refs import RefError, RefResolver, document_resolver
from inspector.forms.schema_keywords import UncheckedError, additional_keys, format_checker_for, safe_validator_class
from inspector.forms.schema_regex import MATCH_TIMEOUT, regex_budget
from inspector.forms.values import JSONObject, JSONValue, Schema, json_type_name, short_json

__all__ = [
    "Violation",
    "check_schema",
    "make_validator",
    "validate_value",
]


@dataclass(frozen=True, slots=True)
class Violation:
    """One problem: where (``path``), what (``message``) and which keyword failed.

    ``path`` is a tuple of keys and indices into the value (or, from
    `check_schema`, into the schema).  ``keyword`` is the JSON Schema keyword
    ("type", "required", "format", …), or one of the forms layer's own:
    "schema" (the schema itself is unusable), "text" (a text entry that does
    not convert), "empty-item" (an array item left blank), "$schema", "$ref".
    ``unchecked`` marks a keyword that could not be applied (a server's
    pattern too slow to evaluate): a warning, not a verdict on the value.
    """

    path: Path
    message: str
    keyword: str = ""
    unchecked: bool = False

    @property
    def display_path(self) -> str:
        """``address.city`` / ``items[2].qty``; ``""`` for the root."""
        return format_path(self.path)

    def __str__(self) -> str:
        return f"{self.display_path or '(root)'}: {self.message}"


# -- format checking -------------------------------------------------------

_DATE_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})\Z",
)
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[^\s\x00-\x1f\x7f<>\"{}|\\^`]*\Z")


def _is_date_time(value: object) -> bool:
    # RFC 3339 date-time, as JSON Schema's "date-time" format requires.
    if not isinstance(value, str):
        return True
    if not _DATE_TIME.match(value):
        return False
    text = value[:-1] + "+00:00" if value[-1] in "Zz" else value
    text = text[:10] + "T" + text[11:]
    try:
        datetime.datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def _is_uri(value: object) -> bool:
    # An absolute URI (RFC 3986): a scheme, a colon, no spaces or control characters.
    return not isinstance(value, str) or bool(_URI.match(value))


def _format_checker() -> Any:
    checker = format_checker_for(jsonschema.FormatChecker())
    # jsonschema checks these only when optional packages are installed;
    # they are the formats MCP elicitation names, so check them ourselves.
    if "date-time" not in checker.checkers:
        checker.checks("date-time")(_is_date_time)
    if "uri" not in checker.checkers:
        checker.checks("uri")(_is_uri)
    return checker


_FORMAT_CHECKER = _format_checker()

# Exceptions jsonschema can raise while walking a malformed, untrusted schema.
_SCHEMA_FAILURES: tuple[type[BaseException], ...] = (
    jsonschema.exceptions.UnknownType,
    jsonschema.exceptions.SchemaError,
    referencing.exceptions.Unresolvable,
    referencing.exceptions.NoSuchResource,
    RecursionError,
    TypeError,
    AttributeError,
    KeyError,
    ValueError,
)


def make_validator(schema: Schema) -> Any:
    """A jsonschema validator for *schema*: its dialect, format checking, no remote ``$ref``,
    server-supplied regular expressions applied in bounded time (`schema_regex`)."""
    cls: Any = safe_validator_class(dialect_of(schema).validator_class)  # `_resolver` is not in jsonschema's stubs
    document = _without_false_subschemas(schema)
    # The resolver of `refs` (the one the form and lint use), which retrieves
    # nothing: an external reference fails instead of being fetched.
    return cls(document, format_checker=_FORMAT_CHECKER, _resolver=document_resolver(document))


# Keywords whose value is one subschema, or a map / list of subschemas.  (Not
# additionalProperties & co: jsonschema reports a false one well by itself.)
_ONE_SCHEMA = ("not", "if", "then", "else", "contains", "propertyNames")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_NO_VALUE: JSONObject = {"not": {}}


def _without_false_subschemas(schema: Any, depth: int = 0) -> Any:
    """The schema with ``false`` subschemas written as the equivalent ``{"not": {}}``.

    jsonschema reports a failing ``false`` subschema without its instance
    path (``properties: {x: false}`` would blame the root); ``not`` keeps it.
    """
    if not isinstance(schema, dict) or depth > 100:
        return schema
    out = dict(schema)
    for key, value in schema.items():
        if key in _ONE_SCHEMA:
            out[key] = _NO_VALUE if value is False else _without_false_subschemas(value, depth + 1)
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {
                k: _NO_VALUE if v is False else _without_false_subschemas(v, depth + 1) for k, v in value.items()
            }
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_NO_VALUE if v is False else _without_false_subschemas(v, depth + 1) for v in value]
        elif key in ("items", "additionalProperties", "unevaluatedProperties", "additionalItems"):
            if isinstance(value, dict):
                out[key] = _without_false_subschemas(value, depth + 1)
            elif isinstance(value, list):
                out[key] = [_NO_VALUE if v is False else _without_false_subschemas(v, depth + 1) for v in value]
    return out


VALIDATION_BUDGET = 2 * MATCH_TIMEOUT
"""Seconds one validation may spend in backtracking pattern matches, all of them together."""


def validate_value(schema: Schema, value: JSONValue) -> list[Violation]:
    """Check *value* against *schema*; an empty list means valid.

    Never raises for a bad schema: an unusable schema gives one violation with
    keyword "schema" at the root.  Bounded in time whatever the schema holds
    (patterns, depth, ``$ref`` cycles), and safe to call from a worker thread.
    """
    unusable = _unusable(schema)
    if unusable is not None:
        return [Violation((), f"the schema cannot be used for validation: {unusable}", "schema")]
    try:
        validator = make_validator(schema)
        with regex_budget(VALIDATION_BUDGET):
            errors = list(validator.iter_errors(value))
    except RecursionError:
        return [Violation((), _TOO_DEEP_TO_CHECK, "schema")]
    except _SCHEMA_FAILURES as exc:
        why = _ref_failure(schema, exc) or _exc_text(exc)
        return [Violation((), f"the schema cannot be used for validation: {why}", "schema")]
    out: list[Violation] = []
    for error in errors:
        out.extend(_violations_from(error))
    return out


_TOO_DEEP_TO_CHECK = "the value is nested too deeply to check against this schema"


def _unusable(schema: Schema) -> str | None:
    """Why *schema* cannot be handed to jsonschema at all (too deep, a ``$ref`` cycle), or None."""
    if nested_deeper_than(schema, MAX_SCHEMA_DEPTH):
        return f"schema nested deeper than {MAX_SCHEMA_DEPTH} levels"
    cycles = ref_cycles(schema)
    if cycles:
        return cycles[0][1]
    return None


def is_valid_against(validator: Any, subschema: Schema, value: JSONValue, scope: Any = None) -> bool:
    """Whether *value* is valid against *subschema*, resolving ``$ref`` in *scope*
    (`RefResolver.scope_of` the subschema), or against the validator's root."""
    changes = {"schema": subschema} if scope is None else {"schema": subschema, "_resolver": scope}
    try:
        with regex_budget(VALIDATION_BUDGET):
            return bool(validator.evolve(**changes).is_valid(value))
    except _SCHEMA_FAILURES:
        return False


def check_schema(schema: Schema) -> list[Violation]:
    """Check a schema against its dialect's meta-schema; an empty list means valid.

    Also reports an unrecognised ``$schema`` (validated as 2020-12) and
    ``$ref`` values that do not resolve inside the document or that point
    outside it (they will not be fetched).  Paths point into the schema.
    """
    if not isinstance(schema, dict | bool):
        return [Violation((), f"a schema must be an object or a boolean, not {json_type_name(schema)}", "type")]
    if nested_deeper_than(schema, MAX_SCHEMA_DEPTH):
        return [Violation((), f"schema nested deeper than {MAX_SCHEMA_DEPTH} levels; it was not checked", "schema")]
    out: list[Violation] = []
    dialect = dialect_of(schema)
    if not dialect.known:
        out.append(
            Violation(
                ("$schema",),
                f"unknown dialect {short_json(dialect.uri)}; checked as JSON Schema 2020-12",
                "$schema",
            )
        )
    cls = safe_validator_class(dialect.validator_class)
    meta = cls(cls.META_SCHEMA, format_checker=format_checker_for(dialect.validator_class.FORMAT_CHECKER))
    try:
        for error in meta.iter_errors(schema):
            out.append(Violation(tuple(error.absolute_path), _meta_message(error), str(error.validator)))
    except _SCHEMA_FAILURES as exc:
        out.append(Violation((), f"the schema could not be checked: {_exc_text(exc)}", "schema"))
    if isinstance(schema, dict):
        out.extend(_check_refs(schema))
        out.extend(Violation(path, message, "$ref") for path, message in ref_cycles(schema))
    return out


# -- messages --------------------------------------------------------------


def _exc_text(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else type(exc).__name__
    return first if len(first) <= 200 else first[:199] + "…"


def _plural(n: Any, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _choices(values: Iterable[Any], limit: int = 8) -> str:
    items = list(values)
    shown = ", ".join(short_json(v, 30) for v in items[:limit])
    return shown + (f", … ({len(items)} in all)" if len(items) > limit else "")


def _type_message(wanted: Any, error: Any) -> str:
    names = " or ".join(wanted) if isinstance(wanted, list) else str(wanted)
    return f"expected {names}, got {json_type_name(error.instance)} {short_json(error.instance, 40)}"


def _exclusive_bound(bound: Any, error: Any, draft4_word: str) -> Any:
    """The bound an ``exclusiveMinimum`` / ``exclusiveMaximum`` sets (draft-04: a boolean on *draft4_word*)."""
    return bound if not isinstance(bound, bool) else error.schema.get(draft4_word)


def _one_of_message(_: Any, error: Any) -> str:
    if error.context:
        return "matches none of the alternatives"
    return "matches more than one alternative (oneOf allows exactly one)"


def _not_message(schema: Any, _: Any) -> str:
    if schema == {}:
        return "no value is allowed here"
    return "matches a schema it must not match"


# For each keyword: the message, from the keyword's value in the schema and the error.
_MESSAGES: dict[str | None, Callable[[Any, Any], str]] = {
    "type": _type_message,
    "enum": lambda v, _: f"must be one of: {_choices(v)}",
    "const": lambda v, _: f"must be {short_json(v)}",
    "minimum": lambda v, _: f"must be at least {v}",
    "maximum": lambda v, _: f"must be at most {v}",
    "exclusiveMinimum": lambda v, e: f"must be greater than {_exclusive_bound(v, e, 'minimum')}",
    "exclusiveMaximum": lambda v, e: f"must be less than {_exclusive_bound(v, e, 'maximum')}",
    "multipleOf": lambda v, _: f"must be a multiple of {v}",
    "minLength": lambda v, _: f"must be at least {_plural(v, 'character')} long",
    "maxLength": lambda v, _: f"must be at most {_plural(v, 'character')} long",
    "pattern": lambda v, _: f"does not match the pattern {short_json(v)}",
    "format": lambda v, _: f"is not a valid {v}",
    "minItems": lambda v, _: f"must have at least {_plural(v, 'item')}",
    "maxItems": lambda v, _: f"must have at most {_plural(v, 'item')}",
    "uniqueItems": lambda _v, _e: "items must be unique",
    "minProperties": lambda v, _: f"must have at least {_plural(v, 'property')}",
    "maxProperties": lambda v, _: f"must have at most {_plural(v, 'property')}",
    "oneOf": _one_of_message,
    "anyOf": lambda _v, _e: "matches none of the alternatives",
    "not": _not_message,
    None: lambda _v, _e: "no value is allowed here",  # the schema is false
}


def _message(error: Any) -> str:
    render = _MESSAGES.get(error.validator)
    return str(error.message) if render is None else render(error.validator_value, error)


def _violations_from(error: Any) -> Iterator[Violation]:
    path: Path = tuple(error.absolute_path)
    kw = error.validator
    inst = error.instance
    if isinstance(error, UncheckedError):
        yield Violation(path, error.message, "schema" if error.invalid else str(kw), unchecked=True)
        return
    if kw == "required" and isinstance(inst, dict) and isinstance(error.validator_value, list):
        for prop in error.validator_value:
            if isinstance(prop, str) and prop not in inst and error.message == f"{prop!r} is a required property":
                yield Violation((*path, prop), "required property is missing", "required")
                return
    if kw == "additionalProperties" and error.validator_value is False and isinstance(inst, dict):
        schema = error.schema if isinstance(error.schema, dict) else {}
        extras = additional_keys(schema, inst)
        if extras:
            for key in extras:
                yield Violation((*path, key), "property is not allowed by the schema", kw)
            return
    yield Violation(path, _message(error), str(kw) if kw is not None else "false")


def _meta_message(error: Any) -> str:
    kw = error.validator
    inst = error.instance
    if kw == "type":
        wanted = (
            " or ".join(error.validator_value) if isinstance(error.validator_value, list) else error.validator_value
        )
        return f"{short_json(inst, 40)} is not a valid value here (expected {wanted})"
    if kw == "enum":
        return f"{short_json(inst, 40)} is not one of {_choices(error.validator_value)}"
    if kw == "format" and error.validator_value == "regex":
        return f"{short_json(inst, 60)} is not a valid regular expression"
    return str(error.message)


# -- $ref checks -------------------------------------------------------------


def _check_refs(schema: JSONObject) -> list[Violation]:
    return [violation for violation, _ in _bad_refs(schema)]


def _bad_refs(schema: JSONObject) -> list[tuple[Violation, JSONObject]]:
    """Each ``$ref`` that does not resolve, with the object it is written in."""
    resolver = RefResolver(schema)
    out: list[tuple[Violation, JSONObject]] = []
    for path, holder in _iter_refs(schema, ()):
        ref = holder["$ref"]
        if not isinstance(ref, str):
            out.append((Violation(path, "$ref must be a string", "$ref"), holder))
            continue
        try:
            resolver.resolve(ref, where=holder)
        except RefError as exc:
            out.append((Violation(path, exc.reason, "$ref"), holder))
    return out


_MISSING = object()


def _ref_failure(schema: Schema, exc: BaseException) -> str | None:
    """Why the ``$ref`` jsonschema could not follow fails, in the words of `refs` (the form and lint say the same)."""
    if not isinstance(schema, dict):
        return None
    ref = _ref_being_followed(exc)
    if ref is _MISSING:
        return None
    for violation, holder in _bad_refs(schema):
        if holder["$ref"] == ref:
            return violation.message
    return None


def _ref_being_followed(exc: BaseException) -> Any:
    """The innermost ``$ref`` (as written) jsonschema was following when *exc* (or the error it wraps) was
    raised: a lookup by referencing, or jsonschema descending into what it found; `_MISSING` when none."""
    found: Any = _MISSING
    seen: BaseException | None = exc
    for _ in range(4):  # jsonschema wraps referencing's errors once
        if seen is None:
            break
        tb = seen.__traceback__
        while tb is not None:
            code = tb.tb_frame.f_code
            # referencing's lookup(ref), jsonschema's $ref keyword (ref) and its _validate_reference(ref).
            if (code.co_name == "lookup" and _in_package(code.co_filename, "referencing")) or (
                code.co_name in ("ref", "_validate_reference") and _in_package(code.co_filename, "jsonschema")
            ):
                found = tb.tb_frame.f_locals.get("ref", _MISSING)
            tb = tb.tb_next
        seen = seen.__cause__
    return found


def _in_package(filename: str, package: str) -> bool:
    return f"{os.sep}{package}{os.sep}" in filename


def _iter_refs(node: Any, path: Path, depth: int = 0) -> Iterator[tuple[Path, JSONObject]]:
    """(path of each ``$ref``, the object it is written in)."""
    if depth > 200:
        return
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield (*path, key), node
            elif key in ("enum", "const", "default", "examples", "example"):
                continue  # instance data, not schemas
            else:
                yield from _iter_refs(value, (*path, key), depth + 1)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _iter_refs(value, (*path, i), depth + 1)
