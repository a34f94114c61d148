"""jsonschema's validator classes with every regex keyword run by `schema_regex`.

jsonschema applies ``pattern``, the keys of ``patternProperties`` (also when
working out ``additionalProperties`` and ``unevaluatedProperties``) and
``format: regex`` with Python's backtracking ``re``.  The classes built here
replace exactly those keywords; everything else is jsonschema's own.

A pattern that cannot be applied in time is reported as an `UncheckedError`,
a ValidationError that says "pattern not checked: too slow" and that callers
treat as a warning, not as proof the value is wrong.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import jsonschema
import jsonschema.validators
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator

from inspector.forms.schema_regex import PatternNotChecked, is_valid_pattern, pattern_search
from inspector.forms.values import JSONObject

__all__ = ["UncheckedError", "format_checker_for", "safe_validator_class"]


class UncheckedError(ValidationError):
    """A keyword that could not be applied (a pattern too slow, too large or invalid).

    ``invalid`` says the schema itself is at fault (not a regular expression).
    """

    invalid = False


def _unchecked(exc: PatternNotChecked, **kwargs: Any) -> UncheckedError:
    error = UncheckedError(f"pattern {exc.pattern!r} not checked: {exc.reason}", **kwargs)
    error.invalid = exc.invalid
    return error


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "string") or not isinstance(pattern, str):
        return
    try:
        matched = pattern_search(pattern, instance)
    except PatternNotChecked as exc:
        yield _unchecked(exc)
        return
    if not matched:
        yield ValidationError(f"does not match the pattern {pattern!r}")


def _matching(patterns: Any, key: str) -> tuple[bool, list[PatternNotChecked]]:
    """Whether some pattern of *patterns* matches *key*; the ones that could not be applied."""
    failed: list[PatternNotChecked] = []
    for pattern in patterns if isinstance(patterns, dict) else ():
        try:
            if isinstance(pattern, str) and pattern_search(pattern, key):
                return True, failed
        except PatternNotChecked as exc:
            failed.append(exc)
    return False, failed


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object") or not isinstance(patterns, dict):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            try:
                matched = isinstance(pattern, str) and pattern_search(pattern, key)
            except PatternNotChecked as exc:
                yield _unchecked(exc, path=(key,))
                continue
            if matched:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def additional_keys(schema: JSONObject, instance: JSONObject) -> list[str]:
    """Keys of *instance* that neither ``properties`` nor ``patternProperties`` covers.

    A key whose pattern could not be applied counts as covered: that pattern
    is reported by ``patternProperties`` already, and blaming the key twice
    would say more than is known.
    """
    properties = schema.get("properties")
    declared = properties if isinstance(properties, dict) else {}
    patterns = schema.get("patternProperties")
    out = []
    for key in instance:
        if key in declared:
            continue
        matched, failed = _matching(patterns, key)
        if not matched and not failed:
            out.append(key)
    return out


def _additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    extras = additional_keys(schema, instance)
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif extra is False and extras:
        listed = ", ".join(repr(key) for key in extras)
        yield ValidationError(f"Additional properties are not allowed ({listed} unexpected)")


def _unevaluated_properties(validator: Any, rest: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    here = {k: v for k, v in schema.items() if k != "unevaluatedProperties"}
    seen = _evaluated_keys(validator, instance, here, 0)
    left = [key for key in instance if key not in seen]
    if rest is False:
        if left:
            listed = ", ".join(repr(key) for key in left)
            yield ValidationError(f"Unevaluated properties are not allowed ({listed} unexpected)")
        return
    for key in left:
        yield from validator.descend(instance[key], rest, path=key)


_MAX_EVALUATION_DEPTH = 50


def _evaluated_keys(validator: Any, instance: JSONObject, schema: Any, depth: int) -> set[str]:
    """The keys of *instance* that *schema* evaluates in place (JSON Schema 2019-09 §7.7.1 annotations)."""
    if not isinstance(schema, dict) or depth > _MAX_EVALUATION_DEPTH:
        return set()
    out = _own_keys(instance, schema)
    for subschema, resolved in _in_place_subschemas(validator, instance, schema):
        out |= _evaluated_keys(resolved, instance, subschema, depth + 1)
    return out


def _own_keys(instance: JSONObject, schema: JSONObject) -> set[str]:
    """The keys *schema*'s own property keywords evaluate."""
    out: set[str] = set()
    properties = schema.get("properties")
    if isinstance(properties, dict):
        out.update(key for key in instance if key in properties)
    patterns = schema.get("patternProperties")
    if isinstance(patterns, dict):
        for key in instance:
            matched, failed = _matching(patterns, key)
            if matched or failed:
                out.add(key)
    if "additionalProperties" in schema or "unevaluatedProperties" in schema:
        out.update(instance)  # whatever is left, these two evaluate
    return out


def _in_place_subschemas(validator: Any, instance: JSONObject, schema: JSONObject) -> Iterator[tuple[Any, Any]]:
    """(subschema, validator) for each subschema that evaluates *instance* in place.

    References, ``allOf``, the ``anyOf`` / ``oneOf`` members *instance*
    matches, the ``if`` branch taken, ``dependentSchemas`` of keys present.
    """
    yield from _referenced(validator, schema)
    members = schema.get("allOf")
    for member in members if isinstance(members, list) else ():
        yield member, validator
    for word in ("anyOf", "oneOf"):
        members = schema.get(word)
        for member in members if isinstance(members, list) else ():
            if validator.evolve(schema=member).is_valid(instance):
                yield member, validator
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            yield schema["if"], validator
            yield schema.get("then"), validator
        else:
            yield schema.get("else"), validator
    dependent = schema.get("dependentSchemas")
    if isinstance(dependent, dict):
        for key, member in dependent.items():
            if key in instance:
                yield member, validator


def _referenced(validator: Any, schema: JSONObject) -> Iterator[tuple[Any, Any]]:
    """Where *schema*'s ``$ref`` / ``$dynamicRef`` / ``$recursiveRef`` lead, each with a validator in scope there."""
    for word in ("$ref", "$dynamicRef", "$recursiveRef"):
        ref = schema.get(word)
        if isinstance(ref, str):
            try:
                resolved = validator._resolver.lookup(ref)
            except Exception:  # noqa: BLE001 - an unresolvable reference evaluates nothing; reported elsewhere
                continue
            yield resolved.contents, validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)


_REPLACED = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
    "unevaluatedProperties": _unevaluated_properties,
}


def _is_regex(value: object) -> bool:
    return not isinstance(value, str) or is_valid_pattern(value)


def format_checker_for(base: jsonschema.FormatChecker) -> jsonschema.FormatChecker:
    """A copy of the format checker *base* whose ``regex`` format compiles with `schema_regex`."""
    checker = jsonschema.FormatChecker(formats=())
    checker.checkers = dict(base.checkers)
    if "regex" in checker.checkers:
        checker.checkers["regex"] = (_is_regex, ())
    return checker


@functools.cache
def safe_validator_class(cls: type[Validator]) -> type[Validator]:
    """*cls* (a jsonschema validator class) with its regex keywords replaced."""
    replaced = {word: function for word, function in _REPLACED.items() if word in cls.VALIDATORS}
    checker = format_checker_for(cls.FORMAT_CHECKER)
    # types-jsonschema leaves extend() unannotated; it returns a validator class.
    extended: type[Validator] = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        cls, validators=replaced, format_checker=checker
    )
    return extended
