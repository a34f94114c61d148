"""The base class of every form field node, and the state they share.

A form is a tree of `FormNode` objects built from a JSON Schema by
`build_form`.  Each node holds the state of one field and converts between
that state and JSON:

* ``to_value()`` / ``load_value(value)``: the field's JSON value, or `UNSET`
  when it holds nothing (an unset optional field is left out of the
  produced object).  ``load_value(x)`` followed by ``to_value()`` gives back
  exactly ``x``.  A value the node cannot hold (a number given to a string
  field, say) is kept as it is in the node's *raw override* (``raw_value``,
  with ``raw_reason``) so nothing is lost: a UI shows a JSON editor there.
* ``set_text(text)`` / ``text()``: what a text input shows, converted with the
  schema in mind; a bad entry raises `FormValueError` and is remembered in
  ``text_error`` (``text()`` then returns the entry as typed).
* ``validate()``: checks the whole form's value with jsonschema and files each
  `Violation` in the ``errors`` list of the node it is about.

User actions (``set_text``, ``load_value`` on a sub-node, adding an array
item) mark the node's ancestors as present: typing into ``address.city``
makes the optional ``address`` object appear in the value.
"""

from __future__ import annotations

import copy
import enum
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from inspector.forms.errors import FormValueError
from inspector.forms.paths import Path, PathSegment, format_path
from inspector.forms.schema_validation import Violation, is_valid_against, make_validator, validate_value
from inspector.forms.values import UNSET, JSONObject, JSONValue, Schema, Unset, json_equal, json_text, parse_json_text

__all__ = ["FormContext", "FormNode", "NodeFactory", "NodeKind"]


class NodeKind(enum.StrEnum):
    """What a node is, for a UI to pick a widget (one kind per node class)."""

    STRING = "string"
    NUMBER = "number"
    INTEGER = "integer"
    BOOLEAN = "boolean"
    ENUM = "enum"
    MULTI_SELECT = "multi-select"
    CONST = "const"
    ARRAY = "array"
    OBJECT = "object"
    UNION = "union"
    NULLABLE = "nullable"
    RAW = "raw"


class FormContext:
    """What all nodes of one form share: the whole schema and the options it was built with."""

    def __init__(self, schema: Schema, *, prefill_defaults: bool = False) -> None:
        self.schema = schema
        self.prefill_defaults = prefill_defaults
        self._validator: Any = None

    def is_valid(self, subschema: Schema, value: JSONValue, scope: Any = None) -> bool:
        """Whether *value* matches *subschema* (``$ref`` resolved in *scope*, by default the whole schema's)."""
        if self._validator is None:
            self._validator = make_validator(self.schema)
        return is_valid_against(self._validator, subschema, value, scope)


