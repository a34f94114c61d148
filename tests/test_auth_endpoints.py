"""Where a login may go, and whose time it takes.

Against tests/servers/auth_server.py, served on two loopback ports (two
origins of one server): protected resource metadata naming a plain-http
authorization server off loopback (refused before any connection, the error
naming it and the metadata that named it), endpoints on another origin than
the issuer (refused without a person, confirmed on a terminal, allowed with
--allow-cross-origin-auth), and a person who takes longer at the browser than
the request's --timeout (the login has its own deadline; the request's clock
starts when it is sent with the token), and a login whose deadline runs out
while a server keeps it waiting (the error names that server and its URL).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from inspector.commands import exitcodes
from inspector.core.auth.browser import HeadlessUserAgent
from inspector.core.auth.config import AuthConfig
from inspector.core.auth.endpoints import insecure, is_loopback, origin, other_origins
from inspector.core.auth.errors import AuthError, LoginTimedOut
from inspector.core.auth.session import session_for
from inspector.core.auth.store import TokenStore
from inspector.core.protocol.client import Client
from inspector.core.protocol.session import SENDING
from inspector.core.servers.spec import ServerSpec

from .auth_helpers import LOGIN_DEADLINE, control, protected_server, stats
from .peers import SERVERS, free_port, run_inspector
from .terminal import answer_on_terminal
from .waiting import eventually

NOWHERE = "http://auth.invalid/"
# What the traffic log says of a request that ran out of time.
TIMED_OUT = re.compile(r"no response within|did not answer|timed out")


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[str, str]]:
    """The server's base URL, and the same server on a second port (another origin)."""
    second = free_port()
    with protected_server("auth_server.py", "--second-port", str(second)) as base:
        yield base, f"http://127.0.0.1:{second}"


