"""Authorization against a protected MCP server and its authorization server
on this machine (tests/servers/auth_server.py): first login, token reuse by a
second process, refresh after expiry, step-up and its limits, a wrong issuer
(in the redirect and in the metadata), a cancelled, interrupted, denied and
timed-out login, a fixed redirect port, the system browser (through
`$BROWSER`), the server named by a positional, static credentials, and no
secret in a recording.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from inspector.commands import exitcodes
from inspector.core.auth import clock
from inspector.core.auth.challenges import MAX_STEP_UPS
from inspector.core.auth.config import AuthConfig
from inspector.core.auth.errors import AuthError, LoginAborted, LoginTimedOut
from inspector.core.auth.session import OAuthSession, session_for
from inspector.core.auth.store import TokenStore, server_key
from inspector.core.protocol.client import Client
from inspector.core.servers.spec import ServerSpec

from .auth_helpers import LOGIN_DEADLINE, control, protected_server, stats
from .peers import PYTHON, SERVERS, free_port, run_inspector
from .terminal import interruptible
from .waiting import HANG, eventually, eventually_sync


@pytest.fixture(scope="module")
def auth_server() -> Iterator[str]:
    with protected_server("auth_server.py") as base:
        yield base


def cli(
    config_dir: Path, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return run_inspector(*args, env={"INSPECTOR_CONFIG_DIR": str(config_dir), **(env or {})}, cwd=cwd)


def spec_for(base: str, config_dir: Path, **settings: Any) -> ServerSpec:
    settings = {"browser": "headless", "timeout": HANG, **settings}
    config = AuthConfig(store=TokenStore(config_dir), **settings)
    return ServerSpec(transport="http", url=f"{base}/mcp", timeout=HANG, auth=config)


def steps(session: OAuthSession) -> list[tuple[str, str]]:
    return [(event.step, event.status) for event in session.log.events]


def test_first_login_then_a_second_process_reuses_the_token(auth_server: str, config_dir: Path) -> None:
    control(auth_server)
    before = stats(auth_server)
    url = f"{auth_server}/mcp"
    login = cli(config_dir, "auth", "login", "--url", url, "--oauth-browser", "headless", "--json")
    assert login.returncode == exitcodes.OK, login.stderr
    report = json.loads(login.stdout)
    assert report["logged_in"] and report["current_issuer"] == f"{auth_server}/auth"
    names = [event["step"] for event in report["events"]]
    for step in ("challenge", "resource-metadata", "server-metadata", "registration", "authorization", "callback"):
        assert step in names
    assert ("token", "ok") in [(e["step"], e["status"]) for e in report["events"]]
    # Stored per server, readable by the user only, and never printed.
    files = list((config_dir / "auth").glob("*.json"))
    assert len(files) == 1 and stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert stat.S_IMODE((config_dir / "auth").stat().st_mode) == 0o700
    record = json.loads(files[0].read_text())
    token = record["issuers"][f"{auth_server}/auth"]["token"]["access_token"]
    assert token not in login.stdout + login.stderr

    second = cli(config_dir, "list", "tools", "--url", url, "--oauth-browser", "headless", "--json")
    assert second.returncode == exitcodes.OK, second.stderr
    assert "admin_tool" in second.stdout
    after = stats(auth_server)
    assert after["authorize"] - before["authorize"] == 1  # the second process did not log in again
    assert after["token"] - before["token"] == 1

    status = cli(config_dir, "auth", "status", "--json")
    listed = json.loads(status.stdout)["servers"]
    assert [s["server"] for s in listed] == [url] and listed[0]["logged_in"]
    assert token not in status.stdout
    out = cli(config_dir, "auth", "logout", "--url", url, "--json")
    assert json.loads(out.stdout)["removed"] is True
    assert not list((config_dir / "auth").glob("*.json"))


# Past the lifetime of the test server's tokens (an hour).
AFTER_EXPIRY = 3600 + 60


def expire_stored_tokens(config_dir: Path) -> None:
    """Move the recorded expiry of every stored token into the past: what a
    later process reads as an expired token.  The server's own lifetime for
    it is an hour, so only the client's view changes (a process started by
    the test offers no clock to move)."""
    (path,) = (config_dir / "auth").glob("*.json")
    record = json.loads(path.read_text())
    for entry in record["issuers"].values():
        entry["expires_at"] = time.time() - 60
    path.write_text(json.dumps(record))


async def test_refresh_after_expiry(auth_server: str, config_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    control(auth_server)
    spec = spec_for(auth_server, config_dir)
    client = Client(spec)
    await client.connect()
    await client.close()
    before = stats(auth_server)
    # The token expires: the auth clock moves past its lifetime (no waiting for it).
    monkeypatch.setattr(clock, "now", lambda: time.time() + AFTER_EXPIRY)
    # A new process's view: a fresh session over the same store.
    spec = spec_for(auth_server, config_dir)
    client = Client(spec)
    await client.connect()
    listing = await client.list_all("tools")
    await client.close()
    assert "whoami" in listing.names()
    after = stats(auth_server)
    assert after["refresh"] - before["refresh"] == 1
    assert after["authorize"] == before["authorize"]
    session = session_for(spec)
    assert session is not None
    assert any("expired" in event.title for event in session.log.events if event.step == "stored")
    session = session_for(spec)
    assert session is not None
    assert ("refresh", "ok") in steps(session) and ("authorization", "waiting") not in steps(session)


async def test_step_up_unites_the_scopes(auth_server: str, config_dir: Path) -> None:
    control(auth_server)
    spec = spec_for(auth_server, config_dir)
    client = Client(spec)
    await client.connect()
    result = await client.call_tool("admin_tool", {})
    await client.close()
    assert "admin ok" in json.dumps(result)
    session = session_for(spec)
    assert session is not None
    scopes = [e.data["scope"] for e in session.log.events if e.step == "scope" and e.data]
    assert scopes[0] == "mcp:read"
    assert set(scopes[-1].split()) == {"mcp:read", "mcp:admin"}
    challenge = [e for e in session.log.events if e.step == "challenge"][-1]
    assert "insufficient_scope" in challenge.title and challenge.http is not None
    assert challenge.http.status == 403


async def test_wrong_issuer_is_rejected_before_the_token_request(auth_server: str, config_dir: Path) -> None:
    control(auth_server, wrong_iss=True)
    try:
        before = stats(auth_server)
        spec = spec_for(auth_server, config_dir)
        client = Client(spec)
        with pytest.raises(AuthError, match="RFC 9207"):
            await client.connect()
        await client.close()
        assert stats(auth_server)["token"] == before["token"]
        session = session_for(spec)
        assert session is not None
        failure = session.log.last_failure()
        assert failure is not None and failure.step == "callback"
        assert "evil.example.com" in failure.title
    finally:
        control(auth_server)


async def test_a_denied_login_is_aborted(auth_server: str, config_dir: Path) -> None:
    control(auth_server, deny=True)
    try:
        session = OAuthSession(spec_for(auth_server, config_dir).auth or AuthConfig(), f"{auth_server}/mcp")
        with pytest.raises(LoginAborted, match="access_denied"):
            await session.login()
    finally:
        control(auth_server)


async def test_a_cancelled_login_stops_waiting(auth_server: str, config_dir: Path) -> None:
    control(auth_server)
    opened: list[str] = []

    async def person_who_walks_away(url: str) -> None:
        opened.append(url)

    spec = spec_for(auth_server, config_dir, opener=person_who_walks_away, timeout=30.0)
    session = session_for(spec)
    assert session is not None
    login = asyncio.create_task(session.login())
    await eventually(lambda: opened, "the login to open its URL")
    assert session.cancel("the person pressed X")
    with pytest.raises(LoginAborted, match="cancelled"):
        await login
    assert ("authorization", "waiting") in steps(session)
    assert session.log.events[-1].failed
    # Nothing was stored, and the listener is gone.
    assert session.status()["logged_in"] is False


def test_a_login_times_out_cleanly(auth_server: str, config_dir: Path) -> None:
    """Nobody opens the printed URL, so the authorization never completes: the
    login gives up at its deadline, says so, stores nothing and leaves nothing
    running."""
    control(auth_server)
    url = f"{auth_server}/mcp"
    argv = ["auth", "login", "--url", url, "--oauth-browser", "print", "--oauth-timeout", f"{LOGIN_DEADLINE:g}"]
    process = subprocess.Popen(
        [PYTHON, "-m", "inspector", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "INSPECTOR_CONFIG_DIR": str(config_dir)},
        # Its own process group: what it started would still be in it.
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=HANG)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        # communicate closed them, unless it ran out of time (then the collector would report them later).
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
    assert process.returncode == exitcodes.TIMEOUT, stdout + stderr
    assert "Open this URL to authorize" in stderr and "/auth/authorize?" in stderr
    # Timed out waiting for the person (discovery and registration were done).
    assert f"login timed out after {LOGIN_DEADLINE:g} s" in stderr
    assert "no redirect came back to http://127.0.0.1:" in stderr
    assert "Traceback" not in stderr
    with pytest.raises(ProcessLookupError):
        os.killpg(process.pid, 0)
    status = json.loads(cli(config_dir, "auth", "status", "--url", url, "--json").stdout)
    assert status["logged_in"] is False


async def test_a_timed_out_login_is_a_timeout_and_a_cancelled_one_is_not(auth_server: str, config_dir: Path) -> None:
    control(auth_server)

    async def nobody_comes_back(url: str) -> None:
        return None

    spec = spec_for(auth_server, config_dir, opener=nobody_comes_back, timeout=0.3)
    session = session_for(spec)
    assert session is not None
    with pytest.raises(LoginTimedOut, match="timed out"):
        await session.login()
    assert session.log.events[-1].failed and "timed out" in session.log.events[-1].title
    # Cancelled: aborted, and not a timeout.
    opened: list[str] = []

    async def walks_away(url: str) -> None:
        opened.append(url)

    session.config.opener = walks_away
    session.config.timeout = 30.0
    login = asyncio.create_task(session.login())
    await eventually(lambda: opened, "the login to open its URL")
    assert session.cancel("the person pressed X")
    with pytest.raises(LoginAborted) as caught:
        await login
    assert not isinstance(caught.value, LoginTimedOut)


def test_ctrl_c_interrupts_a_waiting_login(auth_server: str, config_dir: Path, tmp_path: Path) -> None:
    control(auth_server)
    url = f"{auth_server}/mcp"
    errors = tmp_path / "stderr.txt"
    env = {**os.environ, "INSPECTOR_CONFIG_DIR": str(config_dir)}
    with errors.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "inspector", "auth", "login", "--url", url, "--oauth-browser", "print"],
            stdout=subprocess.DEVNULL,
            stderr=sink,
            env=env,
            preexec_fn=interruptible,
        )
        try:
            eventually_sync(
                lambda: "Waiting up to" in errors.read_text() or process.poll() is not None, "the login to wait"
            )
            assert process.poll() is None, errors.read_text()
            process.send_signal(signal.SIGINT)
            # Generous: only a hang reaches it (on an idle machine the exit takes a fraction of a second).
            code = process.wait(60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(5)
    assert code == exitcodes.INTERRUPTED, errors.read_text()
    assert "interrupted" in errors.read_text()


def test_ctrl_c_on_the_terminal_ends_a_login_whose_browser_stays_open(
    auth_server: str, config_dir: Path, tmp_path: Path
) -> None:
    """A browser command that does not return (it stays open, deaf to SIGINT): Ctrl-C typed
    on the terminal ends the login all the same; nothing waits for the browser's thread."""
    import pty

    from .terminal import _take_terminal

    control(auth_server)
    browser = tmp_path / "fake-browser"
    browser.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{SERVERS / "fake_browser.py"}" "$@"\n')
    browser.chmod(0o755)
    opened = tmp_path / "opened.txt"
    env = {
        **os.environ,
        "INSPECTOR_CONFIG_DIR": str(config_dir),
        "BROWSER": str(browser),
        "FAKE_BROWSER_LOG": str(opened),
        "FAKE_BROWSER_STAY": "1",
    }
    argv = [sys.executable, "-m", "inspector", "auth", "login", "--url", f"{auth_server}/mcp"]
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        argv, stdin=follower, stdout=follower, stderr=follower, env=env, preexec_fn=_take_terminal
    )
    os.close(follower)
    seen = b""
    try:
        deadline = time.monotonic() + 60
        while not (b"Waiting up to" in seen and opened.exists() and "pid" in opened.read_text()):
            assert process.poll() is None and time.monotonic() < deadline, seen.decode(errors="replace")
            if _readable(leader):
                seen += os.read(leader, 4096)
        os.write(leader, b"\x03")  # Ctrl-C, as typed: the terminal sends SIGINT to the foreground group
        deadline = time.monotonic() + 60  # generous: only a hang reaches it
        while process.poll() is None and time.monotonic() < deadline:
            try:
                seen += os.read(leader, 4096) if _readable(leader) else b""
            except OSError:
                break
        # The terminal closes before the process has ended (EIO above): wait for the exit itself.
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(max(0.0, deadline - time.monotonic()))
        code = process.poll()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(5)
        os.close(leader)
        for line in opened.read_text().splitlines() if opened.exists() else []:
            if line.startswith("pid "):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(line[4:]), signal.SIGTERM)
    text = seen.decode("utf-8", "replace")
    assert code == exitcodes.INTERRUPTED, text
    assert "interrupted" in text


