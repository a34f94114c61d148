"""Token revocation (RFC 7009) on `inspector auth logout` and on a new login,
against a real authorization server on this machine
(tests/servers/revoke_auth_server.py): both tokens revoked (refresh token
first), the revoked token refused by the MCP server afterwards, `--no-revoke`,
failures reported but not fatal, endpoints a client must not use, and the
Auth pane's `revoked` step."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from inspector.commands import exitcodes
from inspector.core.auth.config import AuthConfig
from inspector.core.servers.spec import ServerSpec

from .auth_helpers import protected_server
from .peers import run_inspector


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with protected_server("revoke_auth_server.py") as base:
        yield base


def revoke_mode(base: str, mode: str) -> None:
    httpx2.post(f"{base}/_revoke_mode", json={"mode": mode}).raise_for_status()


def revocations(base: str) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = httpx2.get(f"{base}/_revocations").json()["revocations"]
    return seen


def cli(config_dir: Path, *args: str) -> Any:
    # The file store: the test reads the tokens the login stored.
    return run_inspector(*args, env={"INSPECTOR_CONFIG_DIR": str(config_dir), "INSPECTOR_TOKEN_STORE": "file"})


def login(config_dir: Path, base: str, *extra: str) -> dict[str, Any]:
    done = cli(config_dir, "auth", "login", "--url", f"{base}/mcp", "--oauth-browser", "headless", "--json", *extra)
    assert done.returncode == exitcodes.OK, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def stored_tokens(config_dir: Path, base: str) -> dict[str, str]:
    files = list((config_dir / "auth").glob("*.json"))
    assert len(files) == 1
    record = json.loads(files[0].read_text())
    token: dict[str, str] = record["issuers"][f"{base}/auth"]["token"]
    assert token.get("access_token") and token.get("refresh_token"), "the file store holds the tokens"
    return token


def logged_in(config_dir: Path, base: str) -> dict[str, str]:
    """Log in with revocation working as it should; the tokens stored."""
    revoke_mode(base, "ok")
    login(config_dir, base)
    return stored_tokens(config_dir, base)


def logout(config_dir: Path, base: str, *extra: str) -> tuple[Any, dict[str, Any]]:
    """`inspector auth logout --json`, which must succeed and remove the stored tokens: what it
    printed, and its report."""
    out = cli(config_dir, "auth", "logout", "--url", f"{base}/mcp", "--json", *extra)
    assert out.returncode == exitcodes.OK, out.stderr
    report: dict[str, Any] = json.loads(out.stdout)
    assert report["removed"] is True
    return out, report


def mcp_status(base: str, access_token: str) -> int:
    """What the MCP server answers a request carrying this access token."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    headers = {
        "Authorization": f"Bearer {access_token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    return httpx2.post(f"{base}/mcp", json=body, headers=headers).status_code


def test_logout_revokes_both_tokens_refresh_token_first(server: str, config_dir: Path) -> None:
    tokens = logged_in(config_dir, server)
    assert mcp_status(server, tokens["access_token"]) == 200
    before = len(revocations(server))
    out, report = logout(config_dir, server)
    assert [(r["token_type_hint"], r["outcome"]) for r in report["revoked"]] == [
        ("refresh_token", "revoked"),
        ("access_token", "revoked"),
    ]
    seen = revocations(server)[before:]
    assert [(s["token"], s["hint"], s["outcome"]) for s in seen] == [
        (tokens["refresh_token"], "refresh_token", "refresh_token revoked"),
        (tokens["access_token"], "access_token", "access_token revoked"),
    ]
    # The dynamically registered client authenticated as at the token endpoint (basic).
    assert all(s["auth"] == "basic" and s["client_id"].startswith("client-") for s in seen)
    # Revoked at the server, not only forgotten here.
    assert mcp_status(server, tokens["access_token"]) == 401
    for secret in (tokens["access_token"], tokens["refresh_token"]):
        assert secret not in out.stdout + out.stderr
    status = json.loads(cli(config_dir, "auth", "status", "--json").stdout)
    assert status["servers"] == []


def test_logout_human_output_shows_the_revoked_steps(server: str, config_dir: Path) -> None:
    revoke_mode(server, "ok")
    login(config_dir, server)
    out = cli(config_dir, "auth", "logout", "--url", f"{server}/mcp", "--human")
    assert out.returncode == exitcodes.OK, out.stderr
    lines = [line for line in out.stdout.splitlines() if "revoked" in line]
    assert len(lines) == 2 and all(line.startswith("✓ revoked") for line in lines), out.stdout
    assert "stored tokens removed" in out.stdout


def test_no_revoke_only_forgets(server: str, config_dir: Path) -> None:
    tokens = logged_in(config_dir, server)
    before = len(revocations(server))
    _, report = logout(config_dir, server, "--no-revoke")
    assert report["removed"] is True and report["revoked"] == []
    assert revocations(server)[before:] == []
    assert mcp_status(server, tokens["access_token"]) == 200


