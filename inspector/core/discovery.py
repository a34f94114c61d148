"""Finding the MCP servers other clients are configured with, in their usual
places on Linux and macOS: Claude Desktop, Claude Code, VS Code, Cursor and
Windsurf (project files in the working directory and its parents, user
files in the home directory)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import ConfigError, load_config, servers_in, spec_from_entry
from .spec import ServerSpec

__all__ = ["Discovered", "candidate_files", "discover", "find_server"]


@dataclass
class Discovered:
    client: str
    path: str
    name: str
    spec: ServerSpec | None
    problem: str | None = None

    @property
    def summary(self) -> str:
        if self.spec is None:
            return f"unusable: {self.problem}"
        if self.spec.url:
            return self.spec.url
        return " ".join([self.spec.command or "?", *self.spec.args])


def _user_files(home: Path, platform: str, environ: Mapping[str, str]) -> list[tuple[str, Path]]:
    config_home = Path(environ.get("XDG_CONFIG_HOME") or home / ".config")
    files = [
        ("Claude Code", home / ".claude.json"),
        ("Cursor", home / ".cursor" / "mcp.json"),
        ("Windsurf", home / ".codeium" / "windsurf" / "mcp_config.json"),
    ]
    if platform == "darwin":
        support = home / "Library" / "Application Support"
        files += [
            ("Claude Desktop", support / "Claude" / "claude_desktop_config.json"),
            ("VS Code", support / "Code" / "User" / "mcp.json"),
            ("VS Code", support / "Code" / "User" / "settings.json"),
        ]
    else:
        files += [
            ("Claude Desktop", config_home / "Claude" / "claude_desktop_config.json"),
            ("VS Code", config_home / "Code" / "User" / "mcp.json"),
            ("VS Code", config_home / "Code" / "User" / "settings.json"),
        ]
    return files


def _project_files(cwd: Path) -> list[tuple[str, Path]]:
    files = []
    for folder in [cwd, *cwd.parents]:
        files += [
            ("Claude Code", folder / ".mcp.json"),
            ("VS Code", folder / ".vscode" / "mcp.json"),
            ("Cursor", folder / ".cursor" / "mcp.json"),
        ]
    return files


def candidate_files(
    cwd: str | None = None,
    home: str | None = None,
    platform: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> list[tuple[str, str]]:
    """(client, path) of every config file that exists, project files first."""
    environ = os.environ if environ is None else environ
    here = Path(cwd or os.getcwd())
    home_path = Path(home or os.path.expanduser("~"))
    seen: set[Path] = set()
    found = []
    for client, path in [*_project_files(here), *_user_files(home_path, platform or sys.platform, environ)]:
        resolved = path.resolve()
        if resolved in seen or not path.is_file():
            continue
        seen.add(resolved)
        found.append((client, str(path)))
    return found


def _claude_code_projects(data: dict[str, Any], cwd: str) -> dict[str, Any]:
    """~/.claude.json keeps per-project servers under projects[path].mcpServers."""
    projects = data.get("projects")
    if not isinstance(projects, dict):
        return {}
    project = projects.get(cwd)
    servers = project.get("mcpServers") if isinstance(project, dict) else None
    return servers if isinstance(servers, dict) else {}


def discover(
    cwd: str | None = None,
    home: str | None = None,
    platform: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> list[Discovered]:
    environ = os.environ if environ is None else environ
    here = cwd or os.getcwd()
    found: list[Discovered] = []
    for client, path in candidate_files(here, home, platform, environ):
        try:
            data = load_config(path)
        except ConfigError as exc:
            found.append(Discovered(client, path, "(file)", None, str(exc)))
            continue
        entries = dict(servers_in(data))
        if path.endswith(".claude.json"):
            entries.update(_claude_code_projects(data, here))
        for name, entry in entries.items():
            try:
                spec = spec_from_entry(name, entry, environ)
            except ConfigError as exc:
                found.append(Discovered(client, path, name, None, str(exc)))
                continue
            spec.config_path = path
            found.append(Discovered(client, path, name, spec))
    return found


def find_server(name: str, **where: Any) -> Discovered | None:
    """The first discovered server called `name` (project files win over user files)."""
    for entry in discover(**where):
        if entry.name == name:
            return entry
    return None