def test_a_command_whose_login_times_out_exits_with_the_timeout_code(auth_server: str, config_dir: Path) -> None:
    """With a person at a terminal a command logs in before connecting; nobody finishes it."""
    import pty

    control(auth_server)
    url = f"{auth_server}/mcp"
    leader, follower = pty.openpty()
    try:
        env = {**os.environ, "INSPECTOR_CONFIG_DIR": str(config_dir)}
        argv = ["list", "tools", "--url", url, "--oauth-browser", "print", "--oauth-timeout", "0.5", "--json"]
        process = subprocess.Popen(
            [sys.executable, "-m", "inspector", *argv],
            stdin=follower,
            stdout=subprocess.PIPE,
            stderr=follower,
            env=env,
        )
        os.close(follower)
        follower = -1
        seen = b""
        deadline = time.monotonic() + 60
        while process.poll() is None and time.monotonic() < deadline:
            try:
                chunk = os.read(leader, 4096) if _readable(leader) else b""
            except OSError:
                break
            seen += chunk
        code = process.wait(HANG)  # the exit itself, after the terminal closed
        assert process.stdout is not None
        process.stdout.close()
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)
    text = seen.decode("utf-8", "replace")
    assert code == exitcodes.TIMEOUT, text
    assert "timed out" in text


