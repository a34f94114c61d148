"""MCP Apps (io.modelcontextprotocol/ui) against our apps test server: a
tool's UI resource is detected and shown without being read, the client
declares the extension only with --advertise-apps, and `inspector app TOOL`
serves the app on 127.0.0.1 behind its token (403 without it) and shows the
messages the app posts to its host."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from inspector.commands import exitcodes
from inspector.core import Client, ServerSpec
from inspector.core.apps import APP_MIME_TYPE, EXTENSION, app_document, content_security_policy, tool_ui

from .peers import PYTHON, SERVERS, run_inspector
from .servers.apps_server import LEGACY_HTML, WEATHER_HTML

SERVER = str(SERVERS / "apps_server.py")


def asked(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def offered_capabilities(log: Path) -> list[dict[str, Any]]:
    """The client capabilities of every opening request (discover probe and initialize)."""
    found = []
    for message in asked(log):
        params = message["params"] or {}
        if message["method"] == "initialize":
            found.append(params["capabilities"])
        elif message["method"] == "server/discover":
            found.append(params["_meta"]["io.modelcontextprotocol/clientCapabilities"])
    return found


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "asked.jsonl"


@pytest.fixture
async def client(log: Path) -> AsyncIterator[Client]:
    client = Client(ServerSpec(command=PYTHON, args=[SERVER, str(log)], timeout=30))
    await client.connect()
    try:
        yield client
    finally:
        await client.close()


async def test_tools_ui_resources_are_detected_without_reading_them(client: Client, log: Path) -> None:
    listing = await client.list_all("tools")
    uis = {item.key: tool_ui(item.data) for item in listing.items}
    weather, refresh, legacy = uis["weather"], uis["refresh"], uis["legacy_ui"]
    assert weather is not None and weather.resource_uri == "ui://apps/weather"
    assert weather.visibility == ["model", "app"] and weather.visibility_given and not weather.deprecated_key
    assert refresh is not None and refresh.visibility == ["app"]
    assert legacy is not None and legacy.resource_uri == "ui://apps/legacy" and legacy.deprecated_key
    assert legacy.visibility == ["model", "app"] and not legacy.visibility_given
    assert uis["plain"] is None
    assert not any(m["method"] == "resources/read" for m in asked(log))


def test_malformed_ui_metadata_is_a_problem_not_a_crash() -> None:
    ui = tool_ui({"name": "t", "_meta": {"ui": {"resourceUri": "https://x.test/a", "visibility": ["model", "bot"]}}})
    assert ui is not None
    assert any("ui:// scheme" in p for p in ui.problems)
    assert any("bot" in p for p in ui.problems)
    broken = tool_ui({"name": "t", "_meta": {"ui": {"resourceUri": 5, "visibility": "app"}}})
    assert broken is not None and broken.resource_uri is None
    assert broken.visibility == ["model", "app"] and len(broken.problems) == 2


async def test_ui_resource_html_comes_from_text_or_blob(client: Client) -> None:
    weather = app_document("ui://apps/weather", await client.read_resource("ui://apps/weather"))
    assert weather.html == WEATHER_HTML and weather.mime_type == APP_MIME_TYPE and not weather.problems
    assert weather.ui_meta["csp"] == {"connectDomains": ["https://api.example.test"]}
    legacy = app_document("ui://apps/legacy", await client.read_resource("ui://apps/legacy"))
    assert legacy.html == LEGACY_HTML


def test_csp_is_the_restrictive_default_opened_only_to_declared_origins() -> None:
    default = content_security_policy({})
    assert "connect-src 'none'" in default and "frame-src 'none'" in default and "object-src 'none'" in default
    opened = content_security_policy({"csp": {"connectDomains": ["https://api.test", "x; script-src *"]}})
    assert "connect-src https://api.test;" in opened
    # An origin that would write its own directive is dropped, not pasted in.
    assert "script-src *" not in opened


@pytest.mark.parametrize("era", ["auto", "legacy"])
def test_apps_capability_only_with_the_switch(log: Path, era: str) -> None:
    plain = run_inspector("--era", era, "list", "tools", "--json", "--", PYTHON, SERVER, str(log))
    assert plain.returncode == 0, plain.stderr
    offered = offered_capabilities(log)
    assert offered and all(EXTENSION not in caps.get("extensions", {}) for caps in offered)
    log.unlink()
    advertised = run_inspector(
        "--era", era, "--advertise-apps", "list", "tools", "--json", "--", PYTHON, SERVER, str(log)
    )
    assert advertised.returncode == 0, advertised.stderr
    offered = offered_capabilities(log)
    assert offered and all(caps["extensions"][EXTENSION] == {"mimeTypes": [APP_MIME_TYPE]} for caps in offered)


def test_list_tools_shows_the_app_and_serves_nothing(log: Path) -> None:
    done = run_inspector("list", "tools", "--human", "--", PYTHON, SERVER, str(log))
    assert done.returncode == 0, done.stderr
    assert "app: ui://apps/weather (visibility: model, app)" in done.stdout
    assert "app: ui://apps/weather (visibility: app)" in done.stdout
    assert "deprecated _meta['ui/resourceUri']" in done.stdout
    assert "http://" not in done.stdout + done.stderr
    # Escapes from the server's metadata are shown, never sent to the terminal.
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert "unknown visibility value(s)" in done.stdout
    assert not any(m["method"] == "resources/read" for m in asked(log))
    as_json = run_inspector("list", "tools", "--json", "--", PYTHON, SERVER)
    tools = {t["name"]: t for t in json.loads(as_json.stdout)["tools"]}
    assert tools["weather"]["_meta"]["ui"] == {"resourceUri": "ui://apps/weather", "visibility": ["model", "app"]}


def fetch(url: str, data: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_preview_serves_behind_its_token_and_relays_app_messages(tmp_path: Path, log: Path) -> None:
    record = tmp_path / "traffic.jsonl"
    process = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "inspector",
            "app",
            "weather",
            "--json",
            "--record",
            str(record),
            "--",
            PYTHON,
            SERVER,
            str(log),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        assert process.stdout is not None
        announced = json.loads(process.stdout.readline())
        url = announced["url"]
        parts = urlsplit(url)
        assert parts.hostname == "127.0.0.1" and parts.port
        token = parts.path.strip("/")
        assert len(token) >= 24
        assert "connect-src https://api.example.test" in announced["csp"]
        reads = [m["params"]["uri"] for m in asked(log) if m["method"] == "resources/read"]
        assert reads == ["ui://apps/weather"]

        status, _headers, page = fetch(url)
        assert status == 200
        assert b'sandbox="allow-scripts"' in page and b"postMessage" in page
        status, headers, view = fetch(url + "view")
        assert status == 200 and view.decode() == WEATHER_HTML
        assert "connect-src https://api.example.test" in headers["Content-Security-Policy"]
        assert "sandbox allow-scripts" in headers["Content-Security-Policy"]

        origin = f"http://127.0.0.1:{parts.port}"
        for path in ("/", "/view", "/messages", f"/{token[:-1]}/view", f"/x{token}/view"):
            status, _headers, body = fetch(origin + path)
            assert status == 403 and WEATHER_HTML.encode() not in body
        assert fetch(origin + "/wrong/messages", b"{}")[0] == 403

        message = {"jsonrpc": "2.0", "id": 7, "method": "ui/initialize", "params": {"appCapabilities": {}}}
        status, _headers, body = fetch(url + "messages", json.dumps(message).encode())
        assert status == 200
        reply = json.loads(body)["reply"]
        assert reply["id"] == 7 and reply["result"]["hostInfo"]["name"] == "inspector"
        assert reply["result"]["hostContext"]["toolInfo"]["tool"]["name"] == "weather"
        shown = json.loads(process.stdout.readline())
        assert shown["app"] == message and shown["reply"] == reply

        call = {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "refresh"}}
        _status, _headers, body = fetch(url + "messages", json.dumps(call).encode())
        assert json.loads(body)["reply"]["error"]["code"] == -32601
        assert json.loads(process.stdout.readline())["app"] == call
        # Shown, never forwarded: the server saw no tools/call.
        assert not any(m["method"] == "tools/call" for m in asked(log))
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=60)
        if process.stdout:
            process.stdout.close()
        if process.stderr:
            process.stderr.close()
    assert code == exitcodes.INTERRUPTED
    frames = [json.loads(line) for line in record.read_text().splitlines()]
    app_frames = [f for f in frames if f.get("kind") == "app"]
    relayed = [json.loads(f["raw"]) for f in app_frames if f["note"].startswith("app → host")]
    assert relayed == [message, call]
    answered = [json.loads(f["raw"]) for f in app_frames if f["note"] == "host → app"]
    assert [a["id"] for a in answered] == [7, 8]


def test_app_of_a_tool_without_ui_is_a_usage_error(log: Path) -> None:
    done = run_inspector("app", "plain", "--", PYTHON, SERVER, str(log))
    assert done.returncode == exitcodes.USAGE
    assert "declares no UI resource" in done.stderr
    assert not any(m["method"] == "resources/read" for m in asked(log))


async def test_relay_bounds_and_tolerates_what_a_page_posts() -> None:
    import aiohttp

    from inspector.core.app_host import MAX_APP_MESSAGE, AppHost
    from inspector.core.apps import AppDocument

    seen: list[tuple[Any, str]] = []

    async def on_message(message: Any, raw: str) -> Any:
        seen.append((message, raw))
        return None

    host = AppHost(AppDocument("ui://t", "<p>t</p>", APP_MIME_TYPE, {}), on_message)
    url = await host.start()
    try:
        async with aiohttp.ClientSession() as session:
            async with session.post(url + "messages", data=b"x" * (MAX_APP_MESSAGE + 1)) as response:
                assert response.status == 413
            async with session.post(url + "messages", data=b"not json \x1b]0;t\x07") as response:
                assert response.status == 200 and await response.json() == {}
            async with session.post(url + "messages", data=b"[" * 100_000) as response:
                assert response.status == 200
    finally:
        await host.close()
    assert [m for m, _raw in seen] == [None, None]
    assert seen[0][1].startswith("not json")


def start_preview(tool: str, *options: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [PYTHON, "-m", "inspector", "app", tool, "--json", *options, "--", PYTHON, SERVER],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )


def stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGINT)
    process.wait(timeout=60)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def test_the_browser_opens_only_with_open_and_never_a_console_one(tmp_path: Path) -> None:
    from .waiting import eventually_sync

    browser = tmp_path / "fake-browser"
    browser.write_text(f'#!/bin/sh\nexec "{PYTHON}" "{SERVERS / "fake_browser.py"}" "$@"\n')
    browser.chmod(0o755)
    opened = tmp_path / "opened.txt"
    env = {"BROWSER": str(browser), "FAKE_BROWSER_LOG": str(opened)}

    quiet = start_preview("weather", env=env)
    try:
        assert quiet.stdout is not None
        url = json.loads(quiet.stdout.readline())["url"]
        # The preview answers, so it is up; nobody was sent to it.
        assert fetch(url)[0] == 200
        assert not opened.exists()
    finally:
        stop(quiet)

    asked = start_preview("weather", "--open", env=env)
    try:
        assert asked.stdout is not None
        url = json.loads(asked.stdout.readline())["url"]
        visits = eventually_sync(lambda: opened.exists() and opened.read_text().splitlines(), "the browser's visit")
        assert visits[:2] == [url, f"200 {url}"]
    finally:
        stop(asked)

    console = start_preview("weather", "--open", env={"BROWSER": "lynx"})
    try:
        assert console.stdout is not None and console.stderr is not None
        json.loads(console.stdout.readline())
        assert "console one (lynx)" in console.stderr.readline()
    finally:
        stop(console)
