"""Command line: parse arguments, build the ServerSpec, pick the face.

Kept light on purpose: the scripting path imports neither Textual nor Rich,
and `--version` imports nothing at all.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from subprocess import Popen
from typing import TYPE_CHECKING, Any

from inspector import __version__

if TYPE_CHECKING:
    from inspector.commands.diff import Side
    from inspector.core.servers.spec import ServerSpec

__all__ = ["build_parser", "main", "spec_from_args"]


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


class UsageError(Exception):
    """A command line that cannot be acted on."""


def _add_server_options(parser: argparse.ArgumentParser, suppress: bool) -> None:
    default = argparse.SUPPRESS if suppress else None
    group = parser.add_argument_group("choosing the server")
    group.add_argument("--url", default=default, help="a remote server (Streamable HTTP, legacy SSE fallback)")
    group.add_argument(
        "--transport",
        choices=("stdio", "http", "sse"),
        default=default,
        help="force a transport (default: stdio for a command, http with sse fallback for a URL)",
    )
    group.add_argument(
        "--header", action="append", default=default, metavar="'NAME: VALUE'", help="HTTP header (repeatable)"
    )
    group.add_argument("--config", default=default, metavar="FILE", help="a client config file (mcpServers / servers)")
    from inspector.tui.servers_args import ServerNames

    group.add_argument(
        "--server",
        action=ServerNames,
        default=default,
        metavar="NAME",
        help="which server of --config (the TUI: repeat it to open several in one window)",
    )
    group.add_argument("--env", action="append", default=default, metavar="K=V", help="environment for a stdio server")
    group.add_argument("--cwd", default=default, metavar="DIR", help="working directory for a stdio server")
    group.add_argument(
        "--inherit-env",
        action="store_true",
        default=default,
        help="pass the whole environment to a stdio server (default: a safe minimal set)",
    )
    group.add_argument(
        "--era",
        choices=("auto", "legacy", "modern"),
        default=default,
        help="auto (default): probe with server/discover, fall back to initialize; legacy: initialize only; "
        "modern: 2026-07-28 only",
    )
    group.add_argument("--protocol-version", default=default, metavar="REV", help="the revision to use")
    group.add_argument(
        "--timeout", type=float, default=default, metavar="SECONDS", help="per-request timeout (default 60)"
    )
    group.add_argument(
        "--max-message-size",
        default=default,
        metavar="SIZE",
        help="the largest message accepted from the server (bytes, or e.g. 64MiB; default 256MiB); "
        "past it the server is disconnected",
    )
    group.add_argument("--record", default=default, metavar="FILE", help="write the traffic as JSON Lines")
    group.add_argument(
        "--advertise-apps",
        action="store_true",
        default=default,
        help="declare the MCP Apps extension (io.modelcontextprotocol/ui) in the client capabilities; "
        "some servers only offer UI tools to such clients",
    )
    group.add_argument(
        "--root", action="append", default=default, metavar="DIR", help="a root the client offers (repeatable)"
    )
    _add_auth_options(parser, default)
    out = parser.add_argument_group("output")
    out.add_argument("--json", action="store_true", default=default, help="print JSON (default when not a terminal)")
    out.add_argument("--human", action="store_true", default=default, help="print text even when not a terminal")


def _add_auth_options(parser: argparse.ArgumentParser, default: Any) -> None:
    group = parser.add_argument_group("authorization (remote servers)")
    group.add_argument("--bearer", default=default, metavar="TOKEN", help="send `Authorization: Bearer TOKEN`")
    group.add_argument("--bearer-env", default=default, metavar="VAR", help="the bearer token from environment VAR")
    group.add_argument(
        "--no-oauth", action="store_true", default=default, help="never start the OAuth flow; a 401 is an error"
    )
    group.add_argument("--client-id", default=default, metavar="ID", help="OAuth: a pre-registered client id")
    group.add_argument("--client-secret", default=default, metavar="SECRET", help="OAuth: its client secret")
    group.add_argument(
        "--client-secret-env", default=default, metavar="VAR", help="OAuth: the client secret from environment VAR"
    )
    group.add_argument(
        "--client-metadata-url",
        default=default,
        metavar="URL",
        help="OAuth: an HTTPS URL hosting this client's metadata document (used as client id where supported)",
    )
    group.add_argument(
        "--oauth-port", type=int, default=default, metavar="PORT", help="OAuth: loopback redirect port (0: any free)"
    )
    group.add_argument(
        "--oauth-timeout",
        type=float,
        default=default,
        metavar="SECONDS",
        help="OAuth: the login's own deadline (default 300); the request's --timeout starts after it",
    )
    group.add_argument(
        "--oauth-grant",
        choices=("authorization_code", "client_credentials", "jwt_bearer", "enterprise"),
        default=default,
        help="OAuth: a person logs in (authorization_code, the default), a machine client (client_credentials), "
        "a workload identity JWT is the grant (jwt_bearer, with --assertion-env), or enterprise-managed "
        "authorization (enterprise: the ID token from --id-token-env exchanged at the identity provider for an "
        "ID-JAG, SEP-990)",
    )
    group.add_argument(
        "--id-token-env", default=default, metavar="VAR", help="OAuth enterprise: the IdP's ID token from VAR"
    )
    group.add_argument(
        "--idp-issuer", default=default, metavar="URL", help="OAuth enterprise: the identity provider's issuer"
    )
    group.add_argument(
        "--idp-token-endpoint",
        default=default,
        metavar="URL",
        help="OAuth enterprise: the identity provider's token endpoint (default: from its issuer's metadata)",
    )
    group.add_argument(
        "--idp-client-id", default=default, metavar="ID", help="OAuth enterprise: this client's id at the IdP"
    )
    group.add_argument(
        "--idp-client-secret-env",
        default=default,
        metavar="VAR",
        help="OAuth enterprise: this client's secret at the IdP, from VAR",
    )
    group.add_argument(
        "--assertion-env", default=default, metavar="VAR", help="OAuth jwt_bearer: the workload JWT from VAR"
    )
    group.add_argument(
        "--client-key", default=default, metavar="PEM_FILE", help="OAuth client credentials: sign with this key"
    )
    group.add_argument("--client-key-alg", default=default, metavar="ALG", help="its JWS algorithm (default ES256)")
    group.add_argument(
        "--oauth-issuer", default=default, metavar="URL", help="OAuth: the issuer the configured client belongs to"
    )
    group.add_argument(
        "--allow-cross-origin-auth",
        action="store_true",
        default=default,
        help="OAuth: use authorization, token and registration endpoints on another origin than the issuer "
        "without asking (refused without a terminal otherwise)",
    )
    group.add_argument(
        "--no-revoke",
        action="store_true",
        default=default,
        help="OAuth: on logout and on a new login, only forget the old tokens here; do not revoke them at the "
        "authorization server (RFC 7009)",
    )
    group.add_argument(
        "--dpop",
        choices=("auto", "on", "off"),
        default=default,
        help="OAuth: DPoP-bound tokens (RFC 9449) when a server advertises them (auto, the default), always, or never",
    )
    group.add_argument(
        "--oauth-browser",
        choices=("system", "print", "handoff", "headless"),
        default=default,
        help="OAuth: open the system browser (default); only print the URL (with the `ssh -L` port-forward that "
        "brings the redirect back); handoff: print it and also accept the URL the browser ended on, pasted on "
        "standard input; or follow the redirects headlessly (authorization servers that approve without a person)",
    )


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


def _add_shared_options(parser: argparse.ArgumentParser) -> None:
    _add_server_options(parser, suppress=True)


def _completes(action: argparse.Action, kind: str) -> None:
    """Shell completion offers the server's names of `kind` for this positional."""
    from inspector.commands.completion import ServerNames

    # argcomplete reads this attribute; argparse ignores it.
    setattr(action, "completer", ServerNames(kind, spec_from_args))  # noqa: B010


