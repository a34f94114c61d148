"""A stdio MCP server whose tool schemas attack the client that reads them.

    python tests/servers/hostile_schemas.py [--depth N] [--remote-ref URL]

Standard library only (JSON Lines over stdio, the handshake era), because
the official SDK builds schemas from type hints and would refuse these.
Every tool echoes its arguments as JSON text; `evil_output` and
`slow_output` also return structuredContent that their outputSchema's
pattern makes expensive to check.

    evil_pattern    "pattern": "^(a+)+$" (catastrophic for a backtracking engine)
    backreference   "pattern": "^(a+)+\\1$" (RE2 cannot express it)
    lookahead       "pattern": "^(?=a)(a|aa)+$" (lookahead, exponential in a backtracking engine)
    evil_keys       patternProperties "^(a+)+$", additionalProperties false
    regex_format    "format": "regex", with a default too large to compile cheaply
    evil_output     outputSchema pattern "^(a+)+$", structuredContent "aaa…a!"
    slow_output     outputSchema pattern "^(?=a)(a|aa)+$", structuredContent "aaa…a!"
    deep            properties nested --depth levels (default 80)
    cycle           "$ref" a → b → a, never reaching a schema
    tuple           draft-04 tuple form: "items": [{"type": "number"}, {"type": "string"}]

`$ref`s that a resolver can get wrong (the form, lint and validation must
agree on each; tests/test_forms_refs.py):

    ref_escaped_key   a key with "/" and "~" in it, "#/$defs/a~1b~0c"
    ref_percent       "#/$defs/sp%20ace" (a space), and "#/$defs/a%2Fb", which
                      names nothing: percent-decoding comes before the split
    ref_id_anchor     a $ref inside an embedded "$id" resolves there, not at
                      the root (whose "Count" is a string); a $ref to that
                      "$id" by its absolute URI; a "$anchor"
    ref_missing       "#/$defs/Nope" beside a plain string property
    ref_remote        an absolute URL (--remote-ref URL), never fetched
    ref_meta          the JSON Schema 2020-12 meta-schema (bundled, not fetched)
    ref_output        ref_id_anchor's schema as an outputSchema; structuredContent
                      {"item": {"count": 0}, "label": "ab"} (below the item's minimum)
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

EVIL_TEXT = "a" * 30 + "!"
SLOW_TEXT = "a" * 40 + "!"
DRAFT4 = "http://json-schema.org/draft-04/schema#"
HUGE_REGEX = "((a{100}){100}){100}"


def deep_schema(depth: int) -> dict[str, Any]:
    """An object whose property `x` nests *depth* levels of objects, a string at the bottom."""
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"x": schema}}
    return {"type": "object", "properties": {"x": schema}}


def deep_json(value: Any) -> str:
    """json.dumps without its recursion limit: nested dicts are written by a loop."""
    opened: list[str] = []
    while isinstance(value, dict) and set(value) == {"type", "properties"} and value.get("type") == "object":
        opened.append('{"type": "object", "properties": {"x": ')
        value = value["properties"]["x"]
    return "".join(opened) + json.dumps(value) + "}}" * len(opened)


def _text_tool(name: str, description: str, text_schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {"text": text_schema}, "required": ["text"]},
    }


CYCLE = {
    "type": "object",
    "properties": {"node": {"$ref": "#/$defs/a"}},
    "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
}
TUPLE = {
    "$schema": DRAFT4,
    "type": "object",
    "properties": {
        "point": {
            "type": "array",
            "items": [{"type": "number"}, {"type": "string"}],
            "additionalItems": False,
            "description": "a number, then a label",
        }
    },
}

REF_ESCAPED_KEY = {
    "type": "object",
    "$defs": {"a/b~c": {"type": "integer", "minimum": 1, "description": "a count, under a key with / and ~"}},
    "properties": {"n": {"$ref": "#/$defs/a~1b~0c"}},
}
REF_PERCENT = {
    "type": "object",
    "$defs": {
        "sp ace": {"type": "integer", "minimum": 1, "description": "a count, under a key with a space"},
        "a/b": {"type": "boolean", "description": "a flag, under a key with a slash"},
    },
    "properties": {"n": {"$ref": "#/$defs/sp%20ace"}, "flag": {"$ref": "#/$defs/a%2Fb"}},
}
REF_ID_ANCHOR = {
    "$id": "https://tools.example/ref.json",
    "type": "object",
    "$defs": {
        "Count": {"type": "string", "description": "the root's Count, which the item's $ref does not mean"},
        "Item": {
            "$id": "sub/item.json",
            "description": "an item, a resource of its own",
            "type": "object",
            "$defs": {"Count": {"type": "integer", "minimum": 1, "description": "the item's Count"}},
            "properties": {"count": {"$ref": "#/$defs/Count"}},
            "required": ["count"],
        },
        "Label": {"$anchor": "label", "type": "string", "minLength": 2, "description": "a label, by its anchor"},
    },
    "properties": {
        "item": {"$ref": "sub/item.json"},
        "again": {"$ref": "https://tools.example/sub/item.json#/$defs/Count"},
        "label": {"$ref": "#label"},
    },
    "required": ["item"],
}
REF_MISSING = {
    "type": "object",
    "properties": {
        "x": {"$ref": "#/$defs/Nope", "description": "points at nothing"},
        "note": {"type": "string", "description": "a plain string"},
    },
}
REMOTE_REF = "https://schemas.example/never.json"
META_REF = "https://json-schema.org/draft/2020-12/schema"
REF_META = {
    "type": "object",
    "properties": {"schema": {"$ref": META_REF, "description": "a JSON Schema"}},
}


def ref_remote(url: str) -> dict[str, Any]:
    """A schema whose property `x` is a `$ref` to *url* (a client must not fetch it)."""
    return {
        "type": "object",
        "properties": {
            "x": {"$ref": url, "description": "somewhere else"},
            "note": {"type": "string", "description": "a plain string"},
        },
    }


REF_TOOLS: list[dict[str, Any]] = [
    {"name": "ref_escaped_key", "description": "A $ref to a key with / and ~.", "inputSchema": REF_ESCAPED_KEY},
    {"name": "ref_percent", "description": "Percent-encoded $refs.", "inputSchema": REF_PERCENT},
    {"name": "ref_id_anchor", "description": "$refs through $id and $anchor.", "inputSchema": REF_ID_ANCHOR},
    {"name": "ref_missing", "description": "A $ref to nothing.", "inputSchema": REF_MISSING},
    {"name": "ref_meta", "description": "A $ref to the meta-schema.", "inputSchema": REF_META},
    {
        "name": "ref_output",
        "description": "structuredContent checked through $id and $anchor.",
        "inputSchema": {"type": "object"},
        "outputSchema": REF_ID_ANCHOR,
    },
]
REF_OUTPUT = {"item": {"count": 0}, "label": "ab"}

TOOLS: list[dict[str, Any]] = [
    _text_tool("evil_pattern", "A catastrophic-backtracking pattern.", {"type": "string", "pattern": "^(a+)+$"}),
    _text_tool("backreference", "A pattern with a backreference.", {"type": "string", "pattern": r"^(a+)+\1$"}),
    _text_tool("lookahead", "A lookahead pattern, exponential when backtracking.", {"pattern": "^(?=a)(a|aa)+$"}),
    {
        "name": "evil_keys",
        "description": "Keys checked by a catastrophic pattern.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "tags": {
                    "type": "object",
                    "patternProperties": {"^(a+)+$": {"type": "integer"}},
                    "additionalProperties": False,
                    "description": "keys made of a's",
                }
            },
        },
    },
    _text_tool(
        "regex_format",
        "A string that must be a regular expression.",
        {"type": "string", "format": "regex", "default": HUGE_REGEX},
    ),
    {
        "name": "evil_output",
        "description": "Returns structuredContent that a backtracking pattern check would hang on.",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"code": {"type": "string", "pattern": "^(a+)+$"}}},
    },
    {
        "name": "slow_output",
        "description": "Returns structuredContent that only a bounded backtracking check can try.",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"code": {"type": "string", "pattern": "^(?=a)(a|aa)+$"}}},
    },
    {"name": "cycle", "description": "A $ref cycle.", "inputSchema": CYCLE},
    {"name": "tuple", "description": "A draft-04 tuple array.", "inputSchema": TUPLE},
    *REF_TOOLS,
]


def send_line(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def answer(message_id: Any, result: Any) -> None:
    send_line(json.dumps({"jsonrpc": "2.0", "id": message_id, "result": result}))


def tools_list(message_id: Any, depth: int, remote_ref: str) -> None:
    deep_tool = (
        '{"name": "deep", "description": "Nested objects.", "inputSchema": ' + deep_json(deep_schema(depth)) + "}"
    )
    remote = {"name": "ref_remote", "description": "A $ref to a URL.", "inputSchema": ref_remote(remote_ref)}
    listed = ", ".join([*(json.dumps(tool) for tool in [*TOOLS, remote]), deep_tool])
    send_line('{"jsonrpc": "2.0", "id": ' + json.dumps(message_id) + ', "result": {"tools": [' + listed + "]}}")


def call(message_id: Any, params: dict[str, Any]) -> None:
    name = params.get("name")
    arguments = params.get("arguments") or {}
    result: dict[str, Any] = {"content": [{"type": "text", "text": json.dumps(arguments)}]}
    if name == "evil_output":
        result["structuredContent"] = {"code": EVIL_TEXT}
    elif name == "slow_output":
        result["structuredContent"] = {"code": SLOW_TEXT}
    elif name == "ref_output":
        result["structuredContent"] = REF_OUTPUT
    answer(message_id, result)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--depth", type=int, default=80)
    parser.add_argument("--remote-ref", default=REMOTE_REF, help="the URL ref_remote's $ref names")
    options = parser.parse_args()
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message or not isinstance(message.get("method"), str):
            continue
        method, message_id = message["method"], message["id"]
        params = message.get("params") or {}
        if method == "initialize":
            requested = params.get("protocolVersion")
            answer(
                message_id,
                {
                    "protocolVersion": requested if isinstance(requested, str) else "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "hostile-schemas", "version": "1.0.0"},
                },
            )
        elif method == "tools/list":
            tools_list(message_id, options.depth, options.remote_ref)
        elif method == "tools/call":
            call(message_id, params)
        elif method == "ping":
            answer(message_id, {})
        else:
            send_line(
                json.dumps(
                    {"jsonrpc": "2.0", "id": message_id, "error": {"code": -32601, "message": f"no method {method}"}}
                )
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
