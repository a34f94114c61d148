"""Enterprise-managed authorization (SEP-990) against an identity provider,
an authorization server and an MCP server on this machine
(tests/servers/dpop_token_exchange.py): the ID token exchanged for an ID-JAG
(RFC 8693) with the parameters the profile names, the ID-JAG as the
jwt-bearer grant (RFC 7523) with client_secret_basic, configured from the
command line and from a config file; a refused exchange names its step; no
ID token or ID-JAG in the output or a recording.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from inspector.commands import exitcodes

from .auth_helpers import control, protected_server, stats, steps_shown
from .peers import run_inspector


@pytest.fixture(scope="module")
def xaa_server() -> Iterator[str]:
    with protected_server("dpop_token_exchange.py") as base:
        yield base


def id_token(base: str) -> str:
    token: str = httpx2.get(f"{base}/_id_token").json()["id_token"]
    return token


def env_for(base: str, tmp_path: Path) -> dict[str, str]:
    return {
        "INSPECTOR_CONFIG_DIR": str(tmp_path / "config"),
        "XAA_ID_TOKEN": id_token(base),
        "XAA_SECRET": "xaa-secret-9d2e",
    }


ENTERPRISE_FLAGS = (
    "--oauth-grant",
    "enterprise",
    "--id-token-env",
    "XAA_ID_TOKEN",
    "--idp-client-id",
    "idp-client",
    "--client-id",
    "xaa-client",
    "--client-secret-env",
    "XAA_SECRET",
)


def test_token_exchange_then_jwt_bearer_from_the_command_line(xaa_server: str, tmp_path: Path) -> None:
    control(xaa_server)
    before = stats(xaa_server)
    env = env_for(xaa_server, tmp_path)
    recording = tmp_path / "session.jsonl"
    result = run_inspector(
        "list",
        "tools",
        "--url",
        f"{xaa_server}/mcp",
        *ENTERPRISE_FLAGS,
        # The token endpoint is found from the issuer's OpenID Connect metadata.
        "--idp-issuer",
        f"{xaa_server}/idp",
        "--record",
        str(recording),
        "--json",
        env=env,
    )
    assert result.returncode == exitcodes.OK, result.stderr
    assert "whoami" in result.stdout
    after = stats(xaa_server)
    assert after["errors"] == [], after["errors"]
    assert after["exchange"] - before["exchange"] == 1
    assert after["jwt_bearer"] - before["jwt_bearer"] == 1
    exchange = after["last_exchange"]
    assert exchange["audience"] == f"{xaa_server}/auth"
    assert exchange["resource"] == f"{xaa_server}/mcp"
    assert exchange["subject_token_verified"] == "yes"
    # The ID token and the client secret stay out of the output and the recording.
    text = recording.read_text()
    for secret in (env["XAA_ID_TOKEN"], env["XAA_SECRET"]):
        assert secret not in result.stdout + result.stderr and secret not in text
    frames = [json.loads(line) for line in text.splitlines()]
    notes = [frame.get("note") or "" for frame in frames if frame.get("kind") == "auth"]
    assert any("ID-JAG issued" in note for note in notes), notes
    # The ID-JAG is a JWT: none appears anywhere in the recording (masked as ***).
    assert "eyJ" not in text


def test_enterprise_settings_from_a_config_file(xaa_server: str, tmp_path: Path) -> None:
    control(xaa_server)
    before = stats(xaa_server)
    env = env_for(xaa_server, tmp_path)
    config = tmp_path / "mcp.json"
    entry = {
        "url": f"{xaa_server}/mcp",
        "oauth": {
            "grant": "enterprise",
            "clientId": "xaa-client",
            "clientSecret": "${XAA_SECRET}",
            "idToken": "${XAA_ID_TOKEN}",
            "idpTokenEndpoint": f"{xaa_server}/idp/token",
            "idpClientId": "idp-client",
        },
    }
    config.write_text(json.dumps({"mcpServers": {"corp": entry}}))
    result = run_inspector("call", "whoami", "--config", str(config), "--server", "corp", "--json", "--yes", env=env)
    assert result.returncode == exitcodes.OK, result.stderr
    assert "hello, enterprise user" in result.stdout
    after = stats(xaa_server)
    assert after["errors"] == []
    assert after["exchange"] - before["exchange"] == 1 and after["jwt_bearer"] - before["jwt_bearer"] == 1


def test_a_refused_token_exchange_names_its_step(xaa_server: str, tmp_path: Path) -> None:
    control(xaa_server, deny=True)
    try:
        before = stats(xaa_server)
        result = run_inspector(
            "list",
            "tools",
            "--url",
            f"{xaa_server}/mcp",
            *ENTERPRISE_FLAGS,
            "--idp-token-endpoint",
            f"{xaa_server}/idp/token",
            "--json",
            env=env_for(xaa_server, tmp_path),
        )
    finally:
        control(xaa_server)
    assert result.returncode == exitcodes.CANNOT_CONNECT, (result.returncode, result.stderr)
    assert "token exchange refused by the identity provider: access_denied" in result.stderr
    assert stats(xaa_server)["jwt_bearer"] == before["jwt_bearer"]


def test_enterprise_needs_its_settings() -> None:
    result = run_inspector("list", "tools", "--url", "http://127.0.0.1:9/mcp", "--oauth-grant", "enterprise")
    assert result.returncode == exitcodes.USAGE
    assert "--id-token-env VAR" in result.stderr and "--idp-issuer or --idp-token-endpoint" in result.stderr


async def test_the_auth_pane_shows_the_token_exchange(xaa_server: str, tmp_path: Path) -> None:
    from inspector.core.auth.config import AuthConfig
    from inspector.core.auth.store import TokenStore
    from inspector.core.protocol.client import Client
    from inspector.core.servers.spec import ServerSpec

    control(xaa_server)
    token = id_token(xaa_server)
    config = AuthConfig(
        store=TokenStore(tmp_path),
        grant="enterprise",
        client_id="xaa-client",
        client_secret="xaa-secret-9d2e",
        id_token=token,
        idp_issuer=f"{xaa_server}/idp",
        idp_client_id="idp-client",
        timeout=30.0,
    )
    spec = ServerSpec(transport="http", url=f"{xaa_server}/mcp", timeout=30.0, auth=config)
    client = Client(spec)
    await client.connect()
    try:
        assert "whoami" in (await client.list_all("tools")).names()
    finally:
        await client.close()
    assert config.session is not None
    events = list(config.session.log.events)
    async with steps_shown(events) as pane:
        rows = pane.rows
        assert any("token-exchange" in row and "ID-JAG issued" in row for row in rows), rows
        exchange = next(
            i
            for i, event in enumerate(events)
            if event.step == "token-exchange" and event.status == "ok" and "ID-JAG" in event.title
        )
        await pane.open(exchange, "the exchange's detail")
        assert "token exchange at the enterprise identity provider" in pane.text("#auth-step-info")
        http = pane.rendered("#auth-step-http")
        assert "urn:ietf:params:oauth:token-type:id-jag" in http and token not in http
