"""Nodes that hold other nodes: objects (named fields) and arrays (items)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inspector.forms.leaf_nodes import ExtrasNode
from inspector.forms.node_base import FormNode, NodeFactory, NodeKind
from inspector.forms.paths import Path, PathSegment
from inspector.forms.schema_validation import Violation
from inspector.forms.values import UNSET, JSONValue, Schema, Unset, int_or_none, json_type_name, parse_json_text

__all__ = ["ArrayNode", "ObjectNode"]


class _Container(FormNode):
    """Shared presence handling: a container is in the value when ``present``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._present = False
        self._touched = False

    @property
    def touched(self) -> bool:
        """Whether it got anything from outside (a value, a field set, made
        present) since the last reset."""
        return self._touched and self.raw_value is UNSET

    @property
    def present(self) -> bool:
        """Whether this object/array is in the value: the root always is; any
        other starts absent, required or not, until something is put in it
        (a value the person never gave is never sent: validation says that
        a required one is missing)."""
        return self._present and self.raw_value is UNSET

    @present.setter
    def present(self, flag: bool) -> None:
        if flag:
            self._make_present()
            self._notify_set()
        else:
            self._present = False

    def _make_present(self) -> bool:
        if self.raw_value is not UNSET:
            return True
        self._present = self._touched = True
        return True

    def _has_value(self) -> bool:
        return self._present

    def _fill_defaults(self, filled: list[FormNode]) -> None:
        # An absent optional container stays absent: its fields' defaults
        # are not a reason to send it.  A required one the defaults fill
        # is sent with them.
        if self.present or self.required or (self.has_default and not self.is_set):
            before = len(filled)
            super()._fill_defaults(filled)
            if len(filled) > before and self.raw_value is UNSET and not self._present:
                self._present = self._touched = True

    def _on_child_set(self, child: FormNode) -> None:
        self._present = self._touched = True

    def _json_convert(self, text: str, want: type, example: str) -> JSONValue | Unset:
        if not text.strip():
            return UNSET
        try:
            value = parse_json_text(text)
        except ValueError as exc:
            raise self._error(f"{exc}; expected {example}") from None
        if not isinstance(value, want):
            raise self._error(f"expected {example}, got {json_type_name(value)}")
        return value


