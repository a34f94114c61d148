"""`inspector test`: collections of saved calls with expectations, run
against the embedded demo server and server-everything, as CI would run
them (exit codes, JUnit XML, --update, --record read back by open/replay)."""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from inspector.collections import CollectionError, load_collection
from inspector.commands import exitcodes
from inspector.core.record.recording_files import load_recording
from inspector.core.servers.spec import ServerSpec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.bottom import BottomPanel
from inspector.tui.panes.traffic import TrafficPane
from inspector.tui.widgets.item_list import ItemList

from .peers import EVERYTHING, NODE, PYTHON, SERVERS, everything_http, require, run_inspector
from .tui_helpers import wait_for

EVERYTHING_ARGS = ["--", NODE, str(require(EVERYTHING)), "stdio"]

DEMO = """\
# A smoke test of the embedded demo server.
name: demo smoke
steps:
  - name: tools listed
    list: tools
    expect:
      values:
        contains(tools[].name, 'echo'): true
        "tools[?name=='weather_report'] | [0].annotations.readOnlyHint": true
  - name: echo
    call: echo
    arguments: {message: "hello ${env:WHO}"}
    expect:
      success: true
      text: hello
      matches: '^hello \\w+$'
      maxMs: 60000
    save:
      said: content[0].text
  - name: weather
    call: weather_report
    arguments:
      city: Paris
    expect:
      outputSchema: true
      exists: [structuredContent.current]
    save:
      units: structuredContent.units
  - name: divide by zero
    call: divide
    arguments: {dividend: 1, divisor: 0}
    expect:
      isError: true
      text: zero
  - name: greeting
    get: greeting
    arguments: {name: "${said}"}
    expect:
      values:
        messages[0].content.text: "Please greet ${said}, warm and friendly."
  - read: demo://readme
    expect:
      values:
        contents[0].uri: demo://readme
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def run_tests(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> Any:
    """`inspector test ARGS`."""
    return run_inspector("test", *args, env=env, cwd=cwd, timeout=120)


def sent_requests(recording: Path, method: str) -> list[dict[str, Any]]:
    return [
        frame.message
        for frame in load_recording(str(recording))
        if frame.direction == "out" and frame.kind == "request" and frame.method == method
    ]


def test_a_passing_collection_on_the_demo_server(tmp_path: Path) -> None:
    path = write(tmp_path, "demo.yaml", DEMO)
    record = tmp_path / "run.jsonl"
    done = run_tests(str(path), "--json", "--record", str(record), env={"WHO": "world"})
    assert done.returncode == exitcodes.OK, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["passed"] is True and report["steps"] == 6 and report["failed"] == 0
    steps = report["collections"][0]["steps"]
    assert [step["name"] for step in steps][-1] == "6. read demo://readme"
    assert steps[1]["saved"] == {"said": "hello world"}
    kinds = [check["kind"] for check in steps[1]["checks"]]
    assert kinds == ["outcome", "text", "matches", "latency", "save"]
    assert [check["kind"] for check in steps[2]["checks"]] == ["outcome", "exists", "outputSchema", "save"]
    # Arguments went out exactly as written: echo's `repeat` default was not added,
    # and the prompt got the value the echo step saved.
    calls = sent_requests(record, "tools/call")
    assert calls[0]["params"]["arguments"] == {"message": "hello world"}
    assert calls[1]["params"]["arguments"] == {"city": "Paris"}
    gets = sent_requests(record, "prompts/get")
    assert gets[0]["params"]["arguments"] == {"name": "hello world"}


def test_the_human_report_lists_every_expectation(tmp_path: Path) -> None:
    path = write(tmp_path, "demo.yaml", DEMO)
    done = run_tests(str(path), "--human", env={"WHO": "you"})
    assert done.returncode == exitcodes.OK, done.stdout + done.stderr
    assert "ok    echo" in done.stdout
    assert "✓ text matches /^hello \\w+$/" in done.stdout
    assert "✓ structuredContent matches the outputSchema" in done.stdout
    assert "6 step(s): 6 passed, 0 failed" in done.stdout


FAILING = """\
name: sums
steps:
  - name: right sum
    call: get-sum
    arguments: {a: 1, b: 2}
    expect:
      values:
        content[0].text: The sum of 1 and 2 is 3.
  - name: wrong sum
    call: get-sum
    arguments: {a: 2, b: 2}
    expect:
      values:
        content[0].text: The sum of 2 and 2 is 5.
      text: "is 5"
