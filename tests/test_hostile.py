"""A misbehaving server never crashes or hangs the inspector, and what it sent
stays in the traffic record.  Each mode of tests/servers/hostile.py is
driven through the scripting CLI (exit code, message, no traceback) and
through the core (the traffic record)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.commands import exitcodes
from inspector.core.protocol.client import Client
from inspector.core.protocol.errors import ConnectError, ConnectionClosed, ConnectTimeout, RequestTimeout
from inspector.core.protocol.pending import PendingRequest
from inspector.core.servers.spec import ServerSpec

from .peers import SERVERS, run_inspector
from .waiting import HANG, eventually

HOSTILE = str(SERVERS / "hostile.py")


def hostile(mode: str, *extra: str) -> list[str]:
    return [sys.executable, HOSTILE, "--mode", mode, *extra]


# A call these tests expect to time out is given this --timeout.  It bounds
# the connection too (the server's start-up and the era probe, a few tenths
# of a second here): far above what those take on a loaded machine, so the
# timeout is reached at the call, the step the tests mean.
CALL_DEADLINE = "5"


def run_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The 60 s subprocess bound is the check that a command ends near its
    --timeout: a loaded machine stays far below it, a hang reaches it."""
    return run_inspector(*args, timeout=timeout)


def call_echo(
    mode: str, *extra: str, timeout: str = "3", record: Path | None = None
) -> subprocess.CompletedProcess[str]:
    options = ["--timeout", timeout]
    if record is not None:
        options += ["--record", str(record)]
    return run_cli("call", "echo", "text=hi", "--yes", "--json", *options, "--", *hostile(mode, *extra))


