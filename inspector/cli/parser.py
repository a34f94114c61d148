"""The argument parser: the top level, every subcommand, and their help."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from inspector import __version__
from inspector.cli.options import _add_server_options, _add_shared_options, _add_tui_options, _completes

DESCRIPTION = """\
Explore and debug Model Context Protocol servers.

With no subcommand, opens the terminal UI.  Name the server with
`-- COMMAND ARGS...` (stdio), `--url URL` (HTTP) or `--config FILE --server NAME`;
with none of these, the embedded demo server is used.
"""


def _epilog() -> str:
    from inspector.commands.exitcodes import help_text

    return help_text()


DIFF_SIDES = """\
each side is one of:
  FILE                a --record file
  http(s)://...       a live server at that URL
  stdio:'CMD ARGS'    a live stdio server (the words are shell-split)
  config:FILE[#NAME]  a server of a client config file
  server:NAME         a server found in the config files on this machine
  live                the server named with -- CMD, --url or --config/--server
                      (with --env, --header and the authorization options),
                      or the embedded demo server when none is named
--era, --protocol-version, --timeout, --max-message-size and --root apply to every live side;
--record FILE records the live side (two live sides: FILE-a.jsonl, FILE-b.jsonl).
"""


def _add_auth_command(sub: Any, command: Any) -> None:
    def arguments(p: argparse.ArgumentParser) -> None:
        from inspector.commands.auth import add_auth_arguments

        add_auth_arguments(p)

    command(
        "auth", "OAuth for remote servers: status (all stored logins, or one server's), login, logout", later=arguments
    )


class _CallHelp(argparse.Action):
    """``call --help`` is the command's help; ``call TOOL --help`` asks the server for the tool's."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest="tool_help", nargs=0, default=False, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, *_: Any) -> None:
        if getattr(namespace, "tool", None):
            namespace.tool_help = True
            return
        parser.print_help()
        parser.exit()


class _Subcommand(argparse.ArgumentParser):
    """A subcommand's parser, completed when it is first used.

    Every subcommand takes the 34 options that name and reach a server:
    added to all of them up front they are most of the time the parser takes
    to build, and a command line uses one subcommand.  So they (and the
    arguments whose modules are heavy to import) are added when this parser
    parses or prints, in the places they would have had.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._later: list[Callable[[argparse.ArgumentParser], None]] = []
        self._mark = 0

    def later(self, *fills: Callable[[argparse.ArgumentParser], None]) -> None:
        """Add these when complete, before whatever is added meanwhile."""
        if not self._later:
            self._mark = len(self._actions)
        self._later.extend(fills)

    def complete(self) -> None:
        if not self._later:
            return
        fills, self._later = self._later, []
        # Usage and help list the arguments in the order they were added.
        meanwhile = self._actions[self._mark :]
        del self._actions[self._mark :]
        for fill in fills:
            fill(self)
        self._actions.extend(meanwhile)

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        self.complete()
        return super().parse_known_args(*args, **kwargs)

    def format_usage(self) -> str:
        self.complete()
        return super().format_usage()

    def format_help(self) -> str:
        self.complete()
        return super().format_help()


def _complete_all(parser: argparse.ArgumentParser) -> None:
    """Every subcommand's parser completed (shell completion walks them all)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for subparser in action.choices.values():
                if isinstance(subparser, _Subcommand):
                    subparser.complete()


def build_parser() -> argparse.ArgumentParser:
    """The `inspector` command line: the server options, the TUI's, and every subcommand."""
    parser = argparse.ArgumentParser(
        prog="inspector",
        description=DESCRIPTION,
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"inspector {__version__}")
    parser.add_argument(
        "--completion",
        choices=("bash", "zsh", "fish"),
        metavar="SHELL",
        help="print the shell completion script for SHELL (bash, zsh or fish); see the README",
    )
    # The names a server offers, one a line: what completion scripts ask for.
    parser.add_argument("--complete-names", choices=("tools", "resources", "prompts"), help=argparse.SUPPRESS)
    _add_server_options(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Subcommand)

    def command(
        name: str, help_text: str, *, later: Callable[[argparse.ArgumentParser], None] | None = None, **options: Any
    ) -> argparse.ArgumentParser:
        p: _Subcommand = sub.add_parser(name, help=help_text, description=help_text, **options)
        p.later(_add_shared_options)
        if later is not None:
            p.later(later)
        return p

    tui = command("tui", "open the terminal UI (the default)")
    for target in (parser, tui):
        target.add_argument(
            "--pick",
            action="store_true",
            default=argparse.SUPPRESS if target is tui else False,
            help="TUI: choose a server from the config files found on this machine",
        )
        _add_tui_options(target, suppress=target is tui)
    _add_serve_command(command)
    command("info", "server info, capabilities, negotiated revision, instructions")
    p = command("list", "list tools, resources, templates or prompts (every page)")
    p.add_argument("kind", choices=("tools", "resources", "templates", "prompts"))
    p.add_argument("--max-pages", type=int, default=1000, help="stop following nextCursor after this many pages")
    from inspector.commands.exitcodes import OUTPUT_SCHEMA

    p = command("call", "call a tool (only the arguments given are sent)", add_help=False)
    p.add_argument(
        "-h", "--help", action=_CallHelp, help="show this help; after a tool name: the tool's arguments and defaults"
    )
    _completes(p.add_argument("tool"), "tools")
    p.add_argument("assignments", nargs="*", metavar="key=value", help="arguments, converted by the input schema")
    p.add_argument(
        "--args", dest="args_json", metavar="JSON", help="all arguments as one JSON object, sent byte for byte"
    )
    p.add_argument(
        "--with-defaults", action="store_true", help="also send the schema's defaults for arguments not given"
    )
    p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    p.add_argument(
        "--no-validate",
        action="store_true",
        help="skip the input schema: values that do not fit are sent as written (text, or the JSON after :=), "
        "unknown keys too",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help=f"exit {OUTPUT_SCHEMA} when structuredContent does not match the tool's outputSchema",
    )
    p.add_argument("--task", action="store_true", help="run as a task (2025-11-25 tools whose taskSupport allows it)")
    p = command("read", "read a resource")
    _completes(p.add_argument("uri"), "resources")
    p.add_argument(
        "--directory",
        action="store_true",
        help="list a directory resource's direct children (resources/directory/read, every page); "
        "only for servers that declare it",
    )
    p.add_argument("--max-pages", type=int, default=1000, help="--directory: stop following nextCursor after this many")
    p = command("get", "get a prompt")
    _completes(p.add_argument("prompt"), "prompts")
    p.add_argument("assignments", nargs="*", metavar="key=value", help="prompt arguments (strings)")
    p = command("skills", "list a server's skills, or get one (SEP-2640); --verify fetches and checks its files")
    p.add_argument("action", choices=("list", "get"))
    p.add_argument("name", nargs="?", help="get: the skill's name or the URI of its SKILL.md")
    p.add_argument("--verify", action="store_true", help="get: read every listed file and check size and digest")
    p.add_argument("--max-pages", type=int, default=1000, help="stop following nextCursor after this many pages")
    p = command(
        "app",
        "preview the MCP App (ui:// resource) a tool declares: served on 127.0.0.1 behind a random token, "
        "the tool called and its input and result given to the app, every app <-> host message printed, "
        "until Ctrl-C",
    )
    _completes(p.add_argument("tool"), "tools")
    p.add_argument("assignments", nargs="*", metavar="key=value", help="the call's arguments, as for inspector call")
    p.add_argument(
        "--args", dest="args_json", metavar="JSON", help="all arguments as one JSON object, sent byte for byte"
    )
    p.add_argument(
        "--with-defaults", action="store_true", help="also send the schema's defaults for arguments not given"
    )
    p.add_argument("--no-validate", action="store_true", help="send arguments that do not fit the input schema")
    p.add_argument("--yes", "-y", action="store_true", help="call the tool without asking (not the app's own calls)")
    p.add_argument(
        "--no-call", action="store_true", help="serve the app's bare template: no call, no tool input or result"
    )
    p.add_argument(
        "--allow-app-calls",
        action="store_true",
        help="let the app's tools/call requests go to the server without asking "
        "(default: asked on the terminal; refused with --yes or without a terminal)",
    )
    p.add_argument("--open", action="store_true", help="open the preview in the web browser (default: print the URL)")
    p = command("lint", "check a server against the spec and good practice (every list, every capability)")
    p.add_argument("--strict", action="store_true", help="fail on warnings too, not only on errors")
    p.add_argument("--rules", action="store_true", help="list every rule (id, severity, rationale, spec link)")
    p.add_argument("--max-pages", type=int, default=50, help="call a list endless after this many pages")
    p.add_argument(
        "--all-capabilities",
        action="store_true",
        help="declare roots, sampling and elicitation (some servers show more tools to such clients); "
        "nobody answers them: sampling is refused, elicitation declined",
    )
    _add_recording_commands(sub, command)
    _add_test_command(command)
    _add_matrix_commands(command)
    _add_load_command(command)
    _add_demo_command(command)
    _add_auth_command(sub, command)
    p = sub.add_parser("demo-server", help="run the embedded demo server (stdio by default)")
    p.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT/mcp")
    p.add_argument("--sse", type=int, metavar="PORT", help="serve legacy HTTP+SSE on 127.0.0.1:PORT")
    return parser


def _add_serve_command(command: Any) -> None:
    p = command(
        "serve",
        "serve the TUI to a web browser (textual-serve): each visit runs the inspector and its server here, "
        "behind a random token in the URL",
    )
    _add_tui_options(p, suppress=True)
    p.add_argument("--port", type=int, default=8000, help="the port to listen on (default 8000; 0: any free port)")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default 127.0.0.1; anything else is reachable from other machines)",
    )


