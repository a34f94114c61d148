"""Bounds on what a server's schema may make the forms layer do.

jsonschema, the form builder and the lint rules all walk schemas
recursively; a schema nested thousands of levels deep, or a ``$ref`` that
leads back to itself without descending into the value, would end in
RecursionError (or worse, in a worker thread with a small stack).  These
checks run first, without recursion, so every caller can say clearly why a
schema is not used.
"""

from __future__ import annotations

from typing import Any

from inspector.forms.paths import Path
from inspector.forms.refs import RefError, RefResolver
from inspector.forms.values import JSONObject

__all__ = ["MAX_SCHEMA_DEPTH", "nested_deeper_than", "ref_cycles"]

MAX_SCHEMA_DEPTH = 100
"""JSON nesting levels (objects and arrays) a schema may have; about 50 levels of
nested ``properties``, far beyond any real tool, and within what jsonschema's
recursive meta-schema check survives."""

_MAX_NODES = 20_000
_DATA_KEYS = frozenset({"enum", "const", "default", "examples", "example"})


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether *value* (any JSON) nests objects / arrays more than *limit* levels deep."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def _subschemas(root: JSONObject) -> list[tuple[Path, JSONObject]]:
    """Every object under *root* that may be a schema, with its path (instance data skipped)."""
    out: list[tuple[Path, JSONObject]] = []
    stack: list[tuple[Path, Any]] = [((), root)]
    while stack and len(out) < _MAX_NODES:
        path, node = stack.pop()
        if isinstance(node, dict):
            out.append((path, node))
            stack.extend(((*path, k), v) for k, v in node.items() if k not in _DATA_KEYS)
        elif isinstance(node, list):
            stack.extend(((*path, i), v) for i, v in enumerate(node))
    return out


def _in_place(node: JSONObject, scope: Any, resolver: RefResolver) -> list[tuple[JSONObject, Any]]:
    """The schemas *node* applies to the same place in the value (no descent into it), each
    with the scope it is reached in (*scope*: the one *node* was reached in, None for the document's)."""
    out: list[tuple[Any, Any]] = []
    ref = node.get("$ref")
    if isinstance(ref, str):
        try:
            target = resolver.lookup(ref, resolver.scope_of(node, scope))
        except RefError:
            pass  # reported by the $ref check
        else:
            out.append((target.schema, target.scope))
    for word in ("allOf", "anyOf", "oneOf"):
        members = node.get(word)
        if isinstance(members, list):
            out.extend((member, scope) for member in members)
    for word in ("not", "if", "then", "else"):
        if word in node:
            out.append((node[word], scope))
    dependent = node.get("dependentSchemas")
    if isinstance(dependent, dict):
        out.extend((member, scope) for member in dependent.values())
    return [(member, where) for member, where in out if isinstance(member, dict)]


def ref_cycles(root: Any) -> list[tuple[Path, str]]:
    """``$ref`` loops that never descend into the value: (path of a ``$ref`` in it, message).

    ``{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}``
    can be expanded forever without reaching a keyword that checks anything.
    Recursion through ``properties`` or ``items`` is fine (the value ends).
    """
    if not isinstance(root, dict):
        return []
    resolver = RefResolver(root)
    nodes = _subschemas(root)
    paths = {id(node): path for path, node in nodes}
    state: dict[int, int] = {}  # 1: on the current walk, 2: done
    found: list[tuple[Path, str]] = []
    for _, start in nodes:
        if id(start) in state:
            continue
        trail: list[JSONObject] = [start]
        pending: list[list[tuple[JSONObject, Any]]] = [_in_place(start, None, resolver)]
        state[id(start)] = 1
        while trail:
            if not pending[-1]:
                state[id(trail.pop())] = 2
                pending.pop()
                continue
            target, scope = pending[-1].pop()
            mark = state.get(id(target))
            if mark == 1:
                loop = trail[next(i for i, n in enumerate(trail) if n is target) :]
                refs = [n["$ref"] for n in loop if isinstance(n.get("$ref"), str)]
                where = next((n for n in loop if isinstance(n.get("$ref"), str)), loop[0])
                chain = " → ".join(repr(r) for r in refs) or "(allOf / anyOf / oneOf)"
                found.append(
                    (
                        (*paths.get(id(where), ()), "$ref"),
                        f"$ref cycle: {chain} leads back to itself without descending into the value",
                    )
                )
                if len(found) >= 5:
                    return found
            elif mark is None and len(state) < _MAX_NODES:
                state[id(target)] = 1
                trail.append(target)
                pending.append(_in_place(target, scope, resolver))
    return found