def recorded(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


NOISE = ("Traceback", "Future exception", "Task exception", "was never retrieved", "Task was destroyed")


def assert_quiet(result: subprocess.CompletedProcess[str]) -> None:
    """No traceback and no asyncio noise (an exception nobody retrieved)."""
    for noise in NOISE:
        assert noise not in result.stderr, result.stderr


def assert_clean_failure(result: subprocess.CompletedProcess[str], code: int, needle: str) -> None:
    assert result.returncode == code, (result.returncode, result.stderr)
    assert_quiet(result)
    assert needle in result.stderr, result.stderr


def process_events(frames: list[dict[str, object]]) -> list[str]:
    return [str(f.get("note")) for f in frames if f["kind"] == "process"]


def test_junk_on_stdout_is_flagged_and_the_call_still_works(tmp_path: Path) -> None:
    record = tmp_path / "junk.jsonl"
    result = call_echo("junk-stdout", record=record)
    assert result.returncode == exitcodes.OK, result.stderr
    assert_quiet(result)
    assert json.loads(result.stdout)["content"][0]["text"] == "hi"
    invalid = [r for r in recorded(record) if r["kind"] == "invalid"]
    assert invalid, "junk lines must be recorded"
    assert any("Server starting" in str(r.get("raw")) for r in invalid)
    assert all("stdout" in str(r["problems"]) for r in invalid)


def test_invalid_json_times_out_with_a_clear_message(tmp_path: Path) -> None:
    record = tmp_path / "invalid.jsonl"
    result = call_echo("invalid-json", timeout=CALL_DEADLINE, record=record)
    assert_clean_failure(result, exitcodes.TIMEOUT, "could not be parsed")
    invalid = [r for r in recorded(record) if r["kind"] == "invalid"]
    assert invalid and "invalid JSON" in str(invalid[0]["error"])


def test_invalid_utf8_is_kept_byte_exact(tmp_path: Path) -> None:
    record = tmp_path / "utf8.jsonl"
    result = call_echo("invalid-utf8", timeout=CALL_DEADLINE, record=record)
    assert_clean_failure(result, exitcodes.TIMEOUT, "timeout")
    invalid = [r for r in recorded(record) if r["kind"] == "invalid"]
    assert invalid and "raw_b64" in invalid[0], invalid
    assert "UTF-8" in str(invalid[0]["error"])


def test_crash_mid_request_reports_the_exit_and_stderr(tmp_path: Path) -> None:
    record = tmp_path / "crash.jsonl"
    result = call_echo("crash", record=record)
    assert_clean_failure(result, exitcodes.CANNOT_CONNECT, "exited with code 3")
    assert "simulated crash" in result.stderr
    frames = recorded(record)
    call = [f for f in frames if f.get("method") == "tools/call" and f["dir"] == "out"]
    assert call, "the request that crashed the server is recorded"
    assert any("simulated crash" in str(f.get("raw")) for f in frames if f["kind"] == "stderr")
    assert any("exited with code 3" in note for note in process_events(frames))
    assert any("connection lost" in str(f.get("note")) for f in frames)


def test_hang_ends_at_the_timeout(tmp_path: Path) -> None:
    record = tmp_path / "hang.jsonl"
    result = call_echo("hang", timeout=CALL_DEADLINE, record=record)
    assert_clean_failure(result, exitcodes.TIMEOUT, f"no response within {CALL_DEADLINE} s")
    frames = recorded(record)
    call = next(f for f in frames if f.get("method") == "tools/call" and f["dir"] == "out")
    expired = [f for f in frames if isinstance(f.get("meta"), dict) and f["meta"].get("timeout") == call["id"]]  # type: ignore[attr-defined]
    assert expired and f"no response within {CALL_DEADLINE} s" in str(expired[0]["note"])
    cancel = [f for f in frames if f.get("method") == "notifications/cancelled"]
    assert cancel and json.loads(str(cancel[0]["raw"]))["params"]["requestId"] == call["id"]
    # The inspector ended the server itself (it never exits on its own).
    assert any("exited" in note or "killed" in note for note in process_events(frames))


def test_wrong_id_is_recorded_and_the_request_times_out(tmp_path: Path) -> None:
    record = tmp_path / "wrong.jsonl"
    result = call_echo("wrong-id", timeout=CALL_DEADLINE, record=record)
    assert_clean_failure(result, exitcodes.TIMEOUT, "timeout")
    responses = [r for r in recorded(record) if r["kind"] == "response" and r.get("problems")]
    assert any("unknown request id" in str(r["problems"]) for r in responses)


def test_exit_at_once_shows_stderr(tmp_path: Path) -> None:
    record = tmp_path / "exit.jsonl"
    result = run_cli("info", "--record", str(record), "--", *hostile("exit-at-once"))
    assert_clean_failure(result, exitcodes.CANNOT_CONNECT, "exited with code 1")
    assert "cannot open database" in result.stderr
    frames = recorded(record)
    assert any("cannot open database" in str(f.get("raw")) for f in frames if f["kind"] == "stderr")
    assert any("spawned" in note for note in process_events(frames))
    assert any("exited with code 1" in note for note in process_events(frames))


def test_silent_server_initialize_times_out(tmp_path: Path) -> None:
    """A server that never answers: the timeout's exit code, within about
    the probe budget plus --timeout, and no asyncio noise from the era
    probe that was never answered either."""
    record = tmp_path / "silent.jsonl"
    result = run_cli("info", "--timeout", "1.5", "--record", str(record), "--", *hostile("silent"))
    assert_clean_failure(result, exitcodes.TIMEOUT, "did not answer initialize within 1.5 s")
    frames = recorded(record)
    sent = [f.get("method") for f in frames if f["dir"] == "out" and f["kind"] == "request"]
    assert sent == ["server/discover", "initialize"]


async def test_initialize_honours_a_long_timeout() -> None:
    """--timeout above the old 30 s cap is used as given for initialize too."""
    spec = ServerSpec(transport="stdio", command=sys.executable, args=[HOSTILE, "--mode", "silent"], timeout=45)
    client = Client(spec)
    connecting = asyncio.ensure_future(client.connect())
    try:

        def initialize_pending() -> list[PendingRequest]:
            session = client.session
            return [p for p in session._pending.values() if p.method == "initialize"] if session else []

        pending = await eventually(initialize_pending, "initialize to be sent")
        assert pending[0].timeout == 45
    finally:
        connecting.cancel()
        with contextlib.suppress(BaseException):
            await connecting
        await client.close()


def test_missing_command_is_a_connect_error() -> None:
    result = run_cli("info", "--", "/nonexistent/server-binary")
    assert_clean_failure(result, exitcodes.CANNOT_CONNECT, "command not found")


def test_huge_result_arrives_whole(tmp_path: Path) -> None:
    """The issue's 100 MB message, end to end through `inspector call`, and
    byte for byte in the --record file (a few seconds on this machine)."""
    record = tmp_path / "huge.jsonl"
    size = 100 * 1_000_000
    result = call_echo("huge", "--size-mb", "100", timeout="60", record=record)
    assert result.returncode == exitcodes.OK, result.stderr[-2000:]
    assert_quiet(result)
    text = json.loads(result.stdout)["content"][0]["text"]
    assert len(text) == size and text[:10] == "0123456789" and text[-1] == "9"
    del text, result
    with record.open(encoding="utf-8") as lines:
        big = [json.loads(line) for line in lines if len(line) > size]
    assert len(big) == 1 and big[0]["kind"] == "response" and big[0]["method"] == "tools/call"
    recorded_text = json.loads(big[0]["raw"])["result"]["content"][0]["text"]
    assert len(recorded_text) == size


async def test_core_keeps_what_a_crashing_server_sent() -> None:
    client = Client(
        ServerSpec(transport="stdio", command=sys.executable, args=[HOSTILE, "--mode", "crash"], timeout=HANG)
    )
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
    # The connection and the list after have the hang bound; only the call
    # that hangs has a short timeout of its own.
    spec = ServerSpec(transport="stdio", command=sys.executable, args=[HOSTILE, "--mode", "hang"], timeout=HANG)
    client = Client(spec)
    await client.connect()
    try:
        with pytest.raises(RequestTimeout):
            await client.call_tool("echo", {"text": "x"}, timeout=1)
        # The hang is per call; the connection itself is alive.
        tools = await client.list_all("tools")
        assert tools.names() == ["echo"]
        sent = [f for f in client.traffic if f.method == "notifications/cancelled" and f.direction == "out"]
        assert sent, "a timed-out request is cancelled at the server"
    finally:
        await client.close()


async def test_core_connect_timeout_for_silent_server() -> None:
    spec = ServerSpec(transport="stdio", command=sys.executable, args=[HOSTILE, "--mode", "silent"], timeout=1)
    client = Client(spec)
    with pytest.raises(ConnectTimeout, match="did not answer initialize within 1 s"):
        await client.connect()
    assert client.state == "disconnected"


async def test_core_connect_error_for_a_server_that_exits() -> None:
    spec = ServerSpec(transport="stdio", command=sys.executable, args=[HOSTILE, "--mode", "exit-at-once"], timeout=HANG)
    client = Client(spec)
    with pytest.raises(ConnectError) as excinfo:
        await client.connect()
    assert "cannot open database" in (excinfo.value.detail or "")
