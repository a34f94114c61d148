"""A deliberately broken stdio MCP server: it breaks every `inspector lint` rule
that a server can break during a lint run.  With `--clean` it is a small,
correct server with the same shape (lint finds nothing at all).

Standard library only, so each test starts it in a few milliseconds.  What
it does wrong, by rule id (see `tests/test_lint.py`, which checks each):

- stdout-not-json: prints a banner on stdout (when the first message arrives)
- jsonrpc-parse: one line that starts like JSON but is not
- jsonrpc-envelope: answers prompts/list with "jsonrpc": "1.0"
- jsonrpc-session: a response to a request id nobody sent
- jsonrpc-batch / method-not-in-revision: after negotiating 2025-06-18 it sends a batch holding
  notifications/elicitation/complete (a 2025-11-25 method)
- method-unknown: a notification no revision defines
- capability-undeclared-notification: tools/list_changed without tools.listChanged
- capability-list-changed-unobserved: declares resources.listChanged and never sends the notification
- capability-undeclared-request: sampling/createMessage to a client that declared no sampling
- wire-value-newer: that sampling request's message is a tool_use block, which 2025-06-18 does not have
- wire-schema, wire-field-newer, wire-field-unknown: tools with a non-string title, icons (2025-11-25
  only) and an unknown field
- tool-*, schema-*, form-unrenderable: see TOOLS
- tool-input-schema-root / -invalid, tool-output-schema-invalid: see TOOLS
- capability-list-fails: tools/list fails on its third page
- pagination-cursor-repeats: resources/list offers the same cursor twice
- pagination-endless: resources/templates/list never stops offering a new cursor
- resource-*, template-*, prompt-*: see RESOURCES, TEMPLATES, PROMPTS
- capability-undeclared-list: prompts/list answers though prompts is not declared
- capability-subscribe-fails, capability-completions-fails, capability-logging-fails: declared, then refused

With `--modern` it is a stateless-era (2026-07-28) server, correct except for one thing:
- capability-listen-refused: declares tools.listChanged and prompts.listChanged, but
  subscriptions/listen acknowledges only the prompts
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

CLEAN = "--clean" in sys.argv[1:]
MODERN = "--modern" in sys.argv[1:]
VERSION = "2025-06-18"


def tool(
    name: str, schema: dict[str, Any], description: str | None = "Does something.", **extra: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "inputSchema": schema}
    if description is not None:
        out["description"] = description
    out.update(extra)
    return out


def described(type_name: str, **extra: Any) -> dict[str, Any]:
    return {"type": type_name, "description": "A value.", **extra}


GOOD_SCHEMA = {"type": "object", "properties": {"text": described("string")}, "required": ["text"]}

CLEAN_TOOLS_PAGES = [
    [
        tool("echo", GOOD_SCHEMA, annotations={"readOnlyHint": True, "openWorldHint": False}),
        tool(
            "weather.report",
            {
                "type": "object",
                "properties": {"city": described("string"), "units": described("string", enum=["c", "f"], default="c")},
            },
            outputSchema={"type": "object", "properties": {"temp": {"type": "number"}}, "required": ["temp"]},
        ),
    ],
    [tool("delete_file", GOOD_SCHEMA, annotations={"readOnlyHint": False, "destructiveHint": True})],
]

BROKEN_TOOLS_PAGES = [
    [
        # tool-name-chars
        tool("bad name!", GOOD_SCHEMA),
        # tool-name-length
        tool("x" * 130, GOOD_SCHEMA),
        # tool-name-duplicate (twice on this page)
        tool("dup", GOOD_SCHEMA),
        tool("dup", GOOD_SCHEMA),
        # tool-description-missing
        tool("silent", GOOD_SCHEMA, description=None),
        # tool-input-schema-root
        tool("array_root", {"type": "array", "items": {"type": "string"}}),
        # tool-input-schema-invalid (metaschema: "strin" is no type, minLength must be >= 0)
        tool(
            "bad_schema",
            {"type": "object", "properties": {"a": {"type": "strin", "description": "A.", "minLength": -1}}},
        ),
        # schema-required-undefined
        tool(
            "required_ghost", {"type": "object", "properties": {"a": described("string")}, "required": ["a", "ghost"]}
        ),
        # schema-property-no-description
        # (a title, or a description on an anyOf variant, counts as documentation)
        tool(
            "undescribed",
            {
                "type": "object",
                "properties": {
                    "bare": {"type": "string"},
                    "titled": {"type": "string", "title": "Titled"},
                    "variant": {"anyOf": [{"type": "string", "description": "As text."}, {"type": "null"}]},
                },
            },
        ),
    ],
    [
        # schema-default-invalid, schema-enum-type, schema-unsatisfiable
        tool(
            "contradictions",
            {
                "type": "object",
                "properties": {
                    "color": described("string", enum=["red", "green"], default="blue"),
                    "count": described("integer", enum=[1, "two"]),
                    "size": described("number", minimum=10, maximum=1),
                },
            },
        ),
        # form-unrenderable (a conditional schema becomes raw JSON)
        tool(
            "conditional",
            {
                "type": "object",
                "properties": {
                    "mode": {
                        "description": "A conditional value.",
                        "if": {"type": "string"},
                        "then": {"minLength": 2},
                        "else": {"type": "number"},
                    }
                },
            },
        ),
        # tool-annotations-contradiction
        tool("read_only_destroyer", GOOD_SCHEMA, annotations={"readOnlyHint": True, "destructiveHint": True}),
        # tool-output-schema-invalid (root not an object; bad type inside)
        tool("bad_output", GOOD_SCHEMA, outputSchema={"type": "array"}),
        tool("bad_output_type", GOOD_SCHEMA, outputSchema={"type": "object", "properties": {"x": {"type": 5}}}),
        # wire-schema (title must be a string), wire-field-newer (icons is 2025-11-25), wire-field-unknown
        tool("odd_fields", GOOD_SCHEMA, title=5),
        tool("with_icons", GOOD_SCHEMA, icons=[{"src": "https://example.com/i.png"}], colour="blue"),
        # tool-name-chars, with a terminal escape that must never reach the terminal
        tool("esc\x1b]0;pwned\x07", GOOD_SCHEMA),
    ],
]

CLEAN_RESOURCES_PAGES = [
    [{"uri": "file:///readme.md", "name": "readme", "mimeType": "text/markdown"}],
    [{"uri": "file:///notes.txt", "name": "notes", "mimeType": "text/plain"}],
]
BROKEN_RESOURCES = [
    {"uri": "file:///same.txt", "name": "first"},
    {"uri": "file:///same.txt", "name": "second"},  # resource-uri-duplicate
    {"uri": "no scheme here", "name": "relative"},  # resource-uri-invalid
]

CLEAN_TEMPLATES = [{"uriTemplate": "file:///logs/{day}{?level}", "name": "logs"}]
BROKEN_TEMPLATES = [
    {"uriTemplate": "file:///{path", "name": "unclosed"},  # template-invalid
    {"uriTemplate": "file:///{a b}", "name": "space"},  # template-invalid
    {"uriTemplate": "file:///{=x}", "name": "reserved"},  # template-invalid
    {"uriTemplate": "file:///fixed", "name": "fixed"},  # template-no-variables
    {"uriTemplate": "file:///{id}", "name": "one"},
    {"uriTemplate": "file:///{id}", "name": "two"},  # template-duplicate
]

CLEAN_PROMPTS = [{"name": "greet", "description": "Greets.", "arguments": [{"name": "who", "required": True}]}]
BROKEN_PROMPTS = [
    {"name": "nameless_arg", "arguments": [{"description": "no name"}]},  # prompt-argument-name
    {"name": "empty_arg", "arguments": [{"name": ""}]},  # prompt-argument-name
    {"name": "twice", "arguments": [{"name": "a"}, {"name": "a"}]},  # prompt-argument-duplicate
    {"name": "same"},
    {"name": "same"},  # prompt-name-duplicate
]


def send(message: Any) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def reply(message_id: Any, result: Any, jsonrpc: str = "2.0") -> None:
    send({"jsonrpc": jsonrpc, "id": message_id, "result": result})


def fail(message_id: Any, code: int, text: str) -> None:
    send({"jsonrpc": "2.0", "id": message_id, "error": {"code": code, "message": text}})


def capabilities() -> dict[str, Any]:
    if CLEAN:
        return {
            # listChanged declared, and the notification sent (see after_initialized)
            "tools": {"listChanged": True},
            "resources": {"subscribe": True},
            "prompts": {},
            "completions": {},
            "logging": {},
        }
    # prompts deliberately missing; tools without listChanged; resources.listChanged never honoured
    return {"tools": {}, "resources": {"subscribe": True, "listChanged": True}, "completions": {}, "logging": {}}


TOOL_USE = {"type": "tool_use", "id": "u1", "name": "echo", "input": {"text": "hi"}}


def after_initialized() -> None:
    if CLEAN:
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return
    send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    send({"jsonrpc": "2.0", "method": "notifications/custom/thing", "params": {}})
    send(
        {
            "jsonrpc": "2.0",
            "id": "srv-1",
            "method": "sampling/createMessage",
            "params": {"messages": [{"role": "assistant", "content": TOOL_USE}], "maxTokens": 5},
        }
    )
    send({"jsonrpc": "2.0", "id": 4242, "result": {}})
    sys.stdout.write('{"jsonrpc": "2.0", "method": oops}\n')
    send(
        [
            {"jsonrpc": "2.0", "method": "notifications/elicitation/complete", "params": {"elicitationId": "e1"}},
            {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hello"}},
        ]
    )


def page_of(pages: list[list[dict[str, Any]]], cursor: str | None, key: str) -> dict[str, Any]:
    index = int(cursor[1:]) if cursor and cursor[1:].isdigit() else 0
    result: dict[str, Any] = {key: pages[index] if index < len(pages) else []}
    if index + 1 < len(pages):
        result["nextCursor"] = f"p{index + 1}"
    return result


def handle(message: dict[str, Any]) -> None:
    method = message.get("method")
    params = message.get("params") or {}
    if not isinstance(method, str):
        return  # the client's answer to our own request
    if "id" not in message:
        if method == "notifications/initialized":
            after_initialized()
        return
    mid = message["id"]
    cursor = params.get("cursor")
    answer = ANSWERS.get(method)
    if answer is None:
        fail(mid, -32601, "Method not found")
        return
    answer(mid, cursor)


def answer_initialize(mid: Any, cursor: Any) -> None:
    reply(
        mid,
        {
            "protocolVersion": VERSION,
            "capabilities": capabilities(),
            "serverInfo": {"name": "broken" if not CLEAN else "clean", "version": "1.0.0"},
        },
    )


def list_tools(mid: Any, cursor: Any) -> None:
    if CLEAN:
        reply(mid, page_of(CLEAN_TOOLS_PAGES, cursor, "tools"))
    elif cursor == "p2":
        fail(mid, -32603, "page 3 exploded")  # capability-list-fails
    else:
        result = page_of(BROKEN_TOOLS_PAGES, cursor, "tools")
        result["nextCursor"] = "p1" if cursor is None else "p2"
        reply(mid, result)


def list_resources(mid: Any, cursor: Any) -> None:
    if CLEAN:
        reply(mid, page_of(CLEAN_RESOURCES_PAGES, cursor, "resources"))
    else:
        # pagination-cursor-repeats: page 1 -> "again", page 2 -> "again"
        reply(mid, {"resources": BROKEN_RESOURCES if cursor is None else [], "nextCursor": "again"})


def list_templates(mid: Any, cursor: Any) -> None:
    if CLEAN:
        reply(mid, {"resourceTemplates": CLEAN_TEMPLATES})
    else:
        # pagination-endless: always one more page
        number = int(cursor[1:]) if cursor else 0
        reply(mid, {"resourceTemplates": BROKEN_TEMPLATES if cursor is None else [], "nextCursor": f"t{number + 1}"})


def list_prompts(mid: Any, cursor: Any) -> None:
    if CLEAN:
        reply(mid, {"prompts": CLEAN_PROMPTS})
    else:
        reply(mid, {"prompts": BROKEN_PROMPTS}, jsonrpc="1.0")


def subscribe(mid: Any, cursor: Any) -> None:
    if CLEAN:
        reply(mid, {})
    else:
        fail(mid, -32603, "subscriptions are broken")


def complete(mid: Any, cursor: Any) -> None:
    if CLEAN:
        reply(mid, {"completion": {"values": ["world"], "hasMore": False}})
    else:
        fail(mid, -32601, "Method not found")


def set_level(mid: Any, cursor: Any) -> None:
    if CLEAN:
        reply(mid, {})
    else:
        fail(mid, -32601, "Method not found")


# Each request's answer (given its id and cursor); any other method is not found.
ANSWERS: dict[str, Callable[[Any, Any], None]] = {
    "initialize": answer_initialize,
    "ping": lambda mid, cursor: reply(mid, {}),
    "tools/list": list_tools,
    "resources/list": list_resources,
    "resources/templates/list": list_templates,
    "prompts/list": list_prompts,
    "resources/subscribe": subscribe,
    "resources/unsubscribe": subscribe,
    "completion/complete": complete,
    "logging/setLevel": set_level,
}


CACHE = {"resultType": "complete", "ttlMs": 0, "cacheScope": "public"}


def handle_modern(message: dict[str, Any]) -> None:
    """The stateless era: no handshake, every result says resultType, lists carry cache hints."""
    method = message.get("method")
    if not isinstance(method, str) or "id" not in message:
        return
    mid = message["id"]
    if method == "server/discover":
        reply(
            mid,
            {
                **CACHE,
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {"listChanged": True}, "prompts": {"listChanged": True}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "broken-modern", "version": "1.0.0"}},
            },
        )
    elif method == "tools/list":
        reply(mid, {**CACHE, "tools": CLEAN_TOOLS_PAGES[0][:1]})
    elif method == "prompts/list":
        reply(mid, {**CACHE, "prompts": CLEAN_PROMPTS})
    elif method == "subscriptions/listen":
        # Only the prompts are honoured, although tools.listChanged is declared.
        send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/subscriptions/acknowledged",
                "params": {
                    "_meta": {"io.modelcontextprotocol/subscriptionId": mid},
                    "notifications": {"promptsListChanged": True},
                },
            }
        )
    else:
        fail(mid, -32601, "Method not found")


def main() -> int:
    if MODERN:
        for line in sys.stdin:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict):
                handle_modern(message)
        return 0
    banner = not CLEAN
    for line in sys.stdin:
        if banner:
            # stdout-not-json.  Printed when the first message arrives rather than at start-up, so
            # the test does not depend on how early the client attaches to the pipe.
            print("Broken server starting... (this banner belongs on stderr)")
            banner = False
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            handle(message)
    return 0


if __name__ == "__main__":
    sys.exit(main())
