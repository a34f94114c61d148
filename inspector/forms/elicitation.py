"""Helpers for answering ``elicitation/create`` form requests from a script.

SEP-1034: every primitive in a ``requestedSchema`` may carry a ``default``,
and a client that supports defaults pre-populates its fields with them.
`apply_defaults` does that for a client without a form: it returns a
``content`` object with each property's default filled in.
"""

from __future__ import annotations

import copy
from typing import Any

from inspector.forms.refs import RefError, RefResolver
from inspector.forms.values import JSONObject, Schema

__all__ = ["apply_defaults"]


def apply_defaults(requested_schema: Schema, content: JSONObject | None = None) -> JSONObject:
    """*content* (or ``{}``) with every missing property that has a ``default`` filled in.

    Values already in *content* win.  Local ``$ref``s are followed, and nested
    objects present in *content* (or given by a default) get their own
    properties' defaults too.  The inputs are not modified.
    """
    resolver = RefResolver(requested_schema)
    result = copy.deepcopy(content) if content else {}
    return _fill(requested_schema, None, result, resolver, 0)


def _resolve(schema: Any, scope: Any, resolver: RefResolver) -> tuple[JSONObject, Any]:
    """*schema* with its top-level ``$ref``s followed (siblings win), and the scope it ends in."""
    for _ in range(32):
        if not isinstance(schema, dict):
            return {}, scope
        ref = schema.get("$ref")
        if not isinstance(ref, str):
            return schema, scope
        try:
            target = resolver.lookup(ref, resolver.scope_of(schema, scope))
        except RefError:
            return schema, scope
        scope = target.scope
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target.schema, **siblings} if isinstance(target.schema, dict) else siblings
    return {}, scope


def _fill(schema: Any, scope: Any, content: JSONObject, resolver: RefResolver, depth: int) -> JSONObject:
    if depth > 32:
        return content
    resolved, scope = _resolve(schema, scope, resolver)
    props = resolved.get("properties")
    if not isinstance(props, dict):
        return content
    for key, prop in props.items():
        sub, sub_scope = _resolve(prop, scope, resolver)
        if key not in content and "default" in sub:
            content[key] = copy.deepcopy(sub["default"])
        if isinstance(content.get(key), dict):
            content[key] = _fill(sub, sub_scope, content[key], resolver, depth + 1)
    return content