def no_terminal(config_dir: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_inspector(*args, env={"INSPECTOR_CONFIG_DIR": str(config_dir), **(env or {})})


def headless(base: str, config_dir: Path, *, login_timeout: float, timeout: float) -> ServerSpec:
    """The server's /mcp, with a headless login (its own deadline) and this request timeout."""
    config = AuthConfig(store=TokenStore(config_dir), browser="headless", timeout=login_timeout)
    return ServerSpec(transport="http", url=f"{base}/mcp", timeout=timeout, auth=config)


async def refused(spec: ServerSpec, error: type[Exception]) -> str:
    """Connecting fails with `error`: its message."""
    client = Client(spec)
    with pytest.raises(error) as caught:
        await client.connect()
    await client.close()
    return str(caught.value)


# -- the rules ------------------------------------------------------------------------------------


def test_https_or_loopback() -> None:
    host: str | None
    for host in ("127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "LOCALHOST", "app.localhost"):
        assert is_loopback(host), host
    for host in ("auth.invalid", "10.0.0.1", "0.0.0.0", "localhost.example.com", "", None):
        assert not is_loopback(host), host
    assert insecure("https://auth.example.com/token") is None
    assert insecure("http://127.0.0.1:8080/auth") is None
    assert insecure("http://[::1]:8080/auth") is None
    assert insecure("http://localhost/auth") is None
    assert "HTTPS" in (insecure(NOWHERE) or "")
    assert "HTTPS" in (insecure("http://192.0.2.1/token") or "")
    assert "'ftp'" in (insecure("ftp://auth.example.com/") or "")


def test_origins() -> None:
    assert origin("https://Auth.Example.com:443/x?y") == "https://auth.example.com"
    assert origin("http://127.0.0.1:80/") == "http://127.0.0.1"
    assert origin("http://127.0.0.1:8080/a") == "http://127.0.0.1:8080"
    issuer = "https://auth.example.com/tenant"
    endpoints = {
        "authorization endpoint": "https://auth.example.com/authorize",
        "token endpoint": "https://tokens.example.net/token",
        "registration endpoint": None,
    }
    assert other_origins(issuer, endpoints) == [("token endpoint", "https://tokens.example.net/token")]
    assert other_origins(issuer, {"token endpoint": "http://auth.example.com/token"}) != []  # scheme differs


# -- a plain-http authorization server ------------------------------------------------------------


async def test_a_plain_http_authorization_server_is_refused_before_any_connection(
    servers: tuple[str, str], config_dir: Path
) -> None:
    base, _second = servers
    control(base, prm_server=NOWHERE)
    try:
        spec = headless(base, config_dir, login_timeout=30.0, timeout=20.0)
        message = await refused(spec, AuthError)
        assert NOWHERE in message and "HTTPS" in message
        # The metadata that named it is named too; the MCP server is not blamed.
        assert f"{base}/.well-known/oauth-protected-resource/mcp" in message
        assert "cannot reach" not in message
        session = session_for(spec)
        assert session is not None
        # Not one request went to it.
        urls = [event.http.url for event in session.log.events if event.http is not None]
        assert urls and not [url for url in urls if "auth.invalid" in url], urls
        failure = session.log.last_failure()
        assert failure is not None and failure.step == "server-metadata" and NOWHERE in failure.title
    finally:
        control(base)


def test_the_command_line_names_the_refused_authorization_server(servers: tuple[str, str], config_dir: Path) -> None:
    base, _second = servers
    control(base, prm_server=NOWHERE)
    try:
        result = no_terminal(config_dir, "auth", "login", "--url", f"{base}/mcp", "--oauth-browser", "headless")
        assert result.returncode == exitcodes.CANNOT_CONNECT, result.stdout + result.stderr
        assert NOWHERE in result.stderr and "HTTPS" in result.stderr
        assert "Traceback" not in result.stderr
    finally:
        control(base)


# -- endpoints on another origin ------------------------------------------------------------------


def test_endpoints_on_another_origin_are_refused_without_a_terminal(servers: tuple[str, str], config_dir: Path) -> None:
    base, second = servers
    control(base, endpoint_base=second)
    try:
        before = stats(base)
        result = no_terminal(config_dir, "auth", "login", "--url", f"{base}/mcp", "--oauth-browser", "headless")
        assert result.returncode == exitcodes.CANNOT_CONNECT, result.stdout + result.stderr
        assert f"{second}/auth/register" in result.stderr and f"{second}/auth/token" in result.stderr
        assert "--allow-cross-origin-auth" in result.stderr
        after = stats(base)
        # Refused before anything was registered or authorized there.
        assert (after["register"], after["authorize"]) == (before["register"], before["authorize"])
        # The same inside a command: the login starts in the first request, and is refused.
        result = no_terminal(config_dir, "list", "tools", "--url", f"{base}/mcp", "--oauth-browser", "headless")
        assert result.returncode == exitcodes.CANNOT_CONNECT, result.stdout + result.stderr
        assert f"{second}/auth/token" in result.stderr and "--allow-cross-origin-auth" in result.stderr
    finally:
        control(base)


def test_the_option_allows_endpoints_on_another_origin_with_a_warning(
    servers: tuple[str, str], config_dir: Path
) -> None:
    base, second = servers
    control(base, endpoint_base=second)
    try:
        result = no_terminal(
            config_dir,
            "call",
            "whoami",
            "--url",
            f"{base}/mcp",
            "--oauth-browser",
            "headless",
            "--allow-cross-origin-auth",
            "--yes",
            "--json",
        )
        assert result.returncode == exitcodes.OK, result.stdout + result.stderr
        assert "hello, authorized client" in result.stdout
        warning = next(line for line in result.stderr.splitlines() if line.startswith("warning:"))
        assert f"{second}/auth/token" in warning and f"{base}/auth" in warning
    finally:
        control(base)


@pytest.mark.parametrize(("answer", "code"), [("y", exitcodes.OK), ("n", exitcodes.INTERRUPTED)])
def test_a_person_at_a_terminal_is_asked_about_another_origin(
    servers: tuple[str, str], config_dir: Path, answer: str, code: int
) -> None:
    base, second = servers
    control(base, endpoint_base=second)
    try:
        before = stats(base)
        env = {**os.environ, "INSPECTOR_CONFIG_DIR": str(config_dir)}
        argv = [sys.executable, "-m", "inspector", "auth", "login", "--url", f"{base}/mcp", "--oauth-browser"]
        returned, seen = answer_on_terminal(
            [*argv, "headless"], b"Continue with this login? [y/N]", answer, timeout=60, env=env
        )
        assert returned == code, seen
        assert "other origins" in seen and f"{second}/auth/authorize" in seen
        registered = stats(base)["register"] - before["register"]
        assert registered == (1 if answer == "y" else 0)
    finally:
        control(base)


# -- the login's time is not the server's ---------------------------------------------------------


async def test_the_request_clock_waits_for_the_login(servers: tuple[str, str], config_dir: Path) -> None:
    """The person comes back only after the first request's own timeout has passed: the
    request's clock was held while they were away, and the request succeeds."""
    base, _second = servers
    control(base)
    held: list[tuple[str, float | None]] = []

    async def slow_person(url: str) -> None:
        sending = SENDING.get()
        assert sending is not None  # the login runs inside the send of an MCP request
        session, request_id = sending
        pending = session._pending[request_id]
        assert pending.timeout is not None
        held.append((pending.method, pending.deadline))
        # The state waited for is "this request's own timeout is over" (its clock is perf_counter's).
        timeout_over = pending.started + pending.timeout
        await eventually(lambda: time.perf_counter() > timeout_over, "the request's own timeout to pass")
        await HeadlessUserAgent()(url)

    config = AuthConfig(store=TokenStore(config_dir), opener=slow_person, timeout=120.0)
    # Short enough that the person outlasts it, long enough that no request
    # (all are checked for a timeout below) runs out of it on a loaded machine.
    spec = ServerSpec(transport="http", url=f"{base}/mcp", timeout=5.0, auth=config)
    client = Client(spec)
    try:
        await client.connect()
        tools = await client.list_all("tools")
    finally:
        await client.close()
    assert "whoami" in [tool.key for tool in tools.items]
    assert held and held[0][1] is None, held  # no deadline while the person was away
    timeouts = [frame.note for frame in client.traffic.frames if TIMED_OUT.search(frame.note or "")]
    assert not timeouts, timeouts


def test_a_person_slower_than_the_timeout_still_logs_in(
    servers: tuple[str, str], config_dir: Path, tmp_path: Path
) -> None:
    """The command line, without a terminal: the login runs inside the first request; the
    person (the system browser of `$BROWSER`) takes longer than --timeout to approve."""
    base, _second = servers
    control(base)
    browser = tmp_path / "fake-browser"
    browser.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{SERVERS / "fake_browser.py"}" "$@"\n')
    browser.chmod(0o755)
    opened = tmp_path / "opened.txt"
    # The point is to exceed --timeout: the person's delay is longer than it.
    env = {"BROWSER": str(browser), "FAKE_BROWSER_LOG": str(opened), "FAKE_BROWSER_DELAY": "3"}
    record = tmp_path / "session.jsonl"
    result = no_terminal(
        config_dir,
        "call",
        "whoami",
        "--url",
        f"{base}/mcp",
        "--timeout",
        "1",
        "--oauth-timeout",
        "120",
        "--record",
        str(record),
        "--yes",
        "--json",
        env=env,
    )
    assert result.returncode == exitcodes.OK, result.stdout + result.stderr
    assert "hello, authorized client" in result.stdout
    assert "200 http://127.0.0.1:" in opened.read_text()  # the person did approve, in the browser
    notes = [json.loads(line).get("note") or "" for line in record.read_text().splitlines()]
    assert "auth retry: the server accepted the token" in " ".join(notes)
    # No request of the session timed out (the era probe included), and nothing was answered late.
    assert not [note for note in notes if TIMED_OUT.search(note)], notes


def test_a_login_nobody_finishes_blames_the_login(servers: tuple[str, str], config_dir: Path) -> None:
    """The login runs inside the first request (no terminal) and nobody opens its URL: the
    login's deadline ends it while it waits for the person, and neither server is blamed."""
    base, _second = servers
    control(base)
    result = no_terminal(
        config_dir,
        "list",
        "tools",
        "--url",
        f"{base}/mcp",
        "--oauth-browser",
        "print",
        "--timeout",
        "30",
        "--oauth-timeout",
        f"{LOGIN_DEADLINE:g}",
        "--json",
    )
    assert result.returncode == exitcodes.TIMEOUT, result.stdout + result.stderr
    assert "Open this URL to authorize" in result.stderr  # discovery and registration were done
    assert f"login timed out after {LOGIN_DEADLINE:g} s (--oauth-timeout)" in result.stderr
    assert "no redirect came back to http://127.0.0.1:" in result.stderr
    assert "did not answer" not in result.stderr


async def test_a_silent_authorization_server_is_bounded_by_the_login_deadline(
    servers: tuple[str, str], config_dir: Path
) -> None:
    """An authorization server that accepts the connection and never answers: the login's
    deadline ends it, and the error names the server and the URL that did not answer (the MCP
    server's resource metadata, before it, is answered well within the deadline)."""
    base, _second = servers
    # The connections it accepted, kept to be closed at the end (it never answers on them).
    accepted: list[asyncio.StreamWriter] = []
    silent = await asyncio.start_server(lambda _r, writer: accepted.append(writer), "127.0.0.1", 0)
    port = silent.sockets[0].getsockname()[1]
    control(base, prm_server=f"http://127.0.0.1:{port}/auth")
    try:
        spec = headless(base, config_dir, login_timeout=LOGIN_DEADLINE, timeout=30.0)
        message = await refused(spec, LoginTimedOut)
        assert f"after {LOGIN_DEADLINE:g} s (--oauth-timeout)" in message
        assert f"the authorization server did not answer GET http://127.0.0.1:{port}/.well-known/" in message
        assert "did not answer server/discover" not in message and "did not answer initialize" not in message
    finally:
        silent.close()
        for writer in accepted:
            writer.close()
            with contextlib.suppress(ConnectionError):  # the inspector may have reset it first
                await writer.wait_closed()
        control(base)


async def test_resource_metadata_the_mcp_server_keeps_waiting_for_blames_the_mcp_server(
    servers: tuple[str, str], config_dir: Path
) -> None:
    """The MCP server challenges at once and then never answers for its own protected resource
    metadata, the login's first step: the deadline ends it there whatever the machine's speed,
    and the error names the MCP server, not an authorization server it has not named yet."""
    base, _second = servers
    control(base, silent_prm=True)
    try:
        message = await refused(headless(base, config_dir, login_timeout=0.5, timeout=30.0), LoginTimedOut)
    finally:
        control(base)
    prm = f"{base}/.well-known/oauth-protected-resource/mcp"
    assert message.startswith("login timed out after 0.5 s (--oauth-timeout): "), message
    assert f"the MCP server did not answer GET {prm} within the " in message
    assert "s the login had left" in message
    assert "authorization server" not in message


@pytest.mark.parametrize("answer", ["y", "n"])
async def test_the_tui_asks_before_using_another_origin(
    servers: tuple[str, str], config_dir: Path, answer: str
) -> None:
    from textual.widgets import Static

    from inspector.tui.app import InspectorApp
    from inspector.tui.panes.auth import CrossOriginScreen

    from .tui_helpers import wait_for

    base, second = servers
    control(base, endpoint_base=second)
    try:
        before = stats(base)
        config = AuthConfig(store=TokenStore(config_dir), browser="headless", timeout=60.0)
        app = InspectorApp(ServerSpec(transport="http", url=f"{base}/mcp", auth=config))
        async with app.run_test(size=(150, 50)) as pilot:
            await wait_for(
                pilot,
                lambda: isinstance(app.screen, CrossOriginScreen) and bool(app.screen.query("#cross-origin-text")),
                "the question",
                timeout=30,
            )
            text = str(app.screen.query_one("#cross-origin-text", Static).render())
            assert f"{second}/auth/register" in text and f"{base}/auth" in text
            assert stats(base)["register"] == before["register"]  # asked before anything was sent there
            await pilot.press(answer)
            if answer == "y":
                await wait_for(pilot, lambda: app.client.state == "connected", "connected after login", timeout=30)
                assert stats(base)["register"] == before["register"] + 1
            else:
                await wait_for(pilot, lambda: app.connect_failure is not None, "the refusal", timeout=30)
                assert "login refused" in (app.connect_failure or "")
                assert stats(base)["register"] == before["register"]
    finally:
        control(base)
