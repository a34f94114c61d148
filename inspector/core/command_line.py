"""The `inspector` command line that repeats a call made in the TUI.

Secrets never appear in it: a secret environment value or header becomes a
reference to an environment variable (`"$GITHUB_TOKEN"`), for the person to
set before running it.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from .recording import secret_values
from .spec import ServerSpec

__all__ = ["call_command", "server_options"]

_SECRET_NAME = re.compile(r"(?i)(token|secret|key|password|passwd|auth|credential|cookie)")


def _env_name(name: str) -> str:
    return re.sub(r"[^A-Z0-9]+", "_", name.upper()).strip("_") or "SECRET"


def _is_secret(spec: ServerSpec, name: str) -> bool:
    return name in spec.secret_names or bool(_SECRET_NAME.search(name))


def server_options(spec: ServerSpec) -> list[str]:
    """Words that select this server (shell-quoting happens later)."""
    words: list[str] = []
    if spec.name and spec.config_path:
        return ["--config", spec.config_path, "--server", spec.name]
    if spec.url:
        words += ["--url", spec.url]
        if spec.transport in ("http", "sse"):
            words += ["--transport", spec.transport]
        for name, value in spec.headers.items():
            shown = f"${_env_name(name)}" if _is_secret(spec, name) else value
            words += ["--header", f"{name}: {shown}"]
    if spec.era != "auto":
        words += ["--era", spec.era]
    if spec.protocol_version:
        words += ["--protocol-version", spec.protocol_version]
    if spec.is_demo or not spec.command:
        return words
    for name, value in spec.env.items():
        if spec.is_demo and name == "PYTHONPATH":
            continue
        shown = f"${name}" if _is_secret(spec, name) else value
        words += ["--env", f"{name}={shown}"]
    if spec.cwd:
        words += ["--cwd", spec.cwd]
    return [*words, "--", spec.command, *spec.args]


def _quote(word: str) -> str:
    # "$NAME" must stay expandable by the shell: double quotes, not single.
    if re.fullmatch(r"[^\s\"'`\\]*\$[A-Z_][A-Z0-9_]*[^\s\"'`\\]*", word) or re.fullmatch(
        r"[A-Za-z-]+: \$[A-Z_][A-Z0-9_]*", word
    ):
        return f'"{word}"'
    return shlex.quote(word)


def call_command(spec: ServerSpec, tool: str, arguments: dict[str, Any], schema: dict[str, Any] | None) -> str:
    from ..forms import format_assignments

    assignments = format_assignments(schema or {"type": "object"}, arguments)
    words = ["inspector", "call", tool, *assignments, "--yes", *server_options(spec)]
    line = " ".join(_quote(word) for word in words)
    for secret in secret_values(spec):
        line = line.replace(secret, "***")
    return line
