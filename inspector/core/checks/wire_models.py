"""The wire models of each revision, and pydantic's findings turned into ours.

`mcp_types` holds pydantic models for two schema eras: 2025-11-25 (used, as
`mcp_types.methods` itself does, for every handshake revision) and
2026-07-28; it has none for the older revisions.  This module looks models
up by method and revision, validates a value strictly (JSON has no "yes" for
true, no "3" for 3), condenses pydantic's union noise into the one branch
that was meant, and walks a validated value for fields the negotiated
revision does not define.

For the three revisions older than 2025-11-25 the 2025-11-25 models check
the shape (no field became required since 2024-11-05 apart from the
JSON-RPC envelope, so nothing valid then fails now), and then the
revision's own schema (`wire_schemas/<rev>.json`, a copy of the spec's
schema.json) checks what grew since: content types and other union
members, enum values, fields (`revision_issues`), and which fields it had
at all (`field_notes`).

Importing this module is cheap; the first lookup imports `mcp_types`
(about a quarter of a second), which the plain scripting path never does.
"""

from __future__ import annotations

import importlib
import json
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args, get_origin

from inspector.core.protocol.versions import KNOWN_VERSIONS, MODERN_VERSIONS
from inspector.forms.paths import format_path
from inspector.forms.values import json_type_name, short_json

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = [
    "ITEM_FIELDS",
    "OLD_REVISIONS",
    "FieldNote",
    "ModelIssue",
    "RevisionIssue",
    "class_at",
    "field_notes",
    "item_model",
    "model_for",
    "revision_issues",
    "schema_revision",
    "validate_model",
]

# Revisions checked with the 2025-11-25 models plus their own field lists.
OLD_REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18")

# list method -> (result key, item kind)
ITEM_FIELDS: dict[str, tuple[str, str]] = {
    "tools/list": ("tools", "tools"),
    "resources/list": ("resources", "resources"),
    "resources/templates/list": ("resourceTemplates", "templates"),
    "prompts/list": ("prompts", "prompts"),
}

# Surfaces: which side sends what.
CLIENT_REQUEST = "client-request"
SERVER_REQUEST = "server-request"
CLIENT_NOTIFICATION = "client-notification"
SERVER_NOTIFICATION = "server-notification"
SERVER_RESULT = "server-result"  # the result of a request the client sent
CLIENT_RESULT = "client-result"  # the result of a request the server sent

_SURFACE_MAPS = {
    CLIENT_REQUEST: "CLIENT_REQUESTS",
    SERVER_REQUEST: "SERVER_REQUESTS",
    CLIENT_NOTIFICATION: "CLIENT_NOTIFICATIONS",
    SERVER_NOTIFICATION: "SERVER_NOTIFICATIONS",
    SERVER_RESULT: "SERVER_RESULTS",
    CLIENT_RESULT: "CLIENT_RESULTS",
}

# mcp_types leaves the experimental 2025-11-25 task methods out of its
# method maps on purpose; the models exist, so the inspector adds them.
_TASK_MODELS_2025 = {
    CLIENT_REQUEST: {
        "tasks/get": "GetTaskRequest",
        "tasks/result": "GetTaskPayloadRequest",
        "tasks/list": "ListTasksRequest",
        "tasks/cancel": "CancelTaskRequest",
    },
    SERVER_RESULT: {
        "tasks/get": "GetTaskResult",
        "tasks/result": "GetTaskPayloadResult",
        "tasks/list": "ListTasksResult",
        "tasks/cancel": "CancelTaskResult",
    },
    SERVER_NOTIFICATION: {"notifications/tasks/status": "TaskStatusNotification"},
    CLIENT_NOTIFICATION: {"notifications/tasks/status": "TaskStatusNotification"},
}


def schema_revision(revision: str) -> str:
    """The revision whose models check `revision` (2025-11-25 for every handshake revision)."""
    return "2026-07-28" if revision in MODERN_VERSIONS else "2025-11-25"


@cache
def _methods() -> Any:
    return importlib.import_module("mcp_types.methods")


