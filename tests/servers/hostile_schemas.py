"""A stdio MCP server whose tool schemas attack the client that reads them.

    python tests/servers/hostile_schemas.py [--depth N]

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
]


def send_line(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def answer(message_id: Any, result: Any) -> None:
    send_line(json.dumps({"jsonrpc": "2.0", "id": message_id, "result": result}))


def tools_list(message_id: Any, depth: int) -> None:
    deep_tool = (
        '{"name": "deep", "description": "Nested objects.", "inputSchema": ' + deep_json(deep_schema(depth)) + "}"
    )
    listed = ", ".join([*(json.dumps(tool) for tool in TOOLS), deep_tool])
    send_line('{"jsonrpc": "2.0", "id": ' + json.dumps(message_id) + ', "result": {"tools": [' + listed + "]}}")


def call(message_id: Any, params: dict[str, Any]) -> None:
    name = params.get("name")
    arguments = params.get("arguments") or {}
    result: dict[str, Any] = {"content": [{"type": "text", "text": json.dumps(arguments)}]}
    if name == "evil_output":
        result["structuredContent"] = {"code": EVIL_TEXT}
    elif name == "slow_output":
        result["structuredContent"] = {"code": SLOW_TEXT}
    answer(message_id, result)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--depth", type=int, default=80)
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
            tools_list(message_id, options.depth)
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
