"""Secrets out of the traffic log itself (so the Traffic pane, its copy,
--record and exports all see masked text) and out of recordings: every env
and header value of a config entry or of --env/--header, VS Code password
inputs, and what the OAuth flow learns while the session runs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from inspector.core.auth.config import AuthConfig
from inspector.core.protocol.client import Client
from inspector.core.record.frame_lines import frame_to_record
from inspector.core.record.secret_mask import mask_traffic, secret_values
from inspector.core.record.traffic import TrafficLog
from inspector.core.servers.spec import ServerSpec, demo_spec

from .peers import PYTHON, ROOT, free_port, run_inspector, serving

PAT = "ghp_TOPsecret-1234567890"
DEMO_IGNORING_ARGUMENTS = "from inspector.demo.server import main; raise SystemExit(main([]))"


def inspector(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_inspector(*args, cwd=cwd, env=env)


def test_a_vscode_password_input_never_reaches_the_recording(tmp_path: Path) -> None:
    """The leak the audit found: `${input:gh-pat}` in env, and the PAT echoed by a tool."""
    (tmp_path / ".vscode").mkdir()
    config = {
        "inputs": [{"type": "promptString", "id": "gh-pat", "description": "GitHub PAT", "password": True}],
        "servers": {
            "demo": {
                "command": PYTHON,
                # A server that takes the token as an argument too (and ignores it).
                "args": ["-c", DEMO_IGNORING_ARGUMENTS, "--token", "${input:gh-pat}"],
                "env": {"GITHUB_PAT": "${input:gh-pat}", "PYTHONPATH": str(ROOT), "REGION": "europe-west-9"},
            }
        },
    }
    (tmp_path / ".vscode" / "mcp.json").write_text(json.dumps(config))
    record = tmp_path / "session.jsonl"
    result = inspector(
        "call",
        "echo",
        f"message=my pat is {PAT}, region europe-west-9",
        "--yes",
        "--json",
        "--record",
        str(record),
        "--config",
        ".vscode/mcp.json",
        cwd=tmp_path,
        env={"INSPECTOR_INPUT_GH_PAT": PAT},
    )
    assert result.returncode == 0, result.stderr
    # What the server echoes back is server text like any other: masked in the output too.
    assert PAT not in result.stdout and "my pat is ***, region ***" in result.stdout
    text = record.read_text()
    assert PAT not in text and "europe-west-9" not in text
    assert "my pat is ***, region ***" in text
    spawned = json.loads(text.splitlines()[0])
    assert spawned["kind"] == "process" and "***" in spawned["meta"]["argv"]


async def _echo(client: Client, message: str) -> str:
    result = await client.call_tool("echo", {"message": message})
    text: str = result["content"][0]["text"]
    return text


async def test_the_traffic_log_itself_is_masked() -> None:
    """What the Traffic pane shows and copies is the log's frames: masked at the source."""
    spec = demo_spec()
    spec.env["API_KEY"] = 'k-"quoted\\and-ünïcode'
    spec.env["LOG_LEVEL"] = "debug"
    traffic = mask_traffic(TrafficLog(), spec)
    client = Client(spec, traffic=traffic)
    await client.connect()
    try:
        secret = spec.env["API_KEY"]
        assert await _echo(client, f"<{secret}>") == "<***>", "the caller gets the masked answer"
        await _echo(client, "debug is fine")
    finally:
        await client.close()
    frames = [f for f in traffic if f.method == "tools/call"]
    assert len(frames) == 4
    for frame in traffic:
        assert secret not in frame.text()
        assert secret not in json.dumps(frame.message, ensure_ascii=False)
        assert secret not in json.dumps(frame_to_record(frame), ensure_ascii=False)
    sent, answer = frames[0], frames[1]
    assert sent.message["params"]["arguments"]["message"] == "<***>"
    assert answer.message["result"]["content"][0]["text"] == "<***>"
    assert b"<***>" in answer.raw  # type: ignore[operator]
    # Clearly harmless values stay readable.
    assert "debug is fine" in frames[2].text()
    assert str(ROOT) not in secret_values(spec)


async def test_secrets_the_oauth_flow_learns_are_masked_from_then_on() -> None:
    port = free_port()
    with serving([PYTHON, "-m", "inspector.demo", "--http", str(port)], port):
        spec = ServerSpec(transport="http", url=f"http://127.0.0.1:{port}/mcp", auth=AuthConfig(oauth=False))
        traffic = mask_traffic(TrafficLog(), spec)
        client = Client(spec, traffic=traffic)
        await client.connect()
        try:
            await _echo(client, "learned-token-0001 before")
            from inspector.core.auth.session import session_for

            session = session_for(spec)
            assert session is not None
            session.secrets.add("learned-token-0001")
            await _echo(client, "learned-token-0001 after")
        finally:
            await client.close()
    texts = [f.text() for f in traffic if f.method == "tools/call"]
    assert any("learned-token-0001 before" in t for t in texts), "not known yet: shown"
    assert not any("learned-token-0001 after" in t for t in texts)
    assert sum("*** after" in t for t in texts) == 2


def test_headers_and_env_from_the_command_line_are_secrets() -> None:
    spec = ServerSpec(
        transport="http",
        url="http://x/mcp",
        headers={"X-Api-Thing": "plain-looking-value", "Accept": "application/json", "Authorization": "Bearer tok-12"},
    )
    values = secret_values(spec)
    assert "plain-looking-value" in values and "Bearer tok-12" in values and "tok-12" in values
    assert "application/json" not in values
    stdio = ServerSpec(command="x", env={"ENDPOINT": "https://u:p@example.com", "DEBUG": "1", "HOME": "/root"})
    assert secret_values(stdio) == ["https://u:p@example.com"]


async def test_the_tui_traffic_pane_never_holds_a_secret() -> None:
    from inspector.tui.app import InspectorApp
    from inspector.tui.panes.bottom import BottomPanel

    from .tui_helpers import wait_connected

    spec = demo_spec()
    spec.env["SERVICE_TOKEN"] = PAT
    app = InspectorApp(spec)
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        # Both frames are in the traffic once the call has returned.
        await app.client.call_tool("echo", {"message": f"the token is {PAT}"})
        app.query_one(BottomPanel).sync()
        calls = [f for f in app.traffic if f.method == "tools/call"]
        assert len(calls) == 2  # the request and its answer
        for frame in app.traffic:
            assert PAT not in frame.text() and PAT not in json.dumps(frame.message), frame.seq
        assert any("the token is ***" in frame.text() for frame in calls)
