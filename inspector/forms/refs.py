"""Resolve ``$ref`` inside one schema document, and never outside it.

The one resolver of the package: the form builder, the lint rules, the
``$ref`` checks of `check_schema` and the validator (`make_validator` hands
jsonschema `document_resolver`) all ask `referencing` the same question, so
the form, lint and validation cannot disagree about what a ``$ref`` points to.

- JSON Pointers (RFC 6901): the fragment is percent-decoded first and then
  split, so ``#/$defs/sp%20ace`` names the key ``sp ace`` while ``%2F`` is
  a separator; ``~1`` and ``~0`` stand for ``/`` and ``~`` in a key.  Any
  pointer into the document works (``#/$defs/A``, ``#/definitions/A``,
  ``#/properties/a/items``, ``#``).
- ``$id``: a ``$ref`` resolves against the base URI in effect where it is
  written, so an embedded ``$id`` opens a new scope, and a ``$ref`` to the
  document's own ``$id`` or to an embedded one stays inside the document.
- Anchors: ``$anchor`` (draft-07 ``$id: "#name"``, draft-04 ``id: "#name"``).
- The JSON Schema meta-schemas that jsonschema ships, read from the package
  (`Target.meta`: the form edits such a value as JSON).

Cycles are the callers' to stop (`limits.ref_cycles` finds them without
recursion; the builder keeps its recursion limit); this module only says
where each step leads.

Anything else is an external reference, which SEP-2106 forbids fetching
automatically: no retrieval is configured, so it raises `RefError` with a
reason a person can read, and nothing touches the network.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import unquote, urljoin

import referencing.exceptions
import referencing.jsonschema
from jsonschema_specifications import REGISTRY as _META_SCHEMAS

from inspector.forms.dialects import dialect_of
from inspector.forms.values import JSONObject

__all__ = ["RefError", "RefResolver", "Target", "document_resolver"]

_MAX_NODES = 20_000
"""Schema objects whose base URI is recorded; past that, the base of the enclosing scope is used."""

# What referencing (or the pointer walk through a malformed document) raises
# for a reference it cannot follow.
_LOOKUP_FAILURES = (referencing.exceptions.Unresolvable, ValueError, TypeError, AttributeError, LookupError)


class RefError(Exception):
    """A ``$ref`` that cannot be resolved locally; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Target:
    """What a ``$ref`` points to: the ``schema`` (an object or a boolean) and the
    ``scope`` there (a `referencing.Resolver` at the target's base URI), which
    the target's own ``$ref``s resolve in."""

    schema: Any
    scope: Any
    meta: bool = False
    """Whether the target is (part of) a JSON Schema meta-schema, not of the document."""


@cache
def _meta_objects() -> frozenset[int]:
    """The identities of the objects in the bundled meta-schemas (they live as long as the process)."""
    found: set[int] = set()
    stack: list[Any] = [_META_SCHEMAS.contents(uri) for uri in _META_SCHEMAS]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.add(id(node))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return frozenset(found)


def _specification(schema: Any) -> Any:
    """The referencing specification of the dialect the validator uses for *schema* (2020-12 for an unknown one)."""
    dialect = dialect_of(schema)
    default = referencing.jsonschema.DRAFT202012
    return referencing.jsonschema.specification_with(dialect.uri, default=default) if dialect.known else default


def _root(schema: Any) -> tuple[Any, str, Any]:
    """(resource, base URI, registry) of a document: the meta-schemas and the document under its ``$id``."""
    resource = _specification(schema).create_resource(schema)
    ident = schema.get("$id", schema.get("id")) if isinstance(schema, dict) else None
    # A malformed $id (not a string) is the meta-schema check's to report; the document is then unnamed.
    base = resource.id() if isinstance(ident, str) else None
    base = base if isinstance(base, str) else ""
    return resource, base, _META_SCHEMAS.with_resource(base, resource)


def document_resolver(schema: Any) -> Any:
    """The `referencing.Resolver` for a whole document, as jsonschema's validator takes it."""
    _, base, registry = _root(schema)
    return registry.resolver(base_uri=base)


