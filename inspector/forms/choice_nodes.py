"""Nodes that choose: a union of alternative schemas, and a nullable wrapper."""

from __future__ import annotations

from typing import Any

from inspector.forms.errors import FormValueError
from inspector.forms.node_base import FormNode, NodeFactory, NodeKind
from inspector.forms.values import UNSET, JSONValue, Schema, Unset, json_equal, json_type_name, parse_json_text

__all__ = ["NullableNode", "UnionNode", "UnionVariant"]


class UnionVariant:
    """One alternative of a `UnionNode`.

    ``index``, ``title`` (for a selector: the variant's title, its ``$ref`` name,
    a ``kind: "circle"`` discriminator, its required keys or its type), ``schema``
    (the alternative combined with the union's shared keywords), ``scope`` (where
    its ``$ref``s resolve, see `refs.RefResolver`) and ``node``, built on first
    use and kept, so switching back and forth keeps what was typed.
    """

    def __init__(
        self,
        *,
        index: int,
        title: str,
        schema: Schema,
        shape: dict[str, Any] | None,
        factory: NodeFactory,
        union: UnionNode,
        scope: Any = None,
    ) -> None:
        self.index = index
        self.title = title
        self.schema = schema
        self.scope = scope
        self.shape = shape
        self._factory = factory
        self._union = union
        self._node: FormNode | None = None

    @property
    def node(self) -> FormNode:
        """The variant's form, built on first use and kept."""
        if self._node is None:
            self._node = self._factory(self._union.path, self._union)
        return self._node

    @property
    def is_built(self) -> bool:
        """Whether the variant's form has been built yet."""
        return self._node is not None

    def fits_type(self, value: JSONValue) -> bool:
        """Whether *value* has a JSON type this variant can hold (a loose check)."""
        shape = self.shape
        if shape is None:
            return False
        if "const" in shape:
            return json_equal(shape["const"], value)
        if isinstance(shape.get("enum"), list):
            return any(json_equal(v, value) for v in shape["enum"])
        types = shape.get("type")
        if types is None:
            return True
        wanted = {types} if isinstance(types, str) else set(types) if isinstance(types, list) else set()
        actual = json_type_name(value)
        if actual == "integer" and "number" in wanted:
            return True
        if actual == "number" and "integer" in wanted and isinstance(value, float) and value.is_integer():
            return True
        return actual in wanted

    def object_score(self, value: dict[str, Any]) -> tuple[int, int, int]:
        """How well an object fits: discriminators matched, required keys present, known keys."""
        shape = self.shape or {}
        props = shape.get("properties") if isinstance(shape.get("properties"), dict) else {}
        assert isinstance(props, dict)
        consts = 0
        for key, sub in props.items():
            if isinstance(sub, dict) and "const" in sub and key in value:
                if not json_equal(sub["const"], value[key]):
                    return (-1, 0, 0)
                consts += 1
        required = shape.get("required") if isinstance(shape.get("required"), list) else []
        assert isinstance(required, list)
        present = sum(1 for key in required if key in value)
        missing = len(required) - present
        known = sum(1 for key in value if key in props)
        return (consts, -missing, known)

    def __repr__(self) -> str:
        return f"<UnionVariant {self.index} {self.title!r}>"


