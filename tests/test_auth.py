"""Authorization against a protected MCP server and its authorization server
on this machine (tests/servers/auth_server.py): first login, token reuse by a
second process, refresh after expiry, step-up, a wrong issuer, a cancelled,
denied and timed-out login, static credentials, and no secret in a recording.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from inspector.commands import exitcodes
from inspector.core import Client, ServerSpec
from inspector.core.auth import AuthConfig, AuthError, LoginAborted, OAuthSession, TokenStore, session_for
from inspector.core.auth.store import server_key

from .peers import PYTHON, SERVERS, free_port, serving


@pytest.fixture(scope="module")
def auth_server() -> Iterator[str]:
    port = free_port()
    with serving([PYTHON, str(SERVERS / "auth_server.py"), "--port", str(port)], port):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "config"
    monkeypatch.setenv("INSPECTOR_CONFIG_DIR", str(directory))
    monkeypatch.delenv("INSPECTOR_TOKEN_STORE", raising=False)
    return directory


def control(base: str, **mode: Any) -> None:
    httpx2.post(f"{base}/_mode", json=mode).raise_for_status()


def stats(base: str) -> dict[str, Any]:
    data: dict[str, Any] = httpx2.get(f"{base}/_stats").json()
    return data


def cli(config_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "INSPECTOR_CONFIG_DIR": str(config_dir)}
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args], capture_output=True, text=True, timeout=60, check=False, env=env
    )


def spec_for(base: str, config_dir: Path, **settings: Any) -> ServerSpec:
    settings = {"browser": "headless", "timeout": 10.0, **settings}
    config = AuthConfig(store=TokenStore(config_dir), **settings)
    return ServerSpec(transport="http", url=f"{base}/mcp", timeout=20.0, auth=config)


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


async def test_refresh_after_expiry(auth_server: str, config_dir: Path) -> None:
    control(auth_server, token_ttl=1)
    spec = spec_for(auth_server, config_dir)
    client = Client(spec)
    await client.connect()
    await client.close()
    before = stats(auth_server)
    await asyncio.sleep(1.2)
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
    while not opened:
        await asyncio.sleep(0.02)
    assert session.cancel("the person pressed X")
    with pytest.raises(LoginAborted, match="cancelled"):
        await login
    assert ("authorization", "waiting") in steps(session)
    assert session.log.events[-1].failed
    # Nothing was stored, and the listener is gone.
    assert session.status()["logged_in"] is False


def test_a_login_times_out_cleanly(auth_server: str, config_dir: Path) -> None:
    control(auth_server)
    url = f"{auth_server}/mcp"
    result = cli(config_dir, "auth", "login", "--url", url, "--oauth-browser", "print", "--oauth-timeout", "0.5")
    assert result.returncode == exitcodes.INTERRUPTED, result.stdout + result.stderr
    assert "Open this URL to authorize" in result.stderr and "/auth/authorize?" in result.stderr
    assert "timed out" in result.stderr


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
    from inspector.core import ServerSpec
    from inspector.core.auth.config import AuthConfig
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
        await pilot.pause(0.2)
        assert app.query_one("#main").active == "auth"  # type: ignore[attr-defined]
        shown = app.export_screenshot()
        stored = json.dumps(app.auth_session.status())
        assert "access_token" not in shown or "***" in shown
        assert "Bearer ey" not in shown and stored
