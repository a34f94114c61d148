"""Recorded sessions (record → open, diff), replaying and composing raw
messages, copy-as-command, latency figures, config discovery, hot restart."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static, TextArea

from inspector.core.record.latency import latency_table
from inspector.core.record.recording_files import lists_from_traffic, load_recording, opening
from inspector.core.servers.client_configs import spec_from_entry
from inspector.core.servers.copy_command import call_command
from inspector.core.servers.discovery import discover
from inspector.core.servers.spec import ServerSpec, demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.bottom import BottomPanel
from inspector.tui.panes.traffic import TrafficPane
from inspector.tui.screens.composer import ComposerScreen
from inspector.tui.widgets.item_list import ItemList

from .peers import PYTHON, SERVERS, run_inspector
from .tui_helpers import focus, select, wait_connected, wait_for

VERSIONED = str(SERVERS / "versioned.py")
SIZE = (150, 50)


def inspector(
    *args: str, cwd: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_inspector(*args, cwd=cwd, env=env)


def toasts(app: InspectorApp) -> list[str]:
    """Every toast's text from now on, in order (the app's notify still runs):
    what the app says when it refuses, so a test waits for the refusal
    instead of for a while."""
    said: list[str] = []
    original = app.notify

    def notify(message: str, *args: Any, **kwargs: Any) -> None:
        said.append(str(message))
        original(message, *args, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    return said


def record(path: Path, release: int) -> None:
    result = inspector(
        "list", "tools", "--json", "--record", str(path), "--", PYTHON, VERSIONED, "--release", str(release)
    )
    assert result.returncode == 0, result.stderr


async def record_everything(path: Path, release: int) -> None:
    """One recorded session that lists every kind (as the TUI does)."""
    from inspector.core.protocol.client import Client
    from inspector.core.record.frame_lines import JsonlRecorder
    from inspector.core.record.traffic import TrafficLog

    traffic = TrafficLog()
    recorder = JsonlRecorder.open(str(path))
    traffic.subscribe(recorder)
    client = Client(ServerSpec(command=PYTHON, args=[VERSIONED, "--release", str(release)]), traffic=traffic)
    await client.connect()
    for kind in ("tools", "resources", "templates", "prompts"):
        await client.list_all(kind)
    await client.close()
    recorder.close()


def test_recording_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    record(path, 1)
    traffic = load_recording(str(path))
    era, result = opening(traffic)
    assert era == "legacy" and result["serverInfo"]["name"] == "versioned"
    tools = lists_from_traffic(traffic)["tools"]
    assert tools.names() == ["search", "echo", "legacy_export"]
    requests = [f for f in traffic if f.kind == "request" and f.direction == "out"]
    assert all(f.partner is not None for f in requests if f.method != "server/discover")


async def test_open_a_recording_read_only(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    record(path, 2)
    app = InspectorApp(ServerSpec(name=str(path)), recording=(str(path), load_recording(str(path))))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.query_one("#tool-list", ItemList).border_title == "Tools (3)", "tools")
        assert app.facts.state == "offline" and app.facts.transport == "recording"
        app.query_one(BottomPanel).sync()
        assert len(app.query_one(TrafficPane).table.rows) == len(app.traffic.frames)
        before = len(app.traffic.frames)
        said = toasts(app)
        await select(pilot, app, "tools", "search")
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: "this is a recording: nothing can be sent" in said, "the refusal")
        assert len(app.traffic.frames) == before, "a recording sends nothing"


async def test_a_recording_offers_no_composer(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    record(path, 1)
    app = InspectorApp(ServerSpec(name=str(path)), recording=(str(path), load_recording(str(path))))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.query_one("#tool-list", ItemList).border_title == "Tools (3)", "tools")
        app.query_one(BottomPanel).sync()
        traffic = app.query_one(TrafficPane)
        await focus(pilot, traffic.table)
        sent = next(f for f in app.traffic if f.direction == "out" and f.method == "tools/list")
        assert traffic.table.select_seq(sent.seq)
        said = toasts(app)
        for count, key in enumerate(("n", "r"), 1):
            await pilot.press(key)

            def refused(count: int = count) -> bool:
                return len(said) >= count

            await wait_for(pilot, refused, f"{key}: the refusal")
            assert "this is a recording" in said[-1]
            assert not isinstance(app.screen, ComposerScreen), f"{key}: a recording has nobody to send to"


async def test_diff_two_recordings_and_a_live_server(tmp_path: Path) -> None:
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    await record_everything(one, 1)
    await record_everything(two, 2)
    result = inspector("diff", str(one), str(two), "--json")
    assert result.returncode == 9, result.stderr
    report = json.loads(result.stdout)
    assert report["tools"]["added"] == ["export"] and report["tools"]["removed"] == ["legacy_export"]
    paths = [change["path"] for change in report["tools"]["changed"]["search"]]
    assert paths == ["description", "inputSchema.properties.limit"]
    assert report["resources"]["added"] == ["file:///changelog.md"]
    assert report["prompts"] == {"added": [], "removed": [], "changed": {}}
    partial = tmp_path / "tools-only.jsonl"
    record(partial, 2)
    skipped = json.loads(inspector("diff", str(partial), str(two), "--json").stdout)
    assert "skipped" in skipped["resources"] and skipped["tools"]["added"] == []
    same = inspector("diff", str(two), "--json", "--", PYTHON, VERSIONED, "--release", "2")
    assert same.returncode == 0, same.stdout
    assert json.loads(same.stdout)["identical"] is True


def test_diff_with_one_side_compares_with_the_demo(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    record(path, 1)
    # No server named: the demo server, which differs from this recording.
    assert inspector("diff", str(path)).returncode == 9
    assert inspector("diff", str(tmp_path / "missing.jsonl"), str(path)).returncode == 2


def test_copy_as_command_hides_secrets() -> None:
    spec = ServerSpec(
        command="npx", args=["-y", "server-github"], env={"GITHUB_TOKEN": "ghp_secret1234", "REGION": "eu"}
    )
    line = call_command(
        spec,
        "search",
        {"query": "it's", "limit": 3},
        {"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}}},
    )
    assert "ghp_secret1234" not in line
    assert 'GITHUB_TOKEN="$GITHUB_TOKEN"' in line and "limit=3" in line
    assert line.endswith("-- npx -y server-github")
    remote = ServerSpec(transport="auto", url="https://x.example/mcp", headers={"Authorization": "Bearer abcdef123"})
    assert "abcdef123" not in call_command(remote, "t", {}, None)
    assert call_command(demo_spec(), "divide", {"a": 1, "b": 0}, None).startswith("inspector call divide")


HOSTILE = [
    "price=$PATH",
    "$(touch /tmp/pwned) `id` ${HOME}",
    'it\'s "quoted" \\ back\\slash !bang *glob? ~tilde',
    "new\nline\ttab",
    "--looks-like-a-flag",
    "",
]


def _shell_words(line: str, env: dict[str, str]) -> list[str]:
    """What bash makes of the copied line (printf in place of `inspector`)."""
    assert line.startswith("inspector ")
    result = subprocess.run(
        ["bash", "-c", "printf '%s\\0' " + line.removeprefix("inspector ")],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", **env},
        timeout=10,
        check=True,
    )
    return result.stdout.split("\0")[:-1]


def test_copy_as_command_round_trips_through_the_shell() -> None:
    from inspector.core.auth.config import AuthConfig

    schema = {"type": "object", "properties": {"message": {"type": "string"}}}
    secret = "ghp_Secret-$(x)-value"
    spec = ServerSpec(command="npx", args=["-y", "srv $HOME"], env={"GITHUB_PAT": secret, "MODE": "$literal"})
    for value in [*HOSTILE, f"before {secret} after"]:
        line = call_command(spec, "echo", {"message": value}, schema, roots=["file:///tmp/a%20root", "/srv/x"])
        assert secret not in line
        words = _shell_words(line, {"GITHUB_PAT": secret, "MODE": "$literal"})
        assert words[:2] == ["call", "echo"] and words[2] == f"message={value}", (value, line)
        assert words[words.index("--root") + 1] == "/tmp/a root"
        assert words[-4:] == ["--", "npx", "-y", "srv $HOME"]
        assert f"GITHUB_PAT={secret}" in words and "MODE=$literal" in words
    remote = ServerSpec(
        transport="http",
        url="https://mcp.example/mcp?q=$x",
        headers={"X-Api-Key": "key-'quoted'-1"},
        auth=AuthConfig(
            client_id="my client", client_secret="cs-secret-1", issuer="https://as.example", callback_port=8765
        ),
    )
    line = call_command(remote, "t", {}, None)
    assert "cs-secret-1" not in line and "key-'quoted'-1" not in line
    words = _shell_words(line, {"X_API_KEY": "key-'quoted'-1", "MCP_CLIENT_SECRET": "cs-secret-1"})
    assert words[words.index("--url") + 1] == "https://mcp.example/mcp?q=$x"
    assert words[words.index("--header") + 1] == "X-Api-Key: key-'quoted'-1"
    assert words[words.index("--client-id") + 1] == "my client"
    assert words[words.index("--client-secret-env") + 1] == "MCP_CLIENT_SECRET"
    assert words[words.index("--oauth-issuer") + 1] == "https://as.example"
    assert words[words.index("--oauth-port") + 1] == "8765"
    # The copied line is a command line the inspector accepts.
    from inspector.cli.parser import build_parser
    from inspector.core.servers.from_args import split_server_command

    own, _server = split_server_command(words)
    build_parser().parse_args(own)


async def test_composer_sends_and_resends() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        app.query_one(BottomPanel).sync()
        traffic = app.query_one(TrafficPane)
        await focus(pilot, traffic.table)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ComposerScreen), "composer")
        app.screen.query_one(TextArea).text = '{"jsonrpc": "2.0", "id": 99, "method": "no/such-method"}'
        await pilot.press("ctrl+s")
        await wait_for(
            pilot,
            lambda: any(f.method == "no/such-method" and f.kind == "error" for f in app.traffic),
            "answer to the composed request",
        )
        sent = [f for f in app.traffic if f.method == "no/such-method" and f.direction == "out"][-1]
        assert sent.note == "typed in the composer" and sent.partner is not None
        app.query_one(BottomPanel).sync()
        assert traffic.table.select_seq(sent.seq)
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, ComposerScreen), "resend composer")
        assert "no/such-method" in app.screen.query_one(TextArea).text
        app.screen.query_one(TextArea).text = "not json"
        await pilot.press("ctrl+s")
        await wait_for(
            pilot, lambda: "not JSON" in str(app.screen.query_one("#composer-error", Static).render()), "the error"
        )
        assert isinstance(app.screen, ComposerScreen)
        await pilot.press("escape")


async def test_latency_table_from_a_session() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        rows = {row.method: row for row in latency_table(app.traffic.frames)}
        assert {"tools/list", "resources/list"} <= set(rows)
        assert all(row.count >= 1 and 0 < row.p50 <= row.p95 <= row.max for row in rows.values())
        app.query_one("#bottom-tabs").active = "latency"  # type: ignore[attr-defined]
        await wait_for(
            pilot, lambda: "tools/list" in str(app.query_one("#latency-table", Static).render()), "the latency pane"
        )
        from rich.console import Console

        from inspector.tui.panes.bottom import latency_renderable

        console = Console(record=True, width=120)
        console.print(latency_renderable(app.traffic.frames))
        assert "tools/list" in console.export_text()


def test_discovery_finds_project_and_user_configs(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "work" / "app"
    (project / ".vscode").mkdir(parents=True)
    (home / ".cursor").mkdir(parents=True)
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"local": {"command": "node", "args": ["s.js"]}}}))
    (project / ".vscode" / "mcp.json").write_text(
        '{\n // comment\n "servers": {"web": {"type": "http", "url": "http://127.0.0.1:1/mcp"},}}'
    )
    (home / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": {"cursor-one": {"url": "http://x/sse"}}}))
    (home / ".claude.json").write_text(
        json.dumps(
            {"projects": {str(project): {"mcpServers": {"scoped": {"command": "python", "args": ["-m", "thing"]}}}}}
        )
    )
    found = discover(cwd=str(project), home=str(home), platform="linux", environ={})
    names = {entry.name: entry for entry in found}
    assert set(names) == {"local", "web", "cursor-one", "scoped"}
    assert names["web"].spec is not None and names["web"].spec.transport == "http"
    assert names["local"].client == "Claude Code" and names["scoped"].client == "Claude Code"


def test_vscode_inputs_come_from_the_environment() -> None:
    entry = {"command": "npx", "env": {"TOKEN": "${input:api-key}", "DIR": "${workspaceFolder}"}}
    spec = spec_from_entry("x", entry, {"INSPECTOR_INPUT_API_KEY": "k-123"})
    assert spec.env["TOKEN"] == "k-123" and spec.env["DIR"]
    with pytest.raises(ValueError, match="INSPECTOR_INPUT_API_KEY"):
        spec_from_entry("x", entry, {})


async def test_hot_restart_on_file_change(tmp_path: Path) -> None:
    watched = tmp_path / "server_code.py"
    watched.write_text("v = 1\n")
    app = InspectorApp(demo_spec(), watch=[str(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)

        def spawns() -> int:
            return sum(1 for f in app.traffic if f.kind == "process" and "spawned" in (f.note or ""))

        spawned = spawns()
        polls = 0

        def restarted() -> bool:
            # The watcher says nowhere when it is watching: the file changes
            # again every twentieth poll until a change is seen.
            nonlocal polls
            if spawns() > spawned:
                return True
            if polls % 20 == 0:
                watched.write_text(f"v = {2 + polls}\n")
            polls += 1
            return False

        await wait_for(pilot, restarted, "restart")
        await wait_for(pilot, lambda: app.client.state == "connected", "reconnected")
        assert any("hot restart" in (f.note or "") for f in app.traffic)


async def test_a_recording_shows_each_tools_last_call(tmp_path: Path) -> None:
    from inspector.core.protocol.client import Client
    from inspector.core.record.frame_lines import JsonlRecorder
    from inspector.core.record.traffic import TrafficLog
    from inspector.tui.widgets.arguments import ArgumentsEditor
    from inspector.tui.widgets.result_view import ResultView

    path = tmp_path / "calls.jsonl"
    traffic = TrafficLog()
    recorder = JsonlRecorder.open(str(path))
    traffic.subscribe(recorder)
    client = Client(demo_spec(), traffic=traffic)
    await client.connect()
    try:
        await client.list_all("tools")
        await client.call_tool("echo", {"message": "first"})
        await client.call_tool("echo", {"message": "kept", "repeat": 2})
        await client.call_tool("divide", {"dividend": 1, "divisor": 0})
    finally:
        await client.close()
        recorder.close()
    app = InspectorApp(ServerSpec(name=str(path)), recording=(str(path), load_recording(str(path))))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "tools" in app.lists, "tools")
        view = app.query_one(ResultView)
        await select(pilot, app, "tools", "echo")
        await wait_for(pilot, lambda: view.owner == "echo" and view.last_result is not None, "echo's recorded result")
        assert "kept" in json.dumps(view.last_result) and "first" not in json.dumps(view.last_result)
        assert "recorded: frames #" in str(view.border_subtitle)
        await wait_for(pilot, lambda: app.query_one(ArgumentsEditor).form.value().get("repeat") == 2, "the arguments")
        assert app.query_one(ArgumentsEditor).form.value()["message"] == "kept"
        await select(pilot, app, "tools", "divide")
        await wait_for(pilot, lambda: view.owner == "divide", "divide's recorded result")
        await wait_for(pilot, lambda: "TOOL ERROR" in str(view.query_one("#status", Static).render()), "isError")
        await select(pilot, app, "tools", "get_json")  # never called: nothing claims to be its result
        await wait_for(pilot, lambda: "not the selected tool" in str(view.border_subtitle), "the view's note")
        assert view.owner == "divide"