NodeFactory = Callable[[Path, "FormNode | None"], "FormNode"]
"""Builds a fresh node (in its initial state) at a path, under a parent."""


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class FormNode:
    """One field of a form.  See the module docstring for the life of a node.

    Attributes every node has:

    ``kind``          a `NodeKind`, one per class
    ``schema``        the (``$ref``-resolved, ``allOf``-merged) schema of this field
    ``path``          tuple of keys / indices from the root, e.g. ``("items", 0, "qty")``
    ``parent``        the enclosing node, None at the root
    ``required``      listed in the parent's ``required`` (array items and the root: True)
    ``title``, ``description``   from the schema (None when absent)
    ``default``       the schema's default, or UNSET
    ``examples``      tuple of example values (``examples`` or OpenAPI ``example``)
    ``read_only``, ``write_only``, ``deprecated``   the schema's flags
    ``notes``         schema features the form does not show (checked on validation)
    ``errors``        list of `Violation` filed here by the last ``validate()``
    ``text_error``    message from the last failed ``set_text``, else None
    ``raw_value``     a value this node's kind cannot hold, kept as is (else UNSET)
    ``raw_reason``    why it is held raw (None when ``raw_value`` is UNSET)
    """

    kind: ClassVar[NodeKind]

    def __init__(
        self,
        *,
        schema: Schema,
        path: Path,
        context: FormContext,
        required: bool = False,
        parent: FormNode | None = None,
    ) -> None:
        info = schema if isinstance(schema, dict) else {}
        self.schema: JSONObject = info
        self.path: Path = path
        self.context = context
        self.parent = parent
        self.required = required
        self.title: str | None = _text_or_none(info.get("title"))
        self.description: str | None = _text_or_none(info.get("description"))
        self.default: JSONValue | Unset = copy.deepcopy(info["default"]) if "default" in info else UNSET
        examples = info.get("examples")
        if isinstance(examples, list):
            self.examples: tuple[JSONValue, ...] = tuple(copy.deepcopy(examples))
        elif "example" in info:
            self.examples = (copy.deepcopy(info["example"]),)
        else:
            self.examples = ()
        self.read_only = info.get("readOnly") is True
        self.write_only = info.get("writeOnly") is True
        self.deprecated = info.get("deprecated") is True
        self.notes: tuple[str, ...] = ()
        self.errors: list[Violation] = []
        self.text_error: str | None = None
        self._draft_text: str | None = None
        self._json_draft: str | None = None
        self.raw_value: JSONValue | Unset = UNSET
        self.raw_reason: str | None = None

    # -- identity --------------------------------------------------------

    @property
    def key(self) -> PathSegment | None:
        """The last step of the path (property name or item index); None at the root."""
        return self.path[-1] if self.path else None

    @property
    def label(self) -> str:
        """A short name to show: the title, else the key (``[2]`` for an item), else "value"."""
        if self.title:
            return self.title
        if isinstance(self.key, int):
            return f"[{self.key}]"
        if self.key is not None:
            return self.key
        return "value"

    @property
    def display_path(self) -> str:
        """``address.city`` / ``items[2].qty``; ``"value"`` at the root."""
        return format_path(self.path) or "value"

    @property
    def root(self) -> FormNode:
        """The top node of the form this node is in."""
        node = self
        while node.parent is not None:
            node = node.parent
        return node

    @property
    def has_default(self) -> bool:
        """Whether the schema gives a default."""
        return self.default is not UNSET

    @property
    def default_text(self) -> str | None:
        """The schema's default as an input would show it (None without one).

        A default says what the server does when the field is absent: a UI
        shows it (see ``placeholder``) and sends it only when asked
        (``fill_defaults``).
        """
        if self.default is UNSET:
            return None
        return self.default if isinstance(self.default, str) else json_text(self.default)

    @property
    def placeholder(self) -> str:
        """Hint text for an empty input: the default, when the schema gives one."""
        shown = self.default_text
        return f"default: {shown}" if shown is not None else ""

    @property
    def is_set(self) -> bool:
        """Whether ``to_value()`` gives a value (False: left out of the parent)."""
        return self.raw_value is not UNSET or self._has_value()

    @property
    def is_raw(self) -> bool:
        """Whether the node holds a value its kind cannot show (see ``raw_value``)."""
        return self.raw_value is not UNSET

    @property
    def is_default(self) -> bool:
        """Whether the current value equals the schema's default."""
        value = self.to_value()
        return self.has_default and value is not UNSET and json_equal(value, self.default)

    # -- value round trip ------------------------------------------------

    def to_value(self) -> JSONValue | Unset:
        """The field's JSON value (a fresh copy), or UNSET when it holds nothing."""
        if self.raw_value is not UNSET:
            return copy.deepcopy(self.raw_value)
        return self._state_value()

    def load_value(self, value: JSONValue | Unset) -> None:
        """Put *value* in this field (UNSET clears it).  Never fails: see ``raw_value``.

        Called on a sub-node it counts as a user action and makes the
        enclosing objects / arrays present.
        """
        self._load(value)
        if self.is_set:
            self._notify_set()

    def clear(self) -> None:
        """Unset the field (and everything under it): it is left out of the value."""
        self._load(UNSET)

    def reset(self) -> None:
        """Back to the initial state: defaults prefilled, required containers present."""
        self._clear_marks()
        self._reset_state()
        if self.has_default and self.context.prefill_defaults:
            self._load(self.default)

    def fill_defaults(self) -> list[FormNode]:
        """Put its schema default into every field under this one that holds nothing.

        The "fill defaults" action: a form starts without defaults (they are
        what the server does anyway), and this puts them in the value.  Fields
        inside an absent optional object or array stay absent, and a field
        that holds something keeps it.  Returns the nodes it filled.
        """
        filled: list[FormNode] = []
        self._fill_defaults(filled)
        return filled

    def json_text(self, indent: int | None = None) -> str:
        """The value as JSON text (``""`` when unset), for a raw JSON editor."""
        value = self.to_value()
        return "" if value is UNSET else json_text(value, indent)

    def set_json_text(self, text: str) -> None:
        """Load JSON text typed in a raw editor (blank clears).  Raises `FormValueError`."""
        if not text.strip():
            self.clear()
            return
        try:
            value = parse_json_text(text)
        except ValueError as exc:
            self.text_error = str(exc)
            self._json_draft = text
            raise FormValueError(self.path, str(exc)) from None
        self.load_value(value)

    # -- text entry ------------------------------------------------------

    def convert_text(self, text: str) -> JSONValue | Unset:
        """The value *text* stands for in this field, without changing anything.

        Raises `FormValueError` ("expected an integer, got '3.5'").  UNSET means
        the text clears the field.
        """
        raise NotImplementedError

    def set_text(self, text: str) -> None:
        """Set the field from the text of an input; raises `FormValueError` on bad text.

        On failure the value is unchanged, ``text_error`` holds the message and
        ``text()`` returns *text* as typed until the next successful change.
        """
        try:
            value = self.convert_text(text)
        except FormValueError as exc:
            self.text_error = exc.message
            self._draft_text = text
            raise
        self._load(value)
        if self.is_set:
            self._notify_set()

    @property
    def draft_text(self) -> str | None:
        """The entry as typed when the last ``set_text`` failed, else None."""
        return self._draft_text

    @property
    def json_draft(self) -> str | None:
        """The JSON as typed when the last ``set_json_text`` failed, else None."""
        return self._json_draft

    def text(self) -> str:
        """What a text input for this field shows (``""`` when unset)."""
        if self._draft_text is not None:
            return self._draft_text
        if self.raw_value is not UNSET:
            return json_text(self.raw_value)
        return self._format_text()

    # -- tree ------------------------------------------------------------

    def children(self) -> list[FormNode]:
        """The nodes directly under this one, in display order."""
        return []

    def walk(self) -> Iterator[FormNode]:
        """This node and everything shown under it, depth first."""
        yield self
        for child in self.children():
            yield from child.walk()

    def find(self, path: Path) -> FormNode | None:
        """The outermost node at *path* under this one, or None."""
        for node in self.walk():
            if node.path == tuple(path):
                return node
        return None

    # -- validation ------------------------------------------------------

    def validate(self) -> list[Violation]:
        """Validate the whole form's value; file violations in each node's ``errors``.

        Returns the violations for this node and the nodes under it (all of
        them when called on the root).  Also reports text entries that did
        not convert (keyword "text") and blank array items ("empty-item").
        """
        root = self.root
        value = root.to_value()
        if value is UNSET:
            found = [Violation((), "no value", "required")] if root.required else []
        else:
            found = validate_value(root.context.schema, value)
        root.file_violations(found)
        return [v for node in self.walk() for v in node.errors]

    def file_violations(self, found: list[Violation]) -> list[Violation]:
        """File schema violations found elsewhere (a worker thread) on the
        nodes of this root, with the form's own (text that does not convert,
        blank array items); returns them all."""
        for node in self._walk_all():
            node.errors = []
        for violation in found:
            self._node_for_value_path(violation.path).errors.append(violation)
        for node in self.walk():
            if node.text_error is not None:
                node.errors.append(Violation(node.path, node.text_error, "text"))
            for target, violation in node._form_violations():
                target.errors.append(violation)
        return [v for node in self.walk() for v in node.errors]

    # -- hooks for subclasses ---------------------------------------------

    def _accept(self, value: JSONValue) -> str | None:
        """Hold *value* if this kind can; else leave state alone and return why not."""
        raise NotImplementedError

    def _clear_state(self) -> None:
        raise NotImplementedError

    def _reset_state(self) -> None:
        self._clear_state()

    def _state_value(self) -> JSONValue | Unset:
        raise NotImplementedError

    def _has_value(self) -> bool:
        return self._state_value() is not UNSET

    def _format_text(self) -> str:
        value = self._state_value()
        return "" if value is UNSET else json_text(value)

    def _on_child_set(self, child: FormNode) -> None:
        """A child just got a value from a user action."""

    def _fill_defaults(self, filled: list[FormNode]) -> None:
        if self.is_raw:
            return
        if self.has_default and not self.is_set:
            self._load(self.default)
            filled.append(self)
            return
        for child in self.children():
            child._fill_defaults(filled)

    def _make_present(self) -> bool:
        """Make a container present (for "include this field"); False for leaves."""
        return False

    def _all_children(self) -> list[FormNode]:
        return self.children()

    def _child_for_value(self, segment: PathSegment) -> FormNode | None:
        """The child holding ``value[segment]`` of this node's value."""
        return None

    def _transparent(self) -> FormNode:
        """The node that really holds the value (unions and nullables delegate)."""
        return self

    def _form_violations(self) -> list[tuple[FormNode, Violation]]:
        return []

    # -- machinery -------------------------------------------------------

    def _error(self, message: str) -> FormValueError:
        return FormValueError(self.path, message)

    def _clear_marks(self) -> None:
        self.raw_value = UNSET
        self.raw_reason = None
        self.text_error = None
        self._draft_text = None
        self._json_draft = None

    def _load(self, value: JSONValue | Unset) -> None:
        self._clear_marks()
        if value is UNSET:
            self._clear_state()
            return
        reason = self._accept(value)
        if reason is not None:
            self._clear_state()
            self.raw_value = copy.deepcopy(value)
            self.raw_reason = reason

    def _notify_set(self) -> None:
        child, parent = self, self.parent
        while parent is not None:
            if parent.raw_value is not UNSET:
                parent.raw_value = UNSET
                parent.raw_reason = None
            parent._on_child_set(child)
            child, parent = parent, parent.parent

    def _walk_all(self) -> Iterator[FormNode]:
        yield self
        for child in self._all_children():
            yield from child._walk_all()

    def _node_for_value_path(self, path: Path) -> FormNode:
        node: FormNode = self
        for segment in path:
            inner = node._transparent()
            if inner.raw_value is not UNSET:
                return inner
            child = inner._child_for_value(segment)
            if child is None:
                return inner
            node = child
        return node

    def _rebase(self, new_path: Path) -> None:
        old = len(self.path)
        for node in self._walk_all():
            node.path = new_path + node.path[old:]

    def __repr__(self) -> str:
        value = self.to_value()
        return f"<{type(self).__name__} {self.display_path} {value!r}>"
