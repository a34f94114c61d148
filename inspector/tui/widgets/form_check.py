"""Checking a form's value against its schema away from the TUI's event loop.

A server's schema is untrusted: a `pattern` may be slow to match, a schema
large.  The JSON Schema check therefore runs in a thread on a copy of the
value taken on the event loop; what it finds is filed on the form's nodes
back on the event loop, as `FormNode.validate` would file it.
"""

from __future__ import annotations

import copy

from ...forms import UNSET, FormNode, Violation, validate_value
from ...forms.values import JSONValue, Schema

__all__ = ["Snapshot", "check_snapshot", "file_violations", "snapshot"]

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


def file_violations(root: FormNode, found: list[Violation]) -> list[Violation]:
    """File the thread's findings and the form's own (text that does not
    convert, blank array items) on the nodes; returns them all."""
    for node in root._walk_all():
        node.errors = []
    for violation in found:
        root._node_for_value_path(violation.path).errors.append(violation)
    for node in root.walk():
        if node.text_error is not None:
            node.errors.append(Violation(node.path, node.text_error, "text"))
        for target, violation in node._form_violations():
            target.errors.append(violation)
    return [v for node in root.walk() for v in node.errors]