@cache
def _module(schema_rev: str) -> Any:
    name = "_v2026_07_28" if schema_rev == "2026-07-28" else "_v2025_11_25"
    return importlib.import_module(f"mcp_types.{name}")


def model_for(surface: str, method: str, revision: str) -> Any:
    """The model (class or union) for a method in a revision; None when the revision lacks the method."""
    if revision not in KNOWN_VERSIONS:
        return None
    table = getattr(_methods(), _SURFACE_MAPS[surface])
    found = table.get((method, revision))
    if found is not None:
        return found
    if revision == "2025-11-25":
        name = _TASK_MODELS_2025.get(surface, {}).get(method)
        if name is not None:
            return getattr(_module("2025-11-25"), name)
    return None


def revisions_with(surface: str, method: str) -> list[str]:
    """Every revision that defines `method` on this surface."""
    table = getattr(_methods(), _SURFACE_MAPS[surface])
    found = [rev for rev in KNOWN_VERSIONS if (method, rev) in table]
    if method in _TASK_MODELS_2025.get(surface, {}) and "2025-11-25" not in found:
        found.append("2025-11-25")
    return found


def union_arms(model: Any) -> tuple[Any, ...]:
    if isinstance(model, types.UnionType) or get_origin(model) is Union:
        return get_args(model)
    return (model,)


def named_model(revision: str, name: str) -> Any:
    return getattr(_module(schema_revision(revision)), name, None)


def item_model(result_model: Any, key: str) -> Any:
    """The item class of a list result (`Tool` for `ListToolsResult.tools`)."""
    info = result_model.model_fields.get(_field_name(result_model, key))
    if info is None:
        return None
    args = get_args(info.annotation)
    return args[0] if args else None


# -- validation ------------------------------------------------------------------

_MISSING = object()


@dataclass(slots=True)
class ModelIssue:
    """One condensed validation error: a data path, what is wrong, and the type the schema wants."""

    path: tuple[str | int, ...]
    message: str
    kind: str  # pydantic's error type ("missing", "literal_error", ...) or "union"
    model: str = ""  # the class holding the failing field
    field: str = ""  # that field's wire name
    expected: str = ""  # the field's declared type, in JSON terms

    @property
    def display_path(self) -> str:
        return format_path(self.path)


def validate_model(model: Any, value: Any) -> tuple[Any, list[ModelIssue]]:
    """Validate strictly; (the model instance or None, condensed issues)."""
    from pydantic import ValidationError

    try:
        if isinstance(model, type) and hasattr(model, "model_validate"):
            return model.model_validate(value, strict=True, by_alias=True, by_name=False), []
        return _adapter(model).validate_python(value, strict=True, by_alias=True, by_name=False), []
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_context=True)
    except (TypeError, ValueError, RecursionError) as exc:  # a pathological value
        return None, [ModelIssue((), f"could not be validated: {exc}", "internal")]
    raw = [_RawError.from_pydantic(err, value) for err in errors]
    issues = [issue for issue in (_issue(model, err, value) for err in _condense(raw, value)) if issue is not None]
    return None, issues


@cache
def _adapter(model: Any) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(model)


@dataclass(slots=True)
class _RawError:
    path: list[str | int]
    tags: list[tuple[int, str]]  # (data depth, union member tag)
    type: str
    msg: str
    input: Any
    ctx: dict[str, Any] = field(default_factory=dict)
    loc: tuple[Any, ...] = ()

    @classmethod
    def from_pydantic(cls, err: Any, root: Any) -> _RawError:
        loc = tuple(err.get("loc", ()))
        err_type = str(err.get("type", ""))
        path: list[str | int] = []
        tags: list[tuple[int, str]] = []
        node: Any = root
        for i, seg in enumerate(loc):
            last = i == len(loc) - 1
            in_list = isinstance(seg, int) and isinstance(node, list) and 0 <= seg < len(node)
            if in_list or (isinstance(seg, str) and isinstance(node, dict) and seg in node):
                path.append(seg)
                node = node[seg]
            elif isinstance(seg, str) and isinstance(node, dict) and last and err_type == "missing":
                path.append(seg)
                node = _MISSING
            else:
                tags.append((len(path), str(seg)))
        return cls(path, tags, err_type, str(err.get("msg", "")), err.get("input"), dict(err.get("ctx") or {}), loc)


