"""Build a form (a tree of nodes) from a JSON Schema.

`build_form` reads tool ``inputSchema``s, elicitation ``requestedSchema``s and
any other JSON Schema.  It resolves local ``$ref`` (with a recursion guard)
and merges simple ``allOf`` (both in `expansion`), recognises titled enums,
nullables and unions, and falls back to a `RawJsonNode` (with a ``reason``)
for whatever a form cannot show: conditionals, free-form maps, tuple arrays,
unknown types, external or too-recursive references, unmergeable ``allOf``.

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

from dataclasses import replace
from typing import Any
from urllib.parse import unquote

from inspector.forms.choice_nodes import NullableNode, UnionNode, UnionVariant
from inspector.forms.container_nodes import ArrayNode, ObjectNode
from inspector.forms.enum_nodes import EnumNode, EnumOption, MultiSelectNode
from inspector.forms.expansion import Budget, BuildContext, Fallback, expand, without_annotations
from inspector.forms.leaf_nodes import BooleanNode, ConstNode, IntegerNode, NumberNode, RawJsonNode, StringNode
from inspector.forms.node_base import FormContext, FormNode
from inspector.forms.paths import Path
from inspector.forms.refs import RefResolver
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
    ctx = BuildContext(
        form=context,
        resolver=RefResolver(schema),
        recursion_limit=recursion_limit,
        max_depth=max_depth,
        max_nodes=DEFAULT_MAX_NODES,
        budget=Budget(DEFAULT_MAX_NODES),
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
    ctx = BuildContext(
        form=context,
        resolver=RefResolver(root_schema),
        recursion_limit=DEFAULT_RECURSION_LIMIT,
        max_depth=DEFAULT_MAX_DEPTH,
        max_nodes=DEFAULT_MAX_NODES,
        budget=Budget(DEFAULT_MAX_NODES),
        scope=scope,
    )
    node = _build(subschema, path, ctx, required=True, parent=None)
    node.reset()
    return node


# -- building --------------------------------------------------------------------


def _build(schema: Schema, path: Path, ctx: BuildContext, *, required: bool, parent: FormNode | None) -> FormNode:
    common: dict[str, Any] = {"path": path, "context": ctx.form, "required": required, "parent": parent}
    info = schema if isinstance(schema, dict) else {}
    try:
        if ctx.budget.remaining <= 0:
            raise Fallback("the schema is too large to show as a form")
        ctx.budget.remaining -= 1
        if ctx.depth > ctx.max_depth:
            raise Fallback(f"fields nest more than {ctx.max_depth} levels deep")
        if schema is True or schema == {}:
            return RawJsonNode(schema=info, reason="any JSON value (the schema sets no type)", **common)
        scope = ctx.resolver.scope_of(schema, ctx.scope)
        if scope is not ctx.scope:  # an embedded $id: the $refs below resolve against it
            ctx = replace(ctx, scope=scope)
        expanded, ctx = expand(schema, ctx)
        info = expanded
        node = _classify(expanded, ctx, common)
    except Fallback as fb:
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
        raise Fallback(f"'type' must be a string or a list of strings, not {json_text(declared)}")
    if "number" in types and "integer" in types:
        types.remove("integer")
    for t in types:
        if t not in _KNOWN_TYPES:
            raise Fallback(f"unknown type {t!r}")
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


def _is_null_schema(member: Any, ctx: BuildContext) -> bool:
    try:
        shape, _ = expand(member, ctx)
    except Fallback:
        return False
    if shape.get("type") == "null":
        return True
    return "const" in shape and shape["const"] is None and len(without_annotations(shape)) == 1


def _classify(schema: JSONObject, ctx: BuildContext, common: dict[str, Any]) -> FormNode:
    if "if" in schema:
        raise Fallback("a conditional schema (if/then/else) cannot be shown as a form")
    choice = _choice(schema, common)
    if choice is not None:
        return choice
    types = _types_of(schema)
    if types is not None and "null" in types and len(types) > 1:
        rest = [t for t in types if t != "null"]
        inner = {**without_annotations(schema), "type": rest[0] if len(rest) == 1 else rest}
        return _nullable(schema, inner, ctx, common)
    for keyword in ("oneOf", "anyOf"):
        if keyword in schema:
            return _alternatives(schema, keyword, ctx, common)
    if types is not None and len(types) > 1:
        base = without_annotations(schema, "type")
        return _union(schema, "type", base, [{"type": t} for t in types], ctx, common)
    return _typed(schema, types[0] if types else _infer_type(schema), ctx, common)


def _choice(schema: JSONObject, common: dict[str, Any]) -> FormNode | None:
    """The node for a ``const``, an ``enum`` or a titled ``oneOf`` / ``anyOf`` of consts; else None."""
    if "const" in schema:
        return ConstNode(schema=schema, const=schema["const"], **common)
    if "enum" in schema:
        options = _enum_options(schema)
        if options is None:
            raise Fallback("'enum' must be a non-empty list")
        return EnumNode(schema=schema, options=options, **common)
    titled = _titled_options(schema)
    if titled is not None:
        return EnumNode(schema=schema, options=titled, **common)
    return None


def _alternatives(schema: JSONObject, keyword: str, ctx: BuildContext, common: dict[str, Any]) -> FormNode:
    """A ``oneOf`` / ``anyOf``: nullable when some members are null and others not, else a union."""
    members = schema[keyword]
    if not isinstance(members, list) or not members:
        raise Fallback(f"'{keyword}' must be a non-empty list")
    base = without_annotations(schema, keyword)
    nulls = [i for i, m in enumerate(members) if _is_null_schema(m, ctx)]
    if nulls and len(nulls) < len(members):
        rest = [m for i, m in enumerate(members) if i not in nulls]
        inner = {**base, keyword: rest} if len(rest) > 1 else {"allOf": [base, rest[0]]}
        return _nullable(schema, inner, ctx, common)
    return _union(schema, keyword, base, members, ctx, common)


_SCALARS: dict[str, type[FormNode]] = {
    "string": StringNode,
    "integer": IntegerNode,
    "number": NumberNode,
    "boolean": BooleanNode,
}


def _typed(schema: JSONObject, kind: str | None, ctx: BuildContext, common: dict[str, Any]) -> FormNode:
    """The node for one JSON type (*kind* None: the schema names none and implies none)."""
    if kind is None:
        if "not" in schema:
            raise Fallback("a 'not' schema with no type cannot be shown as a form")
        return RawJsonNode(schema=schema, reason="any JSON value (the schema sets no type)", **common)
    if kind == "object":
        return _object(schema, ctx, common)
    if kind == "array":
        return _array(schema, ctx, common)
    scalar = _SCALARS.get(kind)
    if scalar is not None:
        return scalar(schema=schema, **common)
    return ConstNode(schema=schema, const=None, **common)  # "null"


def _nullable(schema: dict[str, Any], inner: dict[str, Any], ctx: BuildContext, common: dict[str, Any]) -> FormNode:
    node = NullableNode(schema=schema, **common)
    node.inner = _build(inner, common["path"], ctx.deeper(), required=common["required"], parent=node)
    return node


def _variant_title(member: Any, shape: JSONObject | None, index: int) -> str:
    title = _written_title(member) if isinstance(member, dict) else None
    if title is None and shape is not None:
        title = _shape_title(shape)
    return title if title is not None else f"option {index + 1}"


def _written_title(member: JSONObject) -> str | None:
    """The member's own ``title``, else the last key of its ``$ref``."""
    if isinstance(member.get("title"), str) and member["title"]:
        return str(member["title"])
    ref = member.get("$ref")
    if isinstance(ref, str) and "/" in unquote(ref):
        # The pointer's last key, decoded as `refs` decodes it (percent-decoding first).
        return unquote(ref).rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
    return None


