"""Client config files as people have them: VS Code inputs asked on a
terminal (password ones without echo), `${workspaceFolder}`, Claude Code's
per-project servers from a subfolder, and the macOS places of each file."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.commands.inputs import ask_on_terminal
from inspector.core.record.secret_mask import secret_refs, secret_values
from inspector.core.servers.client_configs import ConfigError, Input, spec_from_entry, spec_from_file
from inspector.core.servers.discovery import candidate_files, discover

from .peers import PYTHON, ROOT
from .terminal import answer_on_terminal

ENTRY = {"command": "npx", "env": {"TOKEN": "${input:api-key}", "ZONE": "${input:zone}"}}
INPUTS = {
    "api-key": Input("api-key", "The API key", password=True),
    "zone": Input("zone", "Which zone", default="eu-west", options=["eu-west", "us-east"]),
}


def test_inputs_from_variables_then_the_person_then_the_default() -> None:
    asked: list[str] = []

    def ask(item: Input) -> str | None:
        asked.append(item.id)
        return "typed-key-123" if item.id == "api-key" else None

    spec = spec_from_entry("x", ENTRY, {}, inputs=INPUTS, ask=ask)
    assert spec.env == {"TOKEN": "typed-key-123", "ZONE": "eu-west"}, "no answer: the default"
    assert asked == ["api-key", "zone"]
    # A password input is a secret under the variable that answers it in scripts.
    assert secret_refs(spec)["typed-key-123"] == "INSPECTOR_INPUT_API_KEY"
    # Scripts: the variable wins and nobody is asked.
    asked.clear()
    spec = spec_from_entry("x", ENTRY, {"INSPECTOR_INPUT_API_KEY": "k-from-env"}, inputs=INPUTS, ask=ask)
    assert spec.env["TOKEN"] == "k-from-env" and asked == ["zone"]
    # Nobody to ask and no default: the error names the variable.
    with pytest.raises(ConfigError, match="INSPECTOR_INPUT_API_KEY") as caught:
        spec_from_entry("x", ENTRY, {}, inputs=INPUTS)
    assert [item.id for item in caught.value.inputs] == ["api-key"]


def test_a_password_input_in_the_arguments_is_a_secret() -> None:
    entry = {"command": "server", "args": ["--token", "${input:api-key}"]}
    spec = spec_from_entry("x", entry, {"INSPECTOR_INPUT_API_KEY": "arg-secret-9"}, inputs=INPUTS)
    assert spec.args == ["--token", "arg-secret-9"] and "arg-secret-9" in secret_values(spec)


def test_asking_on_a_stream_shows_description_options_and_default() -> None:
    shown = io.StringIO()
    assert ask_on_terminal(INPUTS["zone"], io.StringIO("2\n"), shown) == "us-east"
    assert "Which zone" in shown.getvalue() and "2. us-east" in shown.getvalue() and "[eu-west]" in shown.getvalue()
    assert "INSPECTOR_INPUT_ZONE" in shown.getvalue()
    assert ask_on_terminal(INPUTS["zone"], io.StringIO("\n"), io.StringIO()) == "eu-west"
    assert ask_on_terminal(INPUTS["zone"], io.StringIO(""), io.StringIO()) is None


def _vscode_project(folder: Path) -> Path:
    (folder / ".vscode").mkdir(parents=True)
    config = {
        "inputs": [{"type": "promptString", "id": "secret-word", "description": "The secret word", "password": True}],
        "servers": {
            "demo": {
                "command": PYTHON,
                "args": ["-m", "inspector.demo"],
                "env": {"PYTHONPATH": str(ROOT), "WORD": "${input:secret-word}", "WS": "${workspaceFolder}"},
            }
        },
    }
    path = folder / ".vscode" / "mcp.json"
    path.write_text(json.dumps(config))
    return path


def test_workspace_folder_is_the_folder_holding_vscode(tmp_path: Path) -> None:
    path = _vscode_project(tmp_path / "project")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    here = os.getcwd()
    os.chdir(elsewhere)
    try:
        spec = spec_from_file(str(path), "demo", {"INSPECTOR_INPUT_SECRET_WORD": "w"})
    finally:
        os.chdir(here)
    assert spec.env["WS"] == str(tmp_path / "project")


def _in_a_terminal(argv: list[str], cwd: Path, answer: str, timeout: float = 40) -> tuple[int, str]:
    """Run with a pseudo-terminal as the controlling terminal; type `answer` at the prompt."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSPECTOR_INPUT_")}
    return answer_on_terminal(argv, b"secret-word: ", answer, timeout=timeout, cwd=cwd, env=env, controlling=True)