def _at(root: Any, path: list[str | int] | tuple[str | int, ...]) -> Any:
    node = root
    for seg in path:
        try:
            node = node[seg]
        except (KeyError, IndexError, TypeError):
            return _MISSING
    return node


def _condense(errors: list[_RawError], root: Any) -> list[_RawError]:
    """Keep, for every union that failed, only the branch the value was meant for."""
    out: list[_RawError] = []
    pending = errors
    for _ in range(64):
        tagged = [e for e in pending if e.tags]
        out.extend(e for e in pending if not e.tags)
        if not tagged:
            break
        groups: dict[tuple[Any, ...], list[_RawError]] = {}
        for error in tagged:
            depth = error.tags[0][0]
            groups.setdefault(tuple(error.path[:depth]), []).append(error)
        pending = []
        for where, group in groups.items():
            branches: dict[str, list[_RawError]] = {}
            for error in group:
                branches.setdefault(error.tags[0][1], []).append(error)
            chosen, summary = _choose(list(where), branches, root)
            if summary is not None:
                out.append(summary)
                continue
            for error in branches[chosen]:
                error.tags = error.tags[1:]
                pending.append(error)
    return out


_TAG_NAMES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean", "none": "null"}


def _tag_name(tag: str) -> str:
    if tag in _TAG_NAMES:
        return _TAG_NAMES[tag]
    if tag.startswith("dict["):
        return "object"
    if tag.startswith("list["):
        return "array"
    if tag.startswith("literal["):
        return tag[len("literal[") : -1]
    return tag


def _choose(where: list[str | int], branches: dict[str, list[_RawError]], root: Any) -> tuple[str, _RawError | None]:
    value = _at(root, where)
    if isinstance(value, dict) and "type" in value:
        type_path = [*where, "type"]
        matching = [
            tag
            for tag, errs in branches.items()
            if not any(e.path == type_path and e.type == "literal_error" and len(e.tags) == 1 for e in errs)
        ]
        if matching:
            return min(matching, key=lambda tag: len(branches[tag])), None
        expected = []
        for errs in branches.values():
            for e in errs:
                if e.path == type_path and e.type == "literal_error":
                    expected.append(_quoted(e.ctx.get("expected", "")))
        message = f"unknown type {short_json(value['type'], 40)}; expected one of {', '.join(expected)}"
        return "", _RawError(type_path, [], "union", message, value["type"])
    # A value of the wrong JSON type for every branch: say so once.
    if all(len(errs) == 1 and errs[0].path == where for errs in branches.values()):
        wanted = " or ".join(dict.fromkeys(_tag_name(tag) for tag in branches))
        got = "nothing" if value is _MISSING else f"{json_type_name(value)} {short_json(value, 40)}"
        return "", _RawError(list(where), [], "union", f"expected {wanted}, got {got}", value)
    return min(branches, key=lambda tag: len(branches[tag])), None


_TYPE_WORDS = {
    "string_type": "a string",
    "int_type": "an integer",
    "float_type": "a number",
    "bool_type": "a boolean",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "list_type": "an array",
    "none_type": "null",
}


def _issue(model: Any, error: _RawError, root: Any) -> ModelIssue | None:
    if error.type == "int_type" and isinstance(error.input, float) and error.input.is_integer():
        return None  # 5.0 is an integer in JSON Schema
    if error.type == "missing":
        message = "required field is missing"
    elif error.type in _TYPE_WORDS:
        message = f"expected {_TYPE_WORDS[error.type]}, got {json_type_name(error.input)} {short_json(error.input, 40)}"
    elif error.type == "literal_error":
        message = f"must be {_quoted(error.ctx.get('expected', '?'))}, got {short_json(error.input, 40)}"
    else:
        message = error.msg
    owner, field_name, expected = class_at(model, error.loc)
    return ModelIssue(tuple(error.path), message, error.type, owner, field_name, expected)


