"""`inspector auth status|login|logout`, and the CLI's side of a login that
a command needs (the URL printed for the person, a login before connecting).

status: every stored login (no server named), or one server's.
login:  run the authorization flow now, printing each step as it happens.
logout: revoke the server's stored tokens at the authorization server (RFC 7009,
        unless --no-revoke; a failure is reported, not fatal), then forget them
        and the client registration.

The server is named as for every command (`--url`, `--config FILE --server
NAME`, `--server NAME` from the config files found), or by a positional
after the action: a URL, or a server's name (`inspector auth status
https://mcp.example.com/mcp`, `inspector auth login github`).

A login that nobody completes in time exits with the timeout code; one the
person cancels (Ctrl-C) with the interrupted code.  Secrets are never
printed: tokens and client secrets appear as `***`.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import TYPE_CHECKING, Any

from inspector.commands import exitcodes
from inspector.commands.output import Output
from inspector.core.safetext import visible

if TYPE_CHECKING:
    from inspector.core.auth.config import AuthConfig
    from inspector.core.auth.errors import AuthError
    from inspector.core.auth.log import AuthEvent
    from inspector.core.auth.session import OAuthSession
    from inspector.core.record.traffic import TrafficLog
    from inspector.core.servers.spec import ServerSpec

__all__ = ["ACTIONS", "add_auth_arguments", "apply_target", "event_line", "prepare_auth", "run_auth"]

MARKS = {"ok": "✓", "failed": "✗", "waiting": "…", "info": "·"}
ACTIONS = ("status", "login", "logout")


def add_auth_arguments(parser: argparse.ArgumentParser) -> None:
    """The `auth` subcommand's own arguments: the action, and the server it is for."""
    parser.add_argument("action", choices=ACTIONS)
    parser.add_argument(
        "target",
        nargs="?",
        default=None,
        metavar="SERVER",
        help="the server: a URL, or a server's name in --config FILE or in the config files found "
        "(see `inspector servers`); the same as --url URL / --server NAME",
    )


def is_url(text: str) -> bool:
    """Whether *text* is an http(s) URL with a host (else it names a configured server)."""
    from urllib.parse import urlsplit

    parts = urlsplit(text)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def apply_target(args: argparse.Namespace) -> None:
    """Turn the positional SERVER into --url or --server (ValueError when it conflicts with them)."""
    target = getattr(args, "target", None)
    if not target:
        return
    if is_url(target):
        given = getattr(args, "url", None)
        if given and given != target:
            raise ValueError(f"two servers named: {target} and --url {given}")
        args.url = target
        return
    if "://" in target:
        raise ValueError(f"{target}: a server URL must be http:// or https://")
    given = getattr(args, "server", None)
    if given and given != target:
        raise ValueError(f"two servers named: {target} and --server {given}")
    args.server = target


def _notify(text: str) -> None:
    # It quotes the server's metadata (URLs, names): made inert for the terminal.
    print(visible(text), file=sys.stderr, flush=True)


def _at_terminal() -> bool:
    return sys.stdin.isatty() and sys.stderr.isatty()


async def ask_on_terminal(text: str) -> bool:
    """The person's answer to `text` on the terminal; anything but y/yes is a no.

    The line is read when the event loop sees stdin readable (not in a
    thread), so a Ctrl-C at the question ends the command at once.
    """
    import os

    print(f"inspector: warning: {text}", file=sys.stderr)
    sys.stderr.write("Continue with this login? [y/N] ")
    sys.stderr.flush()
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[str] = loop.create_future()
    fd = sys.stdin.fileno()

    def readable() -> None:
        try:
            data = os.read(fd, 4096)
        except OSError:
            data = b""
        if not answer.done():
            answer.set_result(data.decode("utf-8", "replace"))

    loop.add_reader(fd, readable)
    try:
        return (await answer).strip().lower() in ("y", "yes")
    finally:
        loop.remove_reader(fd)


