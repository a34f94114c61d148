"""Fields a message uses that the negotiated revision does not define.

A validated model instance is walked along the raw value it came from.  A
field no model of the revision has is noted with the first later revision
that added it (or none: no revision defines it).  For the revisions older
than 2025-11-25 the walk also follows the revision's own schema
(`old_revision_schemas`), since the 2025-11-25 models that checked the
shape know fields the older revision did not have.  Every revision's
schema allows extra fields and a peer ignores them, so these are notes
(info), not errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.core.checks.old_revision_schemas import (
    child_schema,
    declares,
    is_closed,
    old_definitions,
    old_node_at,
    settle,
)
from inspector.core.checks.wire_models import OLD_REVISIONS, aliases, is_model, named_model
from inspector.core.protocol.versions import KNOWN_VERSIONS

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject

__all__ = ["FieldNote", "field_notes"]


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
    notes: list[FieldNote]  # what the walk found, in the order of the value


def _first_revision_with(walk: _Walk, path: tuple[str | int, ...], model_name: str, wire: str) -> str | None:
    later = KNOWN_VERSIONS[KNOWN_VERSIONS.index(walk.revision) + 1 :]
    for rev in later:
        if rev in OLD_REVISIONS:
            node = old_node_at(rev, walk.root, walk.raw, path[:-1])
            if node is not None and declares(node, wire):
                return rev
        else:
            cls = named_model(rev, model_name)
            if is_model(cls) and wire in aliases(cls):
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
    walk = _Walk(revision, root, raw, revision in OLD_REVISIONS, [])
    node = settle(revision, old_definitions(revision).get(root), raw) if walk.old else None
    _walk(walk, instance, raw, (), skip_root, node)
    return walk.notes


def _walk(
    walk: _Walk,
    obj: Any,
    raw: Any,
    path: tuple[str | int, ...],
    skip: int,
    node: JSONObject | None,
    depth: int = 0,
) -> None:
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
                _walk(walk, o, r, (*path, i), skip - 1, child_schema(revision, node, i, r), depth + 1)
        return
    if isinstance(obj, dict) and isinstance(raw, dict):
        for key, value in raw.items():
            if key in obj and obj[key] is not value:
                child = child_schema(revision, node, key, value)
                _walk(walk, obj[key], value, (*path, key), skip - 1, child, depth + 1)
        return
    if is_model(type(obj)) and isinstance(raw, dict):
        _walk_model(walk, obj, raw, path, skip, node, depth)


def _walk_model(
    walk: _Walk,
    obj: Any,
    raw: JSONObject,
    path: tuple[str | int, ...],
    skip: int,
    node: JSONObject | None,
    depth: int,
) -> None:
    cls: Any = type(obj)
    fields = aliases(cls)
    name = cls.__name__
    free_form = cls.model_config.get("extra") == "allow"
    for key, value in raw.items():
        here = (*path, key)
        attr = fields.get(key)
        if attr is None:
            if skip <= 0 and not free_form and not key.startswith("_"):
                walk.notes.append(FieldNote(here, name, key, _first_revision_with(walk, here, name, key)))
            continue
        if (
            node is not None
            and not free_form
            and is_closed(node)
            and not declares(node, key)
            and key not in _ENVELOPE
            and not (key == "_meta" and skip > 0)
            and value is not None
        ):
            walk.notes.append(FieldNote(here, name, key, _first_revision_with(walk, here, name, key)))
            child = None  # the revision has no schema for what is inside
        else:
            child = child_schema(walk.revision, node, key, value)
        inner = getattr(obj, attr, None)
        if inner is not value:
            _walk(walk, inner, value, here, skip - 1, child, depth + 1)
