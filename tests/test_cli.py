"""The scripting CLI as a person and as a script use it: confirmation on a
real terminal, JSON without one, key=value conversion, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

from inspector.commands import exitcodes

from .peers import EVERYTHING, NODE, SERVERS, require, run_inspector
from .terminal import answer_on_terminal

EVERYTHING_ARGS = ["--", NODE, str(require(EVERYTHING)), "stdio"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_inspector(*args)


def run_on_terminal(args: list[str], answer: str, timeout: float = 30) -> tuple[int, str]:
    """Run on a pseudo-terminal; type `answer` at the confirmation prompt."""
    return answer_on_terminal([sys.executable, "-m", "inspector", *args], b"Proceed? [y/N]", answer, timeout=timeout)


def test_confirmation_on_a_terminal_shows_hints_and_arguments() -> None:
    code, screen = run_on_terminal(["call", "get-sum", "a=2", "b=3", *EVERYTHING_ARGS], "y")
    assert code == exitcodes.OK, screen
    assert "Call tool get-sum" in screen and "read-only" in screen
    assert '"a": 2' in screen and '"b": 3' in screen
    assert "The sum of 2 and 3 is 5" in screen


def test_refusing_on_a_terminal() -> None:
    code, screen = run_on_terminal(["call", "echo", "message=hi", *EVERYTHING_ARGS], "n")
    assert code == exitcodes.CONFIRMATION_REFUSED, screen
    assert "not confirmed" in screen


def test_assumed_hints_for_a_tool_without_annotations() -> None:
    code, screen = run_on_terminal(["call", "echo", "message=x"], "n")
    assert code == exitcodes.CONFIRMATION_REFUSED
    assert "destructive (assumed)" in screen and "open-world (assumed)" in screen


def test_no_terminal_no_yes_means_no() -> None:
    result = run("call", "get-sum", "a=1", "b=2", *EVERYTHING_ARGS)
    assert result.returncode == exitcodes.CONFIRMATION_REFUSED
    assert "--yes" in result.stderr


def test_json_by_default_without_a_terminal_and_exit_codes() -> None:
    result = run("call", "get-sum", "a=1", "b=2", "--yes", *EVERYTHING_ARGS)
    assert result.returncode == exitcodes.OK
    assert json.loads(result.stdout)["content"][0]["text"] == "The sum of 1 and 2 is 3."
    result = run("call", "divide", "dividend=1", "divisor=0", "--yes")
    assert result.returncode == exitcodes.TOOL_ERROR
    assert json.loads(result.stdout)["isError"] is True
    result = run("call", "nope", "--yes")
    assert result.returncode == exitcodes.USAGE and "no tool named" in result.stderr
    result = run("read", "demo://does-not-exist")
    assert result.returncode == exitcodes.PROTOCOL_ERROR


def test_key_value_conversion_follows_the_schema() -> None:
    result = run("call", "echo", "message=3", "--yes")
    assert result.returncode == exitcodes.OK
    sent = json.loads(result.stdout)
    assert "3" in json.dumps(sent)
    bad = run("call", "get-sum", "a=three", "b=2", "--yes", *EVERYTHING_ARGS)
    assert bad.returncode == exitcodes.USAGE and "a: expected a number" in bad.stderr
    missing = run("call", "get-sum", "a=1", "--yes", *EVERYTHING_ARGS)
    assert missing.returncode == exitcodes.USAGE and "b: required property is missing" in missing.stderr
    forced = run("call", "get-sum", "a=1", "--yes", "--no-validate", *EVERYTHING_ARGS)
    assert forced.returncode in (exitcodes.OK, exitcodes.TOOL_ERROR, exitcodes.PROTOCOL_ERROR)


def test_info_list_get_and_human_output() -> None:
    info = json.loads(run("info").stdout)
    assert info["serverInfo"]["name"] == "inspector-demo" and info["era"] == "modern"
    tools = json.loads(run("list", "tools").stdout)["tools"]
    assert "plan_trip" in [tool["name"] for tool in tools]
    got = json.loads(run("get", "greeting", "name=Ada").stdout)
    assert "Ada" in json.dumps(got)
    human = run("list", "tools", "--human")
    assert human.returncode == 0 and "register_user" in human.stdout and "[" in human.stdout
    assert run("get", "greeting").returncode == exitcodes.USAGE


def test_usage_errors() -> None:
    assert run("--url", "http://x", "info", "--", "cmd").returncode == exitcodes.USAGE
    assert run("info", "--protocol-version", "1999-01-01").returncode == exitcodes.USAGE
    assert run("info", "--env", "NOEQUALS").returncode == exitcodes.USAGE
    assert run("info", "--config", "/nonexistent.json").returncode == exitcodes.USAGE


def test_roots_are_offered_when_given() -> None:
    result = run("call", "list_roots", "--yes", "--root", "/tmp", "--root", "/usr")
    assert result.returncode == exitcodes.OK, result.stderr
    text = json.loads(result.stdout)["content"][0]["text"]
    assert "file:///tmp" in text and "file:///usr" in text


def test_key_value_arguments_may_follow_options() -> None:
    """`call get-sum --yes a=2 b=3`, as a shell user writes it: argparse ended
    the key=value list at the first option and refused the rest."""
    result = run("call", "get-sum", "a=2", "--yes", "b=3", *EVERYTHING_ARGS)
    assert result.returncode == exitcodes.OK, result.stderr
    assert "The sum of 2 and 3 is 5" in result.stdout
    result = run("get", "args-prompt", "--json", "city=Paris", *EVERYTHING_ARGS)
    assert result.returncode == exitcodes.OK, result.stderr
    assert "Paris" in result.stdout
    # An unknown option is still refused, naming it.
    refused = run("call", "get-sum", "--yes", "--bogus", "a=2", "b=3", *EVERYTHING_ARGS)
    assert refused.returncode == exitcodes.USAGE and "--bogus" in refused.stderr


def test_an_incomplete_list_prints_what_it_has_and_fails() -> None:
    """A list cut short (here by --max-pages on an endless server) still prints
    the pages that worked, says where to carry on, and exits non-zero."""
    server = [sys.executable, str(SERVERS / "hostile.py"), "--mode", "paged"]
    result = subprocess.run(
        [sys.executable, "-m", "inspector", "list", "tools", "--json", "--max-pages", "3", "--", *server],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == exitcodes.PROTOCOL_ERROR, result.stderr
    printed = json.loads(result.stdout)
    assert [tool["name"] for tool in printed["tools"]] == ["echo_1", "echo_2", "echo_3"]
    assert isinstance(printed["nextCursor"], str)
    assert "stopped after 3 pages" in result.stderr and "incomplete" in result.stderr
