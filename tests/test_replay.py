"""`inspector replay`: a recording re-sent to a live server, answer by
answer, against the demo server (both eras, server requests answered from
the recording), server-everything's sibling test servers, and a changed
server whose differences must be reported."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from inspector.commands import exitcodes
from inspector.core.compare.diff import json_changes
from inspector.core.protocol.client import Client
from inspector.core.record.frame_lines import JsonlRecorder
from inspector.core.record.recording_files import load_recording
from inspector.core.record.replay import ReplayPlan, compare, normalise
from inspector.core.record.traffic import TrafficLog
from inspector.core.servers.spec import demo_spec

from .conftest import RecordingHandlers
from .peers import PYTHON, SERVERS, free_port, run_inspector, serving

VERSIONED = str(SERVERS / "versioned.py")


def inspector(*args: str) -> subprocess.CompletedProcess[str]:
    return run_inspector(*args, timeout=120)


async def record_demo_session(path: Path, era: str) -> None:
    """A session like a person's: every list, calls, server requests, progress, a notification."""
    traffic = TrafficLog()
    recorder = JsonlRecorder.open(str(path))
    traffic.subscribe(recorder)
    spec = demo_spec()
    spec.era = era
    client = Client(spec, handlers=RecordingHandlers(), traffic=traffic)
    await client.connect()
    try:
        for kind in ("tools", "resources", "templates", "prompts"):
            await client.list_all(kind)
        await client.call_tool("echo", {"message": "hello"})
        await client.call_tool("divide", {"a": 1, "b": 0})
        await client.call_tool("long_running_task", {"steps": 2, "interval_ms": 0}, on_progress=lambda *_: None)
        await client.call_tool("sample_llm", {"prompt": "hi"})
        await client.call_tool("elicit_profile", {})
        await client.call_tool("list_roots", {})
        await client.read_resource("demo://notes")
        if era == "legacy":
            await client.roots_changed()
    finally:
        await client.close()
        recorder.close()


def replay(*args: str) -> tuple[int, dict[str, Any], str]:
    result = inspector("replay", "--json", *args)
    try:
        document = json.loads(result.stdout)
    except ValueError:
        document = {}
    return result.returncode, document, result.stderr


@pytest.mark.parametrize("era", ["modern", "legacy"])
async def test_replaying_a_demo_session_matches(tmp_path: Path, era: str) -> None:
    path = tmp_path / "session.jsonl"
    await record_demo_session(path, era)
    again = tmp_path / "again.jsonl"
    code, report, stderr = replay(str(path), "--record", str(again))
    assert code == exitcodes.OK, (stderr, [m for m in report.get("messages", []) if m["status"] != "match"])
    assert report["identical"] and report["era"] == era
    statuses = {message["status"] for message in report["messages"]}
    assert statuses <= {"match", "sent"} and report["compared"] >= 10
    methods = [message["method"] for message in report["messages"]]
    assert "initialize" not in methods and "server/discover" not in methods, "a fresh handshake, not the old one"
    if era == "legacy":
        assert {"method": "sampling/createMessage", "answer": "recorded"} in report["serverRequests"]
        assert {"method": "elicitation/create", "answer": "recorded"} in report["serverRequests"]
        assert any(
            m["method"] == "notifications/roots/list_changed" and m["status"] == "sent" for m in methods_of(report)
        )
    # The replay's own recording replays just as well.
    plan = ReplayPlan.from_traffic(load_recording(str(again)))
    assert len(plan.steps) == len(report["messages"])
    code, report, stderr = replay(str(again))
    assert code == exitcodes.OK, stderr