def _add_recording_commands(sub: Any, command: Any) -> None:
    help_text = "list the MCP servers configured for other clients (Claude, VS Code, Cursor, ...)"
    p = sub.add_parser("servers", help=help_text, description=help_text)
    p.add_argument(
        "--config", action="append", metavar="FILE", help="list this config file's servers instead (repeatable)"
    )
    out = p.add_argument_group("output")
    out.add_argument("--json", action="store_true", help="print JSON (default when not a terminal)")
    out.add_argument("--human", action="store_true", help="print text even when not a terminal")
    p = sub.add_parser("open", help="reopen a --record file in the TUI, read-only", description="reopen a recording")
    p.add_argument("file", metavar="FILE")
    p = command(
        "diff", "compare two versions of a server (tools, resources, templates, prompts): recordings or live servers"
    )
    p.epilog = DIFF_SIDES
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("left", metavar="A", help="the 'before' (see the forms below)")
    p.add_argument("right", metavar="B", nargs="?", default="live", help="the 'after' (default: live)")
    p.add_argument(
        "--ignore", action="append", metavar="KEY", help="do not compare members named KEY, e.g. lastModified"
    )
    p = command(
        "replay",
        "re-send a recording's requests to a live server (the recorded one unless named) and compare the answers",
    )
    p.add_argument("file", metavar="FILE", help="a --record file")
    p.add_argument(
        "--ignore", action="append", metavar="KEY", help="also ignore members named KEY when comparing (repeatable)"
    )