# -- walking models ------------------------------------------------------------------


def _strip_optional(annotation: Any) -> Any:
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
            continue
        if origin is Union or isinstance(annotation, types.UnionType):
            members = [a for a in get_args(annotation) if a is not type(None)]
            if len(members) == 1:
                annotation = members[0]
                continue
        return annotation


def _is_model(obj: Any) -> bool:
    return isinstance(obj, type) and hasattr(obj, "model_fields")


@cache
def _aliases(model: type) -> dict[str, str]:
    """wire name -> attribute name."""
    out = {}
    for name, info in model.model_fields.items():  # type: ignore[attr-defined]
        out[info.alias or name] = name
    return out


def _field_name(model: Any, wire: str) -> str:
    return _aliases(model).get(wire, wire)


def describe(annotation: Any) -> str:
    """A declared type in JSON terms: ``string``, ``"object"``, ``array of Tool``."""
    annotation = _strip_optional(annotation)
    origin = get_origin(annotation)
    if annotation is str:
        return "string"
    if annotation is bool:
        return "boolean"
    if annotation is int:
        return "integer"
    if annotation is float:
        return "number"
    if annotation is Any:
        return "any JSON value"
    if origin is Literal:
        return " | ".join(json.dumps(a) for a in get_args(annotation))
    if origin is list:
        args = get_args(annotation)
        return f"array of {describe(args[0])}" if args else "array"
    if origin is dict:
        return "object"
    if origin is Union or isinstance(annotation, types.UnionType):
        return " | ".join(dict.fromkeys(describe(a) for a in get_args(annotation)))
    if _is_model(annotation):
        return str(annotation.__name__)
    return getattr(annotation, "__name__", str(annotation))


def class_at(model: Any, loc: tuple[Any, ...]) -> tuple[str, str, str]:
    """(class name, field wire name, declared type) of the field a pydantic `loc` ends at."""
    current: Any = model
    owner, field_name, expected = "", "", ""
    for seg in loc:
        current = _strip_optional(current)
        if _is_model(current) and isinstance(seg, str) and seg in _aliases(current):
            info = current.model_fields[_aliases(current)[seg]]
            # Generated names of inline objects carry a number ("Params1"): drop it.
            owner, field_name, expected = current.__name__.rstrip("0123456789"), seg, describe(info.annotation)
            current = info.annotation
            continue
        origin = get_origin(current)
        if origin is list and isinstance(seg, int):
            args = get_args(current)
            current = args[0] if args else Any
            continue
        if origin is dict:
            args = get_args(current)
            current = args[1] if len(args) == 2 else Any
            continue
        if origin is Union or isinstance(current, types.UnionType):
            for arm in get_args(current):
                if getattr(arm, "__name__", None) == seg:
                    current = arm
                    break
            continue
        break
    return owner, field_name, expected


# -- the revision's own schema (the revisions older than 2025-11-25) ---------------------
#
# `mcp_types` has models for 2025-11-25 and 2026-07-28 only.  A message of an
# older session is checked with the 2025-11-25 models first (no field became
# required since 2024-11-05, so nothing valid then fails there), then against
# the revision's own schema.json, which knows what the 2025-11-25 models
# cannot: which content types, union members and enum values that revision
# had, and which fields.  The schema is walked along the value (a `$ref`
# followed, a union resolved by the value's "type" or by which member it
# fits), so a field is looked up where it sits, not by a class name.

_DEF_PREFIX = "#/definitions/"


@cache
def _old_definitions(revision: str) -> JSONObject:
    """Definition name -> schema, from the copy of the revision's schema.json."""
    text = resources.files("inspector.core.checks").joinpath("wire_schemas", f"{revision}.json").read_text("utf-8")
    document = json.loads(text)
    definitions = document.get("definitions") or document.get("$defs") or {}
    return definitions if isinstance(definitions, dict) else {}