def test_a_person_is_asked_for_a_password_input_without_echo(tmp_path: Path) -> None:
    _vscode_project(tmp_path)
    argv = [sys.executable, "-m", "inspector", "info", "--json", "--config", ".vscode/mcp.json"]
    code, screen = _in_a_terminal(argv, tmp_path, "hunter2-typed")
    assert code == 0, screen
    assert "The secret word" in screen and "INSPECTOR_INPUT_SECRET_WORD" in screen
    assert "hunter2-typed" not in screen, "a password input is not echoed"
    assert '"serverInfo"' in screen


def test_without_a_terminal_the_variable_is_named(tmp_path: Path) -> None:
    _vscode_project(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSPECTOR_INPUT_")}
    result = subprocess.run(
        [sys.executable, "-m", "inspector", "info", "--config", ".vscode/mcp.json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2 and "INSPECTOR_INPUT_SECRET_WORD" in result.stderr


def test_listing_servers_asks_nobody_and_offers_entries_with_inputs(tmp_path: Path) -> None:
    _vscode_project(tmp_path / "project")
    found = discover(cwd=str(tmp_path / "project"), home=str(tmp_path / "home"), platform="linux", environ={})
    (entry,) = found
    assert entry.spec is None and entry.usable and [i.id for i in entry.inputs] == ["secret-word"]
    assert entry.summary.startswith("asks for secret-word (password): ")
    spec = entry.resolve(lambda item: "answered-word")
    assert spec.env["WORD"] == "answered-word" and spec.env["WS"] == str(tmp_path / "project")


def test_claude_code_project_servers_from_a_subfolder(tmp_path: Path) -> None:
    home, outer = tmp_path / "home", tmp_path / "work"
    inner = outer / "packages" / "app"
    (inner / "src" / "deep").mkdir(parents=True)
    home.mkdir()
    projects = {
        str(outer): {"mcpServers": {"outer-server": {"command": "outer"}}},
        str(inner) + "/": {"mcpServers": {"inner-server": {"command": "inner"}}},
        str(tmp_path / "work-other"): {"mcpServers": {"lookalike": {"command": "no"}}},
    }
    (home / ".claude.json").write_text(json.dumps({"projects": projects}))

    def names(cwd: Path) -> set[str]:
        return {e.name for e in discover(cwd=str(cwd), home=str(home), platform="linux", environ={})}

    assert names(inner / "src" / "deep") == {"inner-server"}, "the nearest project wins"
    assert names(outer / "packages") == {"outer-server"}
    assert names(tmp_path) == set()


def test_macos_places(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    support = home / "Library" / "Application Support"
    files = {
        support / "Claude" / "claude_desktop_config.json": {"mcpServers": {"desktop": {"command": "a"}}},
        support / "Code" / "User" / "mcp.json": {"servers": {"vscode-user": {"command": "b"}}},
        support / "Code" / "User" / "settings.json": {"mcp": {"servers": {"vscode-settings": {"command": "c"}}}},
        home / ".cursor" / "mcp.json": {"mcpServers": {"cursor": {"command": "d"}}},
        home / ".codeium" / "windsurf" / "mcp_config.json": {"mcpServers": {"windsurf": {"command": "e"}}},
        # Linux places are not looked at on macOS.
        home / ".config" / "Claude" / "claude_desktop_config.json": {"mcpServers": {"linux-only": {"command": "f"}}},
    }
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data))
    project.mkdir()
    found = discover(cwd=str(project), home=str(home), platform="darwin", environ={})
    clients = {entry.name: entry.client for entry in found}
    assert clients == {
        "desktop": "Claude Desktop",
        "vscode-user": "VS Code",
        "vscode-settings": "VS Code",
        "cursor": "Cursor",
        "windsurf": "Windsurf",
    }
    linux = {e.name for e in discover(cwd=str(project), home=str(home), platform="linux", environ={})}
    assert "linux-only" in linux and "desktop" not in linux
    paths = [path for _client, path in candidate_files(str(project), str(home), "darwin", {})]
    assert str(support / "Claude" / "claude_desktop_config.json") in paths


async def test_the_picker_offers_a_server_that_only_needs_inputs(tmp_path: Path) -> None:
    from textual.widgets import OptionList

    from inspector.tui.picker import PickerApp

    _vscode_project(tmp_path / "project")
    found = discover(cwd=str(tmp_path / "project"), home=str(tmp_path / "home"), platform="linux", environ={})
    app = PickerApp(found)
    async with app.run_test(size=(120, 20)) as pilot:
        options = app.query_one(OptionList)
        assert not options.get_option_at_index(0).disabled
        await pilot.press("enter")
    assert app.return_value is found[0]
