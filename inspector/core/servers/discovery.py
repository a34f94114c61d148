"""Finding the MCP servers other clients are configured with, in their usual
places on Linux and macOS: Claude Desktop, Claude Code, VS Code, Cursor and
Windsurf (project files in the working directory and its parents, user
files in the home directory)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.core.servers.client_configs import (
    Asker,
    ConfigError,
    Input,
    claude_code_projects,
    inputs_in,
    load_config,
    servers_in,
    spec_from_entry,
    workspace_for,
)
from inspector.core.servers.spec import ServerSpec

__all__ = ["Discovered", "candidate_files", "discover", "find_server"]


@dataclass
class Discovered:
    """One server entry found in a client's config file.

    `spec` is None when the entry cannot be used as it stands: `problem`
    says why.  When all it lacks is answers to VS Code inputs (`inputs`),
    `resolve(ask)` asks for them and returns the spec.
    """

    client: str
    path: str
    name: str
    spec: ServerSpec | None
    problem: str | None = None
    inputs: list[Input] = field(default_factory=list)
    # The spec with the unanswered inputs left empty: only for showing its target.
    partial: ServerSpec | None = None
    entry: Any = field(default=None, repr=False)
    environ: Mapping[str, str] | None = field(default=None, repr=False)
    file_inputs: dict[str, Input] = field(default_factory=dict, repr=False)

    @property
    def usable(self) -> bool:
        """Usable now, or once a person answers its inputs."""
        return self.spec is not None or bool(self.inputs)

    @property
    def summary(self) -> str:
        """One line for a picker: the command or URL, what inputs it asks for, or why it is unusable."""
        shown = self.spec or self.partial
        if shown is None:
            return f"unusable: {self.problem}"
        target = shown.url if shown.url else " ".join([shown.command or "?", *shown.args])
        if self.spec is None:
            asks = ", ".join(i.id + (" (password)" if i.password else "") for i in self.inputs)
            return f"asks for {asks}: {target}"
        return target

    def resolve(self, ask: Asker | None) -> ServerSpec:
        """The spec, asking `ask` for the inputs nothing else answers."""
        if self.spec is not None:
            return self.spec
        if not self.inputs:
            raise ConfigError(f"{self.name} in {self.path}: {self.problem}")
        spec = spec_from_entry(
            self.name,
            self.entry,
            self.environ,
            workspace=workspace_for(self.path),
            inputs=self.file_inputs,
            ask=ask,
        )
        spec.config_path = self.path
        return spec


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


def discover(
    cwd: str | None = None,
    home: str | None = None,
    platform: str | None = None,
    environ: Mapping[str, str] | None = None,
    files: list[str] | None = None,
) -> list[Discovered]:
    """Every server entry of the config files found, or of `files` alone when given."""
    environ = os.environ if environ is None else environ
    here = cwd or os.getcwd()
    where = [("config", path) for path in files] if files else candidate_files(here, home, platform, environ)
    found: list[Discovered] = []
    for client, path in where:
        found.extend(_entries_of(client, path, here, environ))
    return found


def _entries_of(client: str, path: str, here: str, environ: Mapping[str, str]) -> list[Discovered]:
    try:
        data = load_config(path)
    except ConfigError as exc:
        return [Discovered(client, path, "(file)", None, str(exc))]
    entries = dict(servers_in(data))
    if os.path.basename(path) == ".claude.json":
        entries.update(claude_code_projects(data, here))
    inputs = inputs_in(data)
    workspace = workspace_for(path)
    found: list[Discovered] = []
    for name, entry in entries.items():
        try:
            # Listing never asks anybody anything: inputs are asked for
            # when a server is chosen (`Discovered.resolve`).
            spec = spec_from_entry(name, entry, environ, workspace=workspace, inputs=inputs)
        except ConfigError as exc:
            found.append(
                Discovered(client, path, name, None, str(exc), exc.inputs, exc.partial, entry, environ, inputs)
            )
            continue
        spec.config_path = path
        found.append(Discovered(client, path, name, spec, entry=entry, environ=environ, file_inputs=inputs))
    return found


def find_server(name: str, **where: Any) -> Discovered | None:
    """The first discovered server called `name` (project files win over user files)."""
    for entry in discover(**where):
        if entry.name == name:
            return entry
    return None