class UnionNode(FormNode):
    """One of several alternative schemas (``oneOf`` / ``anyOf`` / a list of types).

    ``variants``        tuple of `UnionVariant`
    ``keyword``         "oneOf", "anyOf" or "type"
    ``selected``        index of the chosen variant (settable with ``select(i)``)
    ``selected_node``   the chosen variant's node, which holds the value

    Loading a value selects the variant it validates against (the current one
    when several do); when none does, the closest by type and, for objects,
    by discriminators and keys.  Text is tried against each variant in order
    and the first whose conversion validates wins.
    """

    kind = NodeKind.UNION

    def __init__(self, *, keyword: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.keyword = keyword
        self.variants: tuple[UnionVariant, ...] = ()
        self.selected = 0

    @property
    def selected_variant(self) -> UnionVariant:
        """The alternative now chosen."""
        return self.variants[self.selected]

    @property
    def selected_node(self) -> FormNode:
        """The chosen alternative's form."""
        return self.variants[self.selected].node

    def select(self, index: int) -> None:
        """Switch to variant *index* (a user action: an object variant becomes present)."""
        if not 0 <= index < len(self.variants):
            raise IndexError(f"no variant {index}")
        self.selected = index
        if self.raw_value is not UNSET:
            self.raw_value = UNSET
            self.raw_reason = None
        node = self.selected_node
        if node._make_present() or node.is_set:
            self._notify_set()

    def infer_variant(self, value: JSONValue) -> int | None:
        """The variant *value* belongs to, or None when no variant can hold it."""
        valid = [v.index for v in self.variants if self.context.is_valid(v.schema, value, v.scope)]
        if valid:
            return self.selected if self.selected in valid else valid[0]
        typed = [v for v in self.variants if v.fits_type(value)]
        if not typed:
            return None
        if isinstance(value, dict) and len(typed) > 1:
            best = max(typed, key=lambda v: v.object_score(value))
            return best.index
        indexes = [v.index for v in typed]
        return self.selected if self.selected in indexes else indexes[0]

    def convert_text(self, text: str) -> JSONValue | Unset:
        """What the alternatives make of *text*: a valid reading written as the text, else a valid one, else the
        first that converts; `FormValueError` when none does."""
        converted: list[tuple[JSONValue, bool]] = []
        problems: list[str] = []
        for variant in self.variants:
            try:
                value = variant.node.convert_text(text)
            except FormValueError as exc:
                problems.append(f"{variant.title}: {exc.message}")
                continue
            if value is UNSET:
                return UNSET
            converted.append((value, self.context.is_valid(variant.schema, value, variant.scope)))
        # The text as written wins over a lenient reading of it: with a string
        # alternative, "yes" stays "yes" rather than becoming true, and "007"
        # stays "007" rather than becoming 7.
        for value, valid in converted:
            if valid and _written_as(text, value):
                return value
        for value, valid in converted:
            if valid:
                return value
        if converted:
            return converted[0][0]
        raise self._error("matches none of the alternatives (" + "; ".join(problems) + ")")

    def children(self) -> list[FormNode]:
        """The chosen alternative's form (none before the alternatives are set)."""
        return [self.selected_node] if self.variants else []

    def _all_children(self) -> list[FormNode]:
        return [v.node for v in self.variants if v.is_built]

    def _transparent(self) -> FormNode:
        if self.raw_value is not UNSET or not self.variants:
            return self
        return self.selected_node._transparent()

    def _make_present(self) -> bool:
        return self.selected_node._make_present() if self.variants else False

    def _on_child_set(self, child: FormNode) -> None:
        for variant in self.variants:
            if variant.is_built and variant.node is child:
                self.selected = variant.index

    def _accept(self, value: JSONValue) -> str | None:
        index = self.infer_variant(value)
        if index is None:
            return f"a {json_type_name(value)} fits none of the alternatives"
        self.selected = index
        self.selected_node._load(value)
        return None

    def _clear_state(self) -> None:
        for variant in self.variants:
            if variant.is_built:
                variant.node._load(UNSET)

    def _reset_state(self) -> None:
        self.selected = 0
        for variant in self.variants:
            if variant.is_built:
                variant.node.reset()

    def _has_value(self) -> bool:
        return bool(self.variants) and self.selected_node.is_set

    def _state_value(self) -> JSONValue | Unset:
        return self.selected_node.to_value() if self.variants else UNSET

    def _format_text(self) -> str:
        return self.selected_node.text() if self.variants else ""


def _written_as(text: str, value: JSONValue) -> bool:
    """Whether *text* is *value* as written: the string itself, or its JSON."""
    if isinstance(value, str):
        return value == text
    try:
        return json_equal(parse_json_text(text.strip()), value)
    except ValueError:
        return False


class NullableNode(FormNode):
    """A field that may be ``null``: ``type: [X, "null"]`` or ``anyOf: [X, {type: null}]``.

    ``inner``     the node for the non-null schema (same path; no title of its own)
    ``is_null``   whether the value is null; ``set_null(flag)`` toggles it

    Text ``null`` means null here; any other text goes to ``inner``.  (To
    store the *string* "null" in a nullable string, set the inner node.)
    """

    kind = NodeKind.NULLABLE

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.inner: FormNode
        self.is_null = False

    def set_null(self, flag: bool) -> None:
        """Make the value null (True) or hand it back to ``inner`` (False)."""
        if self.raw_value is not UNSET:
            self.raw_value = UNSET
            self.raw_reason = None
        self.is_null = flag
        if flag:
            self.inner._load(UNSET)
        if self.is_set:
            self._notify_set()

    def convert_text(self, text: str) -> JSONValue | Unset:
        """``null`` for the text "null", else what the inner field makes of it."""
        if text.strip() == "null":
            return None
        return self.inner.convert_text(text)

    def children(self) -> list[FormNode]:
        """The field that holds the value when it is not null."""
        return [self.inner]

    def _transparent(self) -> FormNode:
        if self.raw_value is not UNSET or self.is_null:
            return self
        return self.inner._transparent()

    def _make_present(self) -> bool:
        self.is_null = False
        return self.inner._make_present()

    def _on_child_set(self, child: FormNode) -> None:
        self.is_null = False

    def _accept(self, value: JSONValue) -> str | None:
        if value is None:
            self.is_null = True
            self.inner._load(UNSET)
        else:
            self.is_null = False
            self.inner._load(value)
        return None

    def _clear_state(self) -> None:
        self.is_null = False
        self.inner._load(UNSET)

    def _reset_state(self) -> None:
        self.is_null = False
        self.inner.reset()

    def _has_value(self) -> bool:
        return self.is_null or self.inner.is_set

    def _fill_defaults(self, filled: list[FormNode]) -> None:
        if not self.is_null:
            super()._fill_defaults(filled)

    def _state_value(self) -> JSONValue | Unset:
        return None if self.is_null else self.inner.to_value()

    def _format_text(self) -> str:
        return "null" if self.is_null else self.inner.text()