async def prepare_auth(spec: ServerSpec, traffic: TrafficLog) -> None:
    """Before a command connects: where the person's instructions go, and a
    login first when one is needed and a person will do it (a login inside
    the first request would race that request's timeout)."""
    from inspector.core.auth.session import session_for

    config = spec.auth
    if config is None:
        return
    if config.notify is None:
        config.notify = _notify
    if config.confirm is None and _at_terminal():
        config.confirm = ask_on_terminal
    if config.paste is None and config.browser == "handoff":
        from inspector.core.auth.handoff import read_stdin_line

        config.paste = read_stdin_line
    session = session_for(spec)
    if session is None or not config.oauth or config.browser == "headless" or config.grant != "authorization_code":
        return
    if not _at_terminal():
        # Nobody at the keys: no probe (a login would print its URL and wait in the first request).
        return
    session.attach(traffic)
    from inspector.core.auth.errors import LoginAborted

    try:
        await session.preflight(headers=dict(spec.headers))
    except LoginAborted as exc:
        # Timed out or cancelled before connecting: the command's exit code says which.
        from inspector.commands.runner import CommandFailed

        raise CommandFailed(login_exit_code(exc), session.secrets.scrub(str(exc))) from exc


def event_line(event: AuthEvent) -> str:
    """A step of the authorization flow as a line: mark, step and title, and the detail when it failed or waits."""
    line = f"{MARKS.get(event.status, '·')} {event.step:<17} {event.title}"
    if event.detail and (event.failed or event.status == "waiting"):
        line += f"\n{'':20}{event.detail}"
    return line


def run_auth(args: argparse.Namespace, spec: ServerSpec | None) -> int:
    """`inspector auth status|login|logout` for *spec* (status without one: every stored login); the exit code."""
    out = Output.for_args(args)
    action = args.action
    if spec is not None and not spec.url:
        print("inspector: error: authorization applies to remote (HTTP) servers; this one is stdio", file=sys.stderr)
        return exitcodes.USAGE
    if spec is None:
        if action != "status":
            print(
                f"inspector: error: `auth {action}` needs a server: `auth {action} URL|NAME`, --url URL "
                "or --config FILE --server NAME",
                file=sys.stderr,
            )
            return exitcodes.USAGE
        return _status_all(out)
    if spec.auth is None:
        from inspector.core.auth.config import AuthConfig

        spec.auth = AuthConfig()
    if action == "status":
        return _status_one(out, spec)
    if action == "logout":
        return _logout(out, spec)
    try:
        return asyncio.run(_login(out, spec, args))
    except KeyboardInterrupt:
        print("inspector: login interrupted", file=sys.stderr, flush=True)
        # The interrupt is acted on at once; what follows is the interpreter's
        # exit, whose final collections of the ~100,000 objects the OAuth
        # client loaded cost a quarter of a CPU second (many seconds on a
        # loaded machine).  Nothing is left to collect that matters.
        import gc

        gc.freeze()
        return exitcodes.INTERRUPTED


def login_exit_code(error: BaseException) -> int:
    """The exit code of a failed login: timed out, cancelled or denied, or failed."""
    from inspector.core.auth.errors import LoginAborted, LoginTimedOut

    if isinstance(error, LoginTimedOut):
        return exitcodes.TIMEOUT
    if isinstance(error, LoginAborted):
        return exitcodes.INTERRUPTED
    return exitcodes.CANNOT_CONNECT


def _when(stamp: Any) -> str:
    if not isinstance(stamp, (int, float)):
        return "unknown"
    left = stamp - time.time()
    clock = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))
    if left <= 0:
        return f"{clock} (expired)"
    return f"{clock} (in {int(left)} s)"


def _print_record(out: Output, record: dict[str, Any]) -> None:
    state = "logged in" if record.get("logged_in") else "not logged in"
    out.line(f"{record['server']}: {state}")
    for item in record.get("issuers", []):
        current = " (current)" if item["issuer"] == record.get("current_issuer") else ""
        out.line(f"  issuer {item['issuer']}{current}")
        out.line(f"    client: {item.get('client_id') or '?'} ({item.get('client_kind') or 'unknown'})")
        if item.get("token"):
            out.line(
                f"    token: *** scope {item.get('scope') or '(not stated)'}; expires {_when(item.get('expires_at'))}"
            )
            out.line(f"    refresh token: {'yes' if item.get('refresh_token') else 'no'}")
        else:
            out.line("    token: none")


def _status_all(out: Output) -> int:
    from inspector.core.auth.session import describe_record
    from inspector.core.auth.store import default_store

    store = default_store()
    records = [describe_record(r["server"], r, store) for r in store.servers()]
    if out.json:
        out.json_value({"store": store.backend, "directory": str(store.auth_dir), "servers": records})
        return exitcodes.OK
    if not records:
        out.line(f"no stored logins (store: {store.backend}, {store.auth_dir})")
        return exitcodes.OK
    for record in records:
        _print_record(out, record)
    out.line(f"(store: {store.backend}, {store.auth_dir})")
    return exitcodes.OK


