"""`inspector diff` with live servers on either side (or both), recorded
with --record, and the command line forms of a side."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

from inspector.commands import exitcodes

from .peers import PYTHON, SERVERS, free_port, run_inspector, serving

VERSIONED = str(SERVERS / "versioned.py")


def inspector(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_inspector(*args, cwd=cwd, timeout=120)


def release(number: int) -> str:
    return "stdio:" + shlex.join([PYTHON, VERSIONED, "--release", str(number)])


def test_two_live_servers(tmp_path: Path) -> None:
    record = tmp_path / "run.jsonl"
    result = inspector("diff", "--json", release(1), release(2), "--record", str(record))
    assert result.returncode == exitcodes.DIFFERENCES, result.stderr
    report = json.loads(result.stdout)
    assert report["tools"]["added"] == ["export"] and report["tools"]["removed"] == ["legacy_export"]
    assert report["resources"]["added"] == ["file:///changelog.md"]
    assert report["a"]["server"].endswith("--release 1") and report["b"]["server"].endswith("--release 2")
    # Each live side was recorded; the recordings give the same answer offline.
    a, b = tmp_path / "run-a.jsonl", tmp_path / "run-b.jsonl"
    assert report["a"]["recorded"] == str(a) and report["b"]["recorded"] == str(b)
    offline = inspector("diff", "--json", str(a), str(b))
    assert offline.returncode == exitcodes.DIFFERENCES, offline.stderr
    again = json.loads(offline.stdout)
    assert {k: again[k] for k in ("tools", "resources", "templates", "prompts")} == {
        k: report[k] for k in ("tools", "resources", "templates", "prompts")
    }
    same = inspector("diff", "--json", release(2), "--", PYTHON, VERSIONED, "--release", "2")
    assert same.returncode == exitcodes.OK and json.loads(same.stdout)["identical"], same.stderr


def test_a_live_side_first_and_a_recording_second(tmp_path: Path) -> None:
    record = tmp_path / "two.jsonl"
    made = inspector("diff", "--json", release(2), release(2), "--record", str(record))
    assert made.returncode == exitcodes.OK, made.stderr
    result = inspector("diff", "--json", "live", str(tmp_path / "two-b.jsonl"), "--", PYTHON, VERSIONED)
    assert result.returncode == exitcodes.DIFFERENCES, result.stderr
    tools = json.loads(result.stdout)["tools"]
    assert tools["removed"] == ["legacy_export"] and tools["added"] == ["export"]


def test_urls_and_config_entries_as_sides(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    entry = {"command": PYTHON, "args": ["-m", "inspector.demo"], "env": {"PYTHONPATH": str(Path.cwd())}}
    config.write_text(json.dumps({"mcpServers": {"demo": entry, "other": {"command": "unused"}}}))
    port = free_port()
    with serving([PYTHON, "-m", "inspector.demo", "--http", str(port)], port):
        url = f"http://127.0.0.1:{port}/mcp"
        record = str(tmp_path / "r.jsonl")
        result = inspector("diff", "--json", url, f"config:{config}#demo", "--record", record)
        # Two runs of the demo differ only in when its resources were last modified.
        changes = json.loads(result.stdout)["resources"]["changed"]
        assert {c["path"] for found in changes.values() for c in found} <= {"annotations.lastModified"}
        result = inspector(
            "diff", "--json", url, f"config:{config}#demo", "--record", record, "--ignore", "lastModified"
        )
    assert result.returncode == exitcodes.OK, result.stderr + result.stdout
    report = json.loads(result.stdout)
    assert report["identical"] and report["a"]["server"] == url and report["b"]["server"] == "demo"
    recorded = (tmp_path / "r-a.jsonl").read_text()
    assert '"method": "tools/list"' in recorded


def test_side_mistakes_are_usage_errors(tmp_path: Path) -> None:
    one = inspector("diff", "live", "live", "--", PYTHON, VERSIONED)
    assert one.returncode == exitcodes.USAGE and "only one side" in one.stderr
    unused = inspector("diff", release(1), release(2), "--", PYTHON, VERSIONED)
    assert unused.returncode == exitcodes.USAGE and "neither side is `live`" in unused.stderr
    empty = inspector("diff", "stdio:", release(1))
    assert empty.returncode == exitcodes.USAGE
    gone = inspector("diff", "--json", "stdio:/no/such/server", release(1))
    assert gone.returncode == exitcodes.CANNOT_CONNECT
    missing = inspector("diff", str(tmp_path / "missing.jsonl"), release(1))
    assert missing.returncode == exitcodes.USAGE and "cannot read" in missing.stderr


def test_one_recording_is_compared_with_the_demo_server(tmp_path: Path) -> None:
    # Like every other command, no server named means the embedded demo.
    recorded = str(tmp_path / "demo.jsonl")
    made = inspector("list", "tools", "--json", "--record", recorded)
    assert made.returncode == exitcodes.OK, made.stderr
    same = inspector("diff", "--json", recorded)
    report = json.loads(same.stdout)
    assert report["b"]["server"] == "inspector-demo", report["b"]
    assert same.returncode == exitcodes.OK, same.stderr
    assert report["tools"] == {"added": [], "removed": [], "changed": {}} and report["identical"]
    other = inspector("diff", "--json", release(1))
    assert other.returncode == exitcodes.DIFFERENCES, other.stderr