def _add_tui_options(target: argparse.ArgumentParser, suppress: bool) -> None:
    target.add_argument(
        "--watch",
        action="append",
        metavar="PATH",
        default=argparse.SUPPRESS if suppress else None,
        help="TUI: restart the stdio server when files under PATH change (repeatable)",
    )
    target.add_argument(
        "--answer-timeout",
        type=float,
        metavar="SECONDS",
        default=argparse.SUPPRESS if suppress else None,
        help="TUI: how long a sampling or elicitation request waits for you before it is refused (default 600)",
    )
    target.add_argument(
        "--record-cast",
        metavar="FILE",
        default=argparse.SUPPRESS if suppress else None,
        help="TUI: write what the terminal shows as an asciinema v2 cast (secrets masked)",
    )


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


_SHARED_LIVE_OPTIONS = ("era", "protocol_version", "timeout", "inherit_env", "max_message_size")


def _diff_side(name: str, text: str, args: argparse.Namespace, server_command: list[str]) -> Side:
    """One side of `inspector diff` (the forms are in DIFF_SIDES)."""
    import shlex

    from inspector.commands.diff import Side

    if text == "live":
        # With no server named, like every other command: the demo server.
        return Side(name, text, spec=spec_from_args(args, server_command))
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
    return Side(name, text, spec=spec_from_args(inline, command))