@cache
def _old_document(revision: str) -> dict[str, Any]:
    """The revision's definitions as a draft-07 document: what its `$ref`s resolve against."""
    return {"$schema": "http://json-schema.org/draft-07/schema#", "definitions": _old_definitions(revision)}


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
def _old_validator(revision: str, name: str) -> Any:
    """A validator for one definition of an old revision (None when it has no such definition)."""
    if name not in _old_definitions(revision):
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


def _tags(revision: str, branch: Any, depth: int = 0) -> tuple[str, ...] | None:
    """The "type" values a union member allows (its discriminator); None when it has none."""
    node = _deref(revision, branch)
    if not isinstance(node, dict) or depth > 8:
        return None
    nested = _branches(node)
    if nested is not None:
        found: list[str] = []
        for member in nested:
            tags = _tags(revision, member, depth + 1)
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


def _ref_name(revision: str, branch: Any) -> str:
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


def _settle(revision: str, node: Any, raw: Any) -> JSONObject | None:
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
            tagged = [b for b in branches if raw["type"] in (_tags(revision, b) or ())]
            if len(tagged) == 1:
                node = tagged[0]
                continue
        fitting = [b for b in (tagged or branches) if _fits(revision, b, raw)]
        if not fitting:
            return None
        node = fitting[0]
    return None


def _child(revision: str, node: JSONObject | None, key: str | int, raw: Any) -> JSONObject | None:
    """The settled schema of `key` (a property name or an array index) under `node`."""
    if node is None:
        return None
    if isinstance(key, int):
        items = node.get("items")
        return _settle(revision, items, raw) if isinstance(items, dict) else None
    properties = node.get("properties")
    if isinstance(properties, dict) and key in properties:
        return _settle(revision, properties[key], raw)
    extra = node.get("additionalProperties")
    return _settle(revision, extra, raw) if isinstance(extra, dict) else None


def _declares(node: JSONObject, key: str) -> bool:
    properties = node.get("properties")
    return isinstance(properties, dict) and key in properties


def _closed(node: JSONObject) -> bool:
    """Whether the schema names its fields (an object with properties and no additionalProperties)."""
    return isinstance(node.get("properties"), dict) and "additionalProperties" not in node


def _old_node_at(revision: str, root: str, raw_root: Any, path: tuple[str | int, ...]) -> JSONObject | None:
    node = _settle(revision, _old_definitions(revision).get(root), raw_root)
    raw = raw_root
    for seg in path:
        raw = _at(raw, (seg,))
        node = _child(revision, node, seg, raw)
        if node is None:
            return None
    return node


# -- fields the revision does not define -------------------------------------------


@dataclass(frozen=True, slots=True)
class FieldNote:
    """A field used in a message that the negotiated revision does not define."""

    path: tuple[str | int, ...]
    model: str
    field: str
    # The first revision that has it (None: no revision defines it).
    added_in: str | None


# The JSON-RPC envelope: old schemas define it on a wrapper, not on each message.
_ENVELOPE = frozenset({"jsonrpc", "id", "method", "params", "result", "error"})


@dataclass(frozen=True, slots=True)
class _Walk:
    revision: str
    root: str  # the model's class name: the definition of an old revision to start from
    raw: Any
    old: bool  # the revision is checked against its own schema


def _first_revision_with(walk: _Walk, path: tuple[str | int, ...], model_name: str, wire: str) -> str | None:
    later = KNOWN_VERSIONS[KNOWN_VERSIONS.index(walk.revision) + 1 :]
    for rev in later:
        if rev in OLD_REVISIONS:
            node = _old_node_at(rev, walk.root, walk.raw, path[:-1])
            if node is not None and _declares(node, wire):
                return rev
        else:
            cls = named_model(rev, model_name)
            if _is_model(cls) and wire in _aliases(cls):
                return rev
    return None


