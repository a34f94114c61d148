"""DPoP (RFC 9449, SEP-1932) against a DPoP-protected MCP server and its
authorization server on this machine (tests/servers/dpop_server.py), which
checks every proof on its own: a bound token obtained with a proof, presented
with the DPoP scheme and a fresh proof per request, both servers' nonces
answered, `--dpop off` getting a bearer token, and a stored bound token not
outliving the session whose key it is bound to.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector.core.auth.config import AuthConfig
from inspector.core.auth.dpop import MAX_NONCE_RETRIES
from inspector.core.auth.store import TokenStore
from inspector.core.protocol.client import Client
from inspector.core.servers.spec import ServerSpec

from .auth_helpers import control, protected_server, stats, steps_shown


@pytest.fixture(scope="module")
def dpop_server() -> Iterator[str]:
    with protected_server("dpop_server.py") as base:
        yield base


def spec_for(base: str, store_dir: Path, **settings: Any) -> ServerSpec:
    settings = {"browser": "headless", "timeout": 30.0, "client_id": "dpop-client", **settings}
    config = AuthConfig(store=TokenStore(store_dir), **settings)
    return ServerSpec(transport="http", url=f"{base}/mcp", timeout=30.0, auth=config)


async def use(spec: ServerSpec) -> Client:
    client = Client(spec)
    await client.connect()
    try:
        tools = await client.list_all("tools")
        assert "whoami" in tools.names()
        result = await client.call_tool("whoami", {})
        assert "proof-of-possession" in json.dumps(result.data if hasattr(result, "data") else result, default=str)
    finally:
        await client.close()
    return client


def delta(before: dict[str, Any], after: dict[str, Any], key: str) -> int:
    return int(after[key]) - int(before[key])


async def test_a_bound_token_with_both_servers_nonces(dpop_server: str, tmp_path: Path) -> None:
    control(dpop_server, as_nonce=True, rs_nonce=True)
    before = stats(dpop_server)
    spec = spec_for(dpop_server, tmp_path)
    await use(spec)
    after = stats(dpop_server)
    assert after["errors"] == [], after["errors"]
    assert after["replays"] == 0
    assert delta(before, after, "dpop_tokens") == 1 and delta(before, after, "bearer_tokens") == 0
    # Each server asked for a nonce once and the retry carried it.
    assert delta(before, after, "as_nonce_challenges") == 1
    assert delta(before, after, "as_nonce_honoured") == 1
    assert delta(before, after, "rs_nonce_challenges") == 1
    assert delta(before, after, "rs_nonce_honoured") >= 3  # the retried request, then every later one
    new_schemes = after["schemes"][len(before["schemes"]) :]
    assert new_schemes and set(new_schemes) == {"DPoP"}

    session = spec.auth.session if spec.auth is not None else None
    assert session is not None
    events = session.log.events
    steps = [(event.step, event.status) for event in events]
    assert ("dpop-proof", "info") in steps and ("token", "ok") in steps
    nonces = [event for event in events if event.step == "dpop-nonce"]
    assert [event.data["party"] for event in nonces if event.data] == ["authorization server", "MCP server"]
    # The token is stored as issued, with the thumbprint of the key it is bound to.
    record = json.loads(next((tmp_path / "auth").glob("*.json")).read_text())
    entry = record["issuers"][f"{dpop_server}/auth"]
    assert entry["token"]["token_type"] == "DPoP"
    assert entry["dpop_jkt"] == session.dpop().key.thumbprint
    # No proof and no token in the auth log's shown exchanges.
    shown = json.dumps([event.http.to_dict() for event in events if event.http is not None])
    assert entry["token"]["access_token"] not in shown
    assert "eyJ" not in shown


async def test_dpop_off_gets_a_bearer_token(dpop_server: str, tmp_path: Path) -> None:
    control(dpop_server)
    before = stats(dpop_server)
    spec = spec_for(dpop_server, tmp_path, dpop="off")
    await use(spec)
    after = stats(dpop_server)
    assert after["errors"] == []
    assert delta(before, after, "bearer_tokens") == 1 and delta(before, after, "token_proofs") == 0
    assert set(after["schemes"][len(before["schemes"]) :]) == {"Bearer"}


async def test_a_stored_bound_token_is_not_used_by_a_later_session(dpop_server: str, tmp_path: Path) -> None:
    control(dpop_server)
    before = stats(dpop_server)
    await use(spec_for(dpop_server, tmp_path))
    # A new session (a new process, in effect): a new key, so the stored token is of no use.
    later = spec_for(dpop_server, tmp_path)
    await use(later)
    after = stats(dpop_server)
    assert after["errors"] == []
    assert delta(before, after, "dpop_tokens") == 2
    assert later.auth is not None and later.auth.session is not None
    notes = [event.title for event in later.auth.session.log.events if event.step == "stored"]
    assert any("earlier session" in note for note in notes), notes


async def test_the_auth_pane_shows_the_proofs_and_nonces(dpop_server: str, tmp_path: Path) -> None:
    control(dpop_server, as_nonce=True)
    spec = spec_for(dpop_server, tmp_path)
    await use(spec)
    assert spec.auth is not None and spec.auth.session is not None
    events = list(spec.auth.session.log.events)
    async with steps_shown(events) as pane:
        rows = pane.rows
        assert any("dpop-proof" in row and "DPoP proof for token" in row for row in rows), rows
        assert any("dpop-nonce" in row for row in rows), rows
        nonce = next(i for i, event in enumerate(events) if event.step == "dpop-nonce")
        await pane.open(nonce, "the nonce step's detail")
        info = pane.text("#auth-step-info")
        assert "server-provided DPoP nonce" in info
        assert "the authorization server asks for a DPoP nonce" in info
        assert "use_dpop_nonce" in pane.rendered("#auth-step-http")


async def test_a_server_that_always_wants_a_new_nonce_is_given_up_on(dpop_server: str, tmp_path: Path) -> None:
    from inspector.core.protocol.errors import InspectorError

    control(dpop_server, nonce_always=True)
    try:
        before = stats(dpop_server)
        client = Client(spec_for(dpop_server, tmp_path))
        with pytest.raises(InspectorError):
            await client.connect()
        await client.close()
        after = stats(dpop_server)
    finally:
        control(dpop_server)
    challenges = delta(before, after, "rs_nonce_challenges")
    # Connecting sends at most two requests (the era probe, then initialize); each gets two nonce
    # retries with its token and with the one a new login brings, and then stops.
    assert 1 <= challenges <= 2 * 2 * (MAX_NONCE_RETRIES + 1), challenges
    assert delta(before, after, "dpop_tokens") <= 4
    assert delta(before, after, "rs_nonce_honoured") == 0


def test_dpop_settings_from_a_config_entry_and_back_to_flags() -> None:
    from inspector.core.servers.copy_command import server_options

    assert AuthConfig.from_entry({"dpop": True}).dpop == "on"
    assert AuthConfig.from_entry({"dpop": "off"}).dpop == "off"
    assert AuthConfig.from_entry({"dpop": "sometimes"}).dpop == "auto"
    spec = ServerSpec(transport="http", url="http://127.0.0.1:1/mcp", auth=AuthConfig(dpop="off"))
    words = server_options(spec)
    assert words[words.index("--dpop") + 1] == "off"
    enterprise = AuthConfig(grant="enterprise", id_token="secret-id-token", idp_issuer="https://idp.example")
    words = server_options(ServerSpec(transport="http", url="http://127.0.0.1:1/mcp", auth=enterprise))
    assert "secret-id-token" not in words
    assert words[words.index("--id-token-env") + 1] == "MCP_ID_TOKEN"
    assert words[words.index("--idp-issuer") + 1] == "https://idp.example"
