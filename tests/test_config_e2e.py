"""Choosing the server, end to end through the scripting CLI: `--config FILE
--server NAME` (stdio entries with env and cwd, HTTP entries with headers,
`${VAR}` from the environment, per-server era and protocolVersion, both file
shapes), the stdio environment (the safe default set, --env, --cwd,
--inherit-env), --header reaching the server, and --transport http forced
(no fallback to legacy HTTP+SSE).  The servers report what they were given
(tests/servers/reporter.py) or are the demo server over --http."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector.commands import exitcodes
from inspector.core.transports.childproc import DEFAULT_INHERITED_ENV

from .peers import PYTHON, SERVERS, free_port, run_inspector, serving

REPORTER = str(SERVERS / "reporter.py")
OUTER_SECRET = "INSPECTOR_TEST_OUTER_SECRET"


def inspector(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_inspector(*args, env={OUTER_SECRET: "do-not-pass-me", **(env or {})})


def report(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    result = inspector("call", "report", "--yes", "--json", *args, env=env)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    # The reporter writes its report reversed (see tests/servers/reporter.py).
    value: dict[str, Any] = json.loads(json.loads(result.stdout)["content"][0]["text"][::-1])
    return value


def info(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    result = inspector("info", "--json", *args, env=env)
    assert result.returncode == 0, result.stderr
    value: dict[str, Any] = json.loads(result.stdout)
    return value


@pytest.fixture(scope="module")
def reporter_http() -> Iterator[int]:
    port = free_port()
    with serving([PYTHON, REPORTER, "--http", str(port)], port):
        yield port


@pytest.fixture(scope="module")
def demo_http() -> Iterator[str]:
    port = free_port()
    with serving([PYTHON, "-m", "inspector.demo", "--http", str(port)], port):
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture
def config(tmp_path: Path, reporter_http: int, demo_http: str) -> Path:
    workdir = tmp_path / "work dir"
    workdir.mkdir()
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "local": {
                        "command": PYTHON,
                        "args": [REPORTER, "--greeting=${TEST_GREETING}"],
                        "env": {"GREETING": "${TEST_GREETING}", "PLAIN": "plain", "FALLBACK": "${TEST_UNSET:-dflt}"},
                        "cwd": str(workdir),
                    },
                    "remote": {
                        "type": "http",
                        "url": "http://127.0.0.1:${TEST_PORT}/mcp",
                        "headers": {"X-Team": "${env:TEST_TEAM}", "Authorization": "Bearer ${TEST_TOKEN}"},
                    },
                    "demo-legacy": {"url": demo_http, "era": "legacy"},
                    "demo-pinned": {"url": demo_http, "protocolVersion": "2025-06-18"},
                    "demo-modern": {"url": demo_http, "era": "modern"},
                }
            }
        )
    )
    return path


def test_stdio_entry_with_env_and_cwd(config: Path) -> None:
    seen = report("--config", str(config), "--server", "local", env={"TEST_GREETING": "hello there"})
    assert seen["env"]["GREETING"] == "hello there" and seen["argv"] == ["--greeting=hello there"]
    assert seen["env"]["PLAIN"] == "plain" and seen["env"]["FALLBACK"] == "dflt"
    assert seen["cwd"] == str(config.parent / "work dir")
    # The child gets the safe default set plus its configured env, not our whole environment.
    assert OUTER_SECRET not in seen["env"]
    assert seen["env"]["PATH"] == os.environ["PATH"]
    configured = {"GREETING", "PLAIN", "FALLBACK"}
    # Python itself may add a few of its own (e.g. LC_CTYPE on some systems).
    extra = set(seen["env"]) - set(DEFAULT_INHERITED_ENV) - configured - {"LC_CTYPE", "PYTHONPATH"}
    assert not extra, extra


def test_a_missing_variable_is_a_usage_error(config: Path) -> None:
    result = inspector("call", "report", "--yes", "--config", str(config), "--server", "local")
    assert result.returncode == exitcodes.USAGE
    assert "TEST_GREETING" in result.stderr and "Traceback" not in result.stderr


def test_http_entry_with_headers(config: Path, reporter_http: int, tmp_path: Path) -> None:
    record = tmp_path / "remote.jsonl"
    variables = {"TEST_PORT": str(reporter_http), "TEST_TEAM": "blue team", "TEST_TOKEN": "tok-s3cret-123"}
    seen = report("--config", str(config), "--server", "remote", "--record", str(record), env=variables)
    headers = {name.lower(): value for name, value in seen["headers"].items()}
    assert headers["x-team"] == "blue team"
    assert headers["authorization"] == "Bearer tok-s3cret-123"
    assert headers["mcp-protocol-version"] == "2025-11-25" and headers["mcp-session-id"]
    assert "tok-s3cret-123" not in record.read_text(), "the token is masked in the recording"


def test_per_server_era_and_protocol_version(config: Path) -> None:
    assert info("--config", str(config), "--server", "demo-legacy")["era"] == "legacy"
    pinned = info("--config", str(config), "--server", "demo-pinned")
    assert pinned["era"] == "legacy" and pinned["protocolVersion"] == "2025-06-18"
    modern = info("--config", str(config), "--server", "demo-modern")
    assert modern["era"] == "modern" and modern["protocolVersion"] == "2026-07-28"


def test_vscode_shape(tmp_path: Path) -> None:
    entry = json.dumps({"type": "stdio", "command": PYTHON, "args": [REPORTER], "env": {"K": "v"}})
    path = tmp_path / "mcp.json"
    # VS Code's files allow comments and trailing commas.
    path.write_text(f'{{\n  // the servers\n  "servers": {{"vs": {entry},}}\n}}\n')
    seen = report("--config", str(path), "--server", "vs")
    assert seen["env"]["K"] == "v"


def test_stdio_env_options(tmp_path: Path) -> None:
    seen = report("--env", "ALPHA=1", "--env", "BETA=two words", "--cwd", str(tmp_path), "--", PYTHON, REPORTER)
    assert seen["env"]["ALPHA"] == "1" and seen["env"]["BETA"] == "two words"
    assert seen["cwd"] == str(tmp_path)
    assert OUTER_SECRET not in seen["env"]
    everything = report("--inherit-env", "--env", "ALPHA=1", "--", PYTHON, REPORTER)
    assert everything["env"][OUTER_SECRET] == "do-not-pass-me" and everything["env"]["ALPHA"] == "1"


def test_header_reaches_the_server(reporter_http: int) -> None:
    url = f"http://127.0.0.1:{reporter_http}/mcp"
    seen = report("--url", url, "--header", "X-Trace: abc 123", "--header", "X-Api-Key: k-999")
    headers = {name.lower(): value for name, value in seen["headers"].items()}
    assert headers["x-trace"] == "abc 123" and headers["x-api-key"] == "k-999"


def test_transport_http_forced_never_falls_back(reporter_http: int, tmp_path: Path) -> None:
    wrong = f"http://127.0.0.1:{reporter_http}/not-mcp"
    forced_record, auto_record = tmp_path / "forced.jsonl", tmp_path / "auto.jsonl"
    forced = inspector("info", "--url", wrong, "--transport", "http", "--record", str(forced_record))
    auto = inspector("info", "--url", wrong, "--record", str(auto_record))
    for result in (forced, auto):
        assert result.returncode in (exitcodes.CANNOT_CONNECT, exitcodes.PROTOCOL_ERROR), result.stderr
        assert "Traceback" not in result.stderr
    forced_frames = [json.loads(line) for line in forced_record.read_text().splitlines()]
    auto_frames = [json.loads(line) for line in auto_record.read_text().splitlines()]
    assert not any("falling back" in str(f.get("note")) for f in forced_frames)
    assert not any((f.get("meta") or {}).get("http") == "GET" for f in forced_frames)
    assert any("falling back to legacy HTTP+SSE" in str(f.get("note")) for f in auto_frames)
    # The right URL works with the transport forced.
    right = info("--url", f"http://127.0.0.1:{reporter_http}/mcp", "--transport", "http")
    assert right["era"] == "legacy"


def test_servers_lists_the_named_config_file(config: Path) -> None:
    listed = inspector("servers", "--config", str(config), "--json")
    assert listed.returncode == 0, listed.stderr
    value = json.loads(listed.stdout)
    assert value["files"] == [{"client": "config", "path": str(config)}]
    names = {entry["name"]: entry for entry in value["servers"]}
    assert set(names) == {"local", "remote", "demo-legacy", "demo-pinned", "demo-modern"}
    assert all(entry["path"] == str(config) for entry in value["servers"])
    human = inspector("servers", "--config", str(config), "--human")
    assert human.returncode == 0, human.stderr
    assert "demo-modern" in human.stdout
    assert f"inspector --config {config} --server NAME" in human.stdout


def test_servers_with_a_missing_config_file_is_a_usage_error(tmp_path: Path) -> None:
    result = inspector("servers", "--config", str(tmp_path / "nope.json"))
    assert result.returncode == exitcodes.USAGE
    assert "no such config file" in result.stderr


def test_servers_help_offers_only_what_applies() -> None:
    result = inspector("servers", "--help")
    assert result.returncode == 0
    for option in ("--config", "--json", "--human"):
        assert option in result.stdout
    for foreign in ("--record", "--bearer", "--client-id", "--url", "--timeout"):
        assert foreign not in result.stdout
