"""`inspector load` against the demo server (stdio and Streamable HTTP), and
the Locust user class with a master and two local workers.

Every figure asserted is a count (requests, errors), never a time: the
percentiles are only checked for their order.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector.commands import exitcodes

from .peers import EVERYTHING, NODE, PYTHON, free_port, require, run_inspector, serving
from .waiting import eventually_sync

ROOT = Path(__file__).resolve().parent.parent
LOCUSTFILE = ROOT / "inspector" / "commands" / "load" / "locustfile.py"

MIX = """\
name: load mix
steps:
  - name: echo
    call: echo
    arguments: {message: hi}
  - name: tools
    list: tools
"""


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    port = free_port()
    with serving([PYTHON, "-m", "inspector.demo", "--http", str(port)], port):
        yield f"http://127.0.0.1:{port}/mcp"


def report(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert "Traceback" not in done.stderr, done.stderr
    value: dict[str, Any] = json.loads(done.stdout)
    return value


def check_latency(value: dict[str, Any]) -> None:
    latency = value["latencyMs"]
    assert 0 < latency["p50"] <= latency["p95"] <= latency["p99"] <= latency["max"]


def test_a_call_over_stdio_with_two_sessions_runs_the_count() -> None:
    argv = ["load", "call", "echo", "message=hi", "--count", "20", "--sessions", "2", "--json"]
    done = run_inspector(*argv, timeout=180)
    assert done.returncode == exitcodes.OK, done.stderr
    value = report(done)
    assert value["requests"] == 20
    assert value["errors"] == 0
    assert value["plan"]["sessions"] == 2
    assert value["plan"]["mix"] == [{"name": "echo", "method": "tools/call", "step": "call echo"}]
    assert value["thresholds"] == {"passed": True, "broken": []}
    assert value["clientCpuMsPerRequest"] > 0
    check_latency(value)


def test_a_call_on_server_everything() -> None:
    """The reference TypeScript server: its echo tool, two sessions of its own."""
    everything = [NODE, str(require(EVERYTHING)), "stdio"]
    argv = ["load", "call", "echo", "message=hi", "--count", "12", "--sessions", "2", "--json", "--", *everything]
    done = run_inspector(*argv, timeout=180)
    assert done.returncode == exitcodes.OK, done.stderr
    value = report(done)
    assert value["requests"] == 12
    assert value["errors"] == 0
    assert value["plan"]["mix"] == [{"name": "echo", "method": "tools/call", "step": "call echo"}]
    check_latency(value)


def test_a_collection_over_http_runs_its_steps_in_order(tmp_path: Path, demo_url: str) -> None:
    mix = tmp_path / "mix.yaml"
    mix.write_text(MIX)
    done = run_inspector("load", str(mix), "--url", demo_url, "--count", "30", "--json", timeout=180)
    assert done.returncode == exitcodes.OK, done.stderr
    value = report(done)
    assert value["requests"] == 30
    assert value["errors"] == 0
    # One session, the steps in turn: half and half.
    assert value["steps"] == {"echo": {"requests": 15, "errors": 0}, "tools": {"requests": 15, "errors": 0}}
    check_latency(value)


def test_a_target_rate_over_http_stops_at_the_count(demo_url: str) -> None:
    argv = ["load", "call", "echo", "message=hi", "--url", demo_url, "--rate", "200", "--count", "25"]
    done = run_inspector(*argv, "--sessions", "2", "--json", timeout=180)
    assert done.returncode == exitcodes.OK, done.stderr
    value = report(done)
    assert value["requests"] == 25
    assert value["errors"] == 0
    assert value["plan"]["rate"] == 200


def test_failing_calls_are_counted_as_errors_and_break_the_error_rate(tmp_path: Path) -> None:
    mix = tmp_path / "failing.yaml"
    mix.write_text(
        textwrap.dedent(
            """\
            steps:
              - name: fine
                call: echo
                arguments: {message: hi}
              - name: by zero
                call: divide
                arguments: {dividend: 1, divisor: 0}
              - name: no such method
                raw: {"jsonrpc": "2.0", "id": 1, "method": "no/such/method"}
              - name: an expected error
                raw: {"jsonrpc": "2.0", "id": 1, "method": "no/such/method"}
                expect:
                  error: true
            """
        )
    )
    done = run_inspector("load", str(mix), "--count", "12", "--max-error-rate", "10%", "--json", timeout=180)
    assert done.returncode == exitcodes.LOAD_THRESHOLD, done.stderr
    value = report(done)
    assert value["requests"] == 12
    # The tool error and the unexpected JSON-RPC error fail; the expected one does not.
    assert value["errors"] == 6
    assert value["steps"]["fine"]["errors"] == 0
    assert value["steps"]["by zero"] == {"requests": 3, "errors": 3}
    assert value["steps"]["no such method"] == {"requests": 3, "errors": 3}
    assert value["steps"]["an expected error"] == {"requests": 3, "errors": 0}
    assert any(kind.startswith("JSON-RPC error -32") for kind in value["errorKinds"])
    assert any("zero" in kind for kind in value["errorKinds"])
    assert value["thresholds"]["passed"] is False
    assert "error rate 50.00%" in value["thresholds"]["broken"][0]


def test_a_p99_threshold_exits_with_its_code_and_the_report_says_why() -> None:
    # No answer comes back within a tenth of a microsecond.
    done = run_inspector("load", "call", "echo", "message=hi", "--count", "5", "--max-p99", "0.0001", "--human")
    assert done.returncode == exitcodes.LOAD_THRESHOLD, done.stderr
    assert "requests   5 in" in done.stdout
    assert "THRESHOLD BROKEN: p99" in done.stdout


def test_usage_errors_send_nothing(tmp_path: Path) -> None:
    done = run_inspector("load", "call", "--count", "5")
    assert done.returncode == exitcodes.USAGE
    assert "name the tool" in done.stderr
    done = run_inspector("load", str(tmp_path / "missing.yaml"), "--count", "5")
    assert done.returncode == exitcodes.USAGE
    done = run_inspector("load", "call", "no-such-tool", "--count", "5")
    assert done.returncode == exitcodes.USAGE
    assert "no tool named 'no-such-tool'" in done.stderr


def test_a_server_that_cannot_start_exits_cannot_connect(tmp_path: Path) -> None:
    done = run_inspector("load", "call", "echo", "--count", "5", "--", str(tmp_path / "no-such-server"))
    assert done.returncode == exitcodes.CANNOT_CONNECT, done.stderr
    assert "Traceback" not in done.stderr


def test_error_messages_are_kept_short_and_few() -> None:
    from inspector.commands.load.stats import LoadStats, Sample

    stats = LoadStats()
    for n in range(100):
        stats.add(Sample("step", 1.0, f"{n} " + "x" * 100_000))
    assert stats.errors == 100
    assert len(stats.error_kinds) == 20
    assert max(len(text) for text in stats.error_kinds) < 400


def locust(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [PYTHON, "-m", "locust", "-f", str(LOCUSTFILE), *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.mark.timeout(300)
def test_locust_master_and_two_workers_over_streamable_http(tmp_path: Path, demo_url: str) -> None:
    mix = tmp_path / "mix.yaml"
    mix.write_text(MIX)
    port = free_port()
    master = locust(
        "--master",
        "--headless",
        "--master-bind-port",
        str(port),
        "--expect-workers",
        "2",
        "--users",
        "4",
        "--spawn-rate",
        "4",
        "--run-time",
        # Counted from when both workers are there: room for every user to connect and send.
        "5s",
        "--host",
        demo_url,
        "--collection",
        str(mix),
        "--csv",
        str(tmp_path / "run"),
        cwd=tmp_path,
    )
    workers = [locust("--worker", "--master-port", str(port), cwd=tmp_path) for _ in range(2)]
    try:
        # The master ends by itself once the run time is over (a hang meets the test's timeout).
        _out, err = master.communicate(timeout=240)
    finally:
        for process in (master, *workers):
            if process.poll() is None:
                process.terminate()
            process.communicate(timeout=30)
    assert master.returncode == 0, err[-3000:]
    assert "2 workers connected" in err or "workers connected" in err, err[-3000:]
    rows = (tmp_path / "run_stats.csv").read_text().splitlines()
    header = rows[0].split(",")
    table = {row.split(",")[header.index("Name")]: row.split(",") for row in rows[1:]}
    total = table["Aggregated"]
    assert int(total[header.index("Request Count")]) > 0
    assert int(total[header.index("Failure Count")]) == 0
    # Each request reported as method / tool name.
    assert table["echo"][header.index("Type")] == "tools/call"
    assert table["tools"][header.index("Type")] == "tools/list"
    assert (tmp_path / "run_failures.csv").read_text().strip().count("\n") == 0


def test_the_locustfile_prints_its_own_path() -> None:
    done = subprocess.run(
        [PYTHON, "-m", "inspector.commands.load.locustfile"], capture_output=True, text=True, timeout=120, check=True
    )
    assert Path(done.stdout.strip()) == LOCUSTFILE


def test_a_locust_user_without_a_remote_server_stops_with_a_reason(tmp_path: Path) -> None:
    mix = tmp_path / "mix.yaml"
    mix.write_text(MIX)
    process = locust("--headless", "--users", "1", "--run-time", "2s", "--collection", str(mix), "--json", cwd=tmp_path)
    out, err = process.communicate(timeout=120)
    eventually_sync(lambda: process.returncode is not None, "locust to end")
    assert "Locust runs against a remote server" in err, err[-3000:]
    assert json.loads(out) == [] or all(entry["num_requests"] == 0 for entry in json.loads(out))


def test_on_a_terminal_progress_is_live_and_ctrl_c_still_reports() -> None:
    import pty
    import select
    import signal

    from .terminal import interruptible

    controller, terminal = pty.openpty()
    argv = [PYTHON, "-m", "inspector", "load", "call", "echo", "message=hi", "--duration", "600"]
    process = subprocess.Popen(
        argv, stdin=terminal, stdout=terminal, stderr=terminal, preexec_fn=interruptible, env=dict(os.environ)
    )
    os.close(terminal)
    seen = b""

    def read() -> bool:
        nonlocal seen
        ready, _w, _x = select.select([controller], [], [], 0.2)
        if ready:
            try:
                seen += os.read(controller, 65536)
            except OSError:
                return True
        return process.poll() is not None

    try:
        # The live panel is drawn once requests are answered.
        eventually_sync(lambda: read() or (b"throughput" in seen and b"latency ms" in seen), "the live panel", 120)
        assert process.poll() is None, seen.decode(errors="replace")
        process.send_signal(signal.SIGINT)
        eventually_sync(lambda: read() and process.poll() is not None, "the run to end after ctrl-c", 120)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(30)
        os.close(controller)
    text = seen.decode(errors="replace")
    assert process.returncode == exitcodes.OK, text[-3000:]
    # The final report, after the live panel.
    assert "load against inspector-demo: 1 session(s), closed loop" in text
    assert "echo: " in text and " sent, 0 error(s)" in text
    assert "Traceback" not in text
