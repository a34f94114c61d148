"""Starting a stdio server process: the environment it inherits, and the spawn
itself.  Kept free of asyncio so the scripting path can start the server
before it has imported anything heavy (the server boots while we import)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence

__all__ = ["DEFAULT_INHERITED_ENV", "child_environment", "spawn"]

# What a child inherits by default: enough to find programs and a home, not
# the whole environment (which may hold unrelated secrets).  This follows the
# official SDKs' guidance for stdio servers.
DEFAULT_INHERITED_ENV = (
    ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR", "TZ")
    if sys.platform != "win32"
    else (
        "APPDATA",
        "HOMEDRIVE",
        "HOMEPATH",
        "LOCALAPPDATA",
        "PATH",
        "PROCESSOR_ARCHITECTURE",
        "SYSTEMDRIVE",
        "SYSTEMROOT",
        "TEMP",
        "USERNAME",
        "USERPROFILE",
        "PROGRAMFILES",
    )
)


def child_environment(
    configured: Mapping[str, str] | None, inherit_all: bool = False, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment a stdio server gets: a few safe variables of `base` (the inspector's own
    by default; all of them with `inherit_all`), then those `configured`."""
    source = os.environ if base is None else base
    if inherit_all:
        env = dict(source)
    else:
        env = {}
        for key in DEFAULT_INHERITED_ENV:
            value = source.get(key)
            # Exported shell functions look like "() {...}" and are a known
            # injection vector; never pass those on.
            if value is not None and not value.startswith("()"):
                env[key] = value
    if configured:
        env.update(configured)
    return env


def spawn(
    command: str,
    args: Sequence[str],
    env: Mapping[str, str] | None,
    cwd: str | None,
    inherit_env: bool = False,
) -> subprocess.Popen[bytes]:
    """Start the server with three pipes, in a session of its own (so it can be
    killed with its children).  Raises OSError like Popen does."""
    return subprocess.Popen(
        [command, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_environment(env, inherit_env),
        cwd=cwd,
        start_new_session=True,
        bufsize=0,
    )
