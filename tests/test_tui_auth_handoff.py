"""A hand-off login in the TUI (`--oauth-browser handoff`), against the
protected server and authorization server of tests/servers/auth_server.py:
the Auth pane shows the authorization URL; an HTTP client plays the browser
on another machine (it follows the authorization server's redirects up to
the loopback redirect, which it does not reach, as over SSH); the URL it
ended on is pasted into the Auth pane's field, which completes the login.
Another URL is refused in the pane and the login goes on waiting; a pasted
URL with another state fails the login, as such a redirect would."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx2
import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from inspector.core.auth.config import AuthConfig
from inspector.core.auth.store import TokenStore
from inspector.core.servers.spec import ServerSpec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.auth import AuthPane
from inspector.tui.screens.connect_error import ConnectErrorScreen

from .peers import PYTHON, SERVERS, free_port, serving
from .test_auth_handoff import remote_browser, with_query
from .tui_helpers import wait_for


@pytest.fixture(scope="module")
def auth_server() -> Iterator[str]:
    port = free_port()
    with serving([PYTHON, str(SERVERS / "auth_server.py"), "--port", str(port)], port):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(autouse=True)
def _own_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECTOR_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("INSPECTOR_TOKEN_STORE", "file")


def handoff_app(base: str, tmp_path: Path) -> InspectorApp:
    httpx2.post(f"{base}/_mode", json={}).raise_for_status()
    config = AuthConfig(store=TokenStore(tmp_path / "tokens"), browser="handoff", timeout=120.0)
    return InspectorApp(ServerSpec(transport="http", url=f"{base}/mcp", timeout=30.0, auth=config))


async def browse_elsewhere(app: InspectorApp, pilot: Pilot[int]) -> tuple[AuthPane, str]:
    """Once the login waits for its redirect, with the Auth pane shown: the
    browser on another machine follows the authorization URL; the pane and
    the URL that browser ended on."""
    pane = app.query_one(AuthPane)
    await wait_for(pilot, lambda: pane.waiting, "the login waiting for its redirect", timeout=60)
    app.action_show_tab("auth")
    url = pane.authorization_url
    assert url is not None
    redirect_uri = dict(parse_qsl(urlsplit(url).query))["redirect_uri"]
    return pane, await asyncio.to_thread(remote_browser, url, redirect_uri)


async def paste(app: InspectorApp, pilot: object, text: str) -> None:
    field = app.query_one("#auth-paste", Input)
    field.focus()
    field.value = text
    await pilot.press("enter")  # type: ignore[attr-defined]


def note(app: InspectorApp) -> str:
    return str(app.query_one("#auth-paste-note", Static).render())


async def test_the_url_pasted_into_the_auth_pane_completes_the_login(auth_server: str, tmp_path: Path) -> None:
    app = handoff_app(auth_server, tmp_path)
    async with app.run_test(size=(150, 50)) as pilot:
        pane, landed = await browse_elsewhere(app, pilot)
        await wait_for(pilot, lambda: app.query_one("#auth-paste", Input).display, "the paste field")

        # Something else first: refused in the pane, and the login goes on waiting.
        await paste(app, pilot, "http://127.0.0.1:1/elsewhere?code=x&state=y")
        await wait_for(pilot, lambda: "not the redirect this login waits for" in note(app), "the refusal")
        await paste(app, pilot, dict(parse_qsl(urlsplit(landed).query))["code"])
        await wait_for(pilot, lambda: "not the code alone" in note(app), "a bare code refused")
        assert pane.waiting and app.client.state != "connected"

        await paste(app, pilot, landed)
        await wait_for(pilot, lambda: app.client.state == "connected", "connected after the pasted login", 60)
        callbacks = [(e.status, e.title) for e in pane.events if e.step == "callback"]
        assert ("info", "the redirect URL was pasted by the person") in callbacks
        assert any(status == "ok" and "state matches" in title for status, title in callbacks)
        assert app.query_one("#auth-paste", Input).value == ""
        assert "state matches" in note(app)


async def test_a_pasted_url_with_another_state_fails_the_login(auth_server: str, tmp_path: Path) -> None:
    app = handoff_app(auth_server, tmp_path)
    async with app.run_test(size=(150, 50)) as pilot:
        pane, landed = await browse_elsewhere(app, pilot)
        await paste(app, pilot, with_query(landed, state="forged"))
        await wait_for(
            pilot,
            lambda: any(e.failed and e.step == "callback" for e in pane.events),
            "the login failed at the callback",
            timeout=60,
        )
        failed = next(e for e in pane.events if e.failed and e.step == "callback")
        assert "state does not match" in failed.title + (failed.detail or "")
        assert app.client.state != "connected"
        await wait_for(pilot, lambda: "state does not match" in note(app), "the failure under the field")
        # Nothing waits any more: a later paste is not taken.
        await wait_for(pilot, lambda: isinstance(app.screen, ConnectErrorScreen), "the connection error")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConnectErrorScreen), "the error dismissed")
        await paste(app, pilot, landed)
        await wait_for(pilot, lambda: "No login is waiting" in note(app), "the paste refused")