def _readable(fd: int) -> bool:
    import select

    ready, _, _ = select.select([fd], [], [], 0.1)
    return bool(ready)


def test_static_bearer_and_no_secret_in_the_recording(auth_server: str, config_dir: Path, tmp_path: Path) -> None:
    control(auth_server)
    url = f"{auth_server}/mcp"
    record = tmp_path / "session.jsonl"
    first = cli(
        config_dir, "call", "admin_tool", "--yes", "--url", url, "--oauth-browser", "headless", "--record", str(record)
    )
    assert first.returncode == exitcodes.OK, first.stderr
    text = record.read_text()
    issued = stats(auth_server)["issued"]
    assert issued and not [secret for secret in issued if secret in text]
    kinds = {json.loads(line)["kind"] for line in text.splitlines()}
    assert "auth" in kinds  # the flow itself is in the recording, masked
    assert "Bearer ***" in text

    # A stored token used as a static credential: no OAuth, masked everywhere.
    stored = json.loads(next((config_dir / "auth").glob("*.json")).read_text())
    token = stored["issuers"][f"{auth_server}/auth"]["token"]["access_token"]
    static_record = tmp_path / "static.jsonl"
    env_dir = tmp_path / "empty-config"
    os.environ["AUTH_TEST_TOKEN"] = token
    try:
        ok = cli(
            env_dir, "list", "tools", "--url", url, "--bearer-env", "AUTH_TEST_TOKEN", "--record", str(static_record)
        )
        # A wrong static token stays the one sent, even with a stored OAuth token at hand.
        bad = cli(config_dir, "list", "tools", "--url", url, "--bearer", "not-a-valid-token")
    finally:
        del os.environ["AUTH_TEST_TOKEN"]
    assert ok.returncode == exitcodes.OK, ok.stderr
    assert token not in static_record.read_text() and token not in ok.stdout + ok.stderr
    assert bad.returncode == exitcodes.CANNOT_CONNECT
    assert "not-a-valid-token" not in bad.stderr
    assert "401" in bad.stderr and "OAuth is off" in bad.stderr
    assert not (env_dir / "auth").exists()