def _diff_sides(args: argparse.Namespace, server_command: list[str]) -> list[Side]:
    if args.left == "live" and args.right == "live":
        raise UsageError("only one side can be `live` (the server named with the usual options)")
    if _names_a_server(args, server_command) and "live" not in (args.left, args.right):
        raise UsageError("a server is named (-- CMD, --url, --config) but neither side is `live`")
    return [_diff_side("a", args.left, args, server_command), _diff_side("b", args.right, args, server_command)]


def _names_a_server(args: argparse.Namespace, server_command: list[str]) -> bool:
    return bool(server_command or getattr(args, "url", None) or getattr(args, "config", None))


def split_server_command(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    argv = list(argv)
    if "--" in argv:
        index = argv.index("--")
        return argv[:index], argv[index + 1 :]
    return argv, []


def _pairs(values: Sequence[str] | None, sep: str, what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values or ():
        key, found, rest = value.partition(sep)
        if not found or not key.strip():
            raise UsageError(f"{what} must look like NAME{sep}VALUE, got {value!r}")
        out[key.strip()] = rest.strip() if sep == ":" else rest
    return out


def spec_from_args(args: argparse.Namespace, server_command: list[str]) -> ServerSpec:
    from inspector.core.servers.client_configs import ConfigError, spec_from_file
    from inspector.core.servers.spec import ServerSpec, demo_spec

    url = getattr(args, "url", None)
    config = getattr(args, "config", None)
    chosen = sum(bool(x) for x in (url, config, server_command))
    if chosen > 1:
        raise UsageError("name one server: `-- COMMAND`, --url or --config")
    if config:
        from inspector.commands.inputs import terminal_asker

        try:
            spec = spec_from_file(config, getattr(args, "server", None), ask=terminal_asker())
        except ConfigError as exc:
            raise UsageError(_input_hint(exc)) from exc
        spec.config_path = os.path.abspath(config)
    elif url:
        spec = ServerSpec(transport="auto", url=url)
    elif server_command:
        spec = ServerSpec(transport="stdio", command=server_command[0], args=server_command[1:])
    elif getattr(args, "server", None):
        from inspector.commands.inputs import terminal_asker
        from inspector.core.servers.discovery import find_server

        found = find_server(args.server)
        if found is None:
            raise UsageError(f"no server named {args.server!r} in the config files found (see `inspector servers`)")
        try:
            spec = found.resolve(terminal_asker())
        except ConfigError as exc:
            raise UsageError(f"{args.server} in {found.path}: {_input_hint(exc)}") from exc
    else:
        spec = demo_spec()
    transport = getattr(args, "transport", None)
    if transport:
        if transport == "stdio" and not spec.command:
            raise UsageError("--transport stdio needs a server command after --")
        if transport in ("http", "sse") and not spec.url:
            raise UsageError(f"--transport {transport} needs --url")
        spec.transport = transport
    headers = _pairs(getattr(args, "header", None), ":", "--header")
    if headers:
        from inspector.core.record.secret_mask import secret_header

        if not spec.url:
            raise UsageError("--header only applies to HTTP servers (--url)")
        spec.headers.update(headers)
        spec.secret_names.update(name for name in headers if secret_header(spec, name))
    _apply_auth_options(args, spec)
    env = _pairs(getattr(args, "env", None), "=", "--env")
    if env:
        if spec.url:
            raise UsageError("--env only applies to stdio servers")
        spec.env.update(env)
    cwd = getattr(args, "cwd", None)
    if cwd:
        if not os.path.isdir(cwd):
            raise UsageError(f"--cwd {cwd}: no such directory")
        spec.cwd = cwd
    if getattr(args, "inherit_env", None):
        spec.inherit_env = True
    version = getattr(args, "protocol_version", None)
    if version:
        from inspector.core.protocol.versions import KNOWN_VERSIONS

        if version not in KNOWN_VERSIONS:
            raise UsageError(f"unknown protocol version {version!r}; known: {', '.join(KNOWN_VERSIONS)}")
        spec.protocol_version = version
    era = getattr(args, "era", None)
    if era:
        spec.era = era
    if getattr(args, "advertise_apps", None):
        spec.advertise_apps = True
    timeout = getattr(args, "timeout", None)
    if timeout is not None:
        if timeout <= 0:
            raise UsageError("--timeout must be positive")
        spec.timeout = timeout
    max_size = getattr(args, "max_message_size", None)
    if max_size is not None:
        from inspector.core.servers.spec import parse_size

        try:
            spec.max_message_size = parse_size(max_size)
        except ValueError as exc:
            raise UsageError(f"--max-message-size: {exc}") from exc
    return spec


def _input_hint(exc: Exception) -> str:
    inputs = getattr(exc, "inputs", None)
    if not inputs:
        return str(exc)
    asked = ", ".join(item.id for item in inputs)
    return f"{exc} (VS Code inputs {asked}: run on a terminal to be asked, or set those variables)"


def _apply_auth_options(args: argparse.Namespace, spec: ServerSpec) -> None:
    """Static credentials and OAuth settings from the flags, over a config entry's."""
    names = (
        "bearer",
        "bearer_env",
        "no_oauth",
        "client_id",
        "client_secret",
        "client_secret_env",
        "client_metadata_url",
        "oauth_port",
        "oauth_timeout",
        "oauth_browser",
        "oauth_grant",
        "client_key",
        "client_key_alg",
        "oauth_issuer",
        "assertion_env",
        "allow_cross_origin_auth",
        "no_revoke",
        "dpop",
        "id_token_env",
        "idp_issuer",
        "idp_token_endpoint",
        "idp_client_id",
        "idp_client_secret_env",
    )
    given = {name: getattr(args, name) for name in names if getattr(args, name, None) not in (None, False)}
    if not spec.url:
        if given:
            flags = ", ".join("--" + name.replace("_", "-") for name in given)
            raise UsageError(f"{flags}: only for remote (HTTP) servers")
        return
    from inspector.core.auth.config import AuthConfig

    config = spec.auth if spec.auth is not None else AuthConfig()
    spec.auth = config
    bearer = given.get("bearer")
    if "bearer_env" in given:
        if bearer:
            raise UsageError("give --bearer or --bearer-env, not both")
        bearer = _from_env(given["bearer_env"], "--bearer-env")
    if bearer:
        spec.headers["Authorization"] = f"Bearer {bearer}"
        spec.secret_names.add("Authorization")
    if any(name.lower() == "authorization" for name in spec.headers) or given.get("no_oauth"):
        config.oauth = False
    if "client_id" in given:
        config.client_id = given["client_id"]
    secret = given.get("client_secret")
    if "client_secret_env" in given:
        if secret:
            raise UsageError("give --client-secret or --client-secret-env, not both")
        secret = _from_env(given["client_secret_env"], "--client-secret-env")
    if secret:
        config.client_secret = secret
    if config.client_secret and not config.client_id:
        raise UsageError("a client secret needs its --client-id")
    url = given.get("client_metadata_url")
    if url:
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        if parts.scheme != "https" or parts.path in ("", "/"):
            raise UsageError("--client-metadata-url must be an https URL with a path (the document's own URL)")
        config.client_metadata_url = url
    port = given.get("oauth_port")
    if port is not None:
        if not 0 <= port < 65536:
            raise UsageError("--oauth-port must be 0..65535 (0: any free port)")
        config.callback_port = port
    timeout = given.get("oauth_timeout")
    if timeout is not None:
        if timeout <= 0:
            raise UsageError("--oauth-timeout must be positive")
        config.timeout = timeout
    if "oauth_browser" in given:
        config.browser = given["oauth_browser"]
    if "oauth_grant" in given:
        config.grant = given["oauth_grant"]
    if "client_key" in given:
        try:
            with open(given["client_key"], encoding="utf-8") as handle:
                config.client_key = handle.read()
        except OSError as exc:
            raise UsageError(f"--client-key {given['client_key']}: {exc.strerror or exc}") from exc
    if "client_key_alg" in given:
        config.client_key_algorithm = given["client_key_alg"]
    if "oauth_issuer" in given:
        config.issuer = given["oauth_issuer"]
    if given.get("allow_cross_origin_auth"):
        config.allow_cross_origin = True
    if given.get("no_revoke"):
        config.revoke = False
    if "dpop" in given:
        config.dpop = given["dpop"]
    if "assertion_env" in given:
        config.assertion = _from_env(given["assertion_env"], "--assertion-env")
    if "id_token_env" in given:
        config.id_token = _from_env(given["id_token_env"], "--id-token-env")
    if "idp_client_secret_env" in given:
        config.idp_client_secret = _from_env(given["idp_client_secret_env"], "--idp-client-secret-env")
    for name in ("idp_issuer", "idp_token_endpoint", "idp_client_id"):
        if name in given:
            setattr(config, name, given[name])
    if config.grant == "enterprise":
        missing = [
            flag
            for flag, present in (
                ("--id-token-env VAR", config.id_token),
                ("--idp-issuer or --idp-token-endpoint", config.idp_issuer or config.idp_token_endpoint),
                ("--client-id", config.client_id),
            )
            if not present
        ]
        if missing:
            raise UsageError(f"--oauth-grant enterprise needs {', '.join(missing)}")
    if config.grant == "jwt_bearer" and not config.assertion:
        raise UsageError("--oauth-grant jwt_bearer needs the workload JWT: --assertion-env VAR")
    if config.grant == "client_credentials" and not (config.client_id and (config.client_secret or config.client_key)):
        raise UsageError("--oauth-grant client_credentials needs --client-id and a --client-secret or --client-key")


def _from_env(name: str, flag: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise UsageError(f"{flag} {name}: the environment variable is not set")
    return value


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
    if args.complete_names:
        from inspector.commands.completion import print_names

        try:
            return print_names(spec_from_args(args, server_command), args.complete_names)
        except UsageError as exc:
            return _usage_error(exc)
    if command == "demo-server":
        from inspector.demo.server import main as demo_main

        demo_args: list[str] = []
        if args.http:
            demo_args += ["--http", str(args.http)]
        if args.sse:
            demo_args += ["--sse", str(args.sse)]
        return demo_main(demo_args)
    if command == "open":
        from inspector.tui.launch import run_recording

        return run_recording(args.file)
    if command == "lint" and args.rules:
        from inspector.commands.lint import print_rules

        return print_rules(args)
    if command == "servers":
        from inspector.commands.servers import run_servers

        return run_servers(args)
    if command == "auth":
        from inspector.commands.auth import apply_target, run_auth

        try:
            # `auth login URL|NAME`: the positional names the server like --url / --server.
            apply_target(args)
        except ValueError as exc:
            return _usage_error(exc)
        try:
            auth_spec = _spec_if_named(args, server_command)
        except UsageError as exc:
            return _usage_error(exc)
        return run_auth(args, auth_spec)
    if command == "replay":
        from inspector.commands.replay import run_replay

        try:
            replay_spec = _spec_if_named(args, server_command)
        except UsageError as exc:
            return _usage_error(exc)
        return run_replay(args, replay_spec)
    if command == "test":
        return _run_test(args, server_command)
    if command == "card":
        from inspector.commands.card import run_card

        try:
            card_spec = spec_from_args(args, server_command)
        except UsageError as exc:
            return _usage_error(exc)
        named = bool(_names_a_server(args, server_command) or getattr(args, "server", None))
        return run_card(args, card_spec, named)
    if command == "load":
        return _run_load(args, server_command)
    if command == "demo":
        return _run_demo(args, server_command)
    if command == "diff":
        from inspector.commands.diff import run_diff

        try:
            sides = _diff_sides(args, server_command)
        except UsageError as exc:
            return _usage_error(exc)
        return run_diff(args, sides)
    if command == "tui":
        return _run_tui(args, server_command, parser)
    if command == "serve":
        return _run_serve(args, server_command, parser)
    try:
        spec = spec_from_args(args, server_command)
    except UsageError as exc:
        parser.print_usage(sys.stderr)
        return _usage_error(exc)
    if command == "matrix":
        from inspector.commands.matrix import run_matrix

        return run_matrix(spec, args)
    process = _early_spawn(spec)
    from inspector.commands.runner import run_command

    return run_command(command, spec, args, process=process, own_process=own_process)


def _run_tui(args: argparse.Namespace, server_command: list[str], parser: argparse.ArgumentParser) -> int:
    from inspector.tui.launch import run_tui
    from inspector.tui.servers_args import tui_specs

    try:
        specs = tui_specs(args, server_command, spec_from_args)
    except UsageError as exc:
        parser.print_usage(sys.stderr)
        return _usage_error(exc)
    if getattr(args, "pick", False):
        from inspector.tui.picker import pick_servers

        specs = pick_servers()
        if not specs:
            return 0
    return run_tui(specs, args)


def _run_serve(args: argparse.Namespace, server_command: list[str], parser: argparse.ArgumentParser) -> int:
    """Each visit opens what `inspector` with these options would (several
    servers included); a server option that makes no sense is refused here,
    before anything listens."""
    from inspector.tui.servers_args import tui_specs
    from inspector.tui.serving import serve

    try:
        tui_specs(args, server_command, spec_from_args)
    except UsageError as exc:
        parser.print_usage(sys.stderr)
        return _usage_error(exc)
    return serve(args, server_command)


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
            return spec_from_args(args, server_command)
        return collection_spec(document, args)

    return spec_for


def _run_test(args: argparse.Namespace, server_command: list[str]) -> int:
    from inspector.commands.testing import run_test

    return run_test(args, _spec_of_file(args, server_command))


def _run_load(args: argparse.Namespace, server_command: list[str]) -> int:
    from inspector.commands.load.command import run_load

    return run_load(args, _spec_of_file(args, server_command))


def _run_demo(args: argparse.Namespace, server_command: list[str]) -> int:
    from inspector.walkthrough.command import run_demo

    return run_demo(args, _spec_of_file(args, server_command))


def _usage_error(exc: Exception) -> int:
    from inspector.core.safetext import visible

    # A config file's or a recording's text may be quoted: made inert for the terminal.
    print(f"inspector: error: {visible(str(exc))}", file=sys.stderr)
    return 2


def _spec_if_named(args: argparse.Namespace, server_command: list[str]) -> ServerSpec | None:
    """The server the command line names, or None when it names none (the
    command then finds one itself: a recording's, a stored login's)."""
    named = _names_a_server(args, server_command) or getattr(args, "server", None)
    return spec_from_args(args, server_command) if named else None


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