class ObjectNode(_Container):
    """An object with named fields.

    ``fields``             dict of property name → node, in schema order
    ``required_keys``      frozenset of required property names
    ``allows_additional``  whether undeclared properties are allowed
    ``additional_schema``  the ``additionalProperties`` schema when it is one, else None
    ``extras``             an `ExtrasNode` holding undeclared properties as one JSON object
    ``present``            whether the object is in the value (settable)

    The root starts present and empty; any other object starts absent
    (required or not) and appears when one of its fields is set.  Loading a
    value keeps its key order.  Text is a JSON object.
    """

    kind = NodeKind.OBJECT

    def __init__(
        self,
        *,
        required_keys: frozenset[str] = frozenset(),
        allows_additional: bool = True,
        additional_schema: Schema | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.fields: dict[str, FormNode] = {}
        self.required_keys = required_keys
        self.allows_additional = allows_additional
        self.additional_schema = additional_schema
        self.extras = ExtrasNode(
            schema={}, path=self.path, context=self.context, required=False, parent=self, reserved=frozenset()
        )
        self._order: list[str] = []
        self._make_additional: Callable[[Path], FormNode] | None = None

    def _set_fields(self, fields: dict[str, FormNode]) -> None:
        self.fields = fields
        self.extras.reserved = frozenset(fields)

    @property
    def show_extras(self) -> bool:
        """Whether a UI should show the extras editor (allowed, or holding something)."""
        return self.allows_additional or self.extras.is_set

    def field(self, key: str) -> FormNode:
        """The declared field *key* (`KeyError` for an undeclared one)."""
        return self.fields[key]

    def additional_node(self, key: str) -> FormNode | None:
        """A fresh, detached node for an undeclared property, when ``additionalProperties``
        is a schema (used to convert CLI text for such keys); None otherwise."""
        if self._make_additional is None:
            return None
        return self._make_additional((*self.path, key))

    def children(self) -> list[FormNode]:
        """The declared fields in order, then the extras editor."""
        return [*self.fields.values(), self.extras]

    def convert_text(self, text: str) -> JSONValue | Unset:
        """A JSON object typed as text (blank clears); `FormValueError` for anything else."""
        return self._json_convert(text, dict, "a JSON object")

    def _accept(self, value: JSONValue) -> str | None:
        if not isinstance(value, dict):
            return f"expected an object, got {json_type_name(value)}"
        self._present = self._touched = True
        self._order = list(value)
        for key, child in self.fields.items():
            child._load(value.get(key, UNSET))
        extras = {k: v for k, v in value.items() if k not in self.fields}
        self.extras._load(extras if extras else UNSET)
        return None

    def _clear_state(self) -> None:
        self._present = self._touched = False
        self._order = []
        for child in self.fields.values():
            child._load(UNSET)
        self.extras._load(UNSET)

    def _reset_state(self) -> None:
        self._order = []
        for child in self.fields.values():
            child.reset()
        self.extras.reset()
        self._present = self.parent is None
        self._touched = False

    def _state_value(self) -> JSONValue | Unset:
        if not self._present:
            return UNSET
        values: dict[str, JSONValue] = {}
        for key, child in self.fields.items():
            value = child.to_value()
            if value is not UNSET:
                values[key] = value
        extras = self.extras.to_value()
        if isinstance(extras, dict):
            for key, value in extras.items():
                values.setdefault(key, value)
        out = {k: values[k] for k in self._order if k in values}
        out.update((k, v) for k, v in values.items() if k not in out)
        return out

    def _child_for_value(self, segment: PathSegment) -> FormNode | None:
        if isinstance(segment, str):
            if segment in self.fields:
                return self.fields[segment]
            return self.extras
        return None


class ArrayNode(_Container):
    """A list of items, each a node built from the ``items`` schema.

    ``items``        list of item nodes (paths end with their index)
    ``item_schema``  the ``items`` schema
    ``min_items``, ``max_items``, ``unique_items``   from the schema
    ``present``      whether the array is in the value (settable)

    Operations (each counts as a user action): ``add(value=UNSET, index=None)``,
    ``remove(i)``, ``move(i, j)``, ``move_up(i)``, ``move_down(i)``;
    ``can_add`` / ``can_remove`` tell whether ``max_items`` / ``min_items``
    still allow them.  A blank (unset) item is left out of the value and
    reported by ``validate()``.  Text is a JSON array.
    """

    kind = NodeKind.ARRAY

    def __init__(self, *, make_item: NodeFactory, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        items = self.schema.get("items", True)
        self.item_schema: Schema = items
        self.min_items = int_or_none(self.schema.get("minItems"))
        self.max_items = int_or_none(self.schema.get("maxItems"))
        self.unique_items = self.schema.get("uniqueItems") is True
        self.items: list[FormNode] = []
        self._make_item = make_item

    @property
    def can_add(self) -> bool:
        """Whether ``maxItems`` allows one more item."""
        return self.max_items is None or len(self.items) < self.max_items

    @property
    def can_remove(self) -> bool:
        """Whether ``minItems`` allows one item less."""
        return len(self.items) > (self.min_items or 0)

    def add(self, value: JSONValue | Unset = UNSET, index: int | None = None) -> FormNode:
        """Insert a new item (defaults prefilled, or *value*) at *index* (default: the end)."""
        position = len(self.items) if index is None else max(0, min(index, len(self.items)))
        node = self._make_item((*self.path, position), self)
        if value is not UNSET:
            node._load(value)
        # An item the person added is there to be sent, even left empty.
        node._make_present()
        self._ensure_items_from_raw()
        self.items.insert(position, node)
        self._reindex()
        self._make_present()
        self._notify_set()
        return node

    def remove(self, index: int) -> None:
        """Remove item *index* (a user action: the array becomes present)."""
        self._ensure_items_from_raw()
        del self.items[index]
        self._reindex()
        self._make_present()
        self._notify_set()

    def move(self, index: int, new_index: int) -> int:
        """Move item *index* to *new_index* (clamped); returns where it went."""
        new_index = max(0, min(new_index, len(self.items) - 1))
        node = self.items.pop(index)
        self.items.insert(new_index, node)
        self._reindex()
        self._make_present()
        self._notify_set()
        return new_index

    def move_up(self, index: int) -> int:
        """Move item *index* one place up; returns where it went."""
        return self.move(index, index - 1)

    def move_down(self, index: int) -> int:
        """Move item *index* one place down; returns where it went."""
        return self.move(index, index + 1)

    def children(self) -> list[FormNode]:
        """The items in order."""
        return list(self.items)

    def convert_text(self, text: str) -> JSONValue | Unset:
        """A JSON array typed as text (blank clears); `FormValueError` for anything else."""
        return self._json_convert(text, list, 'a JSON array such as ["a", "b"]')

    def _ensure_items_from_raw(self) -> None:
        # Editing items of a raw (non-array) value starts from an empty array.
        if self.raw_value is not UNSET:
            self.raw_value = UNSET
            self.raw_reason = None
            self.items = []

    def _reindex(self) -> None:
        for i, node in enumerate(self.items):
            if node.path != (*self.path, i):
                node._rebase((*self.path, i))

    def _accept(self, value: JSONValue) -> str | None:
        if not isinstance(value, list):
            return f"expected an array, got {json_type_name(value)}"
        self._present = self._touched = True
        self.items = []
        for i, item in enumerate(value):
            node = self._make_item((*self.path, i), self)
            node._load(item)
            self.items.append(node)
        return None

    def _clear_state(self) -> None:
        self._present = self._touched = False
        self.items = []

    def _reset_state(self) -> None:
        self.items = []
        self._present = self.parent is None
        self._touched = False

    def _state_value(self) -> JSONValue | Unset:
        if not self._present:
            return UNSET
        out: list[JSONValue] = []
        for node in self.items:
            value = node.to_value()
            if value is not UNSET:
                out.append(value)
        return out

    def _child_for_value(self, segment: PathSegment) -> FormNode | None:
        if not isinstance(segment, int):
            return None
        emitted = [node for node in self.items if node.is_set]
        return emitted[segment] if 0 <= segment < len(emitted) else None

    def _form_violations(self) -> list[tuple[FormNode, Violation]]:
        if not self.present:
            return []
        return [
            (node, Violation(node.path, "empty item; it is left out of the value", "empty-item"))
            for node in self.items
            if not node.is_set
        ]