def methods_of(report: dict[str, Any]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = report["messages"]
    return messages


async def test_unrecorded_server_requests_are_declined(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    await record_demo_session(path, "legacy")
    # Take the recorded answers to the server's requests out of the file.
    lines = path.read_text().splitlines()
    kept = [line for line in lines if not _answers_server(json.loads(line))]
    assert len(kept) < len(lines)
    cut = tmp_path / "no-answers.jsonl"
    cut.write_text("\n".join(kept) + "\n")
    code, report, stderr = replay(str(cut))
    assert code == exitcodes.DIFFERENCES, stderr
    assert {"method": "elicitation/create", "answer": "declined"} in report["serverRequests"]
    differing = {m["method"] for m in report["messages"] if m["status"] == "differs"}
    assert differing == {"tools/call"}


def _answers_server(record: dict[str, Any]) -> bool:
    return record["dir"] == "out" and record["kind"] in ("response", "error")


def test_a_changed_server_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "release1.jsonl"
    result = inspector("list", "tools", "--json", "--record", str(path), "--", PYTHON, VERSIONED, "--release", "1")
    assert result.returncode == 0, result.stderr
    # The recorded server by default (the recording holds its command).
    code, report, stderr = replay(str(path))
    assert code == exitcodes.OK and report["identical"], stderr
    assert report["server"].endswith("--release 1") and report["era"] == "legacy"
    # The next release, named on the command line.
    code, report, stderr = replay(str(path), "--", PYTHON, VERSIONED, "--release", "2")
    assert code == exitcodes.DIFFERENCES, stderr
    (message,) = report["messages"]
    assert message["method"] == "tools/list" and message["status"] == "differs"
    changes = {d["path"]: (d["recorded"], d["replayed"]) for d in message["differences"]}
    assert changes["result.tools[2].name"] == ("legacy_export", "export")
    assert "result.tools[0].inputSchema.properties.limit" in changes
    human = inspector("replay", "--human", str(path), "--", PYTHON, VERSIONED, "--release", "2")
    assert human.returncode == exitcodes.DIFFERENCES
    assert 'changed result.tools[2].name: "legacy_export" → "export"' in human.stdout
    assert "0 of 1 answer(s) match; 1 differ" in human.stdout


def test_replay_over_http_to_the_recorded_url(tmp_path: Path) -> None:
    path = tmp_path / "http.jsonl"
    port = free_port()
    with serving([PYTHON, "-m", "inspector.demo", "--http", str(port)], port):
        url = f"http://127.0.0.1:{port}/mcp"
        result = inspector("call", "echo", "message=over http", "--yes", "--json", "--record", str(path), "--url", url)
        assert result.returncode == 0, result.stderr
        code, report, stderr = replay(str(path))
    assert code == exitcodes.OK, stderr
    assert report["server"] == url and [m["status"] for m in report["messages"]] == ["match", "match"]


async def test_the_recorded_era_unless_overridden(tmp_path: Path) -> None:
    path = tmp_path / "modern.jsonl"
    await record_demo_session(path, "modern")
    _code, report, stderr = replay(str(path), "--era", "legacy")
    assert report["era"] == "legacy" and report["offeredVersion"] != "2026-07-28", stderr


async def test_a_server_of_the_other_era_gets_a_hint(tmp_path: Path) -> None:
    path = tmp_path / "modern.jsonl"
    await record_demo_session(path, "modern")
    legacy_only = ["--", PYTHON, str(SERVERS / "hostile.py"), "--mode", "hostile-text"]
    code, _report, stderr = replay(str(path), *legacy_only)
    assert code in (exitcodes.PROTOCOL_ERROR, exitcodes.CANNOT_CONNECT), stderr
    assert "--era auto" in stderr and "modern era" in stderr, stderr
    code, report, stderr = replay(str(path), "--era", "auto", *legacy_only)
    assert report["era"] == "legacy", stderr


def test_era_override_and_a_recording_that_names_no_server(tmp_path: Path) -> None:
    path = tmp_path / "v1.jsonl"
    result = inspector("list", "tools", "--json", "--record", str(path), "--", PYTHON, VERSIONED, "--release", "1")
    assert result.returncode == 0, result.stderr
    code, report, stderr = replay(str(path), "--protocol-version", "2025-03-26")
    assert report["offeredVersion"] == "2025-03-26", stderr
    anonymous = tmp_path / "anonymous.jsonl"
    anonymous.write_text("".join(line + "\n" for line in path.read_text().splitlines() if '"process"' not in line))
    code, _report, stderr = replay(str(anonymous))
    assert code == exitcodes.USAGE and "name one" in stderr
    code, report, stderr = replay(str(anonymous), "--", PYTHON, VERSIONED, "--release", "1")
    assert code == exitcodes.OK, stderr
    # A request whose answer the recording lacks (cut off, or cancelled) is sent, not waited for.
    unanswered = tmp_path / "unanswered.jsonl"
    kept = [line for line in path.read_text().splitlines() if json.loads(line).get("method") != "tools/list"]
    kept += [line for line in path.read_text().splitlines() if json.loads(line).get("method") == "tools/list"][:1]
    unanswered.write_text("".join(line + "\n" for line in sorted(kept, key=lambda line: json.loads(line)["seq"])))
    code, report, stderr = replay(str(unanswered))
    assert code == exitcodes.OK and "never retrieved" not in stderr, stderr
    assert [(m["method"], m["status"], m.get("detail")) for m in report["messages"]] == [
        ("tools/list", "sent", "no answer was recorded")
    ]


def test_what_changes_between_runs_is_ignored() -> None:
    recorded: dict[str, Any] = {
        "result": {
            "task": {"taskId": "t-1", "createdAt": "2026-01-01T10:00:00Z", "status": "working"},
            "content": [{"type": "text", "text": "id 123e4567-e89b-12d3-a456-426614174000 at 2026-01-01T10:00:00.5Z"}],
            "secret": "token is *** ok",
        }
    }
    got: dict[str, Any] = {
        "result": {
            "task": {"taskId": "t-2", "createdAt": "2026-05-05T11:11:11Z", "status": "working"},
            "content": [{"type": "text", "text": f"id {uuid.uuid4()} at 2026-05-05T11:11:11+02:00"}],
            "secret": "token is hunter2 ok",
        }
    }
    assert compare(recorded, got) == []
    got["result"]["task"]["status"] = "completed"
    assert [c.path for c in compare(recorded, got)] == ["result.task.status"]
    assert compare({"a": {"etag": "1"}}, {"a": {"etag": "2"}}, frozenset({"etag"})) == []
    assert normalise({"nextCursor": "x"}) == {"nextCursor": "<volatile>"}
    assert json_changes({"x": 1}, {"x": 1.0}) != [], "1 and 1.0 are different JSON"