def test_usage_errors() -> None:
    result = cli(Path("/nonexistent"), "list", "tools", "--bearer", "x", "--", "true")
    assert result.returncode == exitcodes.USAGE and "only for remote" in result.stderr
    result = cli(Path("/nonexistent"), "auth", "login")
    assert result.returncode == exitcodes.USAGE
    result = cli(Path("/nonexistent"), "auth", "status", "--url", "http://x/mcp", "--client-metadata-url", "http://x")
    assert result.returncode == exitcodes.USAGE and "https" in result.stderr
    result = cli(Path("/nonexistent"), "auth", "status", "--url", "http://x/mcp", "--oauth-timeout", "0")
    assert result.returncode == exitcodes.USAGE and "--oauth-timeout must be positive" in result.stderr


def test_oauth_port_zero_is_given_over_a_config_entrys_port(tmp_path: Path) -> None:
    """0 (any free port) is a value the person gave, not a flag left unset."""
    import argparse

    from inspector.cli.parser import build_parser
    from inspector.core.servers.from_args import spec_from_args, split_server_command

    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps({"mcpServers": {"remote": {"url": "http://127.0.0.1:9/mcp", "oauth": {"callbackPort": 8123}}}})
    )
    own, command = split_server_command(["list", "tools", "--config", str(config), "--server", "remote"])
    from_file = spec_from_args(build_parser().parse_args(own), command)
    assert from_file.auth is not None and from_file.auth.callback_port == 8123
    own, command = split_server_command([*own, "--oauth-port", "0"])
    args: argparse.Namespace = build_parser().parse_args(own)
    spec = spec_from_args(args, command)
    assert spec.auth is not None and spec.auth.callback_port == 0


