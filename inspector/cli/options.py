"""The options every command shares: the server, its authorization, the output, the TUI's own."""

from __future__ import annotations

import argparse
from typing import Any

from inspector.commands.inputs import spec_from_command_line


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


def _add_shared_options(parser: argparse.ArgumentParser) -> None:
    _add_server_options(parser, suppress=True)


def _completes(action: argparse.Action, kind: str) -> None:
    """Shell completion offers the server's names of `kind` for this positional."""
    from inspector.commands.completion import ServerNames

    # argcomplete reads this attribute; argparse ignores it.
    setattr(action, "completer", ServerNames(kind, spec_from_command_line))  # noqa: B010


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
    target.add_argument(
        "--theme",
        metavar="NAME",
        default=argparse.SUPPRESS if suppress else None,
        help="TUI: the colour theme, e.g. textual-light, nord, solarized-light (ctrl+p, theme, lists them all)",
    )
