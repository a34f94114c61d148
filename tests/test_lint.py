"""`inspector lint`: every rule fires on the broken server where it should, and
nowhere on its clean mode, the demo server or server-everything (every
finding there is explained below)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from inspector.commands import exitcodes
from inspector.core.checks.rules import RULES
from inspector.core.checks.uri_template import template_errors

from .peers import EVERYTHING, NODE, SERVERS, require
from .spec_links import assert_links

BROKEN = [sys.executable, str(SERVERS / "broken_server.py")]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "inspector", "lint", *args], capture_output=True, text=True, timeout=90, check=False
    )


def lint_json(*args: str) -> tuple[int, dict[str, Any]]:
    done = run("--json", *args)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.fixture(scope="module")
def broken() -> tuple[int, dict[str, Any]]:
    return lint_json("--", *BROKEN)


def findings_of(report: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["rule"] == rule]


# rule -> (severity, subject, path or None, a piece of the message).  One
# row per thing the broken server does wrong; see tests/servers/broken_server.py.
EXPECTED: list[tuple[str, str, str, str | None, str]] = [
    # tools
    ("tool-name-length", "warning", 'tool "' + "x" * 78, None, "130 characters"),
    ("tool-name-chars", "warning", 'tool "bad name!"', None, '" ", "!"'),
    ("tool-name-chars", "warning", 'tool "esc\\u001b]0;pwned\\u0007"', None, '"\\u0007", "\\u001b"'),
    ("tool-name-duplicate", "error", 'tool "dup"', None, '2 tools are named "dup"'),
    ("tool-description-missing", "warning", 'tool "silent"', None, "no description"),
    ("tool-input-schema-root", "error", 'tool "array_root"', "result.tools[5].inputSchema.type", '"object"'),
    (
        "tool-input-schema-invalid",
        "error",
        'tool "bad_schema"',
        "result.tools[6].inputSchema.properties.a.type",
        "strin",
    ),
    (
        "tool-input-schema-invalid",
        "error",
        'tool "bad_schema"',
        "result.tools[6].inputSchema.properties.a.minLength",
        "-1",
    ),
    ("schema-required-undefined", "warning", 'tool "required_ghost"', "inputSchema", '"ghost"'),
    ("schema-property-no-description", "info", 'tool "undescribed"', "inputSchema.properties.bare", '"bare"'),
    ("schema-default-invalid", "error", 'tool "contradictions"', "inputSchema.properties.color", '"blue"'),
    ("schema-enum-type", "error", 'tool "contradictions"', "inputSchema.properties.count", '"two"'),
    ("schema-unsatisfiable", "error", 'tool "contradictions"', "inputSchema.properties.size", "minimum 10"),
    ("form-unrenderable", "info", 'tool "conditional"', "arguments.mode", "if/then/else"),
    ("tool-annotations-contradiction", "warning", 'tool "read_only_destroyer"', "annotations", "destructiveHint"),
    ("tool-output-schema-invalid", "error", 'tool "bad_output"', "result.tools[3].outputSchema.type", '"object"'),
    (
        "tool-output-schema-invalid",
        "error",
        'tool "bad_output_type"',
        "result.tools[4].outputSchema.properties.x.type",
        "5",
    ),
    ("wire-schema", "error", 'tool "odd_fields"', "result.tools[5].title", "expected a string"),
    ("wire-field-newer", "info", 'tool "with_icons"', "result.tools[6].icons", "added in 2025-11-25"),
    ("wire-field-unknown", "info", 'tool "with_icons"', "result.tools[6].colour", '"colour"'),
    # resources, templates, prompts
    ("resource-uri-duplicate", "error", 'resource "file:///same.txt"', None, "2 resources"),
    ("resource-uri-invalid", "warning", 'resource "no scheme here"', None, "no scheme"),
    ("template-invalid", "error", 'template "file:///{path"', "uriTemplate", "unclosed"),
    ("template-invalid", "error", 'template "file:///{a b}"', "uriTemplate", "variable name"),
    ("template-invalid", "error", 'template "file:///{=x}"', "uriTemplate", "reserved"),
    ("template-duplicate", "warning", 'template "file:///{id}"', None, "2 templates"),
    ("template-no-variables", "info", 'template "file:///fixed"', None, "no {variables}"),
    ("prompt-argument-name", "error", 'prompt "nameless_arg"', "result.prompts[0].arguments[0].name", "missing"),
    ("prompt-argument-name", "error", 'prompt "empty_arg"', "arguments[0].name", "empty"),
    ("prompt-argument-duplicate", "error", 'prompt "twice"', "arguments[1].name", '"a"'),
    ("prompt-name-duplicate", "error", 'prompt "same"', None, "2 prompts"),
    # capabilities and pagination
    ("capability-undeclared-list", "warning", "capability prompts", None, "prompts/list answered with 5"),
    ("capability-list-fails", "error", "capability tools", None, "page 3"),
    ("capability-subscribe-fails", "error", "capability resources", None, "resources/subscribe"),
    ("capability-completions-fails", "error", "capability completions", None, "completion/complete"),
    ("capability-logging-fails", "error", "capability logging", None, "logging/setLevel"),
    ("pagination-cursor-repeats", "error", "list resources", None, "'again'"),
    ("pagination-endless", "error", "list templates", None, "after 50 pages"),
    (
        "capability-undeclared-notification",
        "warning",
        "notification notifications/tools/list_changed",
        "method",
        "listChanged",
    ),
    ("capability-undeclared-request", "error", "server request sampling/createMessage", "method", "'sampling'"),
    ("capability-list-changed-unobserved", "info", "capability resources", None, "resources.listChanged"),
    (
        "wire-value-newer",
        "error",
        "server request sampling/createMessage",
        "params.messages[0].content.type",
        'type "tool_use" is not defined in 2025-06-18',
    ),
    # the wire
    ("stdout-not-json", "error", "stdout line", None, "Broken server starting... (this banner belongs on stderr)"),
    ("jsonrpc-parse", "error", "message", None, "invalid JSON"),
    ("jsonrpc-envelope", "error", "response to prompts/list", "jsonrpc", '"1.0"'),
    ("jsonrpc-session", "warning", "response id 4242", None, "unknown request id 4242"),
    ("jsonrpc-batch", "error", "batch", None, "2025-06-18"),
    ("method-not-in-revision", "error", "notification notifications/elicitation/complete", "method", "2025-11-25"),
    ("method-unknown", "info", "notification notifications/custom/thing", "method", "notifications/custom/thing"),
]

# Rules the broken server cannot make fire in a lint run, each with why and
# where it is shown firing instead (test_rules_that_need_another_server below
# fires each one).
NOT_IN_A_LINT_RUN: dict[str, str] = {
    # Needs a tools/call result, and lint never calls a tool (that could change the world).
    "structured-content-invalid": "tools/call result: test_validation, and below",
    # Same: a tool result without structuredContent, seen only when a tool is called.
    "structured-content-missing": "tools/call result: test_validation, and below",
    # Judges arguments we send; lint sends no tools/call.
    "tool-arguments-invalid": "our own tools/call request: test_validation, and below",
    # The client refuses an initialize answer with an unknown version before lint can start.
    "protocol-version-unknown": "an initialize answer the client refuses: below",
    # Stateless era only (subscriptions/listen): the --modern broken server, test_listen_that_refuses...
    "capability-listen-refused": "broken_server.py --modern",
    # Hostile patterns have their own server: test_hostile_schemas.test_lint_reports_every_hostile_schema.
    "schema-pattern-backtracking": "hostile_schemas.py",
}


@pytest.mark.parametrize(("rule", "severity", "subject", "path", "text"), EXPECTED, ids=[row[0] for row in EXPECTED])
def test_each_rule_fires_where_it_should(
    broken: tuple[int, dict[str, Any]], rule: str, severity: str, subject: str, path: str | None, text: str
) -> None:
    _code, report = broken
    matches = [
        f
        for f in findings_of(report, rule)
        if f.get("subject", "").startswith(subject) and (path is None or f.get("path") == path) and text in f["message"]
    ]
    assert matches, json.dumps(findings_of(report, rule), indent=1)
    finding = matches[0]
    assert finding["severity"] == severity
    assert finding["url"].startswith("https://modelcontextprotocol.io/specification/20")
    assert finding["spec"]


def test_every_rule_is_exercised(broken: tuple[int, dict[str, Any]]) -> None:
    _code, report = broken
    fired = {f["rule"] for f in report["findings"]}
    expected = {row[0] for row in EXPECTED}
    assert fired == expected
    # Every rule in the registry fires on the broken server, except the few listed
    # (with the reason) that need another server or a tool call.
    registry = {rule.id for rule in RULES.values()}
    assert registry - fired == set(NOT_IN_A_LINT_RUN)
    # Every link the run emitted is an existing page and heading of the spec.
    assert_links(f["url"] for f in report["findings"])
    assert not fired & set(NOT_IN_A_LINT_RUN)
    assert fired <= registry


async def test_rules_that_need_another_server() -> None:
    """Each rule of NOT_IN_A_LINT_RUN fires where the list says (the modern one in its own test)."""
    from inspector.core.checks.message_checks import validate_message
    from inspector.core.checks.tool_schema_checks import check_structured_content

    tool = {
        "name": "w",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        "outputSchema": {"type": "object", "properties": {"t": {"type": "number"}}, "required": ["t"]},
    }
    fired = {p.rule for p in check_structured_content({"content": [], "structuredContent": {"t": "x"}}, tool, None)}
    fired |= {p.rule for p in check_structured_content({"content": []}, tool, None)}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "w", "arguments": {}}}
    fired |= {
        p.rule
        for p in validate_message(
            call, kind="request", direction="out", revision="2025-11-25", tool_lookup=lambda name: tool
        )
    }
    init = {"protocolVersion": "1999-01-01", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}
    fired |= {
        p.rule
        for p in validate_message(
            {"jsonrpc": "2.0", "id": 1, "result": init},
            kind="response",
            direction="in",
            revision="2025-11-25",
            method="initialize",
        )
    }
    assert fired == set(NOT_IN_A_LINT_RUN) - {"capability-listen-refused", "schema-pattern-backtracking"}


def test_the_broken_server_fails_with_the_lint_exit_code(broken: tuple[int, dict[str, Any]]) -> None:
    code, report = broken
    assert code == exitcodes.LINT_FINDINGS
    assert report["ok"] is False
    assert report["protocolVersion"] == "2025-06-18"
    assert report["era"] == "legacy"
    assert report["server"]["name"] == "broken"
    assert report["listed"] == {"tools": 17, "resources": 3, "templates": 6, "prompts": 5}
    summary = report["summary"]
    assert summary == {
        s: sum(1 for f in report["findings"] if f["severity"] == s) for s in ("error", "warning", "info")
    }
    # Errors first, then warnings, then info.
    order = {"error": 0, "warning": 1, "info": 2}
    ranks = [order[f["severity"]] for f in report["findings"]]
    assert ranks == sorted(ranks)
    for finding in report["findings"]:
        assert set(finding) <= {"rule", "severity", "message", "path", "spec", "url", "subject", "seq"}


def test_the_clean_mode_has_no_findings_even_strict() -> None:
    code, report = lint_json("--strict", "--", *BROKEN, "--clean")
    assert code == exitcodes.OK, report["findings"]
    assert report["findings"] == []
    assert report["ok"] is True
    assert report["listed"] == {"tools": 3, "resources": 2, "templates": 1, "prompts": 1}


def test_listen_that_refuses_a_declared_list_changed() -> None:
    code, report = lint_json("--", *BROKEN, "--modern")
    assert code == exitcodes.OK  # a warning only
    assert report["era"] == "modern"
    assert [(f["rule"], f["severity"], f["message"]) for f in report["findings"]] == [
        (
            "capability-listen-refused",
            "warning",
            "toolsListChanged is declared but subscriptions/listen did not acknowledge it",
        )
    ]
    assert_links(f["url"] for f in report["findings"])
    strict, _ = lint_json("--strict", "--", *BROKEN, "--modern")
    assert strict == exitcodes.LINT_FINDINGS


def test_text_output() -> None:
    done = run("--human", "--", *BROKEN)
    assert done.returncode == exitcodes.LINT_FINDINGS
    lines = done.stdout.splitlines()
    assert lines[0].startswith("inspector lint: broken 1.0.0 (protocol 2025-06-18, legacy era, stdio:")
    assert lines[1] == "listed: 17 tools, 3 resources, 6 templates, 5 prompts"
    assert lines[2] == "client capabilities declared: none (--all-capabilities declares them all)"
    assert 'error    tool-name-duplicate  tool "dup"' in lines
    assert (
        "    not JSON on stdout: Broken server starting... (this banner belongs on stderr)  (write logs to stderr)"
        in lines
    )
    assert any(line.startswith("    spec: ") for line in lines)
    assert lines[-1].endswith(": FAIL")
    # Server text is shown, never obeyed: the escape in a tool name arrives made visible.
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert any(line.startswith('warning  tool-name-chars  tool "esc') for line in lines)


def test_rules_listing() -> None:
    done = run("--rules", "--human")
    assert done.returncode == exitcodes.OK
    for rule in RULES.values():
        assert any(line.startswith(rule.id + " ") for line in done.stdout.splitlines()), rule.id
    assert "[lint]" in done.stdout and "[wire]" in done.stdout
    listed = json.loads(run("--rules", "--json").stdout)["rules"]
    ids = [rule["id"] for rule in listed]
    assert len(ids) == len(set(ids)) == len(RULES)
    for rule in listed:
        assert rule["severity"] in ("error", "warning", "info")
        assert rule["rationale"]
        assert rule["url"].startswith("https://modelcontextprotocol.io/specification/")


def test_one_catalogue_refuses_a_second_rule_with_a_taken_id() -> None:
    # Lint and the wire validation share one table: a rule added under an id either already uses
    # would replace the other's without a word, so building the table refuses it.
    from dataclasses import replace

    from inspector.core.checks.rules import _catalogue

    lint_rule, wire_rule = RULES["prompt-argument-duplicate"], RULES["prompt-argument-name"]
    assert (lint_rule.category, wire_rule.category) == ("lint", "wire")
    with pytest.raises(ValueError, match="prompt-argument-name"):
        _catalogue(lint_rule, wire_rule, replace(lint_rule, id=wire_rule.id))
    assert list(_catalogue(lint_rule, wire_rule)) == [lint_rule.id, wire_rule.id]


def test_the_demo_server() -> None:
    # No server named: the embedded demo, in its default (stateless) era.
    code, report = lint_json("--strict")
    assert code == exitcodes.OK
    assert report["server"]["name"] == "inspector-demo"
    # Every argument of the demo has a description: lint finds nothing at all.
    assert report["findings"] == []


# What lint says about the demo in a handshake-era session, all info (so --strict passes):
# - capability-list-changed-unobserved: the demo declares listChanged for tools, resources
#   and prompts, and lint cannot make a list change to see the notification;
# - wire-field-newer (older revisions only): the SDK sends title, icons, annotations, ...
#   whatever revision was negotiated.  These are true findings about the server, but info:
#   no revision's schema.json forbids additional properties, so the messages stay valid
#   and a peer on the older revision ignores the fields.  (The demo does adapt what a
#   revision's schema would reject: media_gallery leaves out audio before 2025-03-26 and
#   resource links before 2025-06-18.)
DEMO_INFO = {"capability-list-changed-unobserved", "wire-field-newer"}


@pytest.mark.parametrize("revision", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_the_demo_server_is_clean_strict_at_every_handshake_revision(revision: str) -> None:
    code, report = lint_json("--strict", "--protocol-version", revision)
    assert code == exitcodes.OK, report["findings"]
    assert report["protocolVersion"] == revision
    assert report["summary"]["error"] == report["summary"]["warning"] == 0
    assert {f["rule"] for f in report["findings"]} <= DEMO_INFO
    unobserved = sorted(f["subject"] for f in report["findings"] if f["rule"] == "capability-list-changed-unobserved")
    assert unobserved == ["capability prompts", "capability resources", "capability tools"]
    for finding in report["findings"]:
        if finding["rule"] == "capability-list-changed-unobserved":
            kind = finding["subject"].removeprefix("capability ")
            assert finding["url"].endswith(f"/{revision}/server/{kind}#list-changed-notification")
    assert_links(f["url"] for f in report["findings"])
    newer = [f for f in report["findings"] if f["rule"] == "wire-field-newer"]
    assert bool(newer) == (revision != "2025-11-25")
    for finding in newer:
        added = finding["message"].split(" was added in ")[1].split(";")[0]
        assert finding["url"].endswith(f"/{added}/changelog")


def test_server_everything() -> None:
    code, report = lint_json("--", NODE, str(require(EVERYTHING)), "stdio")
    assert code == exitcodes.OK
    assert report["protocolVersion"] == "2025-11-25"
    assert_links(f["url"] for f in report["findings"])
    assert [(f["rule"], f["subject"], f.get("path")) for f in report["findings"]] == [
        # get-resource-reference's resourceType argument has no description (its
        # schema is {"type": "string", "enum": ["Text", "Blob"]}).
        (
            "schema-property-no-description",
            'tool "get-resource-reference"',
            "inputSchema.properties.resourceType",
        ),
        # It declares listChanged for resources and prompts and sends neither
        # notification while lint runs (it does send tools/list_changed: its SDK
        # announces the tools it registers once the client has initialized).
        ("capability-list-changed-unobserved", "capability resources", None),
        ("capability-list-changed-unobserved", "capability prompts", None),
    ]


@pytest.mark.parametrize(
    ("template", "valid"),
    [
        ("file:///{path}", True),
        ("file:///{+path}{?q,lang}{#frag}", True),
        ("https://x/{a.b}/{c:3}/{d*}/{%41}", True),
        ("file:///{path", False),
        ("file:///path}", False),
        ("file:///{}", False),
        ("file:///{a b}", False),
        ("file:///{=a}", False),
        ("file:///{a:0}", False),
        ("file:///{a..b}", False),
        ("file:///%zz", False),
        ("file:///a b", False),
    ],
)
def test_rfc_6570_templates(template: str, valid: bool) -> None:
    assert (template_errors(template) == []) is valid


def test_all_capabilities_shows_the_tools_kept_for_richer_clients() -> None:
    # server-everything registers some tools only for clients that declare
    # roots, sampling or elicitation: lint says what it declared, and
    # --all-capabilities declares them all.
    server = ["--", NODE, str(require(EVERYTHING)), "stdio"]
    _code, plain = lint_json(*server)
    _code, every = lint_json("--all-capabilities", *server)
    assert plain["clientCapabilities"] == {}
    assert set(every["clientCapabilities"]) == {"roots", "sampling", "elicitation"}
    assert every["listed"]["tools"] > plain["listed"]["tools"]
    human = run("--human", "--all-capabilities", *server)
    assert "client capabilities declared: roots, sampling, elicitation" in human.stdout.splitlines()
