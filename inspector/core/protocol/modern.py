"""The stateless era (2026-07-28): the per-request envelope, the error codes,
and the HTTP header rules (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`)."""

from __future__ import annotations

import base64
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = [
    "CLIENT_CAPABILITIES_KEY",
    "CLIENT_INFO_KEY",
    "HEADER_MISMATCH",
    "LOG_LEVEL_KEY",
    "MISSING_CAPABILITY",
    "MODERN_ERRORS",
    "PROTOCOL_VERSION_KEY",
    "SERVER_INFO_KEY",
    "SUBSCRIPTION_ID_KEY",
    "UNSUPPORTED_VERSION",
    "encode_header_value",
    "envelope",
    "param_headers",
    "standard_headers",
    "tool_header_paths",
]

PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId"

HEADER_MISMATCH = -32020
MISSING_CAPABILITY = -32021
UNSUPPORTED_VERSION = -32022
MODERN_ERRORS = frozenset({HEADER_MISMATCH, MISSING_CAPABILITY, UNSUPPORTED_VERSION})

NAMED_METHODS = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    # The tasks extension routes by task id.
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}

# RFC 9110 token characters: what a header field name may contain.
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
_SAFE_VALUE = re.compile(r"^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$")
_JS_SAFE_INT = 2**53 - 1


def envelope(
    params: Any,
    *,
    protocol_version: str,
    capabilities: JSONObject,
    client_info: JSONObject,
    log_level: str | None = None,
) -> JSONObject:
    """`params` with the request envelope added to its `_meta` (a new dict)."""
    out = dict(params) if isinstance(params, dict) else {}
    meta = dict(out.get("_meta") or {})
    meta[PROTOCOL_VERSION_KEY] = protocol_version
    meta[CLIENT_CAPABILITIES_KEY] = capabilities
    meta[CLIENT_INFO_KEY] = client_info
    if log_level is not None:
        meta[LOG_LEVEL_KEY] = log_level
    out["_meta"] = meta
    return out


def encode_header_value(value: str) -> str:
    """A header-safe value: as is when plain visible ASCII, else `=?base64?…?=`."""
    sentinel = value.startswith("=?base64?") and value.endswith("?=")
    if _SAFE_VALUE.match(value) and not sentinel:
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def standard_headers(method: str, params: Any) -> dict[str, str]:
    """The headers every stateless-era POST carries: ``Mcp-Method``, and ``Mcp-Name`` for a method
    that names a tool, prompt, resource or task."""
    headers = {"Mcp-Method": method}
    field = NAMED_METHODS.get(method)
    if field is not None and isinstance(params, dict) and isinstance(params.get(field), str):
        headers["Mcp-Name"] = encode_header_value(params[field])
    return headers


_MAP_KEYWORDS = frozenset({"$defs", "definitions", "patternProperties", "dependentSchemas"})
_SCHEMA_KEYWORDS = frozenset(
    {
        "items",
        "prefixItems",
        "oneOf",
        "anyOf",
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "additionalProperties",
        "contains",
        "propertyNames",
        "unevaluatedProperties",
        "unevaluatedItems",
    }
)


def _subschemas(keyword: str, value: Any) -> list[Any]:
    if keyword in _MAP_KEYWORDS and isinstance(value, dict):
        return list(value.values())
    if keyword in _SCHEMA_KEYWORDS:
        return value if isinstance(value, list) else [value]
    return []


_MAX_HEADER_DEPTH = 100


def tool_header_paths(schema: Any) -> tuple[dict[str, tuple[str, ...]], str | None]:
    """The `x-mcp-header` annotations of an input schema: name -> property path.

    Returns (paths, None) when valid, or ({}, reason) when the annotations
    make the tool definition invalid (the spec says: exclude the tool).
    """
    found = _HeaderAnnotations()
    problem = found.visit(schema, (), True)
    if problem:
        return {}, problem
    return found.paths, None


class _HeaderAnnotations:
    """The `x-mcp-header` annotations met so far in a walk of one schema."""

    def __init__(self) -> None:
        self.paths: dict[str, tuple[str, ...]] = {}
        # The names in lower case: header names are case-insensitive.
        self.seen: set[str] = set()

    def visit(self, node: Any, path: tuple[str, ...], reachable: bool, depth: int = 0) -> str | None:
        """The first reason the annotations at or under `node` are invalid, or None."""
        # Past any real schema's depth: a server's schema must not exhaust the stack here.
        if not isinstance(node, dict) or depth > _MAX_HEADER_DEPTH:
            return None
        if "x-mcp-header" in node:
            problem = self._problem(node, path, reachable)
            if problem:
                return problem
            name = node["x-mcp-header"]
            self.seen.add(name.lower())
            self.paths[name] = path
        return self._visit_subschemas(node, path, reachable, depth + 1)

    def _visit_subschemas(self, node: JSONObject, path: tuple[str, ...], reachable: bool, depth: int) -> str | None:
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                for prop, sub in value.items():
                    problem = self.visit(sub, (*path, str(prop)), reachable, depth)
                    if problem:
                        return problem
                continue
            # Anywhere else a subschema is not statically reachable.
            for sub in _subschemas(key, value):
                problem = self.visit(sub, path, False, depth)
                if problem:
                    return problem
        return None

    def _problem(self, node: JSONObject, path: tuple[str, ...], reachable: bool) -> str | None:
        name = node["x-mcp-header"]
        where = ".".join(path) or "(root)"
        if not reachable or not path:
            return f"x-mcp-header on {where} is not reachable through properties alone"
        if not isinstance(name, str) or not name:
            return f"x-mcp-header on {where} is empty or not a string"
        if not _TOKEN.match(name):
            return f"x-mcp-header {name!r} on {where} is not a valid header name token"
        if name.lower() in self.seen:
            return f"x-mcp-header {name!r} is used twice (names are case-insensitive)"
        kind = node.get("type")
        if kind not in ("string", "integer", "boolean"):
            return f"x-mcp-header {name!r} on {where} is on a {kind!r} property (only string, integer, boolean)"
        return None


def param_headers(paths: dict[str, tuple[str, ...]], arguments: Any) -> dict[str, str]:
    """`Mcp-Param-*` headers for one call; absent and null values send nothing."""
    headers: dict[str, str] = {}
    for name, path in paths.items():
        value: Any = arguments
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if value is None:
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, int):
            if abs(value) > _JS_SAFE_INT:
                continue
            text = str(value)
        elif isinstance(value, str):
            text = value
        else:
            continue
        headers[f"Mcp-Param-{name}"] = encode_header_value(text)
    return headers