def test_server_key_is_the_canonical_resource() -> None:
    assert server_key("HTTP://Example.COM/mcp/") == "http://example.com/mcp"
    assert server_key("https://example.com/") == "https://example.com"
    assert server_key("https://example.com/a#frag") == "https://example.com/a"


def test_client_credentials_grant(auth_server: str, config_dir: Path) -> None:
    control(auth_server)
    before = stats(auth_server)
    url = f"{auth_server}/mcp"
    env_secret = "AUTH_TEST_MACHINE_SECRET"
    os.environ[env_secret] = "machine-secret-4f1c"
    try:
        result = cli(
            config_dir,
            "list",
            "tools",
            "--url",
            url,
            "--oauth-grant",
            "client_credentials",
            "--client-id",
            "machine-client",
            "--client-secret-env",
            env_secret,
            "--json",
        )
    finally:
        del os.environ[env_secret]
    assert result.returncode == exitcodes.OK, result.stderr
    after = stats(auth_server)
    assert after["client_credentials"] - before["client_credentials"] == 1
    assert after["authorize"] == before["authorize"] and after["register"] == before["register"]
    assert "machine-secret-4f1c" not in result.stdout + result.stderr


async def test_pre_registered_client_stays_with_its_issuer(auth_server: str, config_dir: Path) -> None:
    control(auth_server)
    before = stats(auth_server)
    spec = spec_for(
        auth_server, config_dir, client_id="machine-client", client_secret="x-secret", issuer="https://other.example"
    )
    client = Client(spec)
    with pytest.raises(AuthError, match=r"belongs to issuer https://other\.example"):
        await client.connect()
    await client.close()
    assert stats(auth_server)["authorize"] == before["authorize"]


async def test_preflight_logs_in_before_connecting(auth_server: str, config_dir: Path) -> None:
    control(auth_server)

    async def approve(url: str) -> None:  # a person who approves at once
        async with httpx2.AsyncClient(follow_redirects=True) as http:
            await http.get(url)

    spec = spec_for(auth_server, config_dir, opener=approve)
    session = session_for(spec)
    assert session is not None
    assert await session.preflight() is True
    assert await session.preflight() is False  # a usable token now
    before = stats(auth_server)
    client = Client(spec)
    await client.connect()
    await client.close()
    after = stats(auth_server)
    assert after["authorize"] == before["authorize"] and after["mcp_401"] == before["mcp_401"]


async def test_tui_logs_in_and_shows_every_step(auth_server: str, config_dir: Path) -> None:
    """The TUI logs in before connecting; the Auth pane lists the steps, masked."""
    from inspector.core.auth.config import AuthConfig
    from inspector.core.servers.spec import ServerSpec
    from inspector.tui.app import InspectorApp
    from inspector.tui.panes.auth import AuthPane

    from .tui_helpers import wait_for

    spec = ServerSpec(transport="http", url=f"{auth_server}/mcp", auth=AuthConfig(browser="headless"))
    app = InspectorApp(spec)
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_for(pilot, lambda: app.client.state == "connected", "connected after login", timeout=30)
        pane = app.query_one(AuthPane)
        steps = [event.step for event in pane.events]
        assert steps, "the Auth pane shows the flow"
        assert any("token" in step for step in steps)
        await pilot.press("f9")

        def auth_tab_drawn() -> bool:
            active = app.query_one("#main").active == "auth"  # type: ignore[attr-defined]
            # The summary's border title, one word (the screenshot is SVG, its spaces are entities).
            return active and "Authorization" in app.export_screenshot()

        await wait_for(pilot, auth_tab_drawn, "the Auth tab drawn")
        shown = app.export_screenshot()
        stored = json.dumps(app.auth_session.status())
        assert "access_token" not in shown or "***" in shown
        assert "Bearer ey" not in shown and stored


# -- step-up limits --------------------------------------------------------------------------


def test_step_up_stops_at_the_limit_with_a_clear_error(auth_server: str, config_dir: Path) -> None:
    """A server that keeps answering insufficient_scope gets MAX_STEP_UPS step-ups for the request, no more."""
    control(auth_server, step_up="always")
    try:
        before = stats(auth_server)
        url = f"{auth_server}/mcp"
        result = cli(config_dir, "call", "admin_tool", "--yes", "--url", url, "--oauth-browser", "headless", "--json")
        after = stats(auth_server)
    finally:
        control(auth_server)
    assert result.returncode == exitcodes.CANNOT_CONNECT, result.stdout + result.stderr
    assert f"after {MAX_STEP_UPS} step-up authorizations for this request: giving up" in result.stderr
    assert "HTTP 403" in result.stderr and "insufficient_scope" in result.stderr
    # The first login, then the step-ups; the request was refused once more than it was stepped up.
    assert after["authorize"] - before["authorize"] == 1 + MAX_STEP_UPS
    assert after["mcp_403"] - before["mcp_403"] == MAX_STEP_UPS + 1


