"""One `$ref` resolver (inspector/forms/refs.py, built on referencing): the
form, lint and validation agree on what each tricky `$ref` points to.

Each case is a tool of tests/servers/hostile_schemas.py, a real stdio server:
`inspector lint` reports what it finds in the listed schema, `inspector call`
converts key=value with the form, validates before sending and checks the
structuredContent that comes back, and the TUI draws the form.  The same schemas go through the forms layer in-process,
where each consumer is asked directly: the form's fields, the `$ref` check
that lint reports, and the validation result.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from textual.widgets import Input, Static

from inspector.commands import exitcodes
from inspector.core.checks.lint_items import check_tools
from inspector.core.checks.tool_schema_checks import check_structured_content
from inspector.core.protocol.items import Item
from inspector.core.servers.spec import ServerSpec
from inspector.forms import (
    IntegerNode,
    NodeKind,
    ObjectNode,
    RawJsonNode,
    UnionNode,
    apply_defaults,
    build_form,
    check_schema,
    validate_value,
)
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.arguments import ArgumentsEditor

from .peers import PYTHON, SERVERS, run_inspector
from .servers.hostile_schemas import (
    CYCLE,
    META_REF,
    REF_ESCAPED_KEY,
    REF_ID_ANCHOR,
    REF_META,
    REF_MISSING,
    REF_OUTPUT,
    REF_PERCENT,
    ref_remote,
)
from .test_tui_arguments import call_and_wait
from .tui_helpers import burst, field_row, focus, select, wait_connected, wait_for

SERVER = [sys.executable, str(SERVERS / "hostile_schemas.py")]
UNUSABLE = "the schema cannot be used for validation: "


def cli(*args: str, server: list[str] = SERVER) -> subprocess.CompletedProcess[str]:
    # A bound only a hang reaches: a loaded machine can take a minute to start Python twice.
    return run_inspector(*args, "--timeout", "60", "--", *server, timeout=300)


def call(tool: str, *assignments: str, server: list[str] = SERVER) -> subprocess.CompletedProcess[str]:
    return cli("call", tool, *assignments, "--yes", server=server)


def sent(done: subprocess.CompletedProcess[str]) -> Any:
    """The arguments the server received (it echoes them)."""
    assert done.returncode == exitcodes.OK, done.stderr
    return json.loads(json.loads(done.stdout)["content"][0]["text"])


def refused(done: subprocess.CompletedProcess[str]) -> str:
    """What `inspector call` said when it refused to send."""
    assert done.returncode == exitcodes.USAGE, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    return done.stderr


def lint_of(server: list[str]) -> dict[str, set[tuple[str, str]]]:
    done = cli("lint", "--json", server=server)
    assert "Traceback" not in done.stderr
    found: dict[str, set[tuple[str, str]]] = {}
    for finding in json.loads(done.stdout)["findings"]:
        found.setdefault(finding.get("subject", ""), set()).add((finding["rule"], finding["message"]))
    return found


@pytest.fixture(scope="module")
def linted() -> dict[str, set[tuple[str, str]]]:
    """`inspector lint` of the server, once: its findings by subject."""
    return lint_of(SERVER)


def findings(linted: dict[str, set[tuple[str, str]]], tool: str) -> set[tuple[str, str]]:
    return linted.get(f'tool "{tool}"', set())


def messages(violations: list[Any]) -> list[str]:
    return [str(v) for v in violations]


# -- the tricky $refs, each asked of the form, lint and validation ---------------------------------


def test_a_key_with_a_slash_and_a_tilde(linted: dict[str, set[tuple[str, str]]]) -> None:
    # "#/$defs/a~1b~0c" names the key "a/b~c".
    n = build_form(REF_ESCAPED_KEY).fields["n"]  # type: ignore[attr-defined]
    assert isinstance(n, IntegerNode)
    assert n.description == "a count, under a key with / and ~"
    assert findings(linted, "ref_escaped_key") == set()  # the description on the target counts
    assert messages(validate_value(REF_ESCAPED_KEY, {"n": 0})) == ["n: must be at least 1"]
    assert "n: must be at least 1" in refused(call("ref_escaped_key", "n=0"))
    assert sent(call("ref_escaped_key", "n=2")) == {"n": 2}  # the form made "2" the integer the target wants


def test_percent_encoded_pointers(linted: dict[str, set[tuple[str, str]]]) -> None:
    # "%20" decodes to a space inside a key; "%2F" decodes to "/", which then
    # separates keys (RFC 6901: the fragment is percent-decoded first), so
    # "#/$defs/a%2Fb" names $defs → a → b, and there is nothing there.
    reason = "$ref '#/$defs/a%2Fb' does not resolve: nothing at 'a'"
    form = build_form(REF_PERCENT)
    n, flag = form.fields["n"], form.fields["flag"]  # type: ignore[attr-defined]
    assert isinstance(n, IntegerNode) and n.description == "a count, under a key with a space"
    assert isinstance(flag, RawJsonNode) and flag.reason == reason
    assert findings(linted, "ref_percent") == {
        ("tool-input-schema-invalid", reason),
        ("form-unrenderable", f"edited as raw JSON: {reason}"),
        ("schema-property-no-description", 'property "flag" has no description'),
    }  # and none for "n": lint followed "%20" as the form did
    assert messages(check_schema(REF_PERCENT)) == [f"properties.flag.$ref: {reason}"]
    assert messages(validate_value(REF_PERCENT, {"flag": True})) == [f"(root): {UNUSABLE}{reason}"]
    assert f"{UNUSABLE}{reason}" in refused(call("ref_percent", "flag=true"))
    assert messages(validate_value(REF_PERCENT, {"n": 0})) == ["n: must be at least 1"]
    assert sent(call("ref_percent", "n=3")) == {"n": 3}


def test_refs_through_an_embedded_id_and_an_anchor(linted: dict[str, set[tuple[str, str]]]) -> None:
    # Inside the item (its own "$id"), "#/$defs/Count" is the item's integer
    # Count, not the root's string one; "again" names the same schema by the
    # absolute URI of the item; "#label" is an $anchor.
    form = build_form(REF_ID_ANCHOR)
    item = form.fields["item"]  # type: ignore[attr-defined]
    assert isinstance(item, ObjectNode)
    count = item.fields["count"]
    assert isinstance(count, IntegerNode) and count.description == "the item's Count"
    again, label = form.fields["again"], form.fields["label"]  # type: ignore[attr-defined]
    assert isinstance(again, IntegerNode) and again.description == "the item's Count"
    assert label.kind == NodeKind.STRING and label.description == "a label, by its anchor"
    assert findings(linted, "ref_id_anchor") == set()
    assert check_schema(REF_ID_ANCHOR) == []
    assert messages(validate_value(REF_ID_ANCHOR, {"item": {"count": "3"}})) == [
        'item.count: expected integer, got string "3"'
    ]
    assert sent(call("ref_id_anchor", "item.count=3", "again=4", "label=ab")) == {
        "item": {"count": 3},
        "again": 4,
        "label": "ab",
    }
    assert "item.count: must be at least 1" in refused(call("ref_id_anchor", "item.count=0"))
    assert "again: must be at least 1" in refused(call("ref_id_anchor", "item.count=1", "again=0"))
    assert "label: must be at least 2 characters long" in refused(call("ref_id_anchor", "item.count=1", "label=a"))


def test_a_ref_cycle(linted: dict[str, set[tuple[str, str]]]) -> None:
    node = build_form(CYCLE).fields["node"]  # type: ignore[attr-defined]
    assert isinstance(node, RawJsonNode)
    assert node.reason == "$ref cycle through '#/$defs/a' never reaches a schema; edit this part as JSON"
    # Where the walk enters the loop (so which $ref the chain starts at) follows the order of the keys.
    cycles = (
        "$ref cycle: '#/$defs/a' → '#/$defs/b' leads back to itself without descending into the value",
        "$ref cycle: '#/$defs/b' → '#/$defs/a' leads back to itself without descending into the value",
    )
    assert any(("tool-input-schema-invalid", cycle) in findings(linted, "cycle") for cycle in cycles)
    assert ("form-unrenderable", f"edited as raw JSON: {node.reason}") in findings(linted, "cycle")
    assert messages(validate_value(CYCLE, {"node": 1}))[0] in [f"(root): {UNUSABLE}{cycle}" for cycle in cycles]
    assert any(f"{UNUSABLE}{cycle}" in refused(call("cycle", "node=1")) for cycle in cycles)


def test_a_ref_to_a_missing_target(linted: dict[str, set[tuple[str, str]]]) -> None:
    reason = "$ref '#/$defs/Nope' does not resolve: nothing at '$defs'"
    form = build_form(REF_MISSING)
    x = form.fields["x"]  # type: ignore[attr-defined]
    assert isinstance(x, RawJsonNode) and x.reason == reason
    assert findings(linted, "ref_missing") == {
        ("tool-input-schema-invalid", reason),
        ("form-unrenderable", f"edited as raw JSON: {reason}"),
    }
    assert messages(validate_value(REF_MISSING, {"x": 1})) == [f"(root): {UNUSABLE}{reason}"]
    assert f"{UNUSABLE}{reason}" in refused(call("ref_missing", "x=1"))
    # A value that never reaches the $ref is checked, as jsonschema checks it: lazily.
    assert validate_value(REF_MISSING, {"note": "hi"}) == []
    assert sent(call("ref_missing", "note=hi")) == {"note": "hi"}


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP port on this machine that records whether anyone connected."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.setblocking(False)
    yield sock
    sock.close()


def connections(sock: socket.socket) -> int:
    count = 0
    while True:
        try:
            conn, _ = sock.accept()
        except BlockingIOError:
            return count
        conn.close()
        count += 1


def test_a_remote_ref_is_refused_and_never_fetched(listener: socket.socket) -> None:
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/schema.json"
    reason = f"external $ref {url!r} is not followed (references outside the schema are never fetched)"
    server = [*SERVER, "--remote-ref", url]
    schema = ref_remote(url)
    x = build_form(schema).fields["x"]  # type: ignore[attr-defined]
    assert isinstance(x, RawJsonNode) and x.reason == reason
    assert messages(check_schema(schema)) == [f"properties.x.$ref: {reason}"]
    assert messages(validate_value(schema, {"x": 1})) == [f"(root): {UNUSABLE}{reason}"]
    assert findings(lint_of(server), "ref_remote") == {
        ("tool-input-schema-invalid", reason),
        ("form-unrenderable", f"edited as raw JSON: {reason}"),
    }
    assert f"{UNUSABLE}{reason}" in refused(call("ref_remote", "x=1", server=server))
    assert sent(call("ref_remote", "note=hi", server=server)) == {"note": "hi"}
    # Every consumer has answered (the commands have exited): nobody knocked.
    assert connections(listener) == 0


def test_a_ref_to_the_meta_schema_is_read_from_the_package(linted: dict[str, set[tuple[str, str]]]) -> None:
    # jsonschema ships the meta-schemas: the $ref resolves without the network,
    # validation applies it, and the form leaves such a value to raw JSON.
    reason = f"$ref {META_REF!r} points into a JSON Schema meta-schema (the value is a schema)"
    node = build_form(REF_META).fields["schema"]  # type: ignore[attr-defined]
    assert isinstance(node, RawJsonNode) and node.reason == reason
    assert findings(linted, "ref_meta") == {("form-unrenderable", f"edited as raw JSON: {reason}")}
    assert check_schema(REF_META) == []
    assert messages(validate_value(REF_META, {"schema": {"type": 5}})) == [
        "schema.type: matches none of the alternatives"
    ]
    assert "schema.type: matches none of the alternatives" in refused(call("ref_meta", 'schema:={"type": 5}'))
    assert sent(call("ref_meta", 'schema:={"type": "string"}')) == {"schema": {"type": "string"}}


def test_structured_content_is_checked_where_its_refs_point() -> None:
    # ref_output's outputSchema is ref_id_anchor's: the item's count is its own integer
    # Count (minimum 1), not the root's string Count, for the call's check as for the form.
    done = cli("call", "ref_output", "--yes", "--strict")
    assert done.returncode == exitcodes.OUTPUT_SCHEMA, done.stderr
    problems = json.loads(done.stderr)["problems"]
    assert [(p["rule"], p["path"], p["message"]) for p in problems] == [
        ("structured-content-invalid", "result.structuredContent.item.count", "must be at least 1")
    ]
    tool = {"name": "ref_output", "outputSchema": REF_ID_ANCHOR}
    checked = check_structured_content({"content": [], "structuredContent": REF_OUTPUT}, tool, None)
    assert [(p.path, p.message) for p in checked] == [("result.structuredContent.item.count", "must be at least 1")]
    fine = {"content": [], "structuredContent": {"item": {"count": 2}, "again": 1, "label": "ab"}}
    assert check_structured_content(fine, tool, None) == []


# -- malformed references: the same words from each consumer ---------------------------------------


@pytest.mark.parametrize(
    ("prop", "reason"),
    [
        ({"$ref": "#/allOf/x"}, "$ref '#/allOf/x' does not resolve: nothing at 'x'"),
        ({"$ref": "#/minProperties/y"}, "$ref '#/minProperties/y' does not resolve: nothing at 'y'"),
        ({"$ref": "#/title"}, "$ref '#/title' points at something that is not a schema"),
        ({"$ref": "#a/b"}, "$ref '#a/b': 'a/b' is neither an anchor name nor a JSON Pointer (one starts with '/')"),
        ({"$ref": "#nowhere"}, "$ref '#nowhere': no anchor named 'nowhere' in the schema"),
        ({"$ref": 5}, "$ref must be a string"),
    ],
    ids=["index-not-a-number", "through-a-number", "not-a-schema", "invalid-anchor", "no-anchor", "not-a-string"],
)
def test_a_malformed_ref_reads_the_same_everywhere(prop: dict[str, Any], reason: str) -> None:
    schema = {
        "type": "object",
        "title": "t",
        "minProperties": 0,
        "allOf": [{"type": "object"}],
        "properties": {"x": prop},
    }
    x = build_form(schema).fields["x"]  # type: ignore[attr-defined]
    assert isinstance(x, RawJsonNode) and x.reason == reason
    assert reason in [v.message for v in check_schema(schema) if v.keyword == "$ref"]
    assert messages(validate_value(schema, {"x": 1})) == [f"(root): {UNUSABLE}{reason}"]


# -- scopes: every consumer resolves a $ref where it is written -----------------------------------

# An embedded resource with its own "X": an integer there, a boolean at the root.
SCOPED: dict[str, Any] = {
    "$id": "https://tools.example/scoped.json",
    "type": "object",
    "$defs": {
        "X": {"type": "boolean"},
        "Sub": {
            "$id": "sub/s.json",
            "$defs": {"X": {"type": "integer", "default": 7, "description": "the sub's X"}},
            "type": "object",
            "properties": {
                "either": {"oneOf": [{"$ref": "#/$defs/X"}, {"type": "string"}]},
                "n": {"$ref": "#/$defs/X", "default": 5},
                "m": {"$ref": "#/$defs/X"},
            },
        },
    },
    "properties": {"sub": {"$ref": "sub/s.json", "default": {}}},
}


def test_a_union_inside_an_embedded_id_matches_in_its_scope() -> None:
    form = build_form(SCOPED)
    either = form.find(("sub", "either"))
    assert isinstance(either, UnionNode)
    assert [v.title for v in either.variants] == ["X", "string"]
    assert either.infer_variant(1) == 0  # the sub's X: an integer
    assert either.infer_variant(True) is None  # the root's X (a boolean) is not what the $ref means
    assert validate_value(SCOPED, {"sub": {"either": 1}}) == []
    violations = validate_value(SCOPED, {"sub": {"either": True}})
    assert messages(violations) == ["sub.either: matches none of the alternatives"]


def test_defaults_and_their_check_follow_the_embedded_scope() -> None:
    # Elicitation's defaults, and lint's check of a default against its own schema.
    assert apply_defaults(SCOPED) == {"sub": {"n": 5, "m": 7}}
    problems = check_tools([Item("tool", {"name": "scoped", "description": "d", "inputSchema": SCOPED})], None)
    assert not [p for p in problems if p.rule == "schema-default-invalid"], problems
    wrong = json.loads(json.dumps(SCOPED))
    wrong["$defs"]["Sub"]["properties"]["n"]["default"] = True  # right for the root's X, wrong for the sub's
    problems = check_tools([Item("tool", {"name": "scoped", "description": "d", "inputSchema": wrong})], None)
    assert [p.message for p in problems if p.rule == "schema-default-invalid"] == [
        "default true is not valid against its own schema"
    ]


@pytest.mark.parametrize(
    "schema",
    [
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "definitions": {"N": {"$id": "#num", "type": "integer"}},
            "properties": {"x": {"$ref": "#num"}},
        },
        {
            "$schema": "http://json-schema.org/draft-04/schema#",
            "id": "http://tools.example/d4.json",
            "type": "object",
            "definitions": {
                "S": {"id": "s.json", "definitions": {"N": {"type": "integer"}}, "allOf": [{"$ref": "#/definitions/N"}]}
            },
            "properties": {"x": {"$ref": "s.json"}},
        },
    ],
    ids=["draft-07-id-anchor", "draft-04-id"],
)
def test_older_drafts_name_anchors_and_scopes_with_id(schema: dict[str, Any]) -> None:
    x = build_form(schema).fields["x"]  # type: ignore[attr-defined]
    assert isinstance(x, IntegerNode)
    assert check_schema(schema) == []
    assert validate_value(schema, {"x": 1}) == []
    assert messages(validate_value(schema, {"x": "s"})) == ['x: expected integer, got string "s"']


# -- the TUI draws the same form -------------------------------------------------------------------


async def test_the_tui_form_resolves_as_validation_does() -> None:
    app = InspectorApp(ServerSpec(transport="stdio", command=PYTHON, args=[str(SERVERS / "hostile_schemas.py")]))
    async with app.run_test(size=(160, 45)) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "ref_id_anchor")
        editor = app.query_one(ArgumentsEditor)
        count = field_row(app, ("item", "count")).query_one(Input)
        await focus(pilot, count)
        await burst(pilot, "0")

        def marked(text: str) -> bool:
            return any(v.message == text and v.path == ("item", "count") for v in editor.form.violations)

        await wait_for(pilot, lambda: marked("must be at least 1"), "item.count marked as below its minimum")
        await burst(pilot, "backspace", "3")
        await focus(pilot, field_row(app, ("label",)).query_one(Input))
        await burst(pilot, *"ab")
        frame = await call_and_wait(pilot, app)
        assert frame.message["params"]["arguments"] == {"item": {"count": 3}, "label": "ab"}  # type: ignore[attr-defined]

        await select(pilot, app, "tools", "ref_missing")
        shown = [str(s.render()) for s in field_row(app, ("x",)).query(Static)]
        assert "raw JSON: $ref '#/$defs/Nope' does not resolve: nothing at '$defs'" in shown
