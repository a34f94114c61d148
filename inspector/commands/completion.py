"""Shell completion: the scripts, and the names a server offers.

argcomplete does the shell side: its script runs `inspector` again with
`_ARGCOMPLETE` set and the line being typed in `COMP_LINE`, and our parser,
walked by argcomplete, answers with subcommands and options.  For the tool,
resource and prompt positionals the completers below connect to the server
the line names (the demo server when it names none), list, and hand back
the names.  `inspector --complete-names KIND` prints the same names one per
line, for other shells and for scripts.

Server text becomes shell words here, so names with control characters
(a newline would split one name into two words) are dropped, and the count
and length are bounded.  Completion must never hang a prompt: the whole
connect-and-list has its own short deadline and any failure yields nothing.
"""

from __future__ import annotations

import argparse
import os
import shlex
import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.core.servers.spec import ServerSpec

__all__ = [
    "NAME_KINDS",
    "SHELLS",
    "ServerNames",
    "completion_script",
    "print_names",
    "sanitized",
    "server_names",
]

SHELLS = ("bash", "zsh", "fish")
# kind -> (list kind, the item field a command line takes)
NAME_KINDS = {"tools": ("tools", "name"), "resources": ("resources", "uri"), "prompts": ("prompts", "name")}
# Seconds for connecting and listing; a slow server just completes nothing.
DEFAULT_DEADLINE = 5.0
MAX_NAMES = 2000
MAX_NAME_LENGTH = 500
MAX_PAGES = 20


def completion_script(shell: str) -> str:
    """The completion script for *shell* (bash, zsh or fish), as argcomplete writes it."""
    # Where argcomplete defines it: its package re-exports the name implicitly.
    from argcomplete.shell_integration import shellcode

    return shellcode(["inspector"], shell=shell)


def deadline() -> float:
    """The completion deadline: `INSPECTOR_COMPLETION_TIMEOUT` seconds, else 5."""
    try:
        value = float(os.environ.get("INSPECTOR_COMPLETION_TIMEOUT", DEFAULT_DEADLINE))
    except ValueError:
        return DEFAULT_DEADLINE
    return value if value > 0 else DEFAULT_DEADLINE


def sanitized(names: list[Any]) -> list[str]:
    """Strings fit to be shell words: no control or format characters, bounded, unique."""
    out: list[str] = []
    seen: set[str] = set()
    for name in names:
        if not isinstance(name, str) or not name or len(name) > MAX_NAME_LENGTH or name in seen:
            continue
        if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in name):
            continue
        seen.add(name)
        out.append(name)
        if len(out) >= MAX_NAMES:
            break
    return out


async def _list_names(spec: ServerSpec, kind: str) -> list[Any]:
    from inspector.core.protocol.client import Client
    from inspector.core.record.traffic import TrafficLog

    list_kind, field = NAME_KINDS[kind]
    client = Client(spec, traffic=TrafficLog(retain=False))
    try:
        await client.connect()
        listing = await client.list_all(list_kind, max_pages=MAX_PAGES)
        return [item.data.get(field) for item in listing.items]
    finally:
        await client.close()


def server_names(spec: ServerSpec, kind: str, timeout: float | None = None) -> list[str]:
    """The names of `kind` the server offers, sanitized; [] on any failure."""
    limit = deadline() if timeout is None else timeout
    # Completion never logs anybody in: a 401 just completes nothing.
    if spec.auth is not None:
        spec.auth.oauth = False
    spec.timeout = min(spec.timeout, limit) if spec.timeout else limit
    # Imported here, not with the module: the parser of every command loads
    # this module, and a scripting command starts its server before asyncio.
    import asyncio

    async def bounded() -> list[Any]:
        return await asyncio.wait_for(_list_names(spec, kind), limit)

    try:
        return sanitized(asyncio.run(bounded()))
    except Exception:  # noqa: BLE001 - a prompt must not see a traceback; nothing completes
        return []


def _server_command_from_line() -> list[str]:
    """The `-- COMMAND ARGS` of the line being completed (argcomplete sees only what precedes the cursor)."""
    line = os.environ.get("COMP_LINE", "")
    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    if "--" in words:
        return words[words.index("--") + 1 :]
    return []


SpecBuilder = Callable[[argparse.Namespace, list[str]], "ServerSpec"]


class ServerNames:
    """An argcomplete completer: the names of one kind from the server the line names.

    `build_spec` turns the parsed line and its `-- COMMAND` into the server,
    as the command itself would (the command line module's `spec_from_args`).
    """

    def __init__(self, kind: str, build_spec: SpecBuilder) -> None:
        self.kind = kind
        self.build_spec = build_spec

    def __call__(self, prefix: str, parsed_args: argparse.Namespace | None = None, **_: Any) -> list[str]:
        try:
            spec = self.build_spec(parsed_args or argparse.Namespace(), _server_command_from_line())
        except Exception:  # noqa: BLE001 - a line that names no usable server completes nothing
            return []
        return [name for name in server_names(spec, self.kind) if name.startswith(prefix)]


def print_names(spec: ServerSpec, kind: str) -> int:
    """`inspector --complete-names KIND`: one name a line; exit 0 even when nothing came back."""
    for name in server_names(spec, kind):
        print(name)
    return 0
