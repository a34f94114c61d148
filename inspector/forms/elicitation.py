"""Helpers for answering ``elicitation/create`` form requests from a script.

SEP-1034: every primitive in a ``requestedSchema`` may carry a ``default``,
and a client that supports defaults pre-populates its fields with them.
`apply_defaults` does that for a client without a form: it returns a
``content`` object with each property's default filled in.
"""

from __future__ import annotations

import copy
from typing import Any

from .refs import RefError, RefResolver
from .values import JSONObject, Schema

__all__ = ["apply_defaults"]


def apply_defaults(requested_schema: Schema, content: JSONObject | None = None) -> JSONObject:
    """*content* (or ``{}``) with every missing property that has a ``default`` filled in.

    Values already in *content* win.  Local ``$ref``s are followed, and nested
    objects present in *content* (or given by a default) get their own
    properties' defaults too.  The inputs are not modified.
    """
    resolver = RefResolver(requested_schema)
    result = copy.deepcopy(content) if content else {}
    return _fill(requested_schema, result, resolver, 0)


def _resolve(schema: Any, resolver: RefResolver) -> JSONObject:
    for _ in range(32):
        if not isinstance(schema, dict):
            return {}
        ref = schema.get("$ref")
        if not isinstance(ref, str):
            return schema
        try:
            target = resolver.resolve(ref)
        except RefError:
            return schema
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **siblings} if isinstance(target, dict) else siblings
    return {}


def _fill(schema: Any, content: JSONObject, resolver: RefResolver, depth: int) -> JSONObject:
    if depth > 32:
        return content
    props = _resolve(schema, resolver).get("properties")
    if not isinstance(props, dict):
        return content
    for key, prop in props.items():
        sub = _resolve(prop, resolver)
        if key not in content and "default" in sub:
            content[key] = copy.deepcopy(sub["default"])
        if isinstance(content.get(key), dict):
            content[key] = _fill(sub, content[key], resolver, depth + 1)
    return content