def _shape_title(shape: JSONObject) -> str | None:
    """A name for a member from its expanded schema: title, discriminator, required keys or type."""
    if isinstance(shape.get("title"), str) and shape["title"]:
        return str(shape["title"])
    discriminator = _discriminator(shape.get("properties"))
    if discriminator is not None:
        return discriminator
    required = shape.get("required")
    if isinstance(required, list) and required and all(isinstance(k, str) for k in required):
        return ", ".join(required)
    types = shape.get("type")
    if isinstance(types, str):
        return types
    if isinstance(types, list) and all(isinstance(t, str) for t in types):
        return " or ".join(types)
    return None


def _discriminator(props: Any) -> str | None:
    """``key: value`` for the first property that is a ``const``, as in ``kind: circle``."""
    if not isinstance(props, dict):
        return None
    for key, sub in props.items():
        if isinstance(sub, dict) and "const" in sub:
            const = sub["const"]
            return f"{key}: {const if isinstance(const, str) else json_text(const)}"
    return None


def _union(
    schema: JSONObject,
    keyword: str,
    base: JSONObject,
    members: list[Any],
    ctx: BuildContext,
    common: dict[str, Any],
) -> FormNode:
    node = UnionNode(schema=schema, keyword=keyword, **common)
    variants: list[UnionVariant] = []
    titles: list[str] = []
    for index, member in enumerate(members):
        combined: Any = {"allOf": [base, member]} if base else member
        try:
            shape: JSONObject | None = expand(combined, ctx)[0]
        except Fallback:
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


def _object(schema: dict[str, Any], ctx: BuildContext, common: dict[str, Any]) -> FormNode:
    props = schema.get("properties", {})
    if not isinstance(props, dict):
        raise Fallback("'properties' is not an object")
    additional = schema.get("additionalProperties", True)
    free_form = "patternProperties" in schema or (isinstance(additional, dict) and additional != {})
    if not props and free_form:
        raise Fallback("an object with free-form keys (additionalProperties / patternProperties) is edited as JSON")
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


def _array(schema: dict[str, Any], ctx: BuildContext, common: dict[str, Any]) -> FormNode:
    if "prefixItems" in schema or isinstance(schema.get("items"), list):
        raise Fallback("a tuple-style array (prefixItems, or a list in 'items') is edited as JSON")
    items = schema.get("items", True)
    if isinstance(items, dict):
        try:
            shape: JSONObject | None = expand(items, ctx)[0]
        except Fallback:
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
