"""Schemas that attack the client: catastrophic patterns, backreferences and
lookaround, evil patternProperties, huge `format: regex` values, deep
nesting, `$ref` cycles and draft-04 tuple arrays.  Each is driven through
`inspector call` and `inspector lint` against tests/servers/hostile_schemas.py
(a real stdio server), and through the forms layer and the core validation
that the TUI uses.  "Bounded" here means the command ends well inside a
generous subprocess timeout, where the bug took minutes."""

from __future__ import annotations

import concurrent.futures
import json
import subprocess
import sys
from typing import Any

import pytest

from inspector.commands import exitcodes
from inspector.core.checks.tool_schema_checks import check_structured_content
from inspector.forms import JSONValue, RawJsonNode, build_form, check_schema, parse_assignments, validate_value

from .peers import SERVERS, run_inspector
from .servers.hostile_schemas import CYCLE, EVIL_TEXT, HUGE_REGEX, SLOW_TEXT, TOOLS, TUPLE, deep_schema

SERVER = [sys.executable, str(SERVERS / "hostile_schemas.py")]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_inspector(*args, "--timeout", "20", "--", *SERVER, timeout=60)


def call(tool: str, *assignments: str) -> subprocess.CompletedProcess[str]:
    return cli("call", tool, *assignments, "--yes")


def tool(name: str) -> dict[str, Any]:
    return next(t for t in TOOLS if t["name"] == name)


# -- inspector call ------------------------------------------------------------------------


def test_call_with_a_catastrophic_pattern_is_refused_at_once() -> None:
    done = call("evil_pattern", f"text={EVIL_TEXT}")
    assert done.returncode == exitcodes.USAGE, done.stderr
    assert 'text: does not match the pattern "^(a+)+$"' in done.stderr
    assert "Traceback" not in done.stderr


def test_call_with_a_catastrophic_pattern_sends_what_matches() -> None:
    done = call("evil_pattern", "text=aaaa")
    assert done.returncode == exitcodes.OK, done.stderr
    assert json.loads(json.loads(done.stdout)["content"][0]["text"]) == {"text": "aaaa"}


def test_call_with_a_backreference_is_checked_within_the_bound() -> None:
    refused = call("backreference", f"text={EVIL_TEXT}")
    assert refused.returncode == exitcodes.USAGE, refused.stderr
    assert "does not match the pattern" in refused.stderr
    # ^(a+)+\1$ matches "aaaa" ("aa" then "aa" again): the backreference is really applied.
    sent = call("backreference", "text=aaaa")
    assert sent.returncode == exitcodes.OK, sent.stderr


def test_call_with_a_lookahead_too_slow_to_check_warns_and_sends() -> None:
    done = call("lookahead", f"text={SLOW_TEXT}")
    assert done.returncode == exitcodes.OK, done.stderr
    assert "warning: text: pattern '^(?=a)(a|aa)+$' not checked: too slow" in done.stderr
    assert json.loads(json.loads(done.stdout)["content"][0]["text"]) == {"text": SLOW_TEXT}


def test_call_with_keys_against_a_catastrophic_pattern_property() -> None:
    refused = call("evil_keys", f"tags.{EVIL_TEXT}=1")
    assert refused.returncode == exitcodes.USAGE, refused.stderr
    assert "property is not allowed by the schema" in refused.stderr
    sent = call("evil_keys", "tags.aaa=1")
    assert sent.returncode == exitcodes.OK, sent.stderr
    # The key matched the pattern, so its value was converted with the pattern's schema (an integer).
    assert json.loads(json.loads(sent.stdout)["content"][0]["text"]) == {"tags": {"aaa": 1}}


def test_call_with_a_ref_cycle_says_so() -> None:
    done = call("cycle", "node=1")
    assert done.returncode == exitcodes.USAGE
    assert "$ref cycle: '#/$defs/a' → '#/$defs/b'" in done.stderr
    assert "recursion" not in done.stderr.lower()


def test_call_with_a_draft4_tuple_checks_each_position() -> None:
    sent = call("tuple", "point[0]=1", "point[1]=x")
    assert sent.returncode == exitcodes.OK, sent.stderr
    assert json.loads(json.loads(sent.stdout)["content"][0]["text"]) == {"point": [1, "x"]}
    refused = call("tuple", "point:=[1, 2]")
    assert refused.returncode == exitcodes.USAGE
    assert "point[1]: expected string, got integer 2" in refused.stderr
    assert "has no attribute" not in refused.stderr


def test_call_on_a_deep_schema_says_how_deep() -> None:
    done = call("deep", "x.x=1")
    assert "Traceback" not in done.stderr
    assert done.returncode == exitcodes.USAGE
    assert "x.x: expected a JSON object, got integer" in done.stderr


# -- inspector lint -----------------------------------------------------------------------------


