"""stdio: the server is a child process speaking JSON lines on stdin/stdout.

The reader is an asyncio protocol rather than a stream reader: lines are
split in the data callback and handed to the session without a task switch,
which keeps a round trip close to the cost of the JSON work itself, and there
is no line-length limit (a 100 MB message is one line like any other).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ConnectError
from ..traffic import TrafficLog
from .base import Transport

__all__ = ["DEFAULT_INHERITED_ENV", "StdioTransport", "child_environment"]

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

STDERR_TAIL_LINES = 200
CLOSE_STEP_SECONDS = 2.0


def child_environment(
    configured: Mapping[str, str] | None, inherit_all: bool = False, base: Mapping[str, str] | None = None
) -> dict[str, str]:
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


class _LineSplitter:
    """Splits a byte stream on b"\\n" with no size cap; strips a trailing \\r."""

    __slots__ = ("_chunks", "_emit")

    def __init__(self, emit: Any) -> None:
        self._chunks: list[bytes] = []
        self._emit = emit

    def feed(self, data: bytes) -> None:
        start = 0
        find = data.find
        idx = find(b"\n")
        while idx >= 0:
            if self._chunks:
                self._chunks.append(data[start:idx])
                line = b"".join(self._chunks)
                self._chunks.clear()
            else:
                line = data[start:idx]
            if line.endswith(b"\r"):
                line = line[:-1]
            self._emit(line)
            start = idx + 1
            idx = find(b"\n", start)
        if start < len(data):
            self._chunks.append(data[start:] if start else data)

    def flush(self) -> None:
        if self._chunks:
            line = b"".join(self._chunks)
            self._chunks.clear()
            self._emit(line)


class _ChildProtocol(asyncio.SubprocessProtocol):
    def __init__(self, owner: StdioTransport) -> None:
        self.owner = owner
        self.stdout = _LineSplitter(owner._on_stdout_line)
        self.stderr = _LineSplitter(owner._on_stderr_line)
        self.paused = False
        self.resume_waiter: asyncio.Future[None] | None = None

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode()
        if fd == 1:
            self.stdout.feed(data)
        elif fd == 2:
            self.stderr.feed(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            self.stdout.flush()
            self.owner._on_stdout_closed()
        elif fd == 2:
            self.stderr.flush()

    def process_exited(self) -> None:
        self.owner._on_exit()

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        if self.resume_waiter is not None and not self.resume_waiter.done():
            self.resume_waiter.set_result(None)
        self.resume_waiter = None


class StdioTransport(Transport):
    kind = "stdio"

    def __init__(
        self,
        traffic: TrafficLog,
        command: str,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        inherit_env: bool = False,
    ) -> None:
        super().__init__(traffic)
        self.command = command
        self.args = list(args)
        self.env = dict(env or {})
        self.cwd = cwd
        self.inherit_env = inherit_env
        self.pid: int | None = None
        self.returncode: int | None = None
        self._process: asyncio.SubprocessTransport | None = None
        self._protocol: _ChildProtocol | None = None
        self._stdin: asyncio.WriteTransport | None = None
        self._stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._exited = asyncio.Event()
        self._stdout_closed = False
        self._closing = False
        self._lost_reported = False

    def describe(self) -> str:
        return "stdio: " + subprocess.list2cmdline([self.command, *self.args])

    def stderr_tail(self) -> list[str]:
        return list(self._stderr_tail)

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        env = child_environment(self.env, self.inherit_env)
        argv = [self.command, *self.args]
        try:
            process, protocol = await loop.subprocess_exec(
                lambda: _ChildProtocol(self),
                *argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                cwd=self.cwd,
                start_new_session=True,
            )
        except FileNotFoundError as exc:
            note = f"cannot start server: command not found: {self.command}"
            self.traffic.event("local", "process", note=note, meta={"argv": argv})
            raise ConnectError(note) from exc
        except (PermissionError, NotADirectoryError, OSError) as exc:
            note = f"cannot start server {self.command!r}: {exc.strerror or exc}"
            self.traffic.event("local", "process", note=note, meta={"argv": argv})
            raise ConnectError(note) from exc
        self._process = process
        self._protocol = protocol
        stdin = process.get_pipe_transport(0)
        assert isinstance(stdin, asyncio.WriteTransport)
        self._stdin = stdin
        self.pid = process.get_pid()
        self.traffic.event(
            "local",
            "process",
            note=f"spawned pid {self.pid}: {subprocess.list2cmdline(argv)}",
            meta={"event": "spawned", "pid": self.pid, "argv": argv, "cwd": self.cwd},
        )

    async def send(self, raw: bytes, message: dict[str, Any]) -> None:
        stdin = self._stdin
        if stdin is None or stdin.is_closing():
            raise ConnectionError("server stdin is closed")
        stdin.write(raw + b"\n")
        protocol = self._protocol
        if protocol is not None and protocol.paused:
            # The child is not reading: wait until its pipe drains.
            if protocol.resume_waiter is None:
                protocol.resume_waiter = asyncio.get_running_loop().create_future()
            await protocol.resume_waiter

    # -- callbacks from the protocol ------------------------------------------------

    def _on_stdout_line(self, line: bytes) -> None:
        if not line.strip():
            return
        self.receiver.feed(line)

    def _on_stderr_line(self, line: bytes) -> None:
        text = line.decode("utf-8", errors="replace")
        self._stderr_tail.append(text)
        self.traffic.add("in", "stderr", raw=line)

    def _on_stdout_closed(self) -> None:
        self._stdout_closed = True
        if self.returncode is not None:
            self._report_lost()
        else:
            # The exit code usually follows within milliseconds; wait for it
            # so the message can say how the server ended.
            asyncio.get_running_loop().create_task(self._report_lost_after_exit())

    async def _report_lost_after_exit(self) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._exited.wait(), 1.0)
        self._report_lost()

    def _on_exit(self) -> None:
        process = self._process
        code = process.get_returncode() if process is not None else None
        self.returncode = code
        if code is not None and code < 0:
            try:
                how = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        else:
            how = f"exited with code {code}"
        self.traffic.event(
            "local",
            "process",
            note=f"server process {self.pid} {how}",
            meta={"event": "exited", "pid": self.pid, "returncode": code},
        )
        self._exited.set()
        if self._stdout_closed:
            self._report_lost()

    def exit_description(self) -> str:
        code = self.returncode
        if code is None:
            return "server closed its stdout"
        if code < 0:
            try:
                return f"server was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"server was killed by signal {-code}"
        return f"server exited with code {code}"

    def _report_lost(self) -> None:
        if self._lost_reported:
            return
        self._lost_reported = True
        if self._receiver is not None:
            self._receiver.connection_lost(self.exit_description())

    # -- shutdown ------------------------------------------------------------------

    async def close(self) -> None:
        process = self._process
        if process is None:
            return
        if self._closing:
            await self._wait_exit(3 * CLOSE_STEP_SECONDS)
            return
        self._closing = True
        if self._stdin is not None and not self._stdin.is_closing():
            self._stdin.close()
        if not await self._wait_exit(CLOSE_STEP_SECONDS):
            self.traffic.event("local", "process", note="server did not exit after stdin closed; sending SIGTERM")
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            if not await self._wait_exit(CLOSE_STEP_SECONDS):
                self.traffic.event("local", "process", note="server ignored SIGTERM; sending SIGKILL")
                self._kill_group()
                await self._wait_exit(CLOSE_STEP_SECONDS)
        process.close()

    def _kill_group(self) -> None:
        process = self._process
        if process is None:
            return
        try:
            os.killpg(process.get_pid(), signal.SIGKILL)
        except (ProcessLookupError, PermissionError, AttributeError):
            with contextlib.suppress(ProcessLookupError):
                process.kill()

    async def _wait_exit(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(self._exited.wait(), timeout)
            return True
        except TimeoutError:
            return False
