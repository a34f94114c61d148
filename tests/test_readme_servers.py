"""The README's "Several servers in one window" commands, run as written in
tmux against its own `servers.json` (the README's json block): every server
the command names shows as connected in the server list, and ctrl+q ends the
program with exit 0.  (test_readme_commands.py runs them too, as it runs
every README command; this file checks what these ones promise.)"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import pytest

from .peers import PEERS, PYTHON, ROOT, require
from .tmux_session import tmux_running
from .waiting import eventually_sync

README = ROOT / "README.md"
SECTION = "### Several servers in one window"


def section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.index("\n#", start + len(SECTION))
    return text[start:end]


def readme_servers_json() -> str:
    """The config file the section shows (its json block)."""
    blocks = re.findall(r"```json\n(.*?)```", section(), re.S)
    assert len(blocks) == 1, "the section shows one config file"
    json.loads(blocks[0])
    return str(blocks[0])


def section_commands() -> list[str]:
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", section(), re.S):
        for line in block.splitlines():
            if line.startswith("inspector"):
                commands.append(re.sub(r"\s+#.*$", "", line).strip())
    return commands


def workspace(path: Path) -> dict[str, str]:
    bin_dir = path / "bin"
    bin_dir.mkdir()
    (bin_dir / "inspector").write_text(f'#!/bin/sh\nexec "{PYTHON}" -m inspector "$@"\n')
    (bin_dir / "inspector").chmod(0o755)
    (path / "servers.json").write_text(readme_servers_json())
    # `npx` finds the reference server here, without the network.
    require(PEERS / "@modelcontextprotocol" / "server-everything")
    (path / "node_modules").symlink_to(PEERS)
    (path / "home").mkdir()
    return {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(path / "home"),
        "INSPECTOR_CONFIG_DIR": str(path / "config"),
        "INSPECTOR_IMAGES": "cells",
        "npm_config_offline": "true",
    }


def test_the_section_shows_commands() -> None:
    assert len(section_commands()) == 2
    assert set(json.loads(readme_servers_json())["mcpServers"]) == {"demo", "everything"}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("command", section_commands())
def test_every_server_of_the_command_shows_connected(command: str, tmp_path: Path) -> None:
    env = workspace(tmp_path)
    argv = shlex.split(command)
    names = ["demo", "everything"]
    name = f"servers-{os.getpid()}-{abs(hash(command)) % 10000}"
    with tmux_running(argv, env, tmp_path, name, (140, 40)) as run:

        def all_connected() -> bool:
            screen = run.capture()
            assert not run.status.exists(), screen
            listed = [line for line in screen.splitlines() if any(f" {n}" in line for n in names)]
            # The list names each server, and each has its "● connected" line under its name.
            return len(listed) >= len(names) and screen.count("● connected") >= len(names)

        # A generous bound: a fresh TUI imports Textual and starts two servers first.
        try:
            eventually_sync(all_connected, "every server connected in the list", timeout=120, poll=0.3)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{run.screen}") from None
        assert "Traceback" not in run.screen, run.screen
        assert "▶ 1/2 demo" in run.screen, run.screen
        run.quit_with_ctrl_q()
