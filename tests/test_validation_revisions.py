"""Each handshake revision checked against its own schema: content types, union
members and enum values that only a later revision allows are errors
(wire-value-newer), fields a later revision added are info (wire-field-newer).

`mcp_types` has no models for the revisions before 2025-11-25, so those are
checked with the 2025-11-25 models and then with the revision's own
schema.json (inspector/core/checks/wire_schemas); these tests pin what that finds,
per revision, in single messages and in live sessions with a raw server that
answers every revision with the newest content types.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from inspector.core.checks.frame_validator import FrameValidator
from inspector.core.checks.message_checks import validate_message
from inspector.core.checks.problems import Problem
from inspector.core.checks.spec_pages import SPEC_BASE
from inspector.core.protocol.client import Client
from inspector.core.protocol.handlers import ClientHandlers
from inspector.core.servers.spec import ServerSpec

from .peers import SERVERS
from .spec_links import assert_links, canonical_digest, index

HANDSHAKE = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="
TEXT = {"type": "text", "text": "hi"}
AUDIO = {"type": "audio", "data": WAV, "mimeType": "audio/wav"}
LINK = {"type": "resource_link", "uri": "file:///a.wav", "name": "a"}
TOOL_USE = {"type": "tool_use", "id": "u1", "name": "weather", "input": {}}


def result(method: str, value: dict[str, Any], revision: str) -> list[Problem]:
    message = {"jsonrpc": "2.0", "id": 1, "result": value}
    return validate_message(message, kind="response", direction="in", revision=revision, method=method)


def server_request(method: str, params: dict[str, Any], revision: str) -> list[Problem]:
    message = {"jsonrpc": "2.0", "id": "s1", "method": method, "params": params}
    return validate_message(message, kind="request", direction="in", revision=revision)


def newer(problems: list[Problem]) -> dict[str, str]:
    """path -> the revision that allows it, for every wire-value-newer finding (and each is an error
    linking the changelog of that revision)."""
    out = {}
    for problem in problems:
        if problem.rule != "wire-value-newer":
            continue
        assert problem.severity == "error"
        added = problem.url.removeprefix(SPEC_BASE + "/").removesuffix("/changelog")
        assert problem.url == f"{SPEC_BASE}/{added}/changelog"
        out[problem.path] = added
    return out


def later(revision: str, added: str) -> bool:
    return HANDSHAKE.index(revision) < HANDSHAKE.index(added)


@pytest.mark.parametrize("revision", HANDSHAKE[:-1])
def test_the_packaged_schemas_are_the_specs_own(revision: str) -> None:
    from importlib import resources

    ours = resources.files("inspector.core.checks").joinpath("wire_schemas", f"{revision}.json").read_text("utf-8")
    # The digest of the spec's own schema.json, from the index of the spec (tests/spec_links.py).
    assert canonical_digest(json.loads(ours)) == index()["schemas"][revision]


# -- content types --------------------------------------------------------------------------------

# Where each content type first exists (each revision's schema.json: CallToolResult.content,
# PromptMessage.content, SamplingMessage.content).
CALL_TYPES = {"text": "2024-11-05", "audio": "2025-03-26", "resource_link": "2025-06-18"}


@pytest.mark.parametrize("revision", HANDSHAKE)
def test_tool_result_content_types_per_revision(revision: str) -> None:
    blocks = [TEXT, AUDIO, LINK]
    problems = result("tools/call", {"content": blocks}, revision)
    expected = {
        f"result.content[{i}].type": CALL_TYPES[block["type"]]
        for i, block in enumerate(blocks)
        if later(revision, CALL_TYPES[block["type"]])
    }
    assert newer(problems) == expected
    assert [p for p in problems if p.rule != "wire-value-newer"] == []
    if revision == "2024-11-05":
        audio = next(p for p in problems if p.path == "result.content[1].type")
        assert audio.message == (
            'type "audio" is not defined in 2024-11-05, which allows "text", "image", "resource" here; '
            "added in 2025-03-26"
        )
        assert "TextContent | ImageContent | EmbeddedResource" in audio.spec


@pytest.mark.parametrize("revision", HANDSHAKE)
def test_prompt_content_types_per_revision(revision: str) -> None:
    messages = [{"role": "user", "content": AUDIO}, {"role": "assistant", "content": LINK}]
    expected = {
        path: added
        for path, added in (
            ("result.messages[0].content.type", "2025-03-26"),
            ("result.messages[1].content.type", "2025-06-18"),
        )
        if later(revision, added)
    }
    assert newer(result("prompts/get", {"messages": messages}, revision)) == expected


@pytest.mark.parametrize("revision", HANDSHAKE)
def test_sampling_content_types_per_revision(revision: str) -> None:
    # Sampling gained audio in 2025-03-26 and tool use in 2025-11-25; never resource links.
    params = {
        "maxTokens": 5,
        "messages": [{"role": "user", "content": AUDIO}, {"role": "assistant", "content": TOOL_USE}],
    }
    expected = {"params.messages[1].content.type": "2025-11-25"}
    if revision == "2024-11-05":
        expected["params.messages[0].content.type"] = "2025-03-26"
    if revision == "2025-11-25":
        expected = {}
    assert newer(server_request("sampling/createMessage", params, revision)) == expected
    answer = {"role": "assistant", "content": AUDIO, "model": "m"}
    ours = validate_message(
        {"jsonrpc": "2.0", "id": "s1", "result": answer},
        kind="response",
        direction="out",
        revision=revision,
        method="sampling/createMessage",
    )
    assert newer(ours) == ({"result.content.type": "2025-03-26"} if revision == "2024-11-05" else {})


def test_nested_content_is_followed_into_embedded_resources() -> None:
    # The embedded resource's contents are a union without a "type": the member is chosen by shape.
    embedded = {"type": "resource", "resource": {"uri": "file:///n", "text": "n"}}
    assert result("tools/call", {"content": [embedded]}, "2024-11-05") == []
    blob = {"type": "resource", "resource": {"uri": "file:///n", "blob": "AA==", "mimeType": "x/y"}}
    assert result("tools/call", {"content": [blob]}, "2024-11-05") == []


# -- other unions and enums that grew ------------------------------------------------------------


def test_url_mode_elicitation_before_2025_11_25() -> None:
    params = {"mode": "url", "message": "Sign in.", "url": "https://example.com", "elicitationId": "e1"}
    problems = server_request("elicitation/create", params, "2025-06-18")
    assert newer(problems) == {"params.requestedSchema": "2025-11-25"}
    missing = next(p for p in problems if p.rule == "wire-value-newer")
    assert missing.message == "required field is missing (2025-06-18 requires it; optional from 2025-11-25)"
    # The URL-mode fields themselves are new fields: info, linking the 2025-11-25 changelog.
    fields = {(p.path, p.severity, p.url) for p in problems if p.rule == "wire-field-newer"}
    assert fields == {
        (f"params.{f}", "info", f"{SPEC_BASE}/2025-11-25/changelog") for f in ("mode", "url", "elicitationId")
    }
    assert server_request("elicitation/create", params, "2025-11-25") == []


def test_elicitation_schema_kinds_before_2025_11_25() -> None:
    # Multi-select enums (an array of strings) came with 2025-11-25's PrimitiveSchemaDefinition.
    multi = {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "description": "Pick."}
    params = {"message": "m", "requestedSchema": {"type": "object", "properties": {"pick": multi}}}
    problems = server_request("elicitation/create", params, "2025-06-18")
    assert newer(problems) == {"params.requestedSchema.properties.pick.type": "2025-11-25"}
    assert '"array" is not defined in 2025-06-18' in problems[0].message
    assert server_request("elicitation/create", params, "2025-11-25") == []
    single = {"type": "string", "enum": ["a", "b"], "description": "Pick."}
    fine = {"message": "m", "requestedSchema": {"type": "object", "properties": {"pick": single}}}
    assert server_request("elicitation/create", fine, "2025-06-18") == []


def test_icons_and_tool_annotations_are_fields_a_later_revision_added() -> None:
    tool = {
        "name": "t",
        "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True},
        "icons": [{"src": "https://example.com/i.png", "theme": "dark"}],
    }
    for revision, expected in (
        ("2024-11-05", {"result.tools[0].annotations": "2025-03-26", "result.tools[0].icons": "2025-11-25"}),
        ("2025-03-26", {"result.tools[0].icons": "2025-11-25"}),
        ("2025-06-18", {"result.tools[0].icons": "2025-11-25"}),
        ("2025-11-25", {}),
    ):
        problems = result("tools/list", {"tools": [tool]}, revision)
        assert {p.path: p.url.split("/")[-2] for p in problems} == expected, revision
        assert all(p.rule == "wire-field-newer" and p.severity == "info" for p in problems)


def test_request_and_result_meta_is_every_revisions() -> None:
    # Request params and results carry _meta in every revision, although the old
    # schema.json files spell it out on the base types only.
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "t", "_meta": {"progressToken": 1}},
    }
    assert validate_message(request, kind="request", direction="out", revision="2024-11-05") == []
    assert result("tools/call", {"content": [], "_meta": {"x": 1}}, "2024-11-05") == []


def test_a_new_field_inside_request_params_is_found() -> None:
    # Fields are looked up where they sit in the revision's schema, not by a model's class name.
    params = {"progressToken": 1, "progress": 1, "message": "half way"}
    notification = {"jsonrpc": "2.0", "method": "notifications/progress", "params": params}
    problems = validate_message(notification, kind="notification", direction="in", revision="2024-11-05")
    assert [(p.rule, p.path, p.severity) for p in problems] == [("wire-field-newer", "params.message", "info")]
    assert validate_message(notification, kind="notification", direction="in", revision="2025-03-26") == []


# -- live, with a raw server that answers every revision with the newest content types -----------


class Answers(ClientHandlers):
    async def create_message(self, request: Any) -> dict[str, Any]:
        return {"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "test"}

    async def elicit(self, request: Any) -> dict[str, Any]:
        return {"action": "decline"}


# (method of the frame, path) -> the revision that allows it
LIVE: dict[tuple[str, str], str] = {
    ("tools/call", "result.content[2].type"): "2025-03-26",
    ("tools/call", "result.content[3].type"): "2025-06-18",
    ("prompts/get", "result.messages[0].content.type"): "2025-03-26",
    ("prompts/get", "result.messages[1].content.type"): "2025-06-18",
    ("sampling/createMessage", "params.messages[0].content.type"): "2025-11-25",
    ("elicitation/create", "params.requestedSchema"): "2025-11-25",
}


@pytest.mark.parametrize("revision", HANDSHAKE)
async def test_a_live_server_that_ignores_the_negotiated_revision(revision: str) -> None:
    spec = ServerSpec(
        command=sys.executable,
        args=[str(SERVERS / "newer_content.py")],
        protocol_version=revision,
        era="legacy",
    )
    client = Client(spec, handlers=Answers())
    validator = FrameValidator(lambda: client.protocol_version)
    client.traffic.subscribe(validator.annotate)
    await client.connect()
    try:
        assert client.protocol_version == revision
        await client.call_tool("media", {})
        await client.get_prompt("voice", {})
        await client.call_tool("ask", {})
        await client.call_tool("open_url", {})
    finally:
        await client.close()
    assert_links(p.url for frame in client.traffic for p in frame.findings)
    found: dict[tuple[str, str], str] = {}
    for frame in client.traffic:
        if frame.direction != "in":
            continue
        for path, added in newer(frame.findings).items():
            method = frame.method or next(
                (f.method for f in client.traffic if f.seq == frame.partner and f.method), "?"
            )
            found[(method, path)] = added
    elicitation_exists = revision in ("2025-06-18", "2025-11-25")
    expected = {
        key: added
        for key, added in LIVE.items()
        if later(revision, added) and (key[0] != "elicitation/create" or elicitation_exists)
    }
    assert found == expected, json.dumps({f"{m} {p}": a for (m, p), a in found.items()}, indent=1)
    if not elicitation_exists:
        # Before 2025-06-18 the method itself is not part of the revision.
        assert any(
            p.rule == "method-not-in-revision"
            for f in client.traffic
            if f.method == "elicitation/create"
            for p in f.findings
        )
