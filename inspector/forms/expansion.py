"""A schema made ready to classify: its top-level ``$ref`` followed and its ``allOf`` merged.

The build walks the schema with a `BuildContext`, which carries the bounds of
the walk (how often one ``$ref`` may nest in itself, how deep fields may
nest, how many nodes one step may make) and where the last ``$ref`` led.
Whatever a form cannot show raises `Fallback` with the reason a person
reads next to the raw-JSON editor that takes its place.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from inspector.forms.merge import MergeConflict, merge_schemas
from inspector.forms.node_base import FormContext
from inspector.forms.refs import RefError, RefResolver, Target
from inspector.forms.values import JSONObject, Schema

__all__ = ["Budget", "BuildContext", "Fallback", "expand", "without_annotations"]

_ANNOTATIONS = ("title", "description", "default", "examples", "example", "$comment")
_DOCUMENT_KEYS = ("$schema", "$id", "$defs", "definitions", "$anchor")
_MAX_STEPS = 64


class Fallback(Exception):
    """This part of the schema is edited as raw JSON, for ``reason``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Budget:
    """How many more nodes one build step may create (shared by the whole step)."""

    remaining: int


@dataclass(frozen=True)
class BuildContext:
    """Where the build is: the form's shared context, the resolver, the bounds and what led here."""

    form: FormContext
    resolver: RefResolver
    recursion_limit: int
    max_depth: int
    max_nodes: int
    budget: Budget
    refs: tuple[int, ...] = field(default=())  # the ``$ref`` targets expanded on the way here, by identity
    scope: Any = None  # where the last ``$ref`` led (`RefResolver.scope_of`); None: the document's
    depth: int = 0

    def deeper(self) -> BuildContext:
        """The context one level of nesting down."""
        return replace(self, depth=self.depth + 1)

    def fresh(self) -> BuildContext:
        """The context with a new node budget, for a new build step."""
        return replace(self, budget=Budget(self.max_nodes))

    def with_ref(self, target: Target) -> BuildContext:
        """The context after following a ``$ref`` to *target*: noted on the way, its scope in force."""
        return replace(self, refs=(*self.refs, id(target.schema)), scope=target.scope)


def expand(schema: Schema, ctx: BuildContext) -> tuple[JSONObject, BuildContext]:
    """Resolve top-level ``$ref`` and merge ``allOf`` until neither is left."""
    expanded_here: set[int] = set()  # a $ref target met twice without a descent is a cycle
    for _ in range(_MAX_STEPS):
        if schema is True:
            return {}, ctx
        if schema is False:
            raise Fallback("the schema allows no value here (false)")
        if not isinstance(schema, dict):
            raise Fallback("the schema is not a JSON object")
        if "$ref" in schema:
            schema, ctx = _follow_ref(schema, ctx, expanded_here)
        elif "allOf" in schema:
            schema, ctx = _merge_all_of(schema, ctx)
        else:
            return schema, ctx
    raise Fallback("$ref / allOf chain too long")


def _follow_ref(schema: JSONObject, ctx: BuildContext, expanded_here: set[int]) -> tuple[Schema, BuildContext]:
    """*schema*'s ``$ref`` target, merged with the keywords beside the ``$ref``."""
    ref = schema["$ref"]
    if not isinstance(ref, str):
        raise Fallback("$ref must be a string")
    try:
        found = ctx.resolver.lookup(ref, ctx.resolver.scope_of(schema, ctx.scope))
    except RefError as exc:
        raise Fallback(exc.reason) from None
    target = found.schema
    if found.meta:
        raise Fallback(f"$ref {ref!r} points into a JSON Schema meta-schema (the value is a schema)")
    if target is False:
        raise Fallback(f"$ref {ref!r} allows no value (false)")
    if target is True:
        target = {}
    else:
        _check_recursion(ref, target, ctx, expanded_here)
        ctx = ctx.with_ref(found)
    siblings = {k: v for k, v in schema.items() if k != "$ref"}
    return (_merge([siblings, target], "$ref") if siblings else target), ctx


def _check_recursion(ref: str, target: Any, ctx: BuildContext, expanded_here: set[int]) -> None:
    """Refuse a ``$ref`` cycle with no field between, or one ``$ref`` nested too often in itself."""
    if id(target) in expanded_here:
        raise Fallback(f"$ref cycle through {ref!r} never reaches a schema; edit this part as JSON")
    expanded_here.add(id(target))
    if ctx.refs.count(id(target)) >= ctx.recursion_limit:
        raise Fallback(f"recursive $ref {ref!r} nested more than {ctx.recursion_limit} times; edit this part as JSON")


def _merge_all_of(schema: JSONObject, ctx: BuildContext) -> tuple[JSONObject, BuildContext]:
    """*schema* with its ``allOf`` members (each expanded first) merged into it."""
    members = schema["allOf"]
    if not isinstance(members, list):
        raise Fallback("allOf is not a list")
    base = {k: v for k, v in schema.items() if k != "allOf"}
    expanded: list[Any] = [base]
    here = ctx.scope  # every member is written where the allOf is, whatever the one before led to
    for member in members:
        part, ctx = expand(member, replace(ctx, scope=here))
        expanded.append(part)
    return _merge(expanded, "allOf"), ctx


def _merge(schemas: list[Any], what: str) -> JSONObject:
    """*schemas* merged into one, or `Fallback` naming *what* combined them."""
    try:
        return merge_schemas(schemas)
    except MergeConflict as exc:
        raise Fallback(f"{what} cannot be combined into one form field: {exc.reason}") from None


def without_annotations(schema: JSONObject, *more: str) -> JSONObject:
    """*schema* without its annotations, its document keywords and the keywords *more*."""
    drop = {*_ANNOTATIONS, *_DOCUMENT_KEYS, *more}
    return {k: v for k, v in schema.items() if k not in drop}
