"""The wire models of each revision: which model checks which message.

`mcp_types` holds pydantic models for two schema eras: 2025-11-25 (used, as
`mcp_types.methods` itself does, for every handshake revision) and
2026-07-28; it has none for the older revisions (`old_revision_schemas`
checks those against their own schema.json).  This module looks models up
by surface, method and revision, and answers what the other checks ask of
a model class (its fields by wire name, its list items).

The rest of the wire-model checks: `model_issues` (a value validated
strictly, pydantic's errors made readable), `field_notes` (fields the
negotiated revision does not define), `revision_issues` (values an older
revision's own schema rejects).

Importing this module is cheap; the first lookup imports `mcp_types`
(about a quarter of a second), which the plain scripting path never does.
"""

from __future__ import annotations

import importlib
import types
from functools import cache
from typing import Any, Union, get_args, get_origin

from inspector.core.protocol.versions import KNOWN_VERSIONS, MODERN_VERSIONS

__all__ = [
    "CLIENT_NOTIFICATION",
    "CLIENT_REQUEST",
    "CLIENT_RESULT",
    "ITEM_FIELDS",
    "MISSING",
    "OLD_REVISIONS",
    "SERVER_NOTIFICATION",
    "SERVER_REQUEST",
    "SERVER_RESULT",
    "aliases",
    "field_name",
    "is_model",
    "item_model",
    "model_for",
    "named_model",
    "revisions_with",
    "schema_revision",
    "union_arms",
    "value_at",
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
    """The members of a union type; a single model as the one member."""
    if isinstance(model, types.UnionType) or get_origin(model) is Union:
        return get_args(model)
    return (model,)


def named_model(revision: str, name: str) -> Any:
    """The model class called `name` among those that check `revision`; None when there is none."""
    return getattr(_module(schema_revision(revision)), name, None)


def item_model(result_model: Any, key: str) -> Any:
    """The item class of a list result (`Tool` for `ListToolsResult.tools`)."""
    info = result_model.model_fields.get(field_name(result_model, key))
    if info is None:
        return None
    args = get_args(info.annotation)
    return args[0] if args else None


def is_model(obj: Any) -> bool:
    """Whether `obj` is a pydantic model class."""
    return isinstance(obj, type) and hasattr(obj, "model_fields")


@cache
def aliases(model: type) -> dict[str, str]:
    """wire name -> attribute name."""
    out = {}
    for name, info in model.model_fields.items():  # type: ignore[attr-defined]
        out[info.alias or name] = name
    return out


def field_name(model: Any, wire: str) -> str:
    """The attribute name of the field sent as `wire` (`wire` itself when no alias names it)."""
    return aliases(model).get(wire, wire)


# -- a raw value ----------------------------------------------------------------------

# What `value_at` finds where the value has nothing.
MISSING = object()


def value_at(root: Any, path: list[str | int] | tuple[str | int, ...]) -> Any:
    """The value at `path` inside `root`, or `MISSING` where there is none."""
    node = root
    for seg in path:
        try:
            node = node[seg]
        except (KeyError, IndexError, TypeError):
            return MISSING
    return node
