"""The wire models of each revision, and pydantic's findings turned into ours.

`mcp_types` holds pydantic models for two schema eras: 2025-11-25 (used, as
`mcp_types.methods` itself does, for every handshake revision) and
2026-07-28.  This module looks models up by method and revision, validates
a value strictly (JSON has no "yes" for true, no "3" for 3), condenses
pydantic's union noise into the one branch that was meant, and walks a
validated value for fields the negotiated revision does not define.

For the three revisions older than 2025-11-25 the 2025-11-25 models check
the shape (no field became required since 2024-11-05 apart from the
JSON-RPC envelope, so nothing valid then fails now), and the revision's own
schema (`wire_schemas/<rev>.json`, a copy of the spec's schema.json) says
which fields it had: a field the server used that did not exist yet is a
warning, not an error.

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
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from ..forms.paths import format_path
from ..forms.values import json_type_name, short_json
from .versions import KNOWN_VERSIONS, MODERN_VERSIONS

__all__ = [
    "ITEM_FIELDS",
    "OLD_REVISIONS",
    "FieldNote",
    "ModelIssue",
    "class_at",
    "field_notes",
    "item_model",
    "model_for",
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


@cache
def _old_properties(revision: str) -> dict[str, frozenset[str]]:
    """Definition name -> property names, from a copied schema.json of an old revision."""
    text = resources.files("inspector.core").joinpath("wire_schemas", f"{revision}.json").read_text("utf-8")
    document = json.loads(text)
    definitions = document.get("definitions") or document.get("$defs") or {}
    return {
        name: frozenset((definition.get("properties") or {}).keys())
        for name, definition in definitions.items()
        if isinstance(definition, dict)
    }


def _first_revision_with(model_name: str, wire: str, after: str) -> str | None:
    later = KNOWN_VERSIONS[KNOWN_VERSIONS.index(after) + 1 :]
    for rev in later:
        if rev in OLD_REVISIONS:
            props = _old_properties(rev).get(model_name)
            if props is not None and wire in props:
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
    extra keys), and so may a request's or notification's params.
    """
    old = _old_properties(revision) if revision in OLD_REVISIONS else None
    return list(_walk(instance, raw, (), revision, old, skip_root))


def _walk(
    obj: Any,
    raw: Any,
    path: tuple[str | int, ...],
    revision: str,
    old: dict[str, frozenset[str]] | None,
    skip: int,
    depth: int = 0,
) -> Iterator[FieldNote]:
    if depth > 40:
        return
    if isinstance(obj, list) and isinstance(raw, list):
        for i, (o, r) in enumerate(zip(obj, raw, strict=False)):
            yield from _walk(o, r, (*path, i), revision, old, skip - 1, depth + 1)
        return
    if isinstance(obj, dict) and isinstance(raw, dict):
        for key, value in raw.items():
            if key in obj:
                yield from _walk(obj[key], value, (*path, key), revision, old, skip - 1, depth + 1)
        return
    cls: Any = type(obj)
    if not _is_model(cls) or not isinstance(raw, dict):
        return
    aliases = _aliases(cls)
    name = cls.__name__
    free_form = cls.model_config.get("extra") == "allow"
    old_props = old.get(name) if old is not None else None
    for key, value in raw.items():
        attr = aliases.get(key)
        if attr is None:
            if skip <= 0 and not free_form and not key.startswith("_"):
                yield FieldNote((*path, key), name, key, _first_revision_with(name, key, revision))
            continue
        if old_props is not None and key not in old_props and key not in _ENVELOPE and value is not None:
            yield FieldNote((*path, key), name, key, _first_revision_with(name, key, revision))
        yield from _walk(getattr(obj, attr, None), value, (*path, key), revision, old, skip - 1, depth + 1)


def _quoted(expected: Any) -> str:
    """pydantic's ``'a' or 'b'`` in JSON's quotes."""
    return str(expected).replace("'", '"')
