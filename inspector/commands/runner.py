"""Running one scripting command: connect, act, print, map failures to exit codes."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from subprocess import Popen
from typing import Any

from inspector.commands import exitcodes
from inspector.commands.output import Output
from inspector.core.auth.errors import LoginAborted, LoginTimedOut
from inspector.core.protocol.client import Client
from inspector.core.protocol.errors import (
    CancelledError,
    ConnectError,
    ConnectionClosed,
    HttpError,
    JsonRpcError,
    ProtocolError,
    RequestTimeout,
)
from inspector.core.protocol.handlers import ClientHandlers
from inspector.core.record.frame_lines import JsonlRecorder
from inspector.core.record.traffic import TrafficLog
from inspector.core.safetext import visible
from inspector.core.servers.spec import ServerSpec

__all__ = ["CommandContext", "CommandFailed", "connected", "failure", "run_command"]


class CommandFailed(Exception):
    """A command that ends with a message and an exit code (not a crash)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class CommandContext:
    """What a scripting command acts with: the spec, its arguments, the connected client and the output."""

    spec: ServerSpec
    args: argparse.Namespace
    client: Client
    out: Output
    # What the command made that may live as long as the process: when the
    # command is the whole process, it is never freed one object at a time
    # (`run_command`).  Otherwise it goes when the command returns.
    held: list[object] = field(default_factory=list)


def _handlers_for(args: argparse.Namespace) -> Any:
    from inspector.commands.answers import CliHandlers, DeclareAllHandlers, RootsHandlers

    interactive = sys.stdin.isatty() and sys.stderr.isatty()
    roots = getattr(args, "root", None)
    if getattr(args, "all_capabilities", False):
        return DeclareAllHandlers(roots or [], interactive)
    return RootsHandlers(roots, interactive) if roots else CliHandlers(interactive)


def _command(name: str) -> Callable[[CommandContext], Awaitable[int]]:
    """The command's function; only its own module is imported (the others
    cost start-up time that `list` and `call` do not need), and `list` loads
    the quick JSON path its pages will want."""
    if name == "list":
        from inspector.commands.listing import run_list
        from inspector.core.protocol.wire_json import load_quick_path

        load_quick_path()
        return run_list
    if name == "call":
        from inspector.commands.call import run_call

        return run_call
    if name == "read":
        from inspector.commands.read import run_read

        return run_read
    if name == "get":
        from inspector.commands.prompt import run_get

        return run_get
    if name == "info":
        from inspector.commands.info import run_info

        return run_info
    if name == "lint":
        from inspector.commands.lint import run_lint

        return run_lint
    if name == "skills":
        from inspector.commands.skills import run_skills

        return run_skills
    if name == "app":
        from inspector.commands.app import run_app

        return run_app
    raise KeyError(name)


@contextlib.asynccontextmanager
async def connected(
    spec: ServerSpec,
    args: argparse.Namespace,
    *,
    record: str | None = None,
    retain: bool = False,
    handlers: ClientHandlers | None = None,
    process: Popen[bytes] | None = None,
) -> AsyncIterator[Client]:
    """A connected client whose traffic is masked (and written to `record`).

    One place for what every command that talks to a server needs: the
    mask, the recording, the answers to server requests, authorization.
    """
    from inspector.core.record.secret_mask import mask_traffic

    traffic = mask_traffic(TrafficLog(retain=retain), spec)
    recorder = None
    if record:
        try:
            # The log masks each frame already: the recorder writes it as it is.
            recorder = JsonlRecorder.open(record)
        except OSError as exc:
            raise CommandFailed(exitcodes.USAGE, f"cannot write --record file: {exc.strerror or exc}") from exc
        traffic.subscribe(recorder)
    client = Client(spec, handlers=handlers or _handlers_for(args), traffic=traffic, process=process)
    try:
        if spec.auth is not None:
            from inspector.commands.auth import prepare_auth

            await prepare_auth(spec, traffic)
        await client.connect()
        yield client
    finally:
        await client.close()
        if recorder is not None:
            recorder.close()


async def _run(
    command: str,
    spec: ServerSpec,
    args: argparse.Namespace,
    out: Output,
    process: Popen[bytes] | None,
    held: list[object],
) -> int:
    # Lint validates the whole session afterwards, so it keeps every frame.
    record = getattr(args, "record", None)
    # Looked up first: what the command imports loads while the server starts.
    run = _command(command)
    async with connected(spec, args, record=record, retain=command == "lint", process=process) as client:
        return await run(CommandContext(spec, args, client, out, held))


