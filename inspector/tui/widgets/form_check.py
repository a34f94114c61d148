"""Checking a form's value against its schema away from the TUI's event loop.

A server's schema is untrusted: a `pattern` may be slow to match, a schema
large.  The JSON Schema check therefore runs in a thread on a copy of the
value taken on the event loop; what it finds is filed on the form's nodes
back on the event loop by `FormNode.file_violations`, as `validate` files it.
"""

from __future__ import annotations

import copy

from inspector.forms import UNSET, FormNode, Violation, validate_value
from inspector.forms.values import JSONValue, Schema

__all__ = ["Snapshot", "check_snapshot", "snapshot"]

Snapshot = tuple[Schema, JSONValue | object, bool]


def snapshot(root: FormNode) -> Snapshot:
    """What the thread needs, taken on the event loop (the model is not shared)."""
    return root.context.schema, copy.deepcopy(root.to_value()), root.required


def check_snapshot(shot: Snapshot) -> list[Violation]:
    """The schema check (runs in a thread)."""
    schema, value, required = shot
    if value is UNSET:
        return [Violation((), "no value", "required")] if required else []
    return validate_value(schema, value)
