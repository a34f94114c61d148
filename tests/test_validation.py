"""Wire validation of single messages and of a followed session, per revision."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from inspector.core.checks.frame_validator import FrameValidator
from inspector.core.checks.message_checks import validate_message
from inspector.core.checks.problems import Problem
from inspector.core.checks.rules import RULES
from inspector.core.checks.spec_pages import PAGES, SPEC_BASE, spec_url
from inspector.core.checks.tool_schema_checks import check_structured_content, check_tool_schemas
from inspector.core.protocol.frame_reader import STDOUT_HINT
from inspector.core.protocol.versions import KNOWN_VERSIONS
from inspector.core.record.frame_lines import frame_from_record, frame_to_record
from inspector.core.record.traffic import Frame, TrafficLog

HANDSHAKE = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN = "2026-07-28"


def response(result: dict[str, Any], id: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "result": result}


def check_result(method: str, result: dict[str, Any], revision: str, **kw: Any) -> list[Problem]:
    return validate_message(response(result), kind="response", direction="in", revision=revision, method=method, **kw)


def rules(problems: list[Problem]) -> list[str]:
    return [p.rule for p in problems]


def by_path(problems: list[Problem]) -> dict[str, Problem]:
    return {p.path: p for p in problems}


def modern(result: dict[str, Any], cache: bool = False) -> dict[str, Any]:
    out = {"resultType": "complete", **result}
    if cache:
        out.update(ttlMs=0, cacheScope="public")
    return out


TOOL = {
    "name": "weather",
    "description": "The weather.",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
WEATHER_OUT = {
    **TOOL,
    "outputSchema": {"type": "object", "properties": {"temp": {"type": "number"}}, "required": ["temp"]},
}


# -- good messages, every revision ----------------------------------------------------------


@pytest.mark.parametrize("revision", HANDSHAKE)
def test_valid_handshake_messages_have_no_problems(revision: str) -> None:
    init = {
        "protocolVersion": revision,
        "capabilities": {"tools": {"listChanged": True}, "logging": {}},
        "serverInfo": {"name": "s", "version": "1"},
    }
    assert check_result("initialize", init, revision) == []
    assert check_result("tools/list", {"tools": [TOOL], "nextCursor": "2"}, revision) == []
    call = {"content": [{"type": "text", "text": "sunny"}, {"type": "image", "data": "AA==", "mimeType": "image/png"}]}
    assert check_result("tools/call", call, revision) == []
    read = {"contents": [{"uri": "file:///a", "text": "x"}, {"uri": "file:///b", "blob": "AA=="}]}
    assert check_result("resources/read", read, revision) == []
    prompt = {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}
    assert check_result("prompts/get", prompt, revision) == []
    progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 2}}
    assert validate_message(progress, kind="notification", direction="in", revision=revision) == []
    request = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "weather", "arguments": {}}}
    assert validate_message(request, kind="request", direction="out", revision=revision) == []


def test_valid_modern_messages_have_no_problems() -> None:
    listing = modern({"tools": [TOOL]}, cache=True)
    assert check_result("tools/list", listing, MODERN) == []
    assert check_result("tools/call", modern({"content": []}), MODERN) == []
    asked = {
        "resultType": "input_required",
        "inputRequests": {"x": {"method": "roots/list"}},
        "requestState": "abc",
    }
    assert check_result("tools/call", asked, MODERN) == []
    # An extension's result type (tasks) is not the core's to judge.
    assert check_result("tools/call", {"resultType": "task", "task": {"taskId": "t"}}, MODERN) == []
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}
    assert validate_message(request, kind="request", direction="out", revision=MODERN) == []


def test_modern_result_without_result_type_is_an_error() -> None:
    problems = check_result("tools/call", {"content": []}, MODERN)
    assert rules(problems) == ["wire-schema"]
    assert problems[0].path == "result.resultType"
    assert problems[0].message == "required field is missing"
    assert "(required)" in problems[0].spec


# -- paths, items, unions -----------------------------------------------------------------


def test_each_tool_is_validated_on_its_own_with_its_path() -> None:
    broken = {"name": 3, "inputSchema": {"type": "array"}, "annotations": {"readOnlyHint": "yes"}}
    problems = check_result("tools/list", {"tools": [TOOL, TOOL, TOOL, broken]}, "2025-11-25")
    found = by_path(problems)
    assert set(found) == {
        "result.tools[3].name",
        "result.tools[3].inputSchema.type",
        "result.tools[3].annotations.readOnlyHint",
    }
    assert found["result.tools[3].inputSchema.type"].rule == "tool-input-schema-root"
    assert found["result.tools[3].inputSchema.type"].message == 'must be "object", got "array"'
    assert found["result.tools[3].name"].rule == "wire-schema"
    assert found["result.tools[3].name"].spec == "Tool.name: string"
    # Strict: JSON has no "yes" for true.
    assert found["result.tools[3].annotations.readOnlyHint"].message == 'expected a boolean, got string "yes"'
    assert all(p.severity == "error" and p.seq is None for p in problems)
    assert found["result.tools[3].name"].url == spec_url("2025-11-25", "server/tools")


def test_union_errors_name_only_the_branch_that_was_meant() -> None:
    result = {
        "content": [
            {"type": "text"},
            {"type": "image", "data": "AA=="},
            {"type": "video", "data": "x"},
            "plain string",
        ]
    }
    problems = check_result("tools/call", result, "2025-11-25")
    messages = {p.path: p.message for p in problems}
    assert messages == {
        "result.content[0].text": "required field is missing",
        "result.content[1].mimeType": "required field is missing",
        "result.content[2].type": 'unknown type "video"; expected one of "text", "image", "audio", '
        '"resource_link", "resource"',
        "result.content[3]": "expected TextContent or ImageContent or AudioContent or ResourceLink or "
        'EmbeddedResource, got string "plain string"',
    }


def test_integers_written_with_a_fraction_are_integers() -> None:
    listing = modern({"tools": [TOOL]}, cache=True)
    listing["ttlMs"] = 5.0
    assert check_result("tools/list", listing, MODERN) == []
    listing["ttlMs"] = 5.5
    assert by_path(check_result("tools/list", listing, MODERN))["result.ttlMs"].rule == "wire-schema"


def test_prompt_argument_without_a_name() -> None:
    prompts = {"prompts": [{"name": "p", "arguments": [{"description": "nameless"}]}]}
    problems = check_result("prompts/list", prompts, "2025-11-25")
    assert [(p.rule, p.path, p.subject) for p in problems] == [
        ("prompt-argument-name", "result.prompts[0].arguments[0].name", 'prompt "p"')
    ]


# -- fields across revisions ------------------------------------------------------------------


def test_a_field_from_a_later_revision_is_info_not_an_error() -> None:
    # Info: no revision's schema closes an object (additionalProperties is never
    # false), so the message is still valid in 2024-11-05 and a peer ignores it.
    tool = {**TOOL, "title": "Weather", "annotations": {"readOnlyHint": True}, "outputSchema": {"type": "object"}}
    problems = check_result("tools/list", {"tools": [tool]}, "2024-11-05")
    assert {(p.rule, p.severity, p.path) for p in problems} == {
        ("wire-field-newer", "info", "result.tools[0].title"),
        ("wire-field-newer", "info", "result.tools[0].annotations"),
        ("wire-field-newer", "info", "result.tools[0].outputSchema"),
    }
    title = by_path(problems)["result.tools[0].title"]
    assert title.message == "Tool.title was added in 2025-06-18; this session uses 2024-11-05"
    # The link is the changelog of the revision that added the field.
    assert title.url == f"{SPEC_BASE}/2025-06-18/changelog"
    assert by_path(problems)["result.tools[0].annotations"].url == f"{SPEC_BASE}/2025-03-26/changelog"
    assert check_result("tools/list", {"tools": [tool]}, "2025-06-18") == []


def test_unknown_fields_are_info_and_results_may_carry_extras() -> None:
    tool = {**TOOL, "annotations": {"readonlyHint": True}, "colour": "blue"}
    problems = check_result("tools/list", {"tools": [tool], "extra": 1}, "2025-11-25")
    assert {(p.rule, p.severity, p.path) for p in problems} == {
        ("wire-field-unknown", "info", "result.tools[0].annotations.readonlyHint"),
        ("wire-field-unknown", "info", "result.tools[0].colour"),
    }


def test_older_revisions_accept_what_they_defined() -> None:
    # 2024-11-05 had no annotations, no title, no outputSchema: a plain tool is fine.
    assert check_result("tools/list", {"tools": [TOOL]}, "2024-11-05") == []
    # A field that exists in 2026-07-28 only is named as such in a 2025-11-25 session.
    listing = {"tools": [TOOL], "ttlMs": 5}
    assert check_result("tools/list", listing, "2025-11-25") == []  # result top level may carry extras


# -- methods and capabilities ---------------------------------------------------------------


def test_methods_outside_the_negotiated_revision() -> None:
    elicit = {"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": {"message": "m"}}
    problems = validate_message(elicit, kind="request", direction="in", revision="2025-03-26")
    assert [(p.rule, p.severity) for p in problems] == [("method-not-in-revision", "error")]
    assert "2025-06-18" in problems[0].message
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert rules(validate_message(ping, kind="request", direction="in", revision=MODERN)) == ["method-not-in-revision"]
    # Our own request outside the revision (a raw composer) is only a warning.
    ours = validate_message(ping, kind="request", direction="out", revision=MODERN)
    assert [(p.rule, p.severity) for p in ours] == [("method-not-in-revision", "warning")]
    custom = {"jsonrpc": "2.0", "method": "notifications/acme/thing"}
    assert [
        (p.rule, p.severity) for p in validate_message(custom, kind="notification", direction="in", revision=MODERN)
    ] == [("method-unknown", "info")]


def test_capabilities_learned_from_the_handshake() -> None:
    validator, log = FrameValidator(), TrafficLog()
    add(log, validator, "out", "request", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init_params()})
    init = {
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}, "resources": {"listChanged": True}},
        "serverInfo": {"name": "s", "version": "1"},
    }
    add(log, validator, "in", "response", response(init), method="initialize")
    assert validator.revision == "2025-11-25"
    changed = add(
        log, validator, "in", "notification", {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    )
    assert [(p.rule, p.severity, p.subject) for p in changed] == [
        ("capability-undeclared-notification", "warning", "notification notifications/tools/list_changed")
    ]
    fine = {"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}
    assert add(log, validator, "in", "notification", fine) == []
    sampling = {
        "jsonrpc": "2.0",
        "id": "s1",
        "method": "sampling/createMessage",
        "params": {"messages": [], "maxTokens": 1},
    }
    assert rules(add(log, validator, "in", "request", sampling)) == ["capability-undeclared-request"]


# -- JSON-RPC itself -------------------------------------------------------------------------


def test_envelope_problems() -> None:
    bad = {"jsonrpc": "1.0", "id": None, "method": "tools/list"}
    problems = validate_message(bad, kind="request", direction="out", revision="2025-11-25")
    assert {(p.rule, p.path) for p in problems} >= {("jsonrpc-envelope", "jsonrpc"), ("jsonrpc-envelope", "id")}
    error = {"jsonrpc": "2.0", "id": 1, "error": {"code": "x"}}
    problems = validate_message(error, kind="error", direction="in", revision="2025-11-25")
    assert {p.path for p in problems} == {"error.code", "error.message"}


def test_batches_were_removed_in_2025_06_18() -> None:
    for revision, expected in (("2025-03-26", []), ("2025-06-18", ["jsonrpc-batch"])):
        validator, log = FrameValidator(revision), TrafficLog()
        frame = log.add("in", "batch", raw=b"[]", message=[{"jsonrpc": "2.0", "method": "notifications/progress"}])
        assert rules(validator.check(frame)) == expected


def test_non_json_stdout_is_a_problem_with_the_exact_line() -> None:
    validator, log = FrameValidator("2025-11-25"), TrafficLog()
    line = b"Server listening on port 8080 \xe2\x9c\x93"
    frame = log.add("in", "invalid", raw=line, error=STDOUT_HINT, problems=[STDOUT_HINT])
    problems = validator.annotate(frame)
    assert [(p.rule, p.severity, p.subject) for p in problems] == [("stdout-not-json", "error", "stdout line")]
    assert "Server listening on port 8080 ✓" in problems[0].message
    assert "stderr" in problems[0].message
    assert problems[0].seq == frame.seq
    assert problems[0].url.endswith("/2025-11-25/basic/transports#stdio")
    # The session's own string problems stay as they were.
    assert frame.problems == [STDOUT_HINT]
    assert frame.findings == problems
    broken = log.add("in", "invalid", raw=b'{"a": oops}', error="invalid JSON: Expecting value")
    assert rules(validator.check(broken)) == ["jsonrpc-parse"]


def test_a_success_answer_to_an_unknown_probe_is_named_for_what_it_is() -> None:
    problems = check_result("server/discover", {}, MODERN)
    assert [(p.rule, p.severity) for p in problems] == [("jsonrpc-session", "warning")]
    assert "-32601" in problems[0].message


def test_an_initialize_answer_is_checked_in_the_revision_it_chose() -> None:
    validator, log = FrameValidator(), TrafficLog()
    add(log, validator, "out", "request", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init_params()})
    init = {
        "protocolVersion": "2025-03-26",
        "capabilities": {},
        "serverInfo": {"name": "s", "version": "1", "title": "S"},
    }
    problems = add(log, validator, "in", "response", response(init), method="initialize")
    assert [(p.rule, p.path) for p in problems] == [("wire-field-newer", "result.serverInfo.title")]
    assert validator.revision == "2025-03-26"


def test_session_problems_of_inbound_frames_are_reported() -> None:
    validator, log = FrameValidator("2025-11-25"), TrafficLog()
    frame = log.add(
        "in", "response", message=response({}, id=99), id=99, problems=["response to unknown request id 99"]
    )
    assert [(p.rule, p.message) for p in validator.check(frame)] == [
        ("jsonrpc-session", "response to unknown request id 99")
    ]


# -- tool schemas ----------------------------------------------------------------------------


def test_tool_schemas_against_their_metaschema() -> None:
    tool = {
        "name": "t",
        "inputSchema": {"type": "object", "properties": {"a": {"type": "strin"}, "b": {"minLength": -1}}},
        "outputSchema": {"type": "object", "properties": {"x": {"type": 5}}},
    }
    problems = check_tool_schemas(tool, "2025-11-25", ("result", "tools", 0), subject='tool "t"')
    assert {(p.rule, p.path) for p in problems} == {
        ("tool-input-schema-invalid", "result.tools[0].inputSchema.properties.a.type"),
        ("tool-input-schema-invalid", "result.tools[0].inputSchema.properties.b.minLength"),
        ("tool-output-schema-invalid", "result.tools[0].outputSchema.properties.x.type"),
    }


def test_the_declared_dialect_is_used_and_2020_12_is_the_default() -> None:
    tuple_items = {"type": "object", "properties": {"pair": {"type": "array", "items": [{"type": "string"}]}}}
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", **tuple_items}
    assert check_tool_schemas({"name": "t", "inputSchema": draft7}, "2025-11-25") == []
    # Without $schema, 2025-11-25 means 2020-12, where "items" cannot be an array.
    assert rules(check_tool_schemas({"name": "t", "inputSchema": tuple_items}, "2025-11-25")) == [
        "tool-input-schema-invalid"
    ]
    # Before 2025-11-25 there was no default dialect: draft-07 is accepted too.
    assert check_tool_schemas({"name": "t", "inputSchema": tuple_items}, "2025-06-18") == []
    unknown = {"$schema": "https://example.com/my-dialect", "type": "object"}
    problems = check_tool_schemas({"name": "t", "inputSchema": unknown}, "2025-11-25")
    assert [(p.rule, p.severity, p.path) for p in problems] == [
        ("tool-input-schema-invalid", "warning", "inputSchema.$schema")
    ]


def test_tool_schema_checks_run_inside_tools_list() -> None:
    tool = {"name": "t", "inputSchema": {"type": "object", "properties": {"a": {"type": "strin"}}}}
    problems = check_result("tools/list", {"tools": [TOOL, tool]}, "2025-11-25")
    assert [(p.rule, p.path, p.subject) for p in problems] == [
        ("tool-input-schema-invalid", "result.tools[1].inputSchema.properties.a.type", 'tool "t"')
    ]


# -- structured content -----------------------------------------------------------------------


def test_structured_content_against_the_output_schema() -> None:
    good = {"content": [], "structuredContent": {"temp": 21.5}}
    assert check_structured_content(good, WEATHER_OUT, "2025-11-25") == []
    bad = {"content": [], "structuredContent": {"temp": "warm"}}
    problems = check_structured_content(bad, WEATHER_OUT, "2025-11-25")
    assert [(p.rule, p.path, p.subject) for p in problems] == [
        ("structured-content-invalid", "result.structuredContent.temp", 'tool "weather"')
    ]
    missing = check_structured_content({"content": []}, WEATHER_OUT, "2025-11-25")
    assert [(p.rule, p.path) for p in missing] == [("structured-content-missing", "result")]
    assert check_structured_content({"content": [], "isError": True}, WEATHER_OUT, "2025-11-25") == []
    # A tool without an output schema may return anything.
    assert check_structured_content({"content": [], "structuredContent": {"x": 1}}, TOOL, "2025-11-25") == []


def test_a_followed_session_checks_structured_content_with_the_listed_tool() -> None:
    validator, log = FrameValidator("2025-11-25"), TrafficLog()
    add(log, validator, "out", "request", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    add(log, validator, "in", "response", response({"tools": [WEATHER_OUT]}), method="tools/list")
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "weather", "arguments": {"city": "P"}},
    }
    assert add(log, validator, "out", "request", call) == []
    answer = response({"content": [{"type": "text", "text": "{}"}]}, id=2)
    problems = add(log, validator, "in", "response", answer, method="tools/call")
    assert [(p.rule, p.subject) for p in problems] == [("structured-content-missing", 'tool "weather"')]
    # Arguments we send are checked against the input schema (a raw composer may send anything).
    wrong = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "weather", "arguments": {}}}
    sent = add(log, validator, "out", "request", wrong)
    assert [(p.rule, p.severity, p.path) for p in sent] == [
        ("tool-arguments-invalid", "warning", "params.arguments.city")
    ]


def test_a_given_tool_lookup_wins() -> None:
    validator, log = (
        FrameValidator("2025-11-25", tools=lambda name: WEATHER_OUT if name == "weather" else None),
        TrafficLog(),
    )
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "weather", "arguments": {"city": "P"}},
    }
    add(log, validator, "out", "request", call)
    answer = response({"content": [], "structuredContent": {"temp": "hot"}}, id=2)
    assert rules(add(log, validator, "in", "response", answer, method="tools/call")) == ["structured-content-invalid"]


def test_responses_find_their_request_through_the_log() -> None:
    log = TrafficLog()
    call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "weather"}}
    request = log.add("out", "request", message=call, method="tools/call", id=5)
    answer = log.add("in", "response", message=response({"content": []}, id=5), method="tools/call", id=5)
    answer.partner = request.seq
    # A validator that starts after the request was sent (a reopened recording, a late TUI pane).
    validator = FrameValidator("2025-11-25", tools=lambda name: WEATHER_OUT, frames=log.by_seq)
    assert rules(validator.check(answer)) == ["structured-content-missing"]


# -- frames, records, cost ------------------------------------------------------------------


def test_findings_survive_a_recording() -> None:
    validator, log = FrameValidator("2025-11-25"), TrafficLog()
    frame = log.add("in", "invalid", raw=b"hello", error=STDOUT_HINT, problems=[STDOUT_HINT])
    validator.annotate(frame)
    record = json.loads(json.dumps(frame_to_record(frame)))
    assert record["findings"][0]["rule"] == "stdout-not-json"
    again = frame_from_record(record)
    assert again.findings == frame.findings
    assert again.problems == frame.problems
    plain = frame_to_record(log.add("out", "notification", message={}, method="x"))
    assert "findings" not in plain


def test_every_rule_has_an_id_severity_rationale_and_spec_link() -> None:
    for rule in RULES.values():
        assert rule.severity in ("error", "warning", "info")
        assert rule.rationale and rule.spec
        for revision in KNOWN_VERSIONS:
            url = rule.url(revision)
            assert url.startswith(SPEC_BASE + "/")
            linked_revision, _, page = url[len(SPEC_BASE) + 1 :].partition("#")[0].partition("/")
            assert page in PAGES[linked_revision], (rule.id, url)
    assert all(rule_id == rule.id for rule_id, rule in RULES.items())


def test_links_follow_pages_that_moved_or_do_not_exist_yet() -> None:
    assert spec_url("2026-07-28", "basic/lifecycle") == f"{SPEC_BASE}/2026-07-28/basic/versioning"
    assert spec_url("2026-07-28", "basic/transports", "stdio") == f"{SPEC_BASE}/2026-07-28/basic/transports/stdio"
    assert spec_url("2025-06-18", "basic/transports", "stdio") == f"{SPEC_BASE}/2025-06-18/basic/transports#stdio"
    assert spec_url("2024-11-05", "changelog") == f"{SPEC_BASE}/2025-03-26/changelog"
    assert spec_url("2026-07-28", "basic/utilities/tasks") == f"{SPEC_BASE}/2025-11-25/basic/utilities/tasks"
    assert spec_url(None, "server/tools", "tool-names") == f"{SPEC_BASE}/2026-07-28/server/tools#tool-names"


def test_importing_validation_does_not_load_the_wire_models() -> None:
    code = (
        "import sys, inspector.core.checks.frame_validator, inspector.core.checks.lint_run\n"
        "print('mcp_types' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "False"


def test_a_big_list_is_cheap_once_warm(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checking a schema against its metaschema is the costly part of a tool:
    a schema seen before is not checked again.  Counted, not timed (a busy
    machine makes any time bound flaky)."""
    import uuid

    import inspector.forms

    tools = [{**TOOL, "name": f"tool_{i}"} for i in range(300)]
    check_result("tools/list", {"tools": tools[:1]}, "2025-11-25")  # import and warm the caches
    checked: list[object] = []
    check_schema = inspector.forms.check_schema

    def counted(schema: Any) -> Any:
        checked.append(schema)
        return check_schema(schema)

    monkeypatch.setattr(inspector.forms, "check_schema", counted)
    assert check_result("tools/list", {"tools": tools}, "2025-11-25") == []
    assert checked == []
    # A schema not seen before (in this process: the cache outlives a test) is checked, once.
    unseen = {"type": "object", "properties": {"n": {"type": "integer", "description": uuid.uuid4().hex}}}
    fresh = [{**tool, "inputSchema": unseen} for tool in tools]
    assert check_result("tools/list", {"tools": fresh}, "2025-11-25") == []
    assert len(checked) == 1


