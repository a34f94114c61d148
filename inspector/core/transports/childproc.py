"""Starting a stdio server process: the environment it inherits, and the spawn
itself.  Kept free of asyncio so the scripting path can start the server
before it has imported anything heavy (the server boots while we import)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence

__all__ = ["DEFAULT_INHERITED_ENV", "STDOUT_PIPE_SIZE", "child_environment", "spawn"]

# How far a server may write ahead of our reading (Linux lets a pipe be
# widened to 1 MiB without privileges; the default is 64 KiB).  A page of
# 5,000 tools is 2 MB: with the default the server waits for us after every
# 64 KiB, and we for it, about 30 times a page; this way it writes the next
# page while we parse the last, and we read it in a few large pieces.
STDOUT_PIPE_SIZE = 1 << 20

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
    process = subprocess.Popen(
        [command, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_environment(env, inherit_env),
        cwd=cwd,
        start_new_session=True,
        bufsize=0,
    )
    if process.stdout is not None:
        _widen(process.stdout.fileno())
    return process


def _widen(fd: int) -> None:
    """Make the pipe behind `fd` hold `STDOUT_PIPE_SIZE` bytes, where the
    system allows it; elsewhere (another system, a user past the kernel's
    limit on pipe memory) it keeps its size, which is only slower."""
    if not sys.platform.startswith("linux"):
        return
    import fcntl

    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, STDOUT_PIPE_SIZE)