def test_a_new_login_revokes_the_tokens_it_replaces(server: str, config_dir: Path) -> None:
    old = logged_in(config_dir, server)
    before = len(revocations(server))
    report = login(config_dir, server)
    new = stored_tokens(config_dir, server)
    assert new["access_token"] != old["access_token"]
    seen = revocations(server)[before:]
    assert [(s["token"], s["hint"]) for s in seen] == [
        (old["refresh_token"], "refresh_token"),
        (old["access_token"], "access_token"),
    ]
    steps = [(e["step"], e["status"]) for e in report["events"]]
    assert steps.count(("revoked", "ok")) == 2
    # The revocations come before the login is declared done.
    assert steps.index(("revoked", "ok")) < steps.index(("login", "ok"))
    assert mcp_status(server, old["access_token"]) == 401
    assert mcp_status(server, new["access_token"]) == 200
    # The revocation exchanges are in the report, their tokens masked.
    revoked_events = [e for e in report["events"] if e["step"] == "revoked"]
    assert len(revoked_events) == 2
    assert all(e["http"]["request_body"].startswith("token=%2A%2A%2A&") for e in revoked_events), revoked_events
    shown = json.dumps(report)
    assert old["access_token"] not in shown and old["refresh_token"] not in shown
    # ...and with --no-revoke the replaced tokens stay valid.
    before = len(revocations(server))
    login(config_dir, server, "--no-revoke")
    assert revocations(server)[before:] == []
    assert mcp_status(server, new["access_token"]) == 200


def test_a_failed_revocation_is_reported_and_the_logout_goes_on(server: str, config_dir: Path) -> None:
    tokens = logged_in(config_dir, server)
    revoke_mode(server, "unavailable")
    try:
        out, report = logout(config_dir, server)
    finally:
        revoke_mode(server, "ok")
    assert [(r["outcome"], r.get("status")) for r in report["revoked"]] == [("failed", 503), ("failed", 503)]
    assert "temporarily_unavailable" in report["revoked"][0]["detail"]
    assert "Retry-After: 30" in report["revoked"][0]["detail"]
    assert out.stderr.count("was not revoked") == 2
    for secret in (tokens["access_token"], tokens["refresh_token"]):
        assert secret not in out.stdout + out.stderr
    assert json.loads(cli(config_dir, "auth", "status", "--json").stdout)["servers"] == []


@pytest.mark.parametrize(
    ("mode", "why"),
    [("absent", "names no revocation_endpoint"), ("insecure", "plain http on a host that is not loopback")],
)
def test_an_endpoint_that_cannot_be_used_is_skipped(server: str, config_dir: Path, mode: str, why: str) -> None:
    revoke_mode(server, mode)
    try:
        login(config_dir, server)
        before = len(revocations(server))
        _, report = logout(config_dir, server)
    finally:
        revoke_mode(server, "ok")
    assert {r["outcome"] for r in report["revoked"]} == {"skipped"}
    assert why in report["revoked"][0]["detail"]
    assert revocations(server)[before:] == []


async def test_the_auth_pane_shows_the_revoked_steps(server: str, config_dir: Path) -> None:
    from inspector.core.auth.store import TokenStore
    from inspector.tui.app import InspectorApp
    from inspector.tui.panes.auth import AuthPane

    from .tui_helpers import settle, wait_for

    revoke_mode(server, "ok")
    config = AuthConfig(browser="headless", store=TokenStore(config_dir))
    app = InspectorApp(ServerSpec(transport="http", url=f"{server}/mcp", auth=config))
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_for(pilot, lambda: app.client.state == "connected", "connected after login")
        pane = app.query_one(AuthPane)
        session = app.auth_session
        assert session is not None
        record = session.store.load(session.server_url) or {}
        token = record["issuers"][f"{server}/auth"]["token"]
        before = len(revocations(server))
        await pilot.press("f9")
        await wait_for(pilot, lambda: app.query_one("#main").active == "auth", "the Auth tab")  # type: ignore[attr-defined]
        pane.focus()
        await settle(pilot, "focus on the Auth pane")
        await pilot.press("O")

        def revoked() -> list[tuple[str, str]]:
            return [(e.step, e.status) for e in pane.events if e.step == "revoked"]

        await wait_for(pilot, lambda: len(revoked()) == 2, "two revoked steps")
        assert revoked() == [("revoked", "ok"), ("revoked", "ok")]
        await wait_for(pilot, lambda: any(e.step == "logout" for e in pane.events), "the logout step")
        steps = app.query_one("#auth-steps")
        rows = [str(steps.get_option_at_index(i).prompt) for i in range(steps.option_count)]  # type: ignore[attr-defined]
        assert sum(1 for row in rows if "revoked" in row and row.startswith("✓")) == 2
        assert [s["hint"] for s in revocations(server)[before:]] == ["refresh_token", "access_token"]
        # The step's exchange, as the pane shows it: the token masked.
        for event in pane.events:
            if event.step == "revoked":
                assert event.http is not None and event.http.status == 200
                body = event.http.request_body or ""
                assert body.startswith("token=%2A%2A%2A&"), body
                assert token["access_token"] not in body and token["refresh_token"] not in body


def test_a_revocation_body_is_masked() -> None:
    from inspector.core.auth.oauth_secrets import SecretSet, mask_body

    secrets = SecretSet()
    shown = mask_body(
        b"token=rt-secret-value&token_type_hint=refresh_token", "application/x-www-form-urlencoded", secrets
    )
    assert shown == "token=%2A%2A%2A&token_type_hint=refresh_token"
    # ...and the value is remembered, so it is scrubbed wherever else it appears.
    assert secrets.scrub("said rt-secret-value") == "said ***"
