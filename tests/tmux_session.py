"""A command run in tmux, as in a person's terminal: its screen read as text,
keys sent to it, and its exit status once it ends."""

from __future__ import annotations

import contextlib
import shlex
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .waiting import eventually_sync

__all__ = ["TmuxRun", "tmux_running"]


@dataclass
class TmuxRun:
    tmux: list[str]
    status: Path
    screen: str = ""  # as last captured

    def capture(self) -> str:
        shown = subprocess.run([*self.tmux, "capture-pane", "-p"], capture_output=True, text=True, check=False)
        self.screen = shown.stdout
        return self.screen

    def send(self, key: str, *, check: bool = True) -> None:
        subprocess.run([*self.tmux, "send-keys", key], check=check)

    def quit_with_ctrl_q(self) -> None:
        """ctrl+q, and the program ends with exit 0."""
        self.send("C-q")
        eventually_sync(self.status.exists, "the program to end after ctrl+q")
        assert self.status.read_text().strip() == "0", self.screen


@contextlib.contextmanager
def tmux_running(
    argv: list[str], env: dict[str, str], cwd: Path, name: str, size: tuple[int, int]
) -> Iterator[TmuxRun]:
    """`argv` in a tmux server of its own (`name`), in `cwd`, with `env`
    exported; its exit status goes to a file beside the script.  The tmux
    server is killed at the end."""
    status = cwd / f"{name}.status"
    script = cwd / f"{name}.sh"
    exports = "".join(f"export {key}={shlex.quote(value)}\n" for key, value in env.items() if key.isidentifier())
    script.write_text(f"{exports}{shlex.join(argv)}\necho $? > {shlex.quote(str(status))}\n")
    tmux = ["tmux", "-L", name]
    width, height = size
    subprocess.run(
        [*tmux, "new-session", "-d", "-x", str(width), "-y", str(height), "-c", str(cwd), "sh", str(script)],
        check=True,
    )
    try:
        yield TmuxRun(tmux, status)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, check=False)
