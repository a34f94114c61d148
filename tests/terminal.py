"""Running a command on a pseudo-terminal and typing an answer at its prompt,
as a person would."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import termios
import time
from pathlib import Path


def interruptible() -> None:
    """Ctrl-C acts as in a shell's foreground job: a test runner's worker
    (pytest-xdist) may ignore SIGINT, and a child inherits that, which makes
    Python install no KeyboardInterrupt handler at all."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def read_pty(fd: int) -> bytes:
    """The next bytes on the controller side of a pty; b"" once the other
    side has closed (EOF, or EIO as Linux says it)."""
    try:
        return os.read(fd, 65536)
    except OSError:
        return b""


class Transcript:
    """A pseudo-terminal for a child's stdin and stderr, whose output a thread
    keeps as it comes (the child can write freely while the test waits on it).
    A context manager: both sides are closed at its end."""

    def __init__(self) -> None:
        import pty
        import threading

        self.master, self.slave = pty.openpty()
        self._seen: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while chunk := read_pty(self.master):
            self._seen.append(chunk)

    def text(self) -> str:
        """Everything written to the terminal so far."""
        return b"".join(self._seen).decode(errors="replace")

    def __enter__(self) -> Transcript:
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.slave)
        os.close(self.master)


def _take_terminal() -> None:
    # A session of its own with the pty as its controlling terminal, so that
    # what reads /dev/tty (getpass) reads the pty too.
    interruptible()
    os.setsid()
    import fcntl

    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def answer_on_terminal(
    argv: list[str],
    prompt: bytes,
    answer: str,
    *,
    timeout: float,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    controlling: bool = False,
) -> tuple[int, str]:
    """Run `argv` with a pseudo-terminal as stdin, stdout and stderr; type
    `answer` once `prompt` appears.  Returns the exit code and all it wrote."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        argv,
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        cwd=cwd,
        env=env,
        preexec_fn=_take_terminal if controlling else None,
    )
    os.close(terminal)
    seen = b""
    answered = False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([controller], [], [], 0.1)
        if ready:
            chunk = read_pty(controller)
            if not chunk:
                break
            seen += chunk
        if not answered and prompt in seen:
            os.write(controller, answer.encode() + b"\n")
            answered = True
        if process.poll() is not None and not ready:
            break
    process.wait(10)
    os.close(controller)
    return process.returncode, seen.decode(errors="replace")
