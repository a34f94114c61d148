"""Handing a login to a browser elsewhere (`--oauth-browser handoff`), against
the protected server and authorization server of tests/servers/auth_server.py:
the inspector prints the authorization URL and the `ssh -L` port-forward, an
HTTP client plays the remote browser (following the authorization server's
redirects up to the loopback redirect, which it does not reach), and the URL
it ended on is pasted on the inspector's standard input, or fetched, as the
`ssh -L` forward would carry it to the listener.  A pasted URL with another
state fails the login like a redirect with one; another URL, or a bare code,
is refused and the login goes on waiting.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import httpx2
import pytest

from inspector.commands import exitcodes

from .auth_helpers import control, protected_server, stats
from .peers import PYTHON
from .waiting import HANG, eventually_sync


@pytest.fixture(scope="module")
def auth_server() -> Iterator[str]:
    with protected_server("auth_server.py") as base:
        yield base


class Login:
    """`inspector auth login --oauth-browser handoff` with its stderr read as it comes."""

    def __init__(self, base: str, config_dir: Path) -> None:
        env = {**os.environ, "INSPECTOR_CONFIG_DIR": str(config_dir)}
        argv = ["auth", "login", f"{base}/mcp", "--oauth-browser", "handoff", "--oauth-timeout", "120", "--json"]
        self.process = subprocess.Popen(
            [PYTHON, "-m", "inspector", *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.err = ""
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self._lock:
                self.err += line

    def stderr(self) -> str:
        with self._lock:
            return self.err

    def wait_for(self, needle: str) -> str:
        eventually_sync(lambda: needle in self.stderr() or self.process.poll() is not None, f"{needle!r} on stderr")
        text = self.stderr()
        assert needle in text, text
        return text

    def paste(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def finish(self) -> tuple[int, dict[str, object]]:
        assert self.process.stdout is not None and self.process.stdin is not None
        self.process.wait(HANG)  # generous: only a hang reaches it (stdin stays open: the paste ends it)
        out = self.process.stdout.read()
        self.process.stdin.close()
        self._reader.join(HANG)
        return self.process.returncode, json.loads(out)

    def end(self) -> None:
        """Killed if it still runs; its pipes closed once the reader has seen stderr's end."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(HANG)
        self._reader.join(HANG)
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            if pipe is not None:
                with contextlib.suppress(BrokenPipeError):  # what stdin still held cannot reach a dead process
                    pipe.close()


@pytest.fixture
def login(auth_server: str, tmp_path: Path) -> Iterator[Login]:
    control(auth_server)
    running = Login(auth_server, tmp_path / "config")
    try:
        yield running
    finally:
        running.end()


def printed_url(text: str) -> str:
    match = re.search(r"Open this URL to authorize the inspector:\n  (\S+)", text)
    assert match, text
    return match.group(1)


def remote_browser(url: str, redirect_uri: str) -> str:
    """Follow the authorization server's redirects until one points at the redirect URI (not fetched:
    on the person's machine nothing listens there)."""
    with httpx2.Client(follow_redirects=False, timeout=HANG) as client:
        for _hop in range(10):
            if url.split("?", 1)[0] == redirect_uri:
                return url
            response = client.get(url)
            assert response.is_redirect, f"{response.status_code} at {url}"
            url = urljoin(url, response.headers["location"])
    raise AssertionError("too many redirects")


def with_query(url: str, **changes: str) -> str:
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    query.update(changes)
    return urlunsplit(parts._replace(query=urlencode(query)))


def test_a_pasted_redirect_url_completes_the_login(login: Login, auth_server: str) -> None:
    before = stats(auth_server)["token"]
    text = login.wait_for("paste here the full URL")
    url = printed_url(text)
    redirect_uri = dict(parse_qsl(urlsplit(url).query))["redirect_uri"]
    port = urlsplit(redirect_uri).port
    assert f"ssh -L {port}:127.0.0.1:{port} " in text
    login.wait_for("or a pasted URL")
    landed = remote_browser(url, redirect_uri)
    assert "code" in dict(parse_qsl(urlsplit(landed).query))
    # Something else first: refused, and the login goes on waiting.
    login.paste("http://127.0.0.1:1/elsewhere?code=x&state=y")
    login.wait_for("not the redirect this login waits for")
    login.paste(landed)
    code, result = login.finish()
    assert code == exitcodes.OK, login.stderr()
    assert result["error"] is None
    assert result["logged_in"] is True
    events = result["events"]
    assert isinstance(events, list)
    steps = [(event["step"], event["status"]) for event in events]
    assert ("callback", "ok") in steps
    assert ("token", "ok") in steps
    # The port-forward also goes with the step (the TUI's Auth view shows no printed lines).
    details = [str(event.get("detail")) for event in events if event["step"] == "authorization"]
    assert any(f"ssh -L {port}:127.0.0.1:{port} " in detail for detail in details), details
    assert stats(auth_server)["token"] > before


def test_a_pasted_url_with_another_state_is_refused(login: Login) -> None:
    url = printed_url(login.wait_for("paste here the full URL"))
    redirect_uri = dict(parse_qsl(urlsplit(url).query))["redirect_uri"]
    login.wait_for("or a pasted URL")
    landed = remote_browser(url, redirect_uri)
    login.paste(with_query(landed, state="not-the-state-of-this-login"))
    code, result = login.finish()
    assert code not in (exitcodes.OK, exitcodes.TIMEOUT), login.stderr()
    assert "state does not match" in str(result["error"])
    assert result["logged_in"] is False


def test_a_bare_code_is_refused(login: Login) -> None:
    url = printed_url(login.wait_for("paste here the full URL"))
    redirect_uri = dict(parse_qsl(urlsplit(url).query))["redirect_uri"]
    login.wait_for("or a pasted URL")
    landed = remote_browser(url, redirect_uri)
    login.paste(dict(parse_qsl(urlsplit(landed).query))["code"])
    login.wait_for("not the code alone")
    login.paste(landed)  # still waiting: the whole URL completes it
    code, result = login.finish()
    assert code == exitcodes.OK, login.stderr()
    assert result["logged_in"] is True


def test_the_redirect_through_a_port_forward_completes_it_while_stdin_stays_open(login: Login) -> None:
    """The `ssh -L` route: the browser's redirect reaches the listener (as it does through the forward);
    nothing is pasted, and the waiting paste reader does not keep the login from finishing."""
    url = printed_url(login.wait_for("paste here the full URL"))
    redirect_uri = dict(parse_qsl(urlsplit(url).query))["redirect_uri"]
    login.wait_for("or a pasted URL")
    landed = remote_browser(url, redirect_uri)
    page = httpx2.get(landed, timeout=HANG)
    assert page.status_code == 200 and "Authorization received" in page.text
    code, result = login.finish()
    assert code == exitcodes.OK, login.stderr()
    assert result["logged_in"] is True