def _status_one(out: Output, spec: ServerSpec) -> int:
    from inspector.core.auth.session import session_for

    session = session_for(spec)
    assert session is not None
    record = session.status()
    record["settings"] = spec.auth.describe() if spec.auth is not None else None
    if out.json:
        out.json_value(record)
    else:
        _print_record(out, record)
    return exitcodes.OK


def _logout(out: Output, spec: ServerSpec) -> int:
    from inspector.core.auth.session import session_for

    session = session_for(spec)
    assert session is not None
    unsubscribe = None
    if not out.json:
        # Each revocation as it happens; a failure is reported, and the logout goes on.
        unsubscribe = session.log.subscribe(
            lambda event: out.line(event_line(event)) if event.step == "revoked" else None
        )
    try:
        removed, revoked = asyncio.run(session.logout_revoking())
    finally:
        if unsubscribe is not None:
            unsubscribe()
    failed = [item for item in revoked if item.outcome == "failed"]
    if out.json:
        out.json_value(
            {"server": session.server_url, "removed": removed, "revoked": [item.to_dict() for item in revoked]}
        )
    else:
        out.line(f"{session.server_url}: " + ("stored tokens removed" if removed else "nothing was stored"))
    for item in failed:
        text = f"inspector: warning: the {item.token_type_hint.replace('_', ' ')} was not revoked: {item.detail}"
        print(visible(session.secrets.scrub(text)), file=sys.stderr)
    return exitcodes.OK


async def _login(out: Output, spec: ServerSpec, args: argparse.Namespace) -> int:
    from inspector.core.auth.errors import AuthError
    from inspector.core.auth.session import session_for
    from inspector.core.record.frame_lines import JsonlRecorder
    from inspector.core.record.traffic import TrafficLog

    config = spec.auth
    assert config is not None
    _ask_on_terminal(config)
    session = session_for(spec)
    assert session is not None
    recorder = None
    if getattr(args, "record", None):
        from inspector.core.record.secret_mask import secret_masker

        traffic = TrafficLog(retain=False)
        try:
            recorder = JsonlRecorder.open(args.record, secret_masker(spec))
        except OSError as exc:
            print(f"inspector: cannot write --record file: {exc.strerror or exc}", file=sys.stderr)
            return exitcodes.USAGE
        traffic.subscribe(recorder)
        session.attach(traffic)
    first = session.log.events[-1].seq if session.log.events else 0
    unsubscribe = None if out.json else session.log.subscribe(lambda event: out.line(event_line(event)))
    code = exitcodes.OK
    error: AuthError | None = None
    try:
        await session.login(force=True, headers=dict(spec.headers))
    except AuthError as exc:
        error, code = exc, login_exit_code(exc)
    finally:
        if unsubscribe is not None:
            unsubscribe()
        if recorder is not None:
            recorder.close()
    _report_login(out, session, error, first)
    return code


def _ask_on_terminal(config: AuthConfig) -> None:
    """What the login says, asks and is pasted go through the terminal, where the settings leave them open."""
    if config.notify is None:
        config.notify = _notify
    if config.confirm is None and _at_terminal():
        config.confirm = ask_on_terminal
    if config.paste is None and config.browser == "handoff":
        from inspector.core.auth.handoff import read_stdin_line

        config.paste = read_stdin_line


def _report_login(out: Output, session: OAuthSession, error: AuthError | None, first: int) -> None:
    """The login's outcome: the status and its events as JSON, or a line; the error on stderr."""
    status = session.status()
    if out.json:
        out.json_value(
            {
                **status,
                "error": str(error) if error is not None else None,
                "events": [event.to_dict() for event in session.log.since(first)],
            }
        )
    elif error is None:
        current = next((i for i in status["issuers"] if i["issuer"] == status.get("current_issuer")), None)
        scope = current.get("scope") if current else None
        out.line(f"logged in to {session.server_url} (scope {scope or 'not stated'}; stored in {status['store']})")
    if error is not None:
        print(f"inspector: {visible(session.secrets.scrub(str(error)))}", file=sys.stderr)