def field_notes(instance: Any, raw: Any, revision: str, *, skip_root: int = 1) -> list[FieldNote]:
    """Fields in `raw` that `revision` does not define, found by walking the validated `instance`.

    `skip_root` levels at the top are not checked for unknown fields: a
    result's own top level may carry anything (the schema's `Result` allows
    extra keys), and so may a request's or notification's params; `_meta`
    belongs to every result, request and notification of every revision.
    """
    root = type(instance).__name__
    walk = _Walk(revision, root, raw, revision in OLD_REVISIONS)
    node = _settle(revision, _old_definitions(revision).get(root), raw) if walk.old else None
    return list(_walk(walk, instance, raw, (), skip_root, node))


def _walk(
    walk: _Walk,
    obj: Any,
    raw: Any,
    path: tuple[str | int, ...],
    skip: int,
    node: JSONObject | None,
    depth: int = 0,
) -> Iterator[FieldNote]:
    # A value the model kept as it came (a field typed Any: a tool's
    # inputSchema, a _meta) holds no model, so no field to note: its
    # subtree is not walked (it is most of a tool, and tools come by the
    # ten thousand).
    if depth > 40 or obj is raw:
        return
    revision = walk.revision
    if isinstance(obj, list) and isinstance(raw, list):
        for i, (o, r) in enumerate(zip(obj, raw, strict=False)):
            if o is not r:
                yield from _walk(walk, o, r, (*path, i), skip - 1, _child(revision, node, i, r), depth + 1)
        return
    if isinstance(obj, dict) and isinstance(raw, dict):
        for key, value in raw.items():
            if key in obj and obj[key] is not value:
                child = _child(revision, node, key, value)
                yield from _walk(walk, obj[key], value, (*path, key), skip - 1, child, depth + 1)
        return
    cls: Any = type(obj)
    if not _is_model(cls) or not isinstance(raw, dict):
        return
    aliases = _aliases(cls)
    name = cls.__name__
    free_form = cls.model_config.get("extra") == "allow"
    for key, value in raw.items():
        here = (*path, key)
        attr = aliases.get(key)
        if attr is None:
            if skip <= 0 and not free_form and not key.startswith("_"):
                yield FieldNote(here, name, key, _first_revision_with(walk, here, name, key))
            continue
        if (
            node is not None
            and not free_form
            and _closed(node)
            and not _declares(node, key)
            and key not in _ENVELOPE
            and not (key == "_meta" and skip > 0)
            and value is not None
        ):
            yield FieldNote(here, name, key, _first_revision_with(walk, here, name, key))
            child = None  # the revision has no schema for what is inside
        else:
            child = _child(revision, node, key, value)
        inner = getattr(obj, attr, None)
        if inner is not value:
            yield from _walk(walk, inner, value, here, skip - 1, child, depth + 1)


# -- values the revision does not allow ------------------------------------------------


@dataclass(frozen=True, slots=True)
class RevisionIssue:
    """A value valid in a later revision that the negotiated (older) revision's schema rejects:
    a content type, a union member, an enum value, a field it requires."""

    path: tuple[str | int, ...]
    message: str
    # The first revision that allows it (2025-11-25 at the latest: its models accepted it).
    added_in: str
    spec: str = ""

    @property
    def display_path(self) -> str:
        return format_path(self.path)


def revision_issues(instance: Any, raw: Any, revision: str) -> list[RevisionIssue]:
    """What `revision`'s own schema rejects in `raw`, which the 2025-11-25 models accepted as `instance`.

    Empty for 2025-11-25 and later (their models are the schema).
    """
    if revision not in OLD_REVISIONS:
        return []
    root = type(instance).__name__
    validator = _old_validator(revision, root)
    if validator is None:
        return []
    try:
        errors = list(validator.iter_errors(raw))
    except (RecursionError, ValueError, TypeError):
        return []
    found: list[tuple[tuple[str | int, ...], str, str]] = []
    for error in errors:
        found.extend(_explain(revision, error))
    out = []
    for path, message, spec in dict.fromkeys(found):
        added_in = _accepted_from(revision, root, raw, path)
        out.append(RevisionIssue(path, message.format(added_in=added_in), added_in, spec))
    return out[:64]