@contextlib.asynccontextmanager
async def stepping_up(
    base: str, config_dir: Path, mode: str
) -> AsyncIterator[tuple[ServerSpec, Client, dict[str, Any]]]:
    """A client connected to the server while its step-up misbehaves as `mode` says, and the server's
    counters once it is; the client closed and the mode back to normal afterwards."""
    control(base, step_up=mode)
    try:
        spec = spec_for(base, config_dir)
        client = Client(spec)
        await client.connect()
        try:
            yield spec, client, stats(base)
        finally:
            await client.close()
    finally:
        control(base)


async def test_a_scope_set_refused_after_step_ups_is_not_asked_for_again(auth_server: str, config_dir: Path) -> None:
    async with stepping_up(auth_server, config_dir, "always") as (spec, client, before):
        with pytest.raises(AuthError, match=f"after {MAX_STEP_UPS} step-up authorizations for this request"):
            await client.call_tool("admin_tool", {})
        assert stats(auth_server)["authorize"] - before["authorize"] == MAX_STEP_UPS
        session = session_for(spec)
        assert session is not None and session.step_ups == {"mcp:admin": MAX_STEP_UPS}
        # The same operation again: refused at once, no browser.
        with pytest.raises(AuthError, match="not asking again"):
            await client.call_tool("admin_tool", {})
        assert stats(auth_server)["authorize"] - before["authorize"] == MAX_STEP_UPS
        # Requests that need no step-up go on working.
        assert "whoami" in (await client.list_all("tools")).names()
        # A new login starts over.
        await session.login()
        assert session.step_ups == {}


async def test_step_ups_that_succeed_never_run_out(auth_server: str, config_dir: Path) -> None:
    """The counter is reset when a request succeeds after a step-up: a long session keeps stepping up."""
    # "once": mcp:admin is good for one admin_tool call per token.
    async with stepping_up(auth_server, config_dir, "once") as (spec, client, before):
        calls = MAX_STEP_UPS + 2
        for _ in range(calls):
            result = await client.call_tool("admin_tool", {})
            assert "admin ok" in json.dumps(result)
        after = stats(auth_server)
    assert after["authorize"] - before["authorize"] == calls  # one successful step-up per call
    session = session_for(spec)
    assert session is not None and session.step_ups == {}
    titles = [e.title for e in session.log.events if e.step == "challenge" and "insufficient_scope" in e.title]
    assert len(titles) == calls and all("step-up authorization 1 of" in title for title in titles)


async def test_a_server_asking_for_new_scopes_every_time_is_limited(auth_server: str, config_dir: Path) -> None:
    async with stepping_up(auth_server, config_dir, "carousel") as (spec, client, before):
        with pytest.raises(AuthError, match=f"after {MAX_STEP_UPS} step-up authorizations for this request"):
            await client.call_tool("admin_tool", {})
        after = stats(auth_server)
    assert after["authorize"] - before["authorize"] == MAX_STEP_UPS
    assert after["mcp_403"] - before["mcp_403"] == MAX_STEP_UPS + 1
    session = session_for(spec)
    assert session is not None
    challenges = [e.data["challenge"] for e in session.log.events if e.step == "challenge" and e.data]
    asked = [c["scope"] for c in challenges if c.get("scope", "").startswith("mcp:extra-")]
    assert len(set(asked)) == MAX_STEP_UPS + 1  # a different scope set every time
    requested = [e.data["scope"] for e in session.log.events if e.step == "scope" and e.data]
    assert set(asked[:MAX_STEP_UPS]) <= set(requested[-1].split())  # united, as step-up asks


# -- the loopback redirect port ----------------------------------------------------------------


def test_a_fixed_oauth_port_is_the_redirect_port(auth_server: str, config_dir: Path) -> None:
    control(auth_server)
    url = f"{auth_server}/mcp"
    port = free_port()
    result = cli(
        config_dir, "auth", "login", "--url", url, "--oauth-browser", "headless", "--oauth-port", str(port), "--json"
    )
    assert result.returncode == exitcodes.OK, result.stderr
    redirect = f"http://127.0.0.1:{port}/callback"
    events = json.loads(result.stdout)["events"]
    waiting = [e for e in events if e["step"] == "authorization" and e["status"] == "waiting"]
    assert waiting and waiting[-1]["data"]["redirect_uri"] == redirect
    assert f"redirect_uri={redirect.replace(':', '%3A').replace('/', '%2F')}" in waiting[-1]["data"]["url"]
    # What the authorization server was asked to redirect to, and what the client registered.
    assert stats(auth_server)["redirect_uris"][-1] == redirect


