"""The schema.json of the revisions older than 2025-11-25, walked along a value.

`mcp_types` has models for 2025-11-25 and 2026-07-28 only.  A message of an
older session is checked with the 2025-11-25 models first (no field became
required since 2024-11-05, so nothing valid then fails there), then against
the revision's own schema.json (`wire_schemas/<rev>.json`, a copy of the
spec's), which knows what the 2025-11-25 models cannot: which content
types, union members and enum values that revision had, and which fields.
The schema is walked along the value (a `$ref` followed, a union resolved by
the value's "type" or by which member it fits), so a field is looked up
where it sits, not by a class name.  `field_notes` and `revision_issues`
ask it.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from inspector.core.checks.wire_models import value_at

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject

__all__ = [
    "child_schema",
    "declares",
    "is_closed",
    "member_name",
    "member_tags",
    "old_definitions",
    "old_node_at",
    "old_validator",
    "settle",
]

_DEF_PREFIX = "#/definitions/"


@cache
def old_definitions(revision: str) -> JSONObject:
    """Definition name -> schema, from the copy of the revision's schema.json."""
    text = resources.files("inspector.core.checks").joinpath("wire_schemas", f"{revision}.json").read_text("utf-8")
    document = json.loads(text)
    definitions = document.get("definitions") or document.get("$defs") or {}
    return definitions if isinstance(definitions, dict) else {}


@cache
def _old_document(revision: str) -> dict[str, Any]:
    """The revision's definitions as a draft-07 document: what its `$ref`s resolve against."""
    return {"$schema": "http://json-schema.org/draft-07/schema#", "definitions": old_definitions(revision)}


@cache
def _old_refs(revision: str) -> Any:
    from inspector.forms.refs import RefResolver

    return RefResolver(_old_document(revision))


@cache
def _old_target(revision: str, ref: str) -> Any:
    """What `ref` points to in the revision's schema (None when nothing): asked of the forms layer's resolver once."""
    from inspector.forms.refs import RefError

    try:
        return _old_refs(revision).resolve(ref)
    except RefError:
        return None


@cache
def _old_base(revision: str) -> Any:
    """A draft-07 validator of the revision's definitions, resolving `$ref`s as the forms layer does."""
    from jsonschema import Draft7Validator

    from inspector.forms.refs import document_resolver

    document = _old_document(revision)
    validator_class: Any = Draft7Validator  # `_resolver` is jsonschema's own keyword, not in its stubs
    return validator_class(document, _resolver=document_resolver(document))


@cache
def old_validator(revision: str, name: str) -> Any:
    """A validator for one definition of an old revision (None when it has no such definition)."""
    if name not in old_definitions(revision):
        return None
    return _old_base(revision).evolve(schema={"$ref": _DEF_PREFIX + name})


def _deref(revision: str, node: Any) -> Any:
    for _ in range(32):
        if not isinstance(node, dict):
            return None
        ref = node.get("$ref")
        if not isinstance(ref, str):
            return node
        node = _old_target(revision, ref)
    return None


def _branches(node: JSONObject) -> list[Any] | None:
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list):
            return list(node[key])
    return None


def member_tags(revision: str, branch: Any, depth: int = 0) -> tuple[str, ...] | None:
    """The "type" values a union member allows (its discriminator); None when it has none."""
    node = _deref(revision, branch)
    if not isinstance(node, dict) or depth > 8:
        return None
    nested = _branches(node)
    if nested is not None:
        found: list[str] = []
        for member in nested:
            tags = member_tags(revision, member, depth + 1)
            if tags is None:
                return None
            found.extend(tags)
        return tuple(dict.fromkeys(found))
    prop = _deref(revision, (node.get("properties") or {}).get("type"))
    if isinstance(prop, dict):
        if isinstance(prop.get("const"), str):
            return (prop["const"],)
        if isinstance(prop.get("enum"), list) and all(isinstance(v, str) for v in prop["enum"]):
            return tuple(prop["enum"])
    return None


def member_name(revision: str, branch: Any) -> str:
    """A union member's name for people: its definition's name, else its type, else "an inline schema"."""
    if isinstance(branch, dict) and isinstance(branch.get("$ref"), str):
        return str(branch["$ref"]).rsplit("/", 1)[-1]
    node = _deref(revision, branch)
    if isinstance(node, dict) and isinstance(node.get("type"), str):
        return str(node["type"])
    return "an inline schema"


def _fits(revision: str, branch: Any, raw: Any) -> bool:
    from jsonschema.exceptions import SchemaError
    from referencing.exceptions import Unresolvable

    try:
        return bool(_old_base(revision).evolve(schema=branch).is_valid(raw))
    except (SchemaError, Unresolvable, RecursionError):  # a member the validator cannot use fits nothing
        return False


def settle(revision: str, node: Any, raw: Any) -> JSONObject | None:
    """`node` with its `$ref`s followed and its unions resolved to the member `raw` is meant for."""
    for _ in range(16):
        node = _deref(revision, node)
        if not isinstance(node, dict):
            return None
        branches = _branches(node)
        if branches is None:
            return node
        tagged = None
        if isinstance(raw, dict) and isinstance(raw.get("type"), str):
            tagged = [b for b in branches if raw["type"] in (member_tags(revision, b) or ())]
            if len(tagged) == 1:
                node = tagged[0]
                continue
        fitting = [b for b in (tagged or branches) if _fits(revision, b, raw)]
        if not fitting:
            return None
        node = fitting[0]
    return None


def child_schema(revision: str, node: JSONObject | None, key: str | int, raw: Any) -> JSONObject | None:
    """The settled schema of `key` (a property name or an array index) under `node`."""
    if node is None:
        return None
    if isinstance(key, int):
        items = node.get("items")
        return settle(revision, items, raw) if isinstance(items, dict) else None
    properties = node.get("properties")
    if isinstance(properties, dict) and key in properties:
        return settle(revision, properties[key], raw)
    extra = node.get("additionalProperties")
    return settle(revision, extra, raw) if isinstance(extra, dict) else None


def declares(node: JSONObject, key: str) -> bool:
    """Whether the schema `node` defines the property `key`."""
    properties = node.get("properties")
    return isinstance(properties, dict) and key in properties


def is_closed(node: JSONObject) -> bool:
    """Whether the schema names its fields (an object with properties and no additionalProperties)."""
    return isinstance(node.get("properties"), dict) and "additionalProperties" not in node


def old_node_at(revision: str, root: str, raw_root: Any, path: tuple[str | int, ...]) -> JSONObject | None:
    """The settled schema at `path` inside the definition named `root`, walked along the value
    `raw_root`; None where the revision's schema has nothing there."""
    node = settle(revision, old_definitions(revision).get(root), raw_root)
    raw = raw_root
    for seg in path:
        raw = value_at(raw, (seg,))
        node = child_schema(revision, node, seg, raw)
        if node is None:
            return None
    return node