def _add_matrix_commands(command: Any) -> None:
    p = command(
        "matrix",
        "the server under every revision, era and transport it accepts: lists, read-only calls, what differs",
    )
    p.add_argument(
        "--format", choices=("table", "markdown", "json"), help="table (terminal), markdown (for a README) or json"
    )
    p.add_argument("--all", action="store_true", help="show every row, not only the rows that differ")
    p.add_argument("--no-calls", action="store_true", help="do not call the read-only tools that take no arguments")
    p.add_argument(
        "--ignore",
        action="append",
        metavar="KEY",
        help="do not compare members named KEY (repeatable; default: lastModified)",
    )
    p = command(
        "card",
        "compare a registry server.json (a file or an http(s) URL) with the live server it describes "
        "(or the one named as usual)",
    )
    p.add_argument("card", metavar="FILE|URL", help="the server.json")


def _add_test_command(command: Any) -> None:
    from inspector.commands.exitcodes import EXPECTATIONS_FAILED

    p = command(
        "test",
        "run collections (YAML files of saved calls with expectations) as tests, against the server named "
        "as usual or the one each file names",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="a collection file (YAML)")
    p.add_argument("--junit", metavar="FILE", help="write a JUnit XML report for CI")
    p.add_argument(
        "--update",
        action="store_true",
        help="rewrite each file's expectations from the current answers (snapshot style) and print the diff",
    )
    p.epilog = f"exit {EXPECTATIONS_FAILED} when an expectation fails."


def _add_load_command(command: Any) -> None:
    from inspector.commands.exitcodes import LOAD_THRESHOLD

    def arguments(p: argparse.ArgumentParser) -> None:
        # Its module imports the collections and the load driver.
        from inspector.commands.load.command import add_load_arguments

        add_load_arguments(p)

    p = command(
        "load",
        "drive a collection's steps (or one call) at the server with concurrent sessions or a target rate, "
        "showing throughput, errors and latency percentiles",
        later=arguments,
    )
    p.epilog = f"exit {LOAD_THRESHOLD} when --max-error-rate or --max-p99 is broken."


def _add_demo_command(command: Any) -> None:
    def arguments(p: argparse.ArgumentParser) -> None:
        from inspector.walkthrough.command import add_demo_arguments

        add_demo_arguments(p)

    command(
        "demo",
        "play a walkthrough (YAML steps with captions) live in the TUI, against the server named as usual, "
        "the one the file names, or the demo server",
        later=arguments,
    )