def test_lint_reports_every_hostile_schema() -> None:
    done = cli("lint", "--json")
    assert "Traceback" not in done.stderr
    assert done.returncode == exitcodes.LINT_FINDINGS, done.stderr
    findings = {(f["rule"], f["subject"], f["message"]) for f in json.loads(done.stdout)["findings"]}

    def found(rule: str, subject: str, words: str) -> bool:
        return any(r == rule and s == f'tool "{subject}"' and words in m for r, s, m in findings)

    assert found("tool-input-schema-invalid", "cycle", "$ref cycle")
    assert found("tool-input-schema-invalid", "deep", "schema nested deeper than 100 levels")
    assert found("schema-pattern-backtracking", "backreference", "needs a backtracking engine")
    assert found("schema-pattern-backtracking", "lookahead", "needs a backtracking engine")
    assert found("schema-pattern-backtracking", "slow_output", "needs a backtracking engine")
    assert found("form-unrenderable", "tuple", "tuple-style array")
    assert found("form-unrenderable", "deep", "fields nest more than 32 levels deep")
    assert found("form-unrenderable", "cycle", "$ref cycle")
    # RE2 runs these in linear time: nothing to warn about.
    assert not any(s in ('tool "evil_pattern"', 'tool "evil_keys"') for r, s, _ in findings if "pattern" in r)
    # A huge but valid regex as a `format: regex` default is not called invalid.
    assert not any(s == 'tool "regex_format"' and r == "schema-default-invalid" for r, s, _ in findings)


# -- the forms layer and core validation (what the TUI runs) ------------------------------------


def test_a_schema_5000_levels_deep_builds_validates_and_converts() -> None:
    schema = deep_schema(5000)
    form = build_form(schema)
    raw = [node for node in form.walk() if isinstance(node, RawJsonNode)]
    assert raw and raw[0].reason == "fields nest more than 32 levels deep"
    assert [v.message for v in check_schema(schema)] == ["schema nested deeper than 100 levels; it was not checked"]
    violations = validate_value(schema, {"x": {}})
    assert [v.message for v in violations] == [
        "the schema cannot be used for validation: schema nested deeper than 100 levels"
    ]
    assert [v.message for v in form.validate()] == [violations[0].message]
    # key=value reaches below the form's depth, into the raw JSON part.
    path = ".".join(["x"] * 40)
    value: JSONValue = parse_assignments(schema, [f"{path}=deep"])
    for _ in range(40):
        value = value["x"]
    assert value == "deep"


def test_a_ref_cycle_is_a_recursion_stop() -> None:
    form = build_form(CYCLE)
    node = form.find(("node",))
    assert isinstance(node, RawJsonNode)
    assert "$ref cycle through '#/$defs/a'" in (node.reason or "")
    assert parse_assignments(CYCLE, ["node:=[1]"]) == {"node": [1]}
    assert "$ref cycle" in validate_value(CYCLE, {"node": 1})[0].message
    assert [v.path for v in check_schema(CYCLE)] == [("$defs", "b", "$ref")]


def test_a_draft4_tuple_is_raw_json_with_a_note_and_validated_per_position() -> None:
    form = build_form(TUPLE)
    point = form.find(("point",))
    assert isinstance(point, RawJsonNode)
    assert "tuple-style array" in (point.reason or "")
    point.set_json_text('[1, "x"]')
    assert form.validate() == []
    point.set_json_text("[1, 2, 3]")
    messages = {(v.display_path, v.message) for v in form.validate()}
    assert ("point[1]", "expected string, got integer 2") in messages


def test_structured_content_against_catastrophic_patterns_is_bounded() -> None:
    evil_result = {"content": [], "structuredContent": {"code": EVIL_TEXT}}
    evil = check_structured_content(evil_result, tool("evil_output"), None)
    assert [(p.severity, p.message) for p in evil] == [("error", 'does not match the pattern "^(a+)+$"')]
    slow_result = {"content": [], "structuredContent": {"code": SLOW_TEXT}}
    slow = check_structured_content(slow_result, tool("slow_output"), None)
    assert [p.severity for p in slow] == ["warning"]
    assert "not checked: too slow" in slow[0].message


def test_validation_runs_in_a_worker_thread_and_gives_up_on_slow_patterns() -> None:
    schema = {
        "type": "object",
        "patternProperties": {"^(?=a)(a|aa)+$": {"type": "integer"}},
        "additionalProperties": False,
    }
    value = {SLOW_TEXT[:-1] + str(i) + "!": "x" for i in range(10)}
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        found = pool.submit(validate_value, schema, value).result(timeout=60)
    # Each key is reported unchecked (the budget, not ten full timeouts, bounds the time), none is blamed.
    assert len(found) == 10
    assert all(v.unchecked and "not checked: too slow" in v.message for v in found)


@pytest.mark.parametrize(
    ("schema", "value", "expected"),
    [
        ({"type": "string", "format": "regex"}, HUGE_REGEX, []),
        ({"type": "string", "format": "regex"}, "(", ["is not a valid regex"]),
        ({"type": "string", "pattern": r"^\u0041$"}, "A", []),
        ({"type": "string", "pattern": "^a$"}, "a\n", ['does not match the pattern "^a$"']),
        ({"type": "string", "pattern": r"^\d$"}, "٣", ['does not match the pattern "^\\\\d$"']),
        ({"type": "string", "pattern": "b"}, "abc", []),
    ],
)
def test_patterns_follow_ecma_262(schema: dict[str, Any], value: str, expected: list[str]) -> None:
    assert [v.message for v in validate_value(schema, value)] == expected


def test_unevaluated_properties_with_pattern_properties() -> None:
    schema = {
        "allOf": [{"properties": {"name": {}}}],
        "patternProperties": {"^(a+)+$": {"type": "integer"}},
        "unevaluatedProperties": False,
    }
    found = validate_value(schema, {"name": 1, "aaa": 2, EVIL_TEXT: 3})
    assert len(found) == 1
    assert EVIL_TEXT in found[0].message and "'aaa'" not in found[0].message