def test_a_taken_oauth_port_is_a_clear_error(auth_server: str, config_dir: Path) -> None:
    control(auth_server)
    url = f"{auth_server}/mcp"
    before = stats(auth_server)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = cli(
            config_dir, "auth", "login", "--url", url, "--oauth-browser", "headless", "--oauth-port", str(port)
        )
    assert result.returncode == exitcodes.CANNOT_CONNECT, result.stdout + result.stderr
    assert f"cannot listen for the redirect on 127.0.0.1:{port}" in result.stderr
    assert "choose another --oauth-port" in result.stderr
    assert stats(auth_server)["authorize"] == before["authorize"]  # nothing was sent to the browser


# -- the system browser --------------------------------------------------------------------------


def test_the_system_browser_is_opened_through_browser_env(auth_server: str, config_dir: Path, tmp_path: Path) -> None:
    """`$BROWSER` names the browser (Python's webbrowser honours it): here a script that does the person's GET."""
    control(auth_server)
    url = f"{auth_server}/mcp"
    browser = tmp_path / "fake-browser"
    browser.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{SERVERS / "fake_browser.py"}" "$@"\n')
    browser.chmod(0o755)
    opened = tmp_path / "opened.txt"
    env = {"BROWSER": str(browser), "FAKE_BROWSER_LOG": str(opened)}
    result = cli(config_dir, "auth", "login", "--url", url, "--oauth-timeout", "30", "--json", env=env)
    assert result.returncode == exitcodes.OK, result.stdout + result.stderr
    asked, outcome = opened.read_text().splitlines()[:2]
    assert asked.startswith(f"{auth_server}/auth/authorize?")
    assert outcome.startswith("200 http://127.0.0.1:") and "/callback?" in outcome
    assert "Open this URL to authorize" in result.stderr and asked in result.stderr  # printed too, for SSH
    report = json.loads(result.stdout)
    assert report["logged_in"]
    seen = [(e["step"], e["status"], e["title"]) for e in report["events"]]
    assert ("authorization", "info", "opened the system browser") in seen
    assert ("callback", "ok") in [(step, status) for step, status, _ in seen]


# -- the server named by a positional ------------------------------------------------------------


def _auth_args(*argv: str) -> Any:
    """`auth` arguments as the command line gives them, resolved to a spec like inspector.cli does."""
    import argparse

    from inspector.commands.auth import add_auth_arguments, apply_target
    from inspector.core.servers.from_args import spec_from_args

    parser = argparse.ArgumentParser()
    add_auth_arguments(parser)
    for flag in ("--url", "--server", "--config", "--oauth-browser"):
        parser.add_argument(flag)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    apply_target(args)
    named = args.url or args.config or args.server
    spec = spec_from_args(args, []) if named else None
    if spec is not None and spec.auth is not None and args.oauth_browser:
        spec.auth.browser = args.oauth_browser
    return args, spec


def test_the_positional_server_is_a_url_or_a_name(
    auth_server: str, config_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspector.commands.auth import apply_target, run_auth

    control(auth_server)
    url = f"{auth_server}/mcp"
    args, spec = _auth_args("login", url, "--oauth-browser", "headless", "--json")
    assert args.url == url and spec is not None and spec.url == url
    assert run_auth(args, spec) == exitcodes.OK
    assert json.loads(capsys.readouterr().out)["logged_in"]
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"protected": {"url": url}}}))
    args, spec = _auth_args("status", "protected", "--config", str(config), "--json")
    assert args.server == "protected" and spec is not None and spec.url == url
    assert run_auth(args, spec) == exitcodes.OK
    status = json.loads(capsys.readouterr().out)
    assert status["server"] == url and status["logged_in"]
    # Naming the server twice, differently, is refused; the same server twice is fine.
    for argv, message in (
        (["status", url, "--url", f"{auth_server}/other"], "two servers named"),
        (["status", "protected", "--server", "other"], "two servers named"),
        (["status", "ftp://example.com/mcp"], "http:// or https://"),
    ):
        import argparse

        namespace = argparse.Namespace(target=argv[1], url=None, server=None)
        if "--url" in argv:
            namespace.url = argv[-1]
        if "--server" in argv:
            namespace.server = argv[-1]
        with pytest.raises(ValueError, match=message):
            apply_target(namespace)
    same = argparse.Namespace(target=url, url=url, server=None)
    apply_target(same)
    assert same.url == url