class RefResolver:
    """Resolves references against one root schema document.

    A scope is where a ``$ref`` is written: None for the document's own base
    URI, else a `referencing.Resolver` (from `scope_of`, or `Target.scope`
    after a ``$ref``), to pass back to `lookup` for the ``$ref``s found there.
    """

    def __init__(self, root: Any) -> None:
        self.root = root
        self._document: tuple[Any, str, Any] | None = None  # `_root`, made when a $ref is first followed
        self._bases: dict[int, str | None] | None = None
        self._scopes: dict[str, Any] = {}

    def _made(self) -> tuple[Any, str, Any]:
        if self._document is None:
            self._document = _root(self.root)
        return self._document

    def _index(self) -> dict[int, str | None]:
        """Each object of the document, with its base URI where an embedded ``$id`` changes it.

        Walked once, without recursion, on the first question.  Only a document
        with anchors or embedded ids is crawled by referencing (a slow walk);
        a JSON Pointer into the document needs neither.
        """
        if self._bases is not None:
            return self._bases
        objects, nested, anchored = _survey(self.root)
        self._bases = dict.fromkeys(objects)
        if nested or anchored:
            resource, base, registry = self._made()
            try:
                self._document = (resource, base, registry.crawl())
            except (TypeError, AttributeError, ValueError):
                pass  # a malformed document: its anchors and ids cannot be indexed, pointers still work
        if nested:
            self._bases.update(self._scan_bases())
        return self._bases

    def _scope_at(self, base: str | None) -> Any:
        """The scope at *base* (None: the document's own)."""
        self._index()  # the registry is crawled first where it needs to be
        _, own, registry = self._made()
        base = own if base is None else base
        scope = self._scopes.get(base)
        if scope is None:
            scope = self._scopes[base] = registry.resolver(base_uri=base)
        return scope

    def scope_of(self, node: Any, default: Any = None) -> Any:
        """The scope in effect at *node*, a schema object of this document.

        *default* is for objects that are not part of the document, such as
        the merge of a ``$ref`` and its siblings: the scope they were made in.
        """
        bases = self._index()
        if id(node) not in bases:
            return default
        base = bases[id(node)]
        return None if base is None else self._scope_at(base)

    def _scan_bases(self) -> dict[int, str | None]:
        """Each schema object's base URI, walking the document as referencing crawls it."""
        resource, own, _ = self._made()
        bases: dict[int, str | None] = {}
        stack: list[tuple[Any, str]] = [(resource, own)]
        while stack and len(bases) < _MAX_NODES:
            resource, base = stack.pop()
            contents = resource.contents
            if not isinstance(contents, dict):
                continue
            here = base
            if contents is not self.root:
                try:
                    ident = resource.id()
                except (TypeError, AttributeError):
                    ident = None
                if isinstance(ident, str):
                    here = urljoin(base, ident)
            bases[id(contents)] = None if here == own else here
            try:
                stack.extend((sub, here) for sub in resource.subresources())
            except (TypeError, AttributeError, ValueError):
                continue  # a malformed keyword: the meta-schema check reports it
        return bases

    def resolve(self, ref: str, where: Any = None) -> Any:
        """The schema *ref* points to (a dict or a boolean schema).

        *where* is the schema object the ``$ref`` is written in (its ``$id``
        scope applies); the document's scope when not given.
        """
        return self.lookup(ref, None if where is None else self.scope_of(where)).schema

    def lookup(self, ref: str, scope: Any = None) -> Target:
        """Where *ref*, written in *scope* (the document's when not given), points; raises `RefError`."""
        resolver = self._scope_at(None) if scope is None else scope
        try:
            found = resolver.lookup(ref)
        except referencing.exceptions.NoSuchAnchor as exc:
            raise RefError(f"$ref {ref!r}: no anchor named {exc.anchor!r} in the schema") from None
        except referencing.exceptions.InvalidAnchor as exc:
            raise RefError(
                f"$ref {ref!r}: {exc.anchor!r} is neither an anchor name nor a JSON Pointer (one starts with '/')"
            ) from None
        except referencing.exceptions.PointerToNowhere:
            raise RefError(f"$ref {ref!r} does not resolve: nothing at {_missing(resolver, ref)!r}") from None
        except referencing.exceptions.Unresolvable:
            raise RefError(
                f"external $ref {ref!r} is not followed (references outside the schema are never fetched)"
            ) from None
        except _LOOKUP_FAILURES:
            if ref.partition("#")[2].startswith("/"):
                raise RefError(f"$ref {ref!r} does not resolve: nothing at {_missing(resolver, ref)!r}") from None
            raise RefError(f"$ref {ref!r} cannot be followed: the schema around it is malformed") from None
        if not isinstance(found.contents, dict | bool):
            raise RefError(f"$ref {ref!r} points at something that is not a schema")
        meta = id(found.contents) in _meta_objects()
        return Target(found.contents, found.resolver if meta else self.scope_of(found.contents, found.resolver), meta)


def _survey(root: Any) -> tuple[list[int], bool, bool]:
    """The identities of *root*'s objects, whether one has an embedded ``$id``, whether one has an anchor."""
    objects: list[int] = []
    nested = anchored = False
    stack: list[Any] = [root]
    while stack and len(objects) < _MAX_NODES:
        node = stack.pop()
        if isinstance(node, dict):
            objects.append(id(node))
            anchored = anchored or "$anchor" in node or "$dynamicAnchor" in node
            nested = nested or _names_a_resource(node, root)
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        stack.extend(child for child in children if isinstance(child, dict | list))
    return objects, nested, anchored


def _names_a_resource(node: JSONObject, root: Any) -> bool:
    """Whether *node* opens a scope of its own: an embedded ``$id`` / ``id``, or the root's with a fragment."""
    for word in ("$id", "id"):
        ident = node.get(word)
        if isinstance(ident, str) and (node is not root or "#" in ident):
            return True
    return False


def _missing(resolver: Any, ref: str) -> str:
    """The first segment of *ref*'s JSON Pointer that names nothing (decoded as referencing decodes it)."""
    document_ref, _, fragment = ref.partition("#")
    try:
        node = resolver.lookup(document_ref or "#").contents
    except _LOOKUP_FAILURES:
        return ref
    for raw in unquote(fragment[1:]).split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and raw.isdigit() and int(raw) < len(node):
            node = node[int(raw)]
        else:
            return part
    return fragment
