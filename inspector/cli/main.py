"""The entry point: parse the arguments, pick the face, run it.

Kept light on purpose: the scripting path imports neither Textual nor Rich,
and `--version` imports nothing at all.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from subprocess import Popen
from typing import TYPE_CHECKING, Any

from inspector import __version__
from inspector.cli.parser import _complete_all, build_parser
from inspector.commands.inputs import spec_from_command_line
from inspector.core.servers.from_args import UsageError, split_server_command

if TYPE_CHECKING:
    from inspector.commands.diff import Side
    from inspector.core.servers.spec import ServerSpec


def main(argv: Sequence[str] | None = None) -> int:
    """Every face; a reader that goes away (`| head`) ends any of them
    quietly, and Ctrl-C any of them with the INTERRUPTED exit code.

    For the process's own command line (`argv` None) a scripting command
    that talks to a server ends the process itself once its output is out
    (`commands.runner.run_command`)."""
    try:
        code = _dispatch(list(sys.argv[1:] if argv is None else argv), own_process=argv is None)
        # Output still buffered must fail here, not at interpreter exit.
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except KeyboardInterrupt:
        from inspector.commands.exitcodes import INTERRUPTED

        print("inspector: interrupted", file=sys.stderr)
        return INTERRUPTED
    return code


def _silence_stdout() -> None:
    # Like any Unix filter: stop writing, and keep the interpreter's own
    # final flush from reporting the broken pipe again.
    import contextlib

    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """Parse *argv*, taking `key=value` arguments after options too
    (`call echo --yes message=hi`): argparse ends a positional list at the
    first option and would refuse what follows it."""
    args, extra = parser.parse_known_args(argv)
    if extra and isinstance(getattr(args, "assignments", None), list):
        args.assignments += [arg for arg in extra if not arg.startswith("-")]
        extra = [arg for arg in extra if arg.startswith("-")]
    if extra:
        parser.error("unrecognized arguments: " + " ".join(extra))
    return args


@dataclass(frozen=True)
class _Invocation:
    """One run of the command line: what a face is given."""

    args: argparse.Namespace
    # The server's own command line (after `--`).
    server_command: list[str]
    parser: argparse.ArgumentParser
    own_process: bool


def _dispatch(argv: list[str], *, own_process: bool = False) -> int:
    if argv[:1] == ["--version"]:
        print(f"inspector {__version__}")
        return 0
    own, server_command = split_server_command(argv)
    parser = build_parser()
    if "_ARGCOMPLETE" in os.environ:
        _complete_all(parser)
        _complete_line(parser)
    args = _parse(parser, own)
    if args.completion:
        from inspector.commands.completion import completion_script

        sys.stdout.write(completion_script(args.completion))
        return 0
    command = args.command or "tui"
    from inspector.tui.servers_args import several_named

    # The TUI (and `serve`, which runs it) opens several servers; every other command talks to one.
    if command not in ("tui", "serve") and several_named(args):
        return _usage_error(UsageError("the scripting commands talk to one server: give --server once"))
    call = _Invocation(args, server_command, parser, own_process)
    if args.complete_names:
        return _print_names(call)
    return _FACES.get(command, _run_scripting)(call)


def _print_names(call: _Invocation) -> int:
    from inspector.commands.completion import print_names

    try:
        return print_names(spec_from_command_line(call.args, call.server_command), call.args.complete_names)
    except UsageError as exc:
        return _usage_error(exc)


def _run_demo_server(call: _Invocation) -> int:
    from inspector.demo.server import main as demo_main

    demo_args: list[str] = []
    if call.args.http:
        demo_args += ["--http", str(call.args.http)]
    if call.args.sse:
        demo_args += ["--sse", str(call.args.sse)]
    return demo_main(demo_args)


def _run_open(call: _Invocation) -> int:
    from inspector.tui.launch import run_recording

    return run_recording(call.args.file)


def _run_lint(call: _Invocation) -> int:
    if not call.args.rules:
        return _run_scripting(call)
    from inspector.commands.lint import print_rules

    return print_rules(call.args)


def _run_servers(call: _Invocation) -> int:
    from inspector.commands.servers import run_servers

    return run_servers(call.args)


def _run_auth(call: _Invocation) -> int:
    from inspector.commands.auth import apply_target, run_auth

    try:
        # `auth login URL|NAME`: the positional names the server like --url / --server.
        apply_target(call.args)
    except ValueError as exc:
        return _usage_error(exc)
    try:
        auth_spec = _spec_if_named(call.args, call.server_command)
    except UsageError as exc:
        return _usage_error(exc)
    return run_auth(call.args, auth_spec)


def _run_replay(call: _Invocation) -> int:
    from inspector.commands.replay import run_replay

    try:
        replay_spec = _spec_if_named(call.args, call.server_command)
    except UsageError as exc:
        return _usage_error(exc)
    return run_replay(call.args, replay_spec)


def _run_card(call: _Invocation) -> int:
    from inspector.commands.card import run_card

    args, server_command = call.args, call.server_command
    try:
        card_spec = spec_from_command_line(args, server_command)
    except UsageError as exc:
        return _usage_error(exc)
    named = bool(_names_a_server(args, server_command) or getattr(args, "server", None))
    return run_card(args, card_spec, named)


def _run_diff(call: _Invocation) -> int:
    from inspector.commands.diff import run_diff

    try:
        sides = _diff_sides(call.args, call.server_command)
    except UsageError as exc:
        return _usage_error(exc)
    return run_diff(call.args, sides)


def _run_scripting(call: _Invocation) -> int:
    """A command that talks to the one server the command line names."""
    try:
        spec = spec_from_command_line(call.args, call.server_command)
    except UsageError as exc:
        call.parser.print_usage(sys.stderr)
        return _usage_error(exc)
    if call.args.command == "matrix":
        from inspector.commands.matrix import run_matrix

        return run_matrix(spec, call.args)
    process = _early_spawn(spec)
    from inspector.commands.runner import run_command

    return run_command(call.args.command, spec, call.args, process=process, own_process=call.own_process)


def _run_tui(call: _Invocation) -> int:
    from inspector.tui.launch import run_tui
    from inspector.tui.servers_args import tui_specs

    try:
        specs = tui_specs(call.args, call.server_command, spec_from_command_line)
    except UsageError as exc:
        call.parser.print_usage(sys.stderr)
        return _usage_error(exc)
    if getattr(call.args, "pick", False):
        from inspector.tui.picker import pick_servers

        specs = pick_servers()
        if not specs:
            return 0
    return run_tui(specs, call.args)


def _run_serve(call: _Invocation) -> int:
    """Each visit opens what `inspector` with these options would (several
    servers included); a server option that makes no sense is refused here,
    before anything listens."""
    from inspector.tui.servers_args import tui_specs
    from inspector.tui.serving import serve

    try:
        tui_specs(call.args, call.server_command, spec_from_command_line)
    except UsageError as exc:
        call.parser.print_usage(sys.stderr)
        return _usage_error(exc)
    return serve(call.args, call.server_command)


def _complete_line(parser: argparse.ArgumentParser) -> None:
    """Answer a completion script (argcomplete's protocol) and exit."""
    import argcomplete

    # Hidden options stay hidden; `-- COMMAND` words are the server's, not ours.
    argcomplete.autocomplete(parser, always_complete_options=False)


def _spec_of_file(args: argparse.Namespace, server_command: list[str]) -> Callable[[Any], ServerSpec]:
    """How the server of a collection, load or walkthrough file is chosen:
    the command line's server wins, so CI can point a file at another build;
    else the file's `server:`; else what the command line gives by default."""
    from inspector.commands.testing import collection_spec

    named = _names_a_server(args, server_command) or getattr(args, "server", None)

    def spec_for(document: Any) -> ServerSpec:
        if named or document is None or document.server is None:
            return spec_from_command_line(args, server_command)
        return collection_spec(document, args)

    return spec_for


def _run_test(call: _Invocation) -> int:
    from inspector.commands.testing import run_test

    return run_test(call.args, _spec_of_file(call.args, call.server_command))


def _run_load(call: _Invocation) -> int:
    from inspector.commands.load.command import run_load

    return run_load(call.args, _spec_of_file(call.args, call.server_command))


def _run_demo(call: _Invocation) -> int:
    from inspector.walkthrough.command import run_demo

    return run_demo(call.args, _spec_of_file(call.args, call.server_command))


def _usage_error(exc: Exception) -> int:
    from inspector.core.safetext import visible

    # A config file's or a recording's text may be quoted: made inert for the terminal.
    print(f"inspector: error: {visible(str(exc))}", file=sys.stderr)
    return 2


def _spec_if_named(args: argparse.Namespace, server_command: list[str]) -> ServerSpec | None:
    """The server the command line names, or None when it names none (the
    command then finds one itself: a recording's, a stored login's)."""
    named = _names_a_server(args, server_command) or getattr(args, "server", None)
    return spec_from_command_line(args, server_command) if named else None


def _early_spawn(spec: ServerSpec) -> Popen[bytes] | None:
    """Start a stdio server now, so it boots while the rest of us is imported.

    A failure here is not reported: the normal start-up path tries again and
    explains it properly.
    """
    if spec.transport != "stdio" or not spec.command:
        return None
    from inspector.core.transports.childproc import spawn

    try:
        return spawn(spec.command, spec.args, spec.env, spec.cwd, spec.inherit_env)
    except OSError:
        return None


_SHARED_LIVE_OPTIONS = ("era", "protocol_version", "timeout", "inherit_env", "max_message_size")


def _diff_side(name: str, text: str, args: argparse.Namespace, server_command: list[str]) -> Side:
    """One side of `inspector diff` (the forms are in DIFF_SIDES)."""
    import shlex

    from inspector.commands.diff import Side

    if text == "live":
        # With no server named, like every other command: the demo server.
        return Side(name, text, spec=spec_from_command_line(args, server_command))
    shared = {option: getattr(args, option, None) for option in _SHARED_LIVE_OPTIONS}
    inline = argparse.Namespace(**shared)
    command: list[str] = []
    kind, colon, rest = text.partition(":")
    if text.startswith(("http://", "https://")):
        inline.url = text
    elif colon and kind == "stdio":
        try:
            command = shlex.split(rest)
        except ValueError as exc:
            raise UsageError(f"{text}: {exc}") from exc
        if not command:
            raise UsageError("stdio: needs a command, as in stdio:'python server.py'")
    elif colon and kind == "config":
        path, _hash, server = rest.partition("#")
        inline.config, inline.server = path, server or None
    elif colon and kind == "server":
        inline.server = rest
    else:
        return Side(name, text, path=text)
    return Side(name, text, spec=spec_from_command_line(inline, command))


def _diff_sides(args: argparse.Namespace, server_command: list[str]) -> list[Side]:
    if args.left == "live" and args.right == "live":
        raise UsageError("only one side can be `live` (the server named with the usual options)")
    if _names_a_server(args, server_command) and "live" not in (args.left, args.right):
        raise UsageError("a server is named (-- CMD, --url, --config) but neither side is `live`")
    return [_diff_side("a", args.left, args, server_command), _diff_side("b", args.right, args, server_command)]


def _names_a_server(args: argparse.Namespace, server_command: list[str]) -> bool:
    return bool(server_command or getattr(args, "url", None) or getattr(args, "config", None))


# The faces that do not simply talk to one named server, by subcommand
# (`tui` when none is given); any other subcommand is `_run_scripting`.
_FACES: dict[str, Callable[[_Invocation], int]] = {
    "demo-server": _run_demo_server,
    "open": _run_open,
    "lint": _run_lint,
    "servers": _run_servers,
    "auth": _run_auth,
    "replay": _run_replay,
    "test": _run_test,
    "card": _run_card,
    "load": _run_load,
    "demo": _run_demo,
    "diff": _run_diff,
    "tui": _run_tui,
    "serve": _run_serve,
}