def test_auth_commands_take_the_server_as_a_positional(auth_server: str, config_dir: Path, tmp_path: Path) -> None:
    control(auth_server)
    url = f"{auth_server}/mcp"
    login = cli(config_dir, "auth", "login", url, "--oauth-browser", "headless", "--json")
    assert login.returncode == exitcodes.OK, login.stderr
    status = cli(config_dir, "auth", "status", url, "--json")
    assert status.returncode == exitcodes.OK, status.stderr
    assert json.loads(status.stdout)["logged_in"]
    # A name from --config, and a name from the config files found in the working directory.
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"protected": {"url": url}}}))
    named = cli(config_dir, "auth", "status", "protected", "--config", str(config), "--json")
    assert named.returncode == exitcodes.OK, named.stderr
    assert json.loads(named.stdout)["server"] == url
    project = tmp_path / "project"
    project.mkdir()
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"found-here": {"url": url}}}))
    home = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "home" / ".config")}
    found = cli(config_dir, "auth", "status", "found-here", "--json", env=home, cwd=project)
    assert found.returncode == exitcodes.OK, found.stderr
    assert json.loads(found.stdout)["logged_in"]
    # --url and --server keep working; a second, different server is a usage error.
    assert cli(config_dir, "auth", "status", "--url", url, "--json").returncode == exitcodes.OK
    twice = cli(config_dir, "auth", "status", url, "--url", f"{auth_server}/other")
    assert twice.returncode == exitcodes.USAGE and "two servers named" in twice.stderr
    unknown = cli(config_dir, "auth", "status", "no-such-server", env=home, cwd=project)
    assert unknown.returncode == exitcodes.USAGE and "no-such-server" in unknown.stderr
    out = cli(config_dir, "auth", "logout", url, "--json")
    assert out.returncode == exitcodes.OK and json.loads(out.stdout)["removed"] is True


# -- more of the proof ----------------------------------------------------------------------


async def test_metadata_naming_another_issuer_is_rejected(auth_server: str, config_dir: Path) -> None:
    """RFC 8414 §3.3: the authorization server metadata must name the issuer it was fetched for."""
    control(auth_server, metadata_issuer="https://evil.example.com/auth")
    try:
        before = stats(auth_server)
        spec = spec_for(auth_server, config_dir)
        client = Client(spec)
        with pytest.raises(AuthError, match=r"evil\.example\.com"):
            await client.connect()
        await client.close()
        after = stats(auth_server)
    finally:
        control(auth_server)
    assert after["register"] == before["register"] and after["authorize"] == before["authorize"]
    session = session_for(spec)
    assert session is not None
    failure = session.log.last_failure()
    assert failure is not None and failure.step == "server-metadata"
    assert session.status()["logged_in"] is False


def test_no_secret_in_a_recording_of_a_refresh(auth_server: str, config_dir: Path, tmp_path: Path) -> None:
    control(auth_server)
    url = f"{auth_server}/mcp"
    first = cli(config_dir, "auth", "login", "--url", url, "--oauth-browser", "headless")
    assert first.returncode == exitcodes.OK, first.stderr
    expire_stored_tokens(config_dir)
    record = tmp_path / "refresh.jsonl"
    listed = cli(config_dir, "list", "tools", "--url", url, "--oauth-browser", "headless", "--record", str(record))
    assert listed.returncode == exitcodes.OK, listed.stderr
    text = record.read_text()
    issued = stats(auth_server)["issued"]
    assert not [secret for secret in issued if secret and secret in text]
    auth_steps = [
        (json.loads(line).get("meta") or {}).get("auth", {}).get("step")
        for line in text.splitlines()
        if json.loads(line)["kind"] == "auth"
    ]
    assert "refresh" in auth_steps, auth_steps


def test_a_login_inside_a_command_without_a_terminal_times_out_as_a_timeout(auth_server: str, config_dir: Path) -> None:
    """No terminal: the login starts inside the first request (print mode), and
    nobody opens the URL; that is a timeout, not a server that cannot be reached."""
    control(auth_server)
    env = {**os.environ, "INSPECTOR_CONFIG_DIR": str(config_dir)}
    argv = ["list", "tools", "--url", f"{auth_server}/mcp", "--oauth-browser", "print", "--oauth-timeout", "0.5"]
    done = subprocess.run(
        [sys.executable, "-m", "inspector", *argv, "--json"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == exitcodes.TIMEOUT, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