def failure(exc: BaseException) -> tuple[int, str, str | None]:
    """(exit code, message, server stderr tail) for any failure of a command."""
    if isinstance(exc, CommandFailed):
        return exc.code, str(exc), None
    aborted = _login_aborted(exc)
    if aborted is not None:
        # Nobody finished the login: a timeout or a cancel, not a server failure.
        code = exitcodes.TIMEOUT if isinstance(aborted, LoginTimedOut) else exitcodes.INTERRUPTED
        return code, str(aborted), None
    if isinstance(exc, ConnectError):
        return exitcodes.CANNOT_CONNECT, str(exc), exc.detail
    if isinstance(exc, ConnectionClosed):
        return exitcodes.CANNOT_CONNECT, f"connection lost: {exc}", None
    if isinstance(exc, RequestTimeout):
        return exitcodes.TIMEOUT, f"timeout: {exc}", getattr(exc, "detail", None)
    if isinstance(exc, JsonRpcError):
        text = f"the server answered with an error: {exc.message} (code {exc.code})"
        return exitcodes.PROTOCOL_ERROR, text, None
    if isinstance(exc, (ProtocolError, HttpError)):
        return exitcodes.PROTOCOL_ERROR, f"protocol error: {exc}", None
    if isinstance(exc, CancelledError):
        return exitcodes.INTERRUPTED, str(exc), None
    return exitcodes.INTERNAL, f"internal error: {exc.__class__.__name__}: {exc}", None


def reported(exc: BaseException) -> int:
    """Say on stderr why a command failed, as every command does; its exit code."""
    code, message, _detail = failure(exc)
    print(f"inspector: {visible(message)}", file=sys.stderr)
    return code


def _login_aborted(exc: BaseException) -> LoginAborted | None:
    """The aborted login behind a failure, however deep the transport wrapped it."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, LoginAborted):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


@contextlib.contextmanager
def _rarer_collections() -> Iterator[None]:
    """The cyclic garbage collector, run rarely while one command runs.

    A command decodes what the server sends and keeps it until it prints:
    100,000 tools are 1.5 million containers, none in a reference cycle.
    With the default thresholds the collector walks them again and again as
    they arrive (a third of a cold `list`'s time); collecting every 50,000
    new containers instead still bounds any cyclic garbage a long command
    makes.
    """
    thresholds = gc.get_threshold()
    gc.set_threshold(50_000, 20, 20)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


def run_command(
    command: str,
    spec: ServerSpec,
    args: argparse.Namespace,
    *,
    process: Popen[bytes] | None = None,
    own_process: bool = False,
) -> int:
    """Run one command to its exit code.  With `own_process` (the command is
    the whole process) the process ends here once the output is out."""
    held: list[object] = []
    code = _outcome(command, spec, args, process, held)
    if own_process:
        _end_process(code)
    return code


def _end_process(code: int) -> None:
    """Exit now, without the interpreter's teardown.

    Once a command is done nothing is left but to free memory the process
    is about to give back whole, and that is slow: 100,000 listed tools are
    3 million objects, freed one by one and walked by the garbage collector
    on the way out (longer than printing them).  What a command made is
    still held (`CommandContext.held`), the output is flushed and the exit
    handlers run as at a normal exit; only when another thread still runs
    (a normal exit would wait for it) is the end left to the interpreter.
    """
    import atexit
    import os
    import threading

    if threading.active_count() > 1:
        return
    # A reader that went away (`| head`) raises here, as at a normal exit: `cli.main` ends it quietly.
    sys.stdout.flush()
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return  # the interpreter's own exit reports it as usual
    os._exit(code)


def _outcome(
    command: str, spec: ServerSpec, args: argparse.Namespace, process: Popen[bytes] | None, held: list[object]
) -> int:
    out = Output.for_args(args)
    try:
        with _rarer_collections():
            return asyncio.run(_run(command, spec, args, out, process, held))
    except KeyboardInterrupt:
        print("inspector: interrupted", file=sys.stderr)
        return exitcodes.INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`| head`): `cli.main` ends every command alike.
        raise
    except Exception as exc:  # every failure becomes a message and an exit code  # noqa: BLE001
        code, message, detail = failure(exc)
        # A message may quote the server (its stderr, an error text): masked like the traffic.
        from inspector.core.record.secret_mask import secret_mask

        mask = secret_mask(spec)
        if mask is not None:
            message = mask.raw_text(message)
            detail = mask.raw_text(detail) if detail else detail
        print(f"inspector: {visible(message)}", file=sys.stderr)
        if isinstance(exc, JsonRpcError) and exc.data is not None and out.json:
            out.json_value({"error": exc.to_dict()}, stream=sys.stderr)
        if detail:
            print("server stderr (last lines):", file=sys.stderr)
            for line in detail.splitlines()[-20:]:
                print("  " + visible(line, keep_newlines=False), file=sys.stderr)
        if code == exitcodes.INTERNAL:
            import traceback

            traceback.print_exc(file=sys.stderr)
        return code