# -- helpers ----------------------------------------------------------------------------------


def init_params() -> dict[str, Any]:
    return {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


def add(
    log: TrafficLog,
    validator: FrameValidator,
    direction: str,
    kind: str,
    message: dict[str, Any],
    method: str | None = None,
) -> list[Problem]:
    frame: Frame = log.add(
        direction,
        kind,
        raw=json.dumps(message).encode(),
        message=message,
        method=method or message.get("method"),
        id=message.get("id"),
    )
    return validator.annotate(frame)


# -- live --------------------------------------------------------------------------------------


async def test_a_live_session_with_the_demo_validates_clean() -> None:
    from inspector.core.protocol.client import Client
    from inspector.core.servers.spec import demo_spec

    spec = demo_spec()
    spec.era = "legacy"
    client = Client(spec)
    validator = FrameValidator(lambda: client.protocol_version)
    client.traffic.subscribe(validator.annotate)  # as frames arrive; the TUI may do it in a worker instead
    await client.connect()
    try:
        await client.list_all("tools")
        result = await client.call_tool("weather_report", {"city": "Paris"})
    finally:
        await client.close()
    assert "structuredContent" in result
    assert [p for frame in client.traffic for p in frame.findings] == []
    assert validator.revision == "2025-11-25" and "weather_report" in validator.tools
    # The structured content was checked: against a stricter schema, the same frames fail.
    strict = {**validator.tools["weather_report"]}
    strict["outputSchema"] = {**strict["outputSchema"], "required": ["no_such_field"]}
    again = FrameValidator(tools=lambda name: strict if name == "weather_report" else None)
    assert {(p.rule, p.path) for p in again.check_all(client.traffic)} == {
        ("structured-content-invalid", "result.structuredContent.no_such_field")
    }
