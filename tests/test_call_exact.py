"""`inspector call` sends exactly what the person gave, and checks what came back.

Every test reads the raw text of the recorded `tools/call` request
(`--record`) and compares the bytes of its `"arguments"` with what the
command line said, against real servers: the demo server, server-everything
and tests/servers/exact_args.py (the Python SDK's MCPServer).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.commands import exitcodes

from .peers import EVERYTHING, NODE, PYTHON, SERVERS, free_port, require, run_inspector, serving

EXACT = ["--", PYTHON, str(SERVERS / "exact_args.py")]
EVERYTHING_ARGS = ["--", NODE, str(require(EVERYTHING)), "stdio"]


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def sent_arguments(path: Path) -> str:
    """The bytes inside `"arguments"` of the recorded tools/call request, as sent."""
    calls = [r for r in records(path) if r["dir"] == "out" and r.get("method") == "tools/call"]
    if not calls:
        return ""
    assert len(calls) == 1, calls
    raw = calls[0]["raw"]
    key = '"arguments":'
    start = raw.index(key) + len(key)
    _value, end = json.JSONDecoder().raw_decode(raw, start)
    return str(raw[start:end])


def call(tmp_path: Path, *args: str) -> tuple[Any, str]:
    record = tmp_path / "call.jsonl"
    result = run_inspector("call", "--yes", "--record", str(record), *args)
    return result, sent_arguments(record) if record.exists() and record.stat().st_size else ""


# -- defaults ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # Defaults for an integer, two nullables, a boolean, a string, an array.
        (["log_query", "repo=.", *EXACT], '{"repo":"."}'),
        # The demo's echo has `repeat` defaulting to 1.
        (["echo", "message=hi"], '{"message":"hi"}'),
        # server-everything: `includeImage` defaults to false, `count` to 3.
        (["get-annotated-message", "messageType=success", *EVERYTHING_ARGS], '{"messageType":"success"}'),
        (["get-resource-links", "count=2", *EVERYTHING_ARGS], '{"count":2}'),
        (["log_query", "repo=.", "format.width=80", *EXACT], '{"repo":".","format":{"width":80}}'),
    ],
)
def test_schema_defaults_are_not_sent(tmp_path: Path, args: list[str], expected: str) -> None:
    result, sent = call(tmp_path, *args)
    assert result.returncode == exitcodes.OK, result.stderr
    assert sent == expected


def test_with_defaults_sends_every_default(tmp_path: Path) -> None:
    result, sent = call(tmp_path, "log_query", "repo=.", "max_count=3", "--with-defaults", *EXACT)
    assert result.returncode == exitcodes.OK, result.stderr
    # Given values win; the absent optional object stays absent.
    assert sent == (
        '{"repo":".","max_count":3,"start_timestamp":null,"end_timestamp":null,'
        '"dryRun":false,"branch":"main","paths":[]}'
    )
    assert json.loads(json.loads(result.stdout)["content"][0]["text"]) == json.loads(sent)


def test_tool_help_shows_defaults_without_sending_anything(tmp_path: Path) -> None:
    record = tmp_path / "help.jsonl"
    result = run_inspector("call", "log_query", "--help", "--record", str(record), *EXACT)
    assert result.returncode == exitcodes.OK, result.stderr
    assert "max_count  (integer)  default 10" in result.stdout
    assert "dryRun  (boolean)  default false" in result.stdout
    assert "repo*  (string)" in result.stdout
    assert not [r for r in records(record) if r.get("method") == "tools/call"]


# -- raw JSON ----------------------------------------------------------------------------


ODD = '{"repo":  "x\\u00e9", "max_count": 1.0,   "zz": 1e2, "n": -0.0, "s": "tab\\there"}'


def test_args_go_out_byte_for_byte(tmp_path: Path) -> None:
    result, sent = call(tmp_path, "log_query", "--args", ODD, *EXACT)
    assert result.returncode == exitcodes.OK, result.stderr
    assert sent == ODD
    # The server parsed exactly that text.
    echoed = json.loads(json.loads(result.stdout)["content"][0]["text"])
    assert echoed == {"repo": "xé", "max_count": 1.0, "zz": 100.0, "n": -0.0, "s": "tab\there"}


def test_args_byte_for_byte_on_the_demo(tmp_path: Path) -> None:
    text = '{"repeat": 1.0, "message":   "x\\u00e9", "zz": 1e2}'
    result, sent = call(tmp_path, "echo", "--args", text)
    assert sent == text, result.stderr


def test_args_written_on_several_lines_stay_one_stdio_line(tmp_path: Path) -> None:
    text = '{\n  "repo": "a",\n  "max_count": 2\n}\n'
    result, sent = call(tmp_path, "log_query", "--args", text, *EXACT)
    assert result.returncode == exitcodes.OK, result.stderr
    assert sent == '{   "repo": "a",   "max_count": 2 }'


def test_args_and_assignments_together_are_merged(tmp_path: Path) -> None:
    result, sent = call(tmp_path, "log_query", "max_count=5", "--args", '{"repo": "a", "max_count": 2}', *EXACT)
    assert result.returncode == exitcodes.OK, result.stderr
    assert sent == '{"repo":"a","max_count":5}'


def test_args_that_do_not_parse_are_refused(tmp_path: Path) -> None:
    result, sent = call(tmp_path, "log_query", "--args", '{"repo": NaN}', *EXACT)
    assert result.returncode == exitcodes.USAGE
    assert "--args is not valid JSON" in result.stderr
    assert sent == ""


def test_raw_arguments_still_feed_the_mcp_param_headers(tmp_path: Path) -> None:
    """Stateless HTTP: the parsed value fills Mcp-Param-* headers; a mismatch would be -32020."""
    port = free_port()
    with serving([PYTHON, str(SERVERS / "modern_only.py"), "--http", str(port)], port):
        url = f"http://127.0.0.1:{port}/mcp"
        text = '{"region":  "eu", "size": 3}'
        result, sent = call(tmp_path, "regional", "--args", text, "--url", url)
    assert result.returncode == exitcodes.OK, result.stderr
    assert sent == text
    assert "region eu size 3" in result.stdout


# -- --no-validate -----------------------------------------------------------------------


def test_without_no_validate_bad_values_are_refused(tmp_path: Path) -> None:
    result, sent = call(tmp_path, "add", "a=x", "b=2", *EXACT)
    assert result.returncode == exitcodes.USAGE
    assert "expected an integer" in result.stderr
    result, sent = call(tmp_path, "add", "a=1", "b=2", "c:=3", *EXACT)
    assert result.returncode == exitcodes.USAGE
    assert "unknown property 'c'" in result.stderr
    assert sent == ""


def test_no_validate_sends_wrong_types_and_unknown_keys_as_written(tmp_path: Path) -> None:
    result, sent = call(tmp_path, "add", "a=x", "b=2", "c=3", "d:=[1, 2]", "e=hello", "--no-validate", *EXACT)
    assert result.returncode == exitcodes.OK, result.stderr
    assert sent == '{"a":"x","b":2,"c":3,"d":[1,2],"e":"hello"}'
    echoed = json.loads(json.loads(result.stdout)["content"][0]["text"])
    assert echoed == {"a": "x", "b": 2, "c": 3, "d": [1, 2], "e": "hello"}


def test_no_validate_on_server_everything(tmp_path: Path) -> None:
    result, sent = call(tmp_path, "get-sum", "a=one", "b=2", "--no-validate", *EVERYTHING_ARGS)
    assert sent == '{"a":"one","b":2}'
    # The server refuses it its own way; what it said is shown.
    assert result.returncode in (exitcodes.TOOL_ERROR, exitcodes.PROTOCOL_ERROR), result.stderr


# -- oneOf / anyOf -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["transport.mode=car"], '{"transport":{"mode":"car"}}'),
        (["transport.seats=2"], '{"transport":{"mode":"car","seats":2}}'),
        (["transport.line=RER B"], '{"transport":{"mode":"train","line":"RER B"}}'),
    ],
)
def test_dotted_path_into_the_second_variant(tmp_path: Path, args: list[str], expected: str) -> None:
    result, sent = call(tmp_path, "travel", *args, *EXACT)
    assert result.returncode == exitcodes.OK, result.stderr
    assert sent == expected
    assert "note:" not in result.stderr


def test_dotted_path_into_the_demo_trip(tmp_path: Path) -> None:
    # plan_trip's transport is a oneOf of $refs (Train, Flight, Car); Car is the third.
    result, sent = call(tmp_path, "plan_trip", "transport.mode=car", "transport.electric=yes", "--no-validate")
    assert sent == '{"transport":{"mode":"car","electric":true}}', result.stderr


def test_a_note_names_the_variant_when_several_fit(tmp_path: Path) -> None:
    result, sent = call(tmp_path, "travel", "transport.mode=train", "who.name=Ada", *EXACT)
    assert result.returncode == exitcodes.OK, result.stderr
    assert sent == '{"transport":{"mode":"train"},"who":{"name":"Ada"}}'
    assert "note: who: the arguments fit 2 alternatives (Person, Team); chose 'Person'" in result.stderr


# -- structuredContent against the outputSchema ---------------------------------------------


def test_broken_structured_content_is_reported(tmp_path: Path) -> None:
    record = tmp_path / "totals.jsonl"
    result = run_inspector("call", "totals", "broken=true", "--yes", "--human", "--record", str(record), *EXACT)
    assert result.returncode == exitcodes.OK, result.stderr
    assert "the result of totals does not match its outputSchema" in result.stderr
    assert 'result.structuredContent.total: expected integer, got string "many"' in result.stderr
    assert "result.structuredContent.unit: expected string, got integer 3" in result.stderr
    lines = records(record)
    answer = next(r for r in lines if r["kind"] == "response" and '"many"' in r["raw"])
    noted = [r for r in lines if r["dir"] == "local" and r.get("meta", {}).get("answer") == answer["seq"]]
    assert len(noted) == 1
    assert noted[0]["problems"] == [
        'result.structuredContent.total: expected integer, got string "many"',
        "result.structuredContent.unit: expected string, got integer 3",
    ]
    assert {f["rule"] for f in noted[0]["meta"]["findings"]} == {"structured-content-invalid"}


def test_broken_structured_content_in_json_mode(tmp_path: Path) -> None:
    result = run_inspector("call", "totals", "broken=true", "--yes", "--json", *EXACT)
    assert result.returncode == exitcodes.OK, result.stderr
    # stdout is what arrived, untouched; the problems come as JSON on stderr.
    assert json.loads(result.stdout)["structuredContent"] == {"total": "many", "unit": 3}
    assert "problems" not in json.loads(result.stdout)
    reported = json.loads(result.stderr.strip().splitlines()[-1])
    assert [p["path"] for p in reported["problems"]] == [
        "result.structuredContent.total",
        "result.structuredContent.unit",
    ]


def test_strict_fails_on_broken_structured_content(tmp_path: Path) -> None:
    result = run_inspector("call", "totals", "broken=true", "--yes", "--strict", *EXACT)
    assert result.returncode == exitcodes.OUTPUT_SCHEMA, result.stderr
    result = run_inspector("call", "totals", "--yes", "--strict", *EXACT)
    assert result.returncode == exitcodes.OK, result.stderr
    assert result.stderr == ""


# -- what came back ----------------------------------------------------------------------------


def test_info_names_the_discover_result() -> None:
    modern = json.loads(run_inspector("info", "--json", *EXACT).stdout)
    assert "discoverResult" in modern and "initializeResult" not in modern
    assert modern["discoverResult"]["capabilities"] == modern["capabilities"]
    legacy = json.loads(run_inspector("info", "--json", "--era", "legacy", *EXACT).stdout)
    assert "initializeResult" in legacy and "discoverResult" not in legacy
    human = run_inspector("info", "--human", *EXACT).stdout
    assert "discoverResult (the answer to server/discover" in human


def test_human_output_cuts_icons_short_json_keeps_them() -> None:
    human = run_inspector("call", "echo", "message=hi", "--yes", "--human")
    assert human.returncode == exitcodes.OK, human.stderr
    assert "io.modelcontextprotocol/serverInfo" in human.stdout
    assert "icon(s)" in human.stdout and "base64," not in human.stdout
    exact = run_inspector("call", "echo", "message=hi", "--yes", "--json")
    icons = json.loads(exact.stdout)["_meta"]["io.modelcontextprotocol/serverInfo"]["icons"]
    assert icons[0]["src"].startswith("data:image/")
    prompt = run_inspector("get", "greeting", "name=Ada", "--human")
    assert "icon(s)" in prompt.stdout and "base64," not in prompt.stdout
