"""A value validated strictly against a wire model, pydantic's errors made readable.

JSON has no "yes" for true and no "3" for 3, so validation is strict.  A
failed union makes pydantic report every member's errors; `validate_model`
keeps the branch the value was meant for (the member its "type" names, or
the one with the fewest errors) and says, for each error left, which
model's field it is and the type that field declares, in JSON terms.
"""

from __future__ import annotations

import json
import types
from dataclasses import dataclass, field
from functools import cache
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from inspector.core.checks.wire_models import MISSING, aliases, is_model, value_at
from inspector.forms.paths import format_path
from inspector.forms.values import json_type_name, short_json

__all__ = ["ModelIssue", "class_at", "describe", "validate_model"]


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
        """The path as shown: ``result.tools[3].inputSchema``."""
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
                node = MISSING
            else:
                tags.append((len(path), str(seg)))
        return cls(path, tags, err_type, str(err.get("msg", "")), err.get("input"), dict(err.get("ctx") or {}), loc)


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
    value = value_at(root, where)
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
        got = "nothing" if value is MISSING else f"{json_type_name(value)} {short_json(value, 40)}"
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


# -- declared types, in JSON terms ---------------------------------------------------


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


# The types `describe` names as they are (compared by identity).
_PLAIN_TYPES = ((str, "string"), (bool, "boolean"), (int, "integer"), (float, "number"), (Any, "any JSON value"))


def describe(annotation: Any) -> str:
    """A declared type in JSON terms: ``string``, ``"object"``, ``array of Tool``."""
    annotation = _strip_optional(annotation)
    for plain, name in _PLAIN_TYPES:
        if annotation is plain:
            return name
    origin = get_origin(annotation)
    if origin is Literal:
        return " | ".join(json.dumps(a) for a in get_args(annotation))
    if origin is list:
        args = get_args(annotation)
        return f"array of {describe(args[0])}" if args else "array"
    if origin is dict:
        return "object"
    if origin is Union or isinstance(annotation, types.UnionType):
        return " | ".join(dict.fromkeys(describe(a) for a in get_args(annotation)))
    if is_model(annotation):
        return str(annotation.__name__)
    return getattr(annotation, "__name__", str(annotation))


def class_at(model: Any, loc: tuple[Any, ...]) -> tuple[str, str, str]:
    """(class name, field wire name, declared type) of the field a pydantic `loc` ends at."""
    current: Any = model
    owner, field_name, expected = "", "", ""
    for seg in loc:
        current = _strip_optional(current)
        if is_model(current) and isinstance(seg, str) and seg in aliases(current):
            info = current.model_fields[aliases(current)[seg]]
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


def _quoted(expected: Any) -> str:
    """pydantic's ``'a' or 'b'`` in JSON's quotes."""
    return str(expected).replace("'", '"')