"""


def test_a_failing_expectation_fails_the_run_and_the_junit_report(tmp_path: Path) -> None:
    path = write(tmp_path, "sums.yaml", FAILING)
    junit = tmp_path / "junit.xml"
    done = run_tests(str(path), "--human", "--junit", str(junit), *EVERYTHING_ARGS)
    assert done.returncode == exitcodes.EXPECTATIONS_FAILED, done.stdout + done.stderr
    assert "FAIL  wrong sum" in done.stdout
    assert '✗ content[0].text == "The sum of 2 and 2 is 5.": found "The sum of 2 and 2 is 4."' in done.stdout
    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites" and root.get("tests") == "2" and root.get("failures") == "1"
    suite = root.find("testsuite")
    assert suite is not None and suite.get("name") == "sums" and suite.get("errors") == "0"
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert cases["right sum"].find("failure") is None
    failure = cases["wrong sum"].find("failure")
    assert failure is not None
    assert failure.get("message") == 'content[0].text == "The sum of 2 and 2 is 5.": found "The sum of 2 and 2 is 4."'
    assert failure.text is not None and 'FAIL  text contains "is 5"' in failure.text


def test_update_rewrites_expectations_and_prints_the_diff(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "snap.yaml",
        """\
        name: snapshot
        steps:
          # the first step has no expectations yet
          - call: get-sum
            arguments: {a: 1, b: 2}
          - name: wrong sum
            call: get-sum
            arguments: {a: 2, b: 2}
            expect:
              values:
                content[0].text: "The sum of 2 and 2 is 5."   # kept comment
          - name: unknown method
            raw: '{"jsonrpc": "2.0", "id": 7, "method": "no/such"}'
            expect:
              success: true
        """,
    )
    done = run_tests(str(path), "--human", "--update", *EVERYTHING_ARGS)
    assert done.returncode == exitcodes.OK, done.stdout + done.stderr
    assert "updated " in done.stdout
    assert '-        content[0].text: "The sum of 2 and 2 is 5."   # kept comment' in done.stdout
    assert '+        content[0].text: "The sum of 2 and 2 is 4."   # kept comment' in done.stdout
    text = path.read_text()
    assert "# the first step has no expectations yet" in text
    assert "error: -32601" in text and "success: true\n      values:\n        content:" in text
    # The file now holds what the server answers: it passes as it is.
    again = run_tests(str(path), "--json", *EVERYTHING_ARGS)
    assert again.returncode == exitcodes.OK, again.stdout
    # And an update with nothing to change leaves the file alone.
    same = run_tests(str(path), "--human", "--update", *EVERYTHING_ARGS)
    assert same.returncode == exitcodes.OK and "not rewritten" in same.stdout
    assert path.read_text() == text


def test_update_cannot_make_a_text_expectation_pass(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "text.yaml",
        """\
        steps:
          - call: get-sum
            arguments: {a: 2, b: 2}
            expect:
              text: "is 5"
        """,
    )
    done = run_tests(str(path), "--human", "--update", *EVERYTHING_ARGS)
    assert done.returncode == exitcodes.EXPECTATIONS_FAILED
    assert 'text contains "is 5" kept as written' in done.stdout


def test_raw_messages_with_error_codes(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "raw.yaml",
        """\
        steps:
          - name: unknown method
            raw: {"jsonrpc": "2.0", "id": 1, "method": "no/such", "params": {}}
            expect:
              error: -32601
              values:
                code: -32601
          - name: bad arguments
            raw: '{"jsonrpc": "2.0", "id": "x", "method": "tools/call", "params": {"name": "get-sum"}}'
            expect:
              isError: true
          - name: unknown resource
            raw: {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "nope://x"}}
            expect:
              error: true
          - name: a notification
            raw: {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}
          - name: ping still answered
            raw: {"jsonrpc": "2.0", "id": 2, "method": "ping"}
            expect:
              values:
                "@": {}
        """,
    )
    record = tmp_path / "raw.jsonl"
    done = run_tests(str(path), "--json", "--record", str(record), *EVERYTHING_ARGS)
    assert done.returncode == exitcodes.OK, done.stdout + done.stderr
    steps = json.loads(done.stdout)["collections"][0]["steps"]
    assert [step["outcome"] for step in steps] == ["error", "isError", "error", "sent", "success"]
    # Sent as written, only the id replaced by a fresh one of ours.
    calls = [f for f in load_recording(str(record)) if f.direction == "out" and f.method == "tools/call"]
    written = '{"jsonrpc": "2.0", "id": "x", "method": "tools/call", "params": {"name": "get-sum"}}'
    assert calls[0].text() == written.replace('"x"', str(calls[0].message["id"]))


def test_variables_from_the_environment_and_earlier_steps(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "vars.yaml",
        """\
        steps:
          - name: first
            call: get-sum
            arguments: {a: "${env:FIRST}", b: 2}
            save:
              total: structuredContent.result || content[0].text
          - name: second
            call: echo
            arguments: {message: "before: ${total}"}
            expect:
              values:
                content[0].text: "Echo: before: ${total}"
          - name: missing
            call: echo
            arguments: {message: "${env:C16_NOT_SET}"}
        """,
    )
    done = run_tests(str(path), "--json", *EVERYTHING_ARGS, env={"FIRST": "40"})
    assert done.returncode == exitcodes.EXPECTATIONS_FAILED
    steps = json.loads(done.stdout)["collections"][0]["steps"]
    # A whole-string reference keeps the variable's text: "40" goes out as a string,
    # which server-everything refuses (its schema wants a number).
    assert steps[0]["outcome"] in ("error", "isError")
    assert steps[2]["failure"] == "${env:C16_NOT_SET}: the environment variable is not set"
    saved_sum = write(
        tmp_path,
        "saved.yaml",
        """\
        steps:
          - name: first
            call: get-sum
            arguments: {a: 40, b: 2}
            save:
              total: content[0].text
          - name: second
            call: echo
            arguments: {message: "${total}"}
            expect:
              values:
                content[0].text: "Echo: ${total}"
        """,
    )
    done = run_tests(str(saved_sum), "--json", *EVERYTHING_ARGS)
    assert done.returncode == exitcodes.OK, done.stdout
    steps = json.loads(done.stdout)["collections"][0]["steps"]
    assert steps[0]["saved"] == {"total": "The sum of 40 and 2 is 42."}
    assert steps[1]["checks"][1]["actual"] == "Echo: The sum of 40 and 2 is 42."


async def test_a_recorded_run_opens_and_replays(tmp_path: Path) -> None:
    path = write(tmp_path, "sums.yaml", FAILING)
    record = tmp_path / "ci.jsonl"
    done = run_tests(str(path), "--json", "--record", str(record), *EVERYTHING_ARGS)
    assert done.returncode == exitcodes.EXPECTATIONS_FAILED
    traffic = load_recording(str(record))
    notes = [frame.note for frame in traffic if frame.direction == "local" and frame.note]
    assert "collection step 'wrong sum': call get-sum" in notes
    assert any(note.startswith("collection step 'wrong sum' FAILED: content[0].text") for note in notes)
    replayed = run_inspector("replay", str(record), "--json", timeout=120)
    assert replayed.returncode == exitcodes.OK, replayed.stdout + replayed.stderr
    assert json.loads(replayed.stdout)["compared"] == 3  # tools/list and the two calls
    app = InspectorApp(ServerSpec(name=str(record)), recording=(str(record), traffic))
    async with app.run_test(size=(150, 50)) as pilot:
        tools = app.query_one("#tool-list", ItemList)
        await wait_for(pilot, lambda: (tools.border_title or "").startswith("Tools ("), "the recorded tools")
        assert app.facts.transport == "recording"
        app.query_one(BottomPanel).sync()
        assert len(app.query_one(TrafficPane).table.rows) == len(app.traffic.frames)


def test_the_file_names_its_server_and_the_command_line_overrides_it(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "own.yaml",
        f"""\
        server: {{command: [{json.dumps(NODE)}, {json.dumps(str(require(EVERYTHING)))}, stdio]}}
        steps:
          - call: get-sum
            arguments: {{a: 1, b: 2}}
        """,
    )
    done = run_tests(str(path), "--json")
    assert done.returncode == exitcodes.OK, done.stdout + done.stderr
    assert "server-everything" in json.loads(done.stdout)["collections"][0]["server"]
    # Named on the command line: the embedded demo server, which has no get-sum.
    overridden = run_tests(str(path), "--json", "--", PYTHON, "-m", "inspector.demo")
    assert overridden.returncode == exitcodes.EXPECTATIONS_FAILED, overridden.stdout + overridden.stderr
    shorthand = write(
        tmp_path,
        "short.yaml",
        f"""\
        server: "stdio:{NODE} {require(EVERYTHING)} stdio"
        steps:
          - list: prompts
        """,
    )
    assert run_tests(str(shorthand), "--json").returncode == exitcodes.OK


def test_server_text_is_escaped_in_the_report_and_junit(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "hostile.yaml",
        """\
        steps:
          - name: control characters
            call: echo
            arguments: {message: "\\e]52;c;SGVsbG8=\\a\\e[31mred\\x00\\u202e\\x9b"}
            expect:
              text: nothing like it
        """,
    )
    junit = tmp_path / "junit.xml"
    done = run_tests(str(path), "--human", "--junit", str(junit))
    assert done.returncode == exitcodes.EXPECTATIONS_FAILED
    shown = "\\u001b]52;c;SGVsbG8=\\u0007\\u001b[31mred\\u0000\\u202e\\u009b"
    for raw in ("\x1b", "\x07", "\x00", "\u202e", "\x9b"):
        assert raw not in done.stdout
    assert shown in done.stdout
    xml_text = junit.read_text(encoding="utf-8")
    for raw in ("\x1b", "\x07", "\x00", "\u202e", "\x9b"):
        assert raw not in xml_text
    failure = ET.parse(junit).getroot().find("testsuite/testcase/failure")
    assert failure is not None and shown in (failure.get("message") or "")


def test_secret_variables_are_masked_in_the_recording(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "secret.yaml",
        """\
        steps:
          - call: echo
            arguments: {message: "token ${env:C16_API_TOKEN}"}
        """,
    )
    record = tmp_path / "secret.jsonl"
    done = run_tests(str(path), "--json", "--record", str(record), env={"C16_API_TOKEN": "s3cr3t-value-42"})
    assert done.returncode == exitcodes.OK, done.stdout + done.stderr
    assert "s3cr3t-value-42" not in record.read_text()
    assert "s3cr3t-value-42" not in done.stdout
    assert "token ***" in record.read_text()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("steps: []\n", "at least one step"),
        ("steps:\n  - call: echo\n    read: x\n", "exactly one of"),
        ("steps:\n  - call: echo\n    expect: {sucess: true}\n", "unknown expectation(s) sucess"),
        ("steps:\n  - call: echo\n    expect: {values: {'a[': 1}}\n", "not a JMESPath expression"),
        ("steps:\n  - call: echo\n    arguments: {when: 2024-01-01}\n", "unquoted date"),
        ("steps:\n  - list: tools\n  - list: tools\n", None),
        ("steps:\n  - name: a\n    list: tools\n  - name: a\n    list: prompts\n", "two steps are named 'a'"),
        ("steps: [\n", "not valid YAML"),
    ],
)
def test_a_collection_that_makes_no_sense_is_a_usage_error(tmp_path: Path, text: str, message: str | None) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    if message is None:
        assert [step.name for step in load_collection(str(path)).steps] == ["1. list tools", "2. list tools"]
        return
    with pytest.raises(CollectionError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        load_collection(str(path))


def test_values_keep_their_json_types(tmp_path: Path) -> None:
    path = tmp_path / "types.yaml"
    path.write_text("steps:\n  - call: t\n    arguments: {a: &no false, b: *no, c: 1.0, d: 0x10, e: yes, f: !!str 5}\n")
    arguments = load_collection(str(path)).steps[0].arguments
    assert json.dumps(arguments) == '{"a": false, "b": false, "c": 1.0, "d": 16, "e": "yes", "f": "5"}'


def test_a_usage_error_runs_nothing(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("steps:\n  - call: echo\n    expect: {nope: 1}\n")
    done = run_tests(str(path))
    assert done.returncode == exitcodes.USAGE and "unknown expectation(s) nope" in done.stderr


def test_variable_forms() -> None:
    from inspector.collections.variables import VariableError, substitute

    env, saved = {"HOST": "example.org"}, {"n": 3, "items": ["a"]}
    assert substitute("${n}", env, saved) == 3
    assert substitute({"k": ["${items}", "n=${n} at ${env:HOST}"]}, env, saved) == {"k": [["a"], "n=3 at example.org"]}
    assert substitute("${env:PORT:-8080}/${env:HOST:-x}", env, saved) == "8080/example.org"
    assert substitute("$${n} stays", env, saved) == "${n} stays"
    with pytest.raises(VariableError, match="no earlier step saved 'm'"):
        substitute("${m}", env, saved)


def test_a_collection_whose_server_cannot_start_is_an_error_in_junit(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "gone.yaml",
        """\
        server: {command: ./no-such-server}
        steps:
          - list: tools
        """,
    )
    fine = write(tmp_path, "fine.yaml", "steps:\n  - list: prompts\n")
    junit = tmp_path / "junit.xml"
    done = run_tests(str(path), str(fine), "--json", "--junit", str(junit))
    assert done.returncode == exitcodes.CANNOT_CONNECT, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert [c["passed"] for c in report["collections"]] == [False, True]
    assert "no-such-server" in report["collections"][0]["failure"]
    suites = ET.parse(junit).getroot().findall("testsuite")
    assert [s.get("errors") for s in suites] == ["1", "0"]
    error = suites[0].find("testcase/error")
    assert error is not None and "no-such-server" in (error.get("message") or "")


def test_a_collection_naming_an_http_server(tmp_path: Path) -> None:
    with everything_http("streamableHttp") as url:
        path = write(
            tmp_path,
            "http.yaml",
            f"""\
            server: {url}
            steps:
              - list: tools
                expect:
                  values:
                    contains(tools[].name, 'get-structured-content'): true
              - call: get-structured-content
                arguments: {{location: New York}}
                expect:
                  outputSchema: true
                  exists: [structuredContent.temperature]
            """,
        )
        done = run_tests(str(path), "--json")
    assert done.returncode == exitcodes.OK, done.stdout + done.stderr
    report = json.loads(done.stdout)["collections"][0]
    assert report["server"] == url and report["passed"] is True


def test_a_path_that_cannot_be_evaluated_fails_its_check() -> None:
    from inspector.collections import Answer, Expect
    from inspector.collections.expectations import evaluate

    answer = Answer(result={"content": [{"type": "text", "text": "hi"}]})
    checks = evaluate(Expect(values={"length(tools)": 2}, exists=["length(tools)"]), answer)
    assert [c.passed for c in checks] == [True, False, False]
    assert "invalid type for value: None" in checks[1].detail and checks[1].extra == {"unevaluable": True}
    assert "invalid type for value: None" in checks[2].detail


HOSTILE_SERVER = str(SERVERS / "hostile.py")


def test_a_server_that_never_answers_costs_one_timeout_per_step(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "hang.yaml",
        """\
        steps:
          - name: never answered
            call: echo
            arguments: {text: hi}
          - name: the list still works
            list: tools
            expect:
              values:
                "tools[].name": [echo]
        """,
    )
    junit = tmp_path / "junit.xml"
    done = run_tests(
        str(path), "--json", "--timeout", "5", "--junit", str(junit), "--", PYTHON, HOSTILE_SERVER, "--mode", "hang"
    )
    assert done.returncode == exitcodes.EXPECTATIONS_FAILED, done.stdout + done.stderr
    steps = json.loads(done.stdout)["collections"][0]["steps"]
    assert steps[0]["outcome"] == "failure" and steps[0]["failure"] == "timeout: tools/call: no response within 5 s"
    assert steps[1]["passed"] is True
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("errors") == "1" and suite.get("failures") == "0"


def test_a_server_that_crashes_fails_the_steps_after(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "crash.yaml",
        """\
        steps:
          - call: echo
            arguments: {text: hi}
          - list: tools
        """,
    )
    done = run_tests(str(path), "--json", "--", PYTHON, HOSTILE_SERVER, "--mode", "crash")
    assert done.returncode == exitcodes.EXPECTATIONS_FAILED, done.stdout + done.stderr
    steps = json.loads(done.stdout)["collections"][0]["steps"]
    assert [step["outcome"] for step in steps] == ["failure", "failure"]
    assert steps[1]["failure"].startswith("connection lost")


def test_the_collections_package_and_command_import_no_ui() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, inspector.commands.testing, inspector.collections.junit, inspector.collections.saving\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich', 'mcp_types'}))"
    )
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


def test_a_raw_steps_method_names_it_in_its_label_and_in_a_load_run() -> None:
    from inspector.collections import Step
    from inspector.commands.load.plan import step_method

    for target, method in (
        ({"jsonrpc": "2.0", "id": 1, "method": "ping"}, "ping"),
        ('{"jsonrpc": "2.0", "method": "tools/list"}', "tools/list"),
        ("{not json", None),
        ("[1, 2]", None),
        ({"method": 3}, None),
    ):
        step = Step(index=0, name="s", kind="raw", target=target)
        assert step.raw_method == method
        assert step.label == (f"raw {method}" if method else "raw message")
        assert step_method(step) == (method or "raw")