def _accepted_from(revision: str, root: str, raw: Any, path: tuple[str | int, ...]) -> str:
    """The first revision after `revision` whose schema has nothing against `raw` at `path`."""
    for rev in OLD_REVISIONS[OLD_REVISIONS.index(revision) + 1 :]:
        validator = _old_validator(rev, root)
        if validator is None:
            continue
        blocked = False
        for error in validator.iter_errors(raw):
            where = tuple(error.absolute_path)
            if where == path[: len(where)] or path == where[: len(path)]:
                blocked = True
                break
        if not blocked:
            return rev
    return "2025-11-25"


def _explain(revision: str, error: Any, depth: int = 0) -> Iterator[tuple[tuple[str | int, ...], str, str]]:
    """(path, message, spec) for one jsonschema error, unions narrowed to the member that was meant.

    The message is a `str.format` template with ``{added_in}`` for the revision that allows it.
    """
    path: tuple[str | int, ...] = tuple(error.absolute_path)
    keyword = error.validator
    instance = error.instance
    if keyword in ("anyOf", "oneOf") and isinstance(error.validator_value, list) and depth < 16:
        branches = error.validator_value
        members = " | ".join(_ref_name(revision, b) for b in branches)
        spec = f"in {revision}: {members}"
        tags = [_tags(revision, b) for b in branches]
        if isinstance(instance, dict) and isinstance(instance.get("type"), str) and all(t is not None for t in tags):
            matching = [i for i, t in enumerate(tags) if instance["type"] in (t or ())]
            if not matching:
                allowed = ", ".join(json.dumps(v) for v in dict.fromkeys(v for t in tags for v in t or ()))
                yield (
                    (*path, "type"),
                    _braces(f"type {short_json(instance['type'], 40)} is not defined in {revision}, which allows ")
                    + _braces(allowed)
                    + " here; added in {added_in}",
                    spec,
                )
                return
            by_member: dict[int, list[Any]] = {}
            for sub in error.context or ():
                if sub.relative_schema_path:
                    by_member.setdefault(int(sub.relative_schema_path[0]), []).append(sub)
            best = min(matching, key=lambda i: len(by_member.get(i, [])))
            for sub in by_member.get(best, []):
                yield from _explain(revision, sub, depth + 1)
            return
        got = _braces(f"expected {members} here in {revision}, got {json_type_name(instance)}")
        yield path, got + "; allowed from {added_in}", spec
        return
    if keyword == "required" and isinstance(instance, dict):
        for name in error.validator_value or ():
            if isinstance(name, str) and name not in instance:
                yield (
                    (*path, name),
                    f"required field is missing ({revision} requires it; optional from {{added_in}})",
                    f"required in {revision}",
                )
        return
    if keyword == "enum" and isinstance(error.validator_value, list):
        allowed = ", ".join(json.dumps(v) for v in error.validator_value)
        text = _braces(f"{short_json(instance, 40)} is not one of {allowed} in {revision}")
        yield path, text + "; added in {added_in}", f"enum in {revision}"
        return
    if keyword == "const":
        expected = json.dumps(error.validator_value)
        text = _braces(f"must be {expected} in {revision}, got {short_json(instance, 40)}")
        yield path, text + "; allowed from {added_in}", f"const in {revision}"
        return
    if keyword == "type":
        wanted = error.validator_value
        shown = " or ".join(wanted) if isinstance(wanted, list) else str(wanted)
        text = _braces(f"expected {shown} in {revision}, got {json_type_name(instance)} {short_json(instance, 40)}")
        yield path, text + "; allowed from {added_in}", f"type in {revision}"
        return
    yield path, _braces(f"{keyword}: not valid in {revision}") + "; allowed from {added_in}", f"{keyword} in {revision}"


def _braces(text: str) -> str:
    """Server text made safe for `str.format` (the message is formatted once the revision is known)."""
    return text.replace("{", "{{").replace("}", "}}")


def _quoted(expected: Any) -> str:
    """pydantic's ``'a' or 'b'`` in JSON's quotes."""
    return str(expected).replace("'", '"')
