"""A misbehaving server never crashes or hangs the inspector, and what it sent
stays in the traffic record.  Each mode of tests/servers/hostile.py is
driven through the scripting CLI (exit code, message, no traceback) and
through the core (the traffic record)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inspector.commands import exitcodes
from inspector.core import Client, ConnectError, ConnectionClosed, RequestTimeout, ServerSpec

from .peers import SERVERS

HOSTILE = str(SERVERS / "hostile.py")


def hostile(mode: str, *extra: str) -> list[str]:
    return [sys.executable, HOSTILE, "--mode", mode, *extra]


def run_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def call_echo(
    mode: str, *extra: str, timeout: str = "3", record: Path | None = None
) -> subprocess.CompletedProcess[str]:
    options = ["--timeout", timeout]
    if record is not None:
        options += ["--record", str(record)]
    return run_cli("call", "echo", "text=hi", "--yes", "--json", *options, "--", *hostile(mode, *extra))


def recorded(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def assert_clean_failure(result: subprocess.CompletedProcess[str], code: int, needle: str) -> None:
    assert result.returncode == code, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    assert needle in result.stderr, result.stderr


def test_junk_on_stdout_is_flagged_and_the_call_still_works(tmp_path: Path) -> None:
    record = tmp_path / "junk.jsonl"
    result = call_echo("junk-stdout", record=record)
    assert result.returncode == exitcodes.OK, result.stderr
    assert json.loads(result.stdout)["content"][0]["text"] == "hi"
    invalid = [r for r in recorded(record) if r["kind"] == "invalid"]
    assert invalid, "junk lines must be recorded"
    assert any("Server starting" in str(r.get("raw")) for r in invalid)
    assert all("stdout" in str(r["problems"]) for r in invalid)


def test_invalid_json_times_out_with_a_clear_message(tmp_path: Path) -> None:
    record = tmp_path / "invalid.jsonl"
    started = time.monotonic()
    result = call_echo("invalid-json", timeout="2", record=record)
    assert time.monotonic() - started < 20
    assert_clean_failure(result, exitcodes.TIMEOUT, "could not be parsed")
    invalid = [r for r in recorded(record) if r["kind"] == "invalid"]
    assert invalid and "invalid JSON" in str(invalid[0]["error"])


def test_invalid_utf8_is_kept_byte_exact(tmp_path: Path) -> None:
    record = tmp_path / "utf8.jsonl"
    result = call_echo("invalid-utf8", timeout="2", record=record)
    assert_clean_failure(result, exitcodes.TIMEOUT, "timeout")
    invalid = [r for r in recorded(record) if r["kind"] == "invalid"]
    assert invalid and "raw_b64" in invalid[0], invalid
    assert "UTF-8" in str(invalid[0]["error"])


def test_crash_mid_request_reports_the_exit_and_stderr() -> None:
    result = call_echo("crash")
    assert_clean_failure(result, exitcodes.CANNOT_CONNECT, "exited with code 3")
    assert "simulated crash" in result.stderr


def test_hang_ends_at_the_timeout() -> None:
    started = time.monotonic()
    result = call_echo("hang", timeout="1.5")
    elapsed = time.monotonic() - started
    assert_clean_failure(result, exitcodes.TIMEOUT, "no response within 1.5 s")
    assert elapsed < 15


def test_wrong_id_is_recorded_and_the_request_times_out(tmp_path: Path) -> None:
    record = tmp_path / "wrong.jsonl"
    result = call_echo("wrong-id", timeout="1.5", record=record)
    assert_clean_failure(result, exitcodes.TIMEOUT, "timeout")
    responses = [r for r in recorded(record) if r["kind"] == "response" and r.get("problems")]
    assert any("unknown request id" in str(r["problems"]) for r in responses)


def test_exit_at_once_shows_stderr() -> None:
    result = run_cli("info", "--", *hostile("exit-at-once"))
    assert_clean_failure(result, exitcodes.CANNOT_CONNECT, "exited with code 1")
    assert "cannot open database" in result.stderr


def test_silent_server_initialize_times_out() -> None:
    started = time.monotonic()
    result = run_cli("info", "--timeout", "1.5", "--", *hostile("silent"))
    assert_clean_failure(result, exitcodes.CANNOT_CONNECT, "did not answer")
    assert time.monotonic() - started < 15


def test_missing_command_is_a_connect_error() -> None:
    result = run_cli("info", "--", "/nonexistent/server-binary")
    assert_clean_failure(result, exitcodes.CANNOT_CONNECT, "command not found")


def test_huge_result_arrives_whole() -> None:
    result = call_echo("huge", "--size-mb", "20", timeout="60")
    assert result.returncode == exitcodes.OK, result.stderr[-2000:]
    text = json.loads(result.stdout)["content"][0]["text"]
    assert len(text) == 20 * 1_000_000


async def test_core_keeps_what_a_crashing_server_sent() -> None:
    client = Client(ServerSpec(transport="stdio", command=sys.executable, args=[HOSTILE, "--mode", "crash"], timeout=5))
    await client.connect()
    with pytest.raises(ConnectionClosed) as excinfo:
        await client.call_tool("echo", {"text": "x"})
    assert "exited with code 3" in str(excinfo.value)
    await client.close()
    kinds = [frame.kind for frame in client.traffic]
    assert "stderr" in kinds and "process" in kinds
    assert any("simulated crash" in frame.text() for frame in client.traffic if frame.kind == "stderr")
    assert client.state == "closed"


async def test_core_timeout_then_session_still_usable() -> None:
    client = Client(ServerSpec(transport="stdio", command=sys.executable, args=[HOSTILE, "--mode", "hang"], timeout=1))
    await client.connect()
    try:
        with pytest.raises(RequestTimeout):
            await client.call_tool("echo", {"text": "x"})
        # The hang is per call; the connection itself is alive.
        tools = await client.list_all("tools")
        assert tools.names() == ["echo"]
        sent = [f for f in client.traffic if f.method == "notifications/cancelled" and f.direction == "out"]
        assert sent, "a timed-out request is cancelled at the server"
    finally:
        await client.close()


async def test_core_connect_error_for_silent_server() -> None:
    spec = ServerSpec(transport="stdio", command=sys.executable, args=[HOSTILE, "--mode", "silent"], timeout=1)
    client = Client(spec)
    with pytest.raises(ConnectError):
        await client.connect()
    assert client.state == "disconnected"
