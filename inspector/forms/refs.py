"""Resolve ``$ref`` inside one schema document, and never outside it.

Supported: JSON pointers (``#/$defs/Address``, ``#/definitions/Address``,
``#/properties/a/items``, ``#``), anchors (``#name`` via ``$anchor`` or a
draft-07 ``$id: "#name"``), and references to the document's own ``$id`` or
to ``$id``s embedded in it.  Anything else is an external reference, which
SEP-2106 forbids fetching automatically: it raises `RefError` with a reason a
person can read.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

from .values import JSONObject

__all__ = ["RefError", "RefResolver"]


class RefError(Exception):
    """A ``$ref`` that cannot be resolved locally; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class RefResolver:
    """Resolves references against one root schema document."""

    def __init__(self, root: Any) -> None:
        self.root = root
        base = root.get("$id") if isinstance(root, dict) else None
        self.base = urldefrag(base)[0] if isinstance(base, str) else ""
        self._anchors: JSONObject = {}
        self._ids: JSONObject = {}
        self._index(root, 0)

    def _index(self, node: Any, depth: int) -> None:
        if depth > 200:
            return
        if isinstance(node, dict):
            anchor = node.get("$anchor")
            if isinstance(anchor, str):
                self._anchors.setdefault(anchor, node)
            ident = node.get("$id")
            if isinstance(ident, str) and node is not self.root:
                if ident.startswith("#"):
                    self._anchors.setdefault(ident[1:], node)
                else:
                    absolute = urldefrag(urljoin(self.base, ident))[0]
                    if absolute:
                        self._ids.setdefault(absolute, node)
            for key, value in node.items():
                if key not in ("enum", "const", "default", "examples", "example"):
                    self._index(value, depth + 1)
        elif isinstance(node, list):
            for value in node:
                self._index(value, depth + 1)

    def resolve(self, ref: str) -> Any:
        """The schema *ref* points to (a dict or a boolean schema)."""
        target, fragment = urldefrag(ref)
        if target:
            absolute = urldefrag(urljoin(self.base, target))[0] if self.base else target
            if self.base and absolute == self.base:
                document = self.root
            elif absolute in self._ids:
                document = self._ids[absolute]
            else:
                raise RefError(
                    f"external $ref {ref!r} is not followed (references outside the schema are never fetched)"
                )
        else:
            document = self.root
        if fragment == "" or fragment.startswith("/"):
            return self._pointer(document, fragment, ref)
        anchor = unquote(fragment)
        if anchor in self._anchors:
            return self._anchors[anchor]
        raise RefError(f"$ref {ref!r}: no anchor named {anchor!r} in the schema")

    @staticmethod
    def _pointer(document: Any, fragment: str, ref: str) -> Any:
        node = document
        if fragment == "":
            return node
        for raw in fragment[1:].split("/"):
            part = unquote(raw).replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise RefError(f"$ref {ref!r} does not resolve: nothing at {part!r}")
        if not isinstance(node, dict | bool):
            raise RefError(f"$ref {ref!r} points at something that is not a schema")
        return node
