"""The pieces of the authorization layer on their own: challenge parsing,
masking, the token store (file and keyring), the loopback listener, config
entries, and the auth events' round trip through a recording."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path
from typing import Any

import httpx2
import pytest

from inspector.core.auth.config import AuthConfig
from inspector.core.auth.log import AuthLog, HttpExchange, events_from_frames
from inspector.core.auth.loopback import LoginCancelled, LoginTimeout, LoopbackListener
from inspector.core.auth.oauth_secrets import SecretSet, mask_body, mask_url
from inspector.core.auth.store import TokenStore, default_store
from inspector.core.auth.www_authenticate import parse_www_authenticate
from inspector.core.record.frame_lines import frame_from_record, frame_to_record
from inspector.core.record.secret_mask import secret_masker
from inspector.core.record.traffic import TrafficLog
from inspector.core.servers.client_configs import spec_from_entry
from inspector.core.servers.spec import ServerSpec


def test_www_authenticate() -> None:
    header = (
        'Bearer error="insufficient_scope", scope="files:read files:write", '
        'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", '
        'error_description="needs \\"write\\", too"'
    )
    parsed = parse_www_authenticate(header)
    assert parsed["scheme"] == "Bearer" and parsed["error"] == "insufficient_scope"
    assert parsed["scope"] == "files:read files:write"
    assert parsed["resource_metadata"].endswith("/oauth-protected-resource")
    assert parsed["error_description"] == 'needs "write", too'
    assert parse_www_authenticate('Basic realm="x", Bearer scope=a') == {"scheme": "Bearer", "scope": "a"}
    assert parse_www_authenticate(None) == {}


def test_masking_remembers_what_it_hides() -> None:
    secrets = SecretSet()
    form = mask_body(
        "grant_type=authorization_code&code=abc123&code_verifier=verifier-xyz&client_id=c1",
        "application/x-www-form-urlencoded",
        secrets,
    )
    assert "abc123" not in (form or "") and "verifier-xyz" not in (form or "") and "client_id=c1" in (form or "")
    body = mask_body(
        b'{"access_token": "at-1234", "nested": {"refresh_token": "rt-5678"}}', "application/json", secrets
    )
    assert body is not None and "at-1234" not in body and "rt-5678" not in body
    assert "code=%2A%2A%2A" in mask_url("http://127.0.0.1:9/callback?code=zzzz&state=s", secrets)
    assert {"abc123", "verifier-xyz", "at-1234", "rt-5678", "zzzz"} <= set(secrets.values())
    assert secrets.scrub("token at-1234 here") == "token *** here"


def test_exchange_capture_masks_headers_and_bodies() -> None:
    secrets = SecretSet()
    request = httpx2.Request(
        "POST",
        "https://as.example/token",
        headers={"Authorization": "Basic Y2xpZW50OnNlY3JldA=="},
        data={"grant_type": "refresh_token", "refresh_token": "rt-secret-1"},
    )
    response = httpx2.Response(200, json={"access_token": "at-secret-2", "token_type": "Bearer"}, request=request)
    exchange = HttpExchange.capture(request, response, secrets)
    shown = json.dumps(exchange.to_dict())
    for secret in ("Y2xpZW50OnNlY3JldA==", "rt-secret-1", "at-secret-2"):
        assert secret not in shown
    assert exchange.request_headers["authorization"] == "Basic ***"
    assert HttpExchange.from_dict(exchange.to_dict()) == exchange


def test_auth_events_travel_through_a_recording() -> None:
    traffic = TrafficLog()
    log = AuthLog(traffic=traffic)
    seen: list[str] = []
    log.subscribe(lambda event: seen.append(event.step))
    log.secrets.add("super-secret-token")
    log.emit("token", "failed", "refused super-secret-token", detail="why")
    records = [frame_to_record(frame) for frame in traffic]
    assert "super-secret-token" not in json.dumps(records)
    events = events_from_frames(frame_from_record(record) for record in records)
    assert seen == ["token"] and [(e.step, e.status, e.title) for e in events] == [("token", "failed", "refused ***")]


def test_recording_masker_learns_secrets_during_the_session() -> None:
    spec = ServerSpec(url="http://127.0.0.1:1/mcp", auth=AuthConfig(client_id="c", client_secret="the-client-secret"))
    mask = secret_masker(spec)
    assert mask is not None
    assert mask({"note": "the-client-secret"})["note"] == "***"
    from inspector.core.auth.session import session_for

    session = session_for(spec)
    assert session is not None
    session.secrets.add("learned-later-token")
    assert mask({"meta": {"x": ["learned-later-token"]}}) == {"meta": {"x": ["***"]}}


def test_file_store_is_private(tmp_path: Path) -> None:
    store = TokenStore(tmp_path, keyring=False)
    record = {"current_issuer": "https://as", "issuers": {"https://as": {"token": {"access_token": "at-1"}}}}
    store.save("HTTPS://Server.example/mcp/", record)
    assert store.has("https://server.example/mcp")
    path = store.path_for("https://server.example/mcp")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    loaded = store.load("https://server.example/mcp")
    assert loaded is not None and loaded["issuers"]["https://as"]["token"]["access_token"] == "at-1"
    assert loaded["secrets"] == "file" and store.backend == "file"
    assert [r["server"] for r in store.servers()] == ["https://server.example/mcp"]
    assert store.delete("https://server.example/mcp") and not store.has("https://server.example/mcp")


class FakeKeyring:
    priority = 5

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, user: str) -> str | None:
        return self.items.get((service, user))

    def set_password(self, service: str, user: str, value: str) -> None:
        self.items[(service, user)] = value

    def delete_password(self, service: str, user: str) -> None:
        self.items.pop((service, user), None)


def test_keyring_keeps_the_secrets_and_the_file_the_rest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import keyring

    fake = FakeKeyring()
    monkeypatch.setattr(keyring, "get_keyring", lambda: fake)
    store = TokenStore(tmp_path, keyring=None)
    record = {
        "current_issuer": "https://as",
        "issuers": {
            "https://as": {
                "token": {"access_token": "at-1", "refresh_token": "rt-1", "token_type": "Bearer"},
                "client": {"client_id": "c1", "client_secret": "cs-1"},
            }
        },
    }
    store.save("https://server/mcp", record)
    on_disk = store.path_for("https://server/mcp").read_text()
    for secret in ("at-1", "rt-1", "cs-1"):
        assert secret not in on_disk
    assert store.backend == "keyring" and json.loads(on_disk)["secrets"] == "keyring"
    loaded = store.load("https://server/mcp")
    assert loaded is not None
    entry = loaded["issuers"]["https://as"]
    assert entry["token"]["refresh_token"] == "rt-1" and entry["client"]["client_secret"] == "cs-1"
    store.delete("https://server/mcp")
    assert fake.items == {}


def test_default_store_is_the_file_when_isolated(tmp_path: Path) -> None:
    store = default_store({"INSPECTOR_CONFIG_DIR": str(tmp_path)})
    assert store.directory == tmp_path and store.backend == "file"
    assert default_store({"XDG_CONFIG_HOME": str(tmp_path), "INSPECTOR_TOKEN_STORE": "file"}).directory == (
        tmp_path / "inspector"
    )


async def test_loopback_listener_answers_once_and_can_be_cancelled() -> None:
    listener = LoopbackListener(0)
    await listener.start()
    try:
        assert listener.redirect_uri.startswith("http://127.0.0.1:")
        async with httpx2.AsyncClient() as http:
            other = await http.get(listener.redirect_uri.replace("/callback", "/favicon.ico"))
            assert other.status_code == 404
            page = await http.get(listener.redirect_uri, params={"code": "c", "state": "s"})
            assert page.status_code == 200 and "<script" not in page.text
            params = await listener.wait(1.0)
            assert params == {"code": "c", "state": "s"}
            again = await http.get(listener.redirect_uri, params={"code": "evil"})
            assert again.status_code == 409
        listener.reset()
        with pytest.raises(LoginTimeout):
            await listener.wait(0.05)
        waiting = asyncio.create_task(listener.wait(5.0))
        # One turn of the loop, not a timed pause: a new task runs up to its
        # first await, so the waiter is inside its wait when it is cancelled.
        await asyncio.sleep(0)
        assert listener.cancel("stop")
        with pytest.raises(LoginCancelled):
            await waiting
    finally:
        await listener.close()
    assert not listener.listening


def test_config_entries_carry_oauth_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    entry: dict[str, Any] = {
        "url": "https://mcp.example/mcp",
        "oauth": {"clientId": "abc", "clientSecret": "${SECRET_FOR_TEST}", "callbackPort": 8765},
    }
    spec = spec_from_entry("x", entry, {"SECRET_FOR_TEST": "s3cr3t-value"})
    assert spec.auth is not None
    assert (spec.auth.client_id, spec.auth.client_secret, spec.auth.callback_port) == ("abc", "s3cr3t-value", 8765)
    assert spec.auth.oauth and spec.auth.describe()["client_secret"] == "***"
    static = spec_from_entry("y", {"url": "https://mcp.example/mcp", "headers": {"Authorization": "Bearer t"}}, {})
    assert static.auth is not None and static.auth.oauth is False
