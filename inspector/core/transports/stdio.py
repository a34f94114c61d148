"""stdio: the server is a child process speaking JSON lines on stdin/stdout.

The process is started with `subprocess.Popen` (possibly early, before the
caller has even imported asyncio) and its three pipes are attached to the
event loop.  The readers are asyncio protocols: lines are split in the data
callback and handed to the session without a task switch, which keeps a
round trip close to the cost of the JSON work itself.  A 100 MB message is
one line like any other; a line past `max_message_size` (--max-message-size)
means a broken server, which is stopped, and one stderr line keeps its first
64 KiB, so no server can make the inspector hold more than that.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import struct
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from inspector.core.background import BackgroundTasks
from inspector.core.protocol.errors import ConnectError
from inspector.core.record.traffic import TrafficLog
from inspector.core.servers.spec import DEFAULT_MAX_MESSAGE_SIZE
from inspector.core.transports.base import Transport
from inspector.core.transports.childproc import DEFAULT_INHERITED_ENV, child_environment, spawn
from inspector.core.transports.pipe_protocols import LineSplitter, PipeReader, PipeWriter

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["DEFAULT_INHERITED_ENV", "StdioTransport", "child_environment"]

STDERR_TAIL_LINES = 200
CLOSE_STEP_SECONDS = 2.0
# One stderr line keeps this much; the rest of it is counted, not kept.
STDERR_LINE_LIMIT = 64 * 1024
# How much of a message past --max-message-size the traffic record keeps.
OVERSIZE_HEAD = 64 * 1024
# How much of one stderr line an error message quotes.
TAIL_LINE_CHARS = 2000


class StdioTransport(Transport):
    """The stdio transport: the server is a child process speaking JSON lines on stdin and stdout;
    its stderr lines and its exit go on the traffic log."""

    kind = "stdio"

    def __init__(
        self,
        traffic: TrafficLog,
        command: str,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        inherit_env: bool = False,
        process: subprocess.Popen[bytes] | None = None,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
    ) -> None:
        super().__init__(traffic)
        self.max_message_size = max_message_size
        self._stdout_lines = LineSplitter(self._on_stdout_line, max_message_size, OVERSIZE_HEAD, self._too_large)
        self._stderr_lines = LineSplitter(self._on_stderr_line, STDERR_LINE_LIMIT, STDERR_LINE_LIMIT)
        self._stdout_pipe: asyncio.BaseTransport | None = None
        self.command = command
        self.args = list(args)
        self.env = dict(env or {})
        self.cwd = cwd
        self.inherit_env = inherit_env
        self.pid: int | None = None
        self.returncode: int | None = None
        self._process = process
        self._stdin: asyncio.WriteTransport | None = None
        self._writer: PipeWriter | None = None
        self._pipes: list[asyncio.BaseTransport] = []
        self._stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._exited = asyncio.Event()
        self._stderr_done = asyncio.Event()
        self._stdout_done = asyncio.Event()
        self._closing = False
        self._lost_reported = False
        self._pidfd: int | None = None
        # Started from the pipes' callbacks; ended by close().
        self._tasks = BackgroundTasks()

    def describe(self) -> str:
        """``stdio:`` and the command line."""
        return "stdio: " + subprocess.list2cmdline([self.command, *self.args])

    def stderr_tail(self) -> list[str]:
        """The server's last stderr lines."""
        return list(self._stderr_tail)

    def unread_input(self) -> int | None:
        """Bytes we wrote that the server has not read yet (None: cannot tell).

        A server slow to start reads nothing until it is up: this tells a
        server still booting from one that read a request and ignored it.
        Linux answers FIONREAD for the pipe's write end too; elsewhere the
        answer would be about the wrong end, so none is given.
        """
        process, stdin = self._process, self._stdin
        if not sys.platform.startswith("linux") or process is None or process.stdin is None or stdin is None:
            return None
        import fcntl
        import termios

        try:
            raw = fcntl.ioctl(process.stdin.fileno(), termios.FIONREAD, b"\0\0\0\0")
        except (OSError, ValueError):
            return None
        in_pipe: int = struct.unpack("i", raw)[0]
        return in_pipe + stdin.get_write_buffer_size()

    async def start(self) -> None:
        """Start the process (unless one was given) and attach its pipes and its exit to the event loop."""
        argv = [self.command, *self.args]
        process = self._process
        if process is None:
            try:
                process = spawn(self.command, self.args, self.env, self.cwd, self.inherit_env)
            except FileNotFoundError as exc:
                note = f"cannot start server: command not found: {self.command}"
                self.traffic.event("local", "process", note=note, meta={"argv": argv})
                raise ConnectError(note) from exc
            except OSError as exc:
                note = f"cannot start server {self.command!r}: {exc.strerror or exc}"
                self.traffic.event("local", "process", note=note, meta={"argv": argv})
                raise ConnectError(note) from exc
            self._process = process
        self.pid = process.pid
        self.traffic.event(
            "local",
            "process",
            note=f"spawned pid {self.pid}: {subprocess.list2cmdline(argv)}",
            meta={"event": "spawned", "pid": self.pid, "argv": argv, "cwd": self.cwd},
        )
        loop = asyncio.get_running_loop()
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        # Each pipe is kept as soon as it is attached, so that a start cut
        # short (cancelled, or failing at the next pipe) still closes it.
        stdin, writer = await loop.connect_write_pipe(PipeWriter, process.stdin)
        assert isinstance(stdin, asyncio.WriteTransport)
        self._stdin, self._writer = stdin, writer
        self._pipes.append(stdin)
        stdout, _ = await loop.connect_read_pipe(
            lambda: PipeReader(self._stdout_lines, self._on_stdout_closed), process.stdout
        )
        self._stdout_pipe = stdout
        self._pipes.append(stdout)
        stderr, _ = await loop.connect_read_pipe(
            lambda: PipeReader(self._stderr_lines, self._stderr_done.set), process.stderr
        )
        self._pipes.append(stderr)
        self._watch_exit(loop, process)

    def _watch_exit(self, loop: asyncio.AbstractEventLoop, process: subprocess.Popen[bytes]) -> None:
        """Learn of the exit without a child watcher: a pidfd where Linux has
        one, else a thread that waits."""
        try:
            self._pidfd = os.pidfd_open(process.pid)
        except (AttributeError, OSError):
            self._pidfd = None
        if self._pidfd is not None:
            loop.add_reader(self._pidfd, self._reap)
            return

        def wait() -> None:
            process.wait()
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._reap)

        threading.Thread(target=wait, name=f"wait-{process.pid}", daemon=True).start()

    def _reap(self) -> None:
        process = self._process
        if process is None or self._exited.is_set():
            return
        if process.poll() is None:
            return
        self._unwatch()
        self._on_exit()

    def _unwatch(self) -> None:
        if self._pidfd is not None:
            with contextlib.suppress(ValueError, OSError):
                asyncio.get_running_loop().remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None

    async def send(self, raw: bytes, message: JSONObject) -> None:
        """Write the message as one line, waiting while the server does not read its stdin
        (a closed stdin raises, saying how the server ended)."""
        stdin = self._stdin
        if stdin is None or stdin.is_closing():
            # Most often the server has just died: say how, not just "closed".
            await self._wait_exit(1.0)
            await self._wait_stderr()
            raise ConnectionError(self.exit_description() if self.returncode is not None else "server stdin is closed")
        stdin.write(raw + b"\n")
        writer = self._writer
        if writer is not None and writer.paused:
            # The child is not reading: wait until its pipe drains.
            if writer.resume_waiter is None:
                writer.resume_waiter = asyncio.get_running_loop().create_future()
            await writer.resume_waiter

    # -- callbacks from the pipes ------------------------------------------------------

    def _on_stdout_line(self, line: bytes, cut: int) -> None:
        # isspace() stops at the first other byte; strip() would copy a
        # 100 MB line just to look at it.
        if not line or line.isspace():
            # Harmless between messages, but not a message either: shown, not flagged.
            self.traffic.add("in", "transport", raw=line, note="an empty line on the server's stdout (ignored)")
            return
        self.receiver.feed(line)

    def _too_large(self, head: bytes, size: int) -> None:
        """A message grew past --max-message-size: the server is broken.

        Its first bytes are recorded, the stream is given up, the waiting
        requests fail, and the server is stopped rather than read for ever.
        """
        self._stdout_lines.stopped = True
        reason = f"message exceeded {self.max_message_size} bytes (--max-message-size); server disconnected"
        self.traffic.add(
            "in",
            "invalid",
            raw=head,
            error=reason,
            note=f"only the first {len(head)} of {size}+ bytes are kept",
            meta={"kept": len(head), "received": size, "max_message_size": self.max_message_size},
            problems=[reason],
        )
        if self._stdout_pipe is not None:
            self._stdout_pipe.pause_reading()  # type: ignore[attr-defined]
        process = self._process
        if process is not None and process.poll() is None:
            self.traffic.event("local", "process", note="stopping the server (SIGTERM): its message was too large")
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            self._tasks.start(self._kill_if_lingering())
        if not self._lost_reported:
            self._lost_reported = True
            if self._receiver is not None:
                self._receiver.connection_lost(reason)

    async def _kill_if_lingering(self) -> None:
        if not await self._wait_exit(CLOSE_STEP_SECONDS):
            self.traffic.event("local", "process", note="server ignored SIGTERM; sending SIGKILL")
            self._kill_group()

    def _on_stderr_line(self, line: bytes, cut: int) -> None:
        # The frame keeps the exact bytes; the tail quoted in messages drops a CRLF's \r.
        text = line.decode("utf-8", errors="replace").removesuffix("\r")
        note = f"… {cut} bytes cut (a stderr line keeps its first {len(line)} bytes)" if cut else None
        if len(text) > TAIL_LINE_CHARS:
            text = text[:TAIL_LINE_CHARS] + " …"
        if cut:
            text += f" … {cut} bytes cut"
        self._stderr_tail.append(text)
        self.traffic.add("in", "stderr", raw=line, note=note, meta={"cut": cut} if cut else None)

    def _on_stdout_closed(self) -> None:
        self._stdout_done.set()
        # The exit code and the last stderr lines usually follow within
        # milliseconds; wait for them so the message can say how it ended.
        self._tasks.start(self._report_lost_after_exit())

    async def _report_lost_after_exit(self) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._exited.wait(), 1.0)
        await self._wait_stderr()
        self._report_lost()

    async def _wait_stderr(self) -> None:
        """Let the last stderr lines arrive, so an error can quote them."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stderr_done.wait(), 0.5)

    def _on_exit(self) -> None:
        process = self._process
        code = process.returncode if process is not None else None
        self.returncode = code
        self.traffic.event(
            "local",
            "process",
            note=f"server process {self.pid} {self._how(code)}",
            meta={"event": "exited", "pid": self.pid, "returncode": code},
        )
        self._exited.set()

    @staticmethod
    def _how(code: int | None) -> str:
        if code is not None and code < 0:
            try:
                return f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"exited with code {code}"

    def exit_description(self) -> str:
        """How the connection ended: the exit code or signal, or a closed stdout while the process runs."""
        if self.returncode is None:
            return "server closed its stdout"
        return "server " + self._how(self.returncode)

    def _report_lost(self) -> None:
        if self._lost_reported:
            return
        self._lost_reported = True
        if self._receiver is not None:
            self._receiver.connection_lost(self.exit_description())

    # -- shutdown ------------------------------------------------------------------

    async def close(self) -> None:
        """Close stdin, then send SIGTERM, then SIGKILL, each after a short wait for the exit; then the pipes."""
        process = self._process
        if process is None:
            return
        if self._closing:
            await self._wait_exit(3 * CLOSE_STEP_SECONDS)
            return
        self._closing = True
        if self._stdin is not None and not self._stdin.is_closing():
            self._stdin.close()
        try:
            await self._end_process(process)
        finally:
            # Even when the close itself is cancelled (an app quitting while
            # a server takes its time to exit), no pipe is left open and no
            # process left running or unreaped.
            self._let_go_of_pipes()
            if process.poll() is None:
                self._kill_group()
                self._reap_later(process)
        await self._pipes_let_go()
        await self._tasks.close()
        # Watched no longer, even if it outlived SIGKILL.
        self._unwatch()

    @staticmethod
    def _reap_later(process: subprocess.Popen[bytes]) -> None:
        """Wait for a killed process in a thread: its exit status is collected (no zombie) once the kernel ends it."""
        threading.Thread(target=process.wait, name=f"reap-{process.pid}", daemon=True).start()

    async def _end_process(self, process: subprocess.Popen[bytes]) -> None:
        """Wait for the exit after stdin closed, then SIGTERM, then SIGKILL the group."""
        if await self._wait_exit(CLOSE_STEP_SECONDS):
            return
        self.traffic.event("local", "process", note="server did not exit after stdin closed; sending SIGTERM")
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        if await self._wait_exit(CLOSE_STEP_SECONDS):
            return
        self.traffic.event("local", "process", note="server ignored SIGTERM; sending SIGKILL")
        self._kill_group()
        await self._wait_exit(CLOSE_STEP_SECONDS)

    def _let_go_of_pipes(self) -> None:
        """Close every attached pipe (once: `close` runs once, and a second
        abort would schedule the pipe's end twice); stdin's unsent bytes are
        dropped (the process is gone), else it would wait for them."""
        if self._stdin is not None and self._writer is not None and not self._writer.lost.is_set():
            self._stdin.abort()
        for pipe in self._pipes:
            pipe.close()

    async def _pipes_let_go(self) -> None:
        """Wait until each pipe, closed by `_let_go_of_pipes`, has let go of its file
        (a pipe hands its end over on the loop's next turn)."""
        # stdin, stdout, stderr: attached in that order (see `start`).
        done_events = [self._writer.lost if self._writer is not None else None, self._stdout_done, self._stderr_done]
        ends = [event.wait() for event in done_events[: len(self._pipes)] if event is not None]
        if not ends:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*ends), CLOSE_STEP_SECONDS)

    def _kill_group(self) -> None:
        process = self._process
        if process is None:
            return
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, AttributeError):
            with contextlib.suppress(ProcessLookupError):
                process.kill()

    async def _wait_exit(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(self._exited.wait(), timeout)
            return True
        except TimeoutError:
            # A missed wake-up must not cost the full timeout: ask directly.
            self._reap()
            return self._exited.is_set()
