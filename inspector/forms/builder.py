"""Build a form (a tree of nodes) from a JSON Schema.

`build_form` reads tool ``inputSchema``s, elicitation ``requestedSchema``s and
any other JSON Schema.  It resolves local ``$ref`` (with a recursion guard),
merges simple ``allOf``, recognises titled enums, nullables and unions, and
falls back to a `RawJsonNode` (with a ``reason``) for whatever a form cannot
show: conditionals, free-form maps, tuple arrays, unknown types, external or
too-recursive references, unmergeable ``allOf``.

Defaults: a ``default`` documents what the server does when the field is
absent, so a form starts without them (every optional field empty; a UI
shows the default as the field's ``placeholder``) and sends only what the
person gave.  ``FormNode.fill_defaults()`` is the explicit "fill defaults"
action.  ``prefill_defaults=True`` starts every field with a ``default``
holding it, as a prefilled default *counts as set*: that is what an
elicitation form wants (the spec asks clients to pre-populate it).  A
default inside an optional object that is still absent does not make that
object appear.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import unquote

from inspector.forms.choice_nodes import NullableNode, UnionNode, UnionVariant
from inspector.forms.container_nodes import ArrayNode, ObjectNode
from inspector.forms.enum_nodes import EnumNode, EnumOption, MultiSelectNode
from inspector.forms.leaf_nodes import BooleanNode, ConstNode, IntegerNode, NumberNode, RawJsonNode, StringNode
from inspector.forms.merge import MergeConflict, merge_schemas
from inspector.forms.node_base import FormContext, FormNode
from inspector.forms.paths import Path
from inspector.forms.refs import RefError, RefResolver, Target
from inspector.forms.values import JSONObject, Schema, json_text

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_NODES",
    "DEFAULT_RECURSION_LIMIT",
    "build_detached",
    "build_form",
]

DEFAULT_RECURSION_LIMIT = 3
"""How many times one ``$ref`` may be expanded inside itself before falling back to raw JSON."""

DEFAULT_MAX_DEPTH = 32
"""How deeply fields may nest before falling back to raw JSON."""

DEFAULT_MAX_NODES = 2000
"""How many nodes one build step may create (guards against explosive schemas)."""

_ANNOTATIONS = ("title", "description", "default", "examples", "example", "$comment")
_DOCUMENT_KEYS = ("$schema", "$id", "$defs", "definitions", "$anchor")
_UNSHOWN = (
    "not",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "propertyNames",
    "contains",
    "patternProperties",
    "unevaluatedProperties",
)
_OBJECT_WORDS = (
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "minProperties",
    "maxProperties",
    "propertyNames",
)
_ARRAY_WORDS = ("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains")
_STRING_WORDS = ("minLength", "maxLength", "pattern", "format", "contentMediaType", "contentEncoding")
_NUMBER_WORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_KNOWN_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")


class _Fallback(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class _Budget:
    remaining: int


@dataclass(frozen=True)
class _Ctx:
    form: FormContext
    resolver: RefResolver
    recursion_limit: int
    max_depth: int
    max_nodes: int
    budget: _Budget
    refs: tuple[int, ...] = field(default=())  # the ``$ref`` targets expanded on the way here, by identity
    scope: Any = None  # where the last ``$ref`` led (`RefResolver.scope_of`); None: the document's
    depth: int = 0

    def deeper(self) -> _Ctx:
        return replace(self, depth=self.depth + 1)

    def fresh(self) -> _Ctx:
        return replace(self, budget=_Budget(self.max_nodes))

    def with_ref(self, target: Target) -> _Ctx:
        return replace(self, refs=(*self.refs, id(target.schema)), scope=target.scope)


def build_form(
    schema: Schema,
    *,
    prefill_defaults: bool = False,
    recursion_limit: int = DEFAULT_RECURSION_LIMIT,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> FormNode:
    """Build the form for *schema*; the root node is returned in its initial state.

    The root is usually an `ObjectNode` (tool arguments), but any node kind is
    possible (a `UnionNode` for a root ``oneOf``, a `RawJsonNode` when the
    schema cannot be shown).  The root counts as required, so a root object
    starts present: an empty form gives ``{}``.
    """
    context = FormContext(schema, prefill_defaults=prefill_defaults)
    ctx = _Ctx(
        form=context,
        resolver=RefResolver(schema),
        recursion_limit=recursion_limit,
        max_depth=max_depth,
        max_nodes=DEFAULT_MAX_NODES,
        budget=_Budget(DEFAULT_MAX_NODES),
    )
    node = _build(schema, (), ctx, required=True, parent=None)
    node.reset()
    return node


def build_detached(subschema: Schema, *, root_schema: Schema, path: Path = (), scope: Any = None) -> FormNode:
    """A standalone node for *subschema*, a part of *root_schema* (whose ``$ref``s it may use).

    Used to convert text for keys that only a free-form schema describes.
    *scope* is where *subschema* sits (`UnionVariant.scope`) when it is not
    an object of *root_schema* itself.
    """
    context = FormContext(root_schema)
    ctx = _Ctx(
        form=context,
        resolver=RefResolver(root_schema),
        recursion_limit=DEFAULT_RECURSION_LIMIT,
        max_depth=DEFAULT_MAX_DEPTH,
        max_nodes=DEFAULT_MAX_NODES,
        budget=_Budget(DEFAULT_MAX_NODES),
        scope=scope,
    )
    node = _build(subschema, path, ctx, required=True, parent=None)
    node.reset()
    return node


# -- expansion -----------------------------------------------------------------


def _expand(schema: Schema, ctx: _Ctx) -> tuple[JSONObject, _Ctx]:
    """Resolve top-level ``$ref`` and merge ``allOf`` until neither is left."""
    expanded_here: set[int] = set()  # a $ref target met twice without a descent is a cycle
    for _ in range(64):
        if schema is True:
            return {}, ctx
        if schema is False:
            raise _Fallback("the schema allows no value here (false)")
        if not isinstance(schema, dict):
            raise _Fallback("the schema is not a JSON object")
        if "$ref" in schema:
            ref = schema["$ref"]
            if not isinstance(ref, str):
                raise _Fallback("$ref must be a string")
            try:
                found = ctx.resolver.lookup(ref, ctx.resolver.scope_of(schema, ctx.scope))
            except RefError as exc:
                raise _Fallback(exc.reason) from None
            target = found.schema
            if found.meta:
                raise _Fallback(f"$ref {ref!r} points into a JSON Schema meta-schema (the value is a schema)")
            if target is False:
                raise _Fallback(f"$ref {ref!r} allows no value (false)")
            if target is True:
                target = {}
            else:
                if id(target) in expanded_here:
                    raise _Fallback(f"$ref cycle through {ref!r} never reaches a schema; edit this part as JSON")
                expanded_here.add(id(target))
                if ctx.refs.count(id(target)) >= ctx.recursion_limit:
                    raise _Fallback(
                        f"recursive $ref {ref!r} nested more than {ctx.recursion_limit} times; edit this part as JSON"
                    )
                ctx = ctx.with_ref(found)
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            schema = _merge([siblings, target], "$ref") if siblings else target
            continue
        if "allOf" in schema:
            members = schema["allOf"]
            if not isinstance(members, list):
                raise _Fallback("allOf is not a list")
            base = {k: v for k, v in schema.items() if k != "allOf"}
            expanded: list[Any] = [base]
            here = ctx.scope  # every member is written where the allOf is, whatever the one before led to
            for member in members:
                part, ctx = _expand(member, replace(ctx, scope=here))
                expanded.append(part)
            schema = _merge(expanded, "allOf")
            continue
        return schema, ctx
    raise _Fallback("$ref / allOf chain too long")


def _merge(schemas: list[Any], what: str) -> JSONObject:
    try:
        return merge_schemas(schemas)
    except MergeConflict as exc:
        raise _Fallback(f"{what} cannot be combined into one form field: {exc.reason}") from None


def _strip(schema: JSONObject, *more: str) -> JSONObject:
    drop = {*_ANNOTATIONS, *_DOCUMENT_KEYS, *more}
    return {k: v for k, v in schema.items() if k not in drop}


# -- building --------------------------------------------------------------------


def _build(schema: Schema, path: Path, ctx: _Ctx, *, required: bool, parent: FormNode | None) -> FormNode:
    common: dict[str, Any] = {"path": path, "context": ctx.form, "required": required, "parent": parent}
    info = schema if isinstance(schema, dict) else {}
    try:
        if ctx.budget.remaining <= 0:
            raise _Fallback("the schema is too large to show as a form")
        ctx.budget.remaining -= 1
        if ctx.depth > ctx.max_depth:
            raise _Fallback(f"fields nest more than {ctx.max_depth} levels deep")
        if schema is True or schema == {}:
            return RawJsonNode(schema=info, reason="any JSON value (the schema sets no type)", **common)
        scope = ctx.resolver.scope_of(schema, ctx.scope)
        if scope is not ctx.scope:  # an embedded $id: the $refs below resolve against it
            ctx = replace(ctx, scope=scope)
        expanded, ctx = _expand(schema, ctx)
        info = expanded
        node = _classify(expanded, ctx, common)
    except _Fallback as fb:
        return RawJsonNode(schema=info, reason=fb.reason, **common)
    notes = [f"'{kw}' is checked on validation but not shown in the form" for kw in _UNSHOWN if kw in expanded]
    node.notes = tuple(notes)
    return node


def _types_of(schema: JSONObject) -> list[str] | None:
    declared = schema.get("type")
    if declared is None:
        return None
    if isinstance(declared, str):
        types = [declared]
    elif isinstance(declared, list) and declared and all(isinstance(t, str) for t in declared):
        types = list(dict.fromkeys(declared))
    else:
        raise _Fallback(f"'type' must be a string or a list of strings, not {json_text(declared)}")
    if "number" in types and "integer" in types:
        types.remove("integer")
    for t in types:
        if t not in _KNOWN_TYPES:
            raise _Fallback(f"unknown type {t!r}")
    return types


def _infer_type(schema: JSONObject) -> str | None:
    for words, name in (
        (_OBJECT_WORDS, "object"),
        (_ARRAY_WORDS, "array"),
        (_STRING_WORDS, "string"),
        (_NUMBER_WORDS, "number"),
    ):
        if any(w in schema for w in words):
            return name
    return None


def _enum_options(schema: JSONObject) -> tuple[EnumOption, ...] | None:
    values = schema.get("enum")
    if not isinstance(values, list) or not values:
        return None
    names = schema.get("enumNames")
    titles = names if isinstance(names, list) else []
    return tuple(
        EnumOption(v, titles[i] if i < len(titles) and isinstance(titles[i], str) else None)
        for i, v in enumerate(values)
    )


_OPTION_KEYS = {"const", "title", "description", "type", "$comment"}


def _titled_options(schema: JSONObject) -> tuple[EnumOption, ...] | None:
    for keyword in ("oneOf", "anyOf"):
        members = schema.get(keyword)
        if not isinstance(members, list) or not members:
            continue
        if not all(isinstance(m, dict) and "const" in m and set(m) <= _OPTION_KEYS for m in members):
            return None
        return tuple(
            EnumOption(
                m["const"],
                m["title"] if isinstance(m.get("title"), str) else None,
                m["description"] if isinstance(m.get("description"), str) else None,
            )
            for m in members
        )
    return None


def _options_of(schema: JSONObject) -> tuple[EnumOption, ...] | None:
    return _enum_options(schema) or _titled_options(schema)


def _is_null_schema(member: Any, ctx: _Ctx) -> bool:
    try:
        shape, _ = _expand(member, ctx)
    except _Fallback:
        return False
    if shape.get("type") == "null":
        return True
    return "const" in shape and shape["const"] is None and len(_strip(shape)) == 1


def _classify(schema: dict[str, Any], ctx: _Ctx, common: dict[str, Any]) -> FormNode:
    if "if" in schema:
        raise _Fallback("a conditional schema (if/then/else) cannot be shown as a form")
    if "const" in schema:
        return ConstNode(schema=schema, const=schema["const"], **common)
    if "enum" in schema:
        options = _enum_options(schema)
        if options is None:
            raise _Fallback("'enum' must be a non-empty list")
        return EnumNode(schema=schema, options=options, **common)
    titled = _titled_options(schema)
    if titled is not None:
        return EnumNode(schema=schema, options=titled, **common)
    types = _types_of(schema)
    if types is not None and "null" in types and len(types) > 1:
        rest = [t for t in types if t != "null"]
        inner = {**_strip(schema), "type": rest[0] if len(rest) == 1 else rest}
        return _nullable(schema, inner, ctx, common)
    for keyword in ("oneOf", "anyOf"):
        if keyword not in schema:
            continue
        members = schema[keyword]
        if not isinstance(members, list) or not members:
            raise _Fallback(f"'{keyword}' must be a non-empty list")
        base = _strip(schema, keyword)
        nulls = [i for i, m in enumerate(members) if _is_null_schema(m, ctx)]
        if nulls and len(nulls) < len(members):
            rest = [m for i, m in enumerate(members) if i not in nulls]
            inner = {**base, keyword: rest} if len(rest) > 1 else {"allOf": [base, rest[0]]}
            return _nullable(schema, inner, ctx, common)
        return _union(schema, keyword, base, members, ctx, common)
    if types is not None and len(types) > 1:
        base = _strip(schema, "type")
        return _union(schema, "type", base, [{"type": t} for t in types], ctx, common)
    kind = types[0] if types else _infer_type(schema)
    if kind is None:
        if "not" in schema:
            raise _Fallback("a 'not' schema with no type cannot be shown as a form")
        return RawJsonNode(schema=schema, reason="any JSON value (the schema sets no type)", **common)
    if kind == "object":
        return _object(schema, ctx, common)
    if kind == "array":
        return _array(schema, ctx, common)
    if kind == "string":
        return StringNode(schema=schema, **common)
    if kind == "integer":
        return IntegerNode(schema=schema, **common)
    if kind == "number":
        return NumberNode(schema=schema, **common)
    if kind == "boolean":
        return BooleanNode(schema=schema, **common)
    return ConstNode(schema=schema, const=None, **common)  # "null"


def _nullable(schema: dict[str, Any], inner: dict[str, Any], ctx: _Ctx, common: dict[str, Any]) -> FormNode:
    node = NullableNode(schema=schema, **common)
    node.inner = _build(inner, common["path"], ctx.deeper(), required=common["required"], parent=node)
    return node


def _variant_title(member: Any, shape: JSONObject | None, index: int) -> str:
    if isinstance(member, dict):
        if isinstance(member.get("title"), str) and member["title"]:
            return str(member["title"])
        ref = member.get("$ref")
        if isinstance(ref, str) and "/" in unquote(ref):
            # The pointer's last key, decoded as `refs` decodes it (percent-decoding first).
            return unquote(ref).rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
    if shape is not None:
        if isinstance(shape.get("title"), str) and shape["title"]:
            return str(shape["title"])
        props = shape.get("properties")
        if isinstance(props, dict):
            for key, sub in props.items():
                if isinstance(sub, dict) and "const" in sub:
                    const = sub["const"]
                    return f"{key}: {const if isinstance(const, str) else json_text(const)}"
        required = shape.get("required")
        if isinstance(required, list) and required and all(isinstance(k, str) for k in required):
            return ", ".join(required)
        types = shape.get("type")
        if isinstance(types, str):
            return types
        if isinstance(types, list) and all(isinstance(t, str) for t in types):
            return " or ".join(types)
    return f"option {index + 1}"


def _union(
    schema: JSONObject,
    keyword: str,
    base: JSONObject,
    members: list[Any],
    ctx: _Ctx,
    common: dict[str, Any],
) -> FormNode:
    node = UnionNode(schema=schema, keyword=keyword, **common)
    variants: list[UnionVariant] = []
    titles: list[str] = []
    for index, member in enumerate(members):
        combined: Any = {"allOf": [base, member]} if base else member
        try:
            shape: JSONObject | None = _expand(combined, ctx)[0]
        except _Fallback:
            shape = None
        titles.append(_variant_title(member, shape, index))

        def make(path: Path, parent: FormNode | None, combined: Any = combined) -> FormNode:
            built = _build(combined, path, ctx.deeper().fresh(), required=node.required, parent=parent)
            built.reset()
            return built

        # What `combined` is validated in: the member's own scope, or (for the allOf
        # wrapper, whose members jsonschema enters itself) the union's.
        scope = ctx.resolver.scope_of(member, ctx.scope) if combined is member else ctx.scope
        variants.append(
            UnionVariant(index=index, title="", schema=combined, shape=shape, factory=make, union=node, scope=scope)
        )
    for variant, title in zip(variants, titles, strict=True):
        variant.title = title if titles.count(title) == 1 else f"{title} ({variant.index + 1})"
    node.variants = tuple(variants)
    return node


def _object(schema: dict[str, Any], ctx: _Ctx, common: dict[str, Any]) -> FormNode:
    props = schema.get("properties", {})
    if not isinstance(props, dict):
        raise _Fallback("'properties' is not an object")
    additional = schema.get("additionalProperties", True)
    free_form = "patternProperties" in schema or (isinstance(additional, dict) and additional != {})
    if not props and free_form:
        raise _Fallback("an object with free-form keys (additionalProperties / patternProperties) is edited as JSON")
    listed = schema.get("required", [])
    required_keys = frozenset(k for k in listed if isinstance(k, str)) if isinstance(listed, list) else frozenset()
    allows = (
        additional is not False and schema.get("unevaluatedProperties", True) is not False
    ) or "patternProperties" in schema
    additional_schema = additional if isinstance(additional, dict) and additional else None
    node = ObjectNode(
        schema=schema,
        required_keys=required_keys,
        allows_additional=allows,
        additional_schema=additional_schema,
        **common,
    )
    inner = ctx.deeper()
    fields = {
        key: _build(sub, (*common["path"], key), inner, required=key in required_keys, parent=node)
        for key, sub in props.items()
    }
    node._set_fields(fields)
    if additional_schema is not None:

        def make_additional(path: Path) -> FormNode:
            built = _build(additional_schema, path, inner.fresh(), required=True, parent=None)
            built.reset()
            return built

        node._make_additional = make_additional
    return node


def _array(schema: dict[str, Any], ctx: _Ctx, common: dict[str, Any]) -> FormNode:
    if "prefixItems" in schema or isinstance(schema.get("items"), list):
        raise _Fallback("a tuple-style array (prefixItems, or a list in 'items') is edited as JSON")
    items = schema.get("items", True)
    if isinstance(items, dict):
        try:
            shape: JSONObject | None = _expand(items, ctx)[0]
        except _Fallback:
            shape = None
        options = _options_of(shape) if shape is not None else None
        if options is not None:
            return MultiSelectNode(schema=schema, options=options, **common)
    inner = ctx.deeper()

    def make_item(path: Path, parent: FormNode | None) -> FormNode:
        built = _build(items, path, inner.fresh(), required=True, parent=parent)
        built.reset()
        return built

    return ArrayNode(schema=schema, make_item=make_item, **common)
