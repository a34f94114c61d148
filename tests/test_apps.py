"""MCP Apps (io.modelcontextprotocol/ui) against our apps test server: a
tool's UI resource is detected and shown without being read, the client
declares the extension only with --advertise-apps, and `inspector app TOOL`
serves the app on 127.0.0.1 behind its token (403 without it) and plays its
host: the view (driven over the preview's real WebSocket, tests/app_view.py)
gets the handshake, the tool's input and result; its own tools/call reaches
the server only when the person lets it; every message is in the traffic log."""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from inspector.commands import exitcodes
from inspector.core.extensions.apps import APP_MIME_TYPE, EXTENSION, app_document, content_security_policy, tool_ui
from inspector.core.protocol.client import Client
from inspector.core.servers.spec import ServerSpec

from .app_view import ViewClient
from .peers import PYTHON, SERVERS, ended, run_inspector
from .servers.apps_server import LEGACY_HTML, WEATHER_HTML
from .terminal import Transcript, interruptible, read_pty
from .waiting import HANG, eventually, eventually_sync

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
        # The error is the response too: closed here, or its socket outlives the test.
        with exc:
            return exc.code, dict(exc.headers), exc.read()


class Preview:
    """`inspector app TOOL … --json` running: what it announced, printed and wrote to stderr."""

    def __init__(self, process: asyncio.subprocess.Process, announced: dict[str, Any]) -> None:
        self.process = process
        self.announced = announced
        self.url: str = announced["url"]
        self.printed: list[dict[str, Any]] = []
        self.stderr = b""


@asynccontextmanager
async def previewing(
    *argv: str, log: Path, stdin: Any = asyncio.subprocess.DEVNULL, stderr: Any = asyncio.subprocess.PIPE
) -> AsyncIterator[Preview]:
    # Ended with SIGINT, as ctrl+c ends it in a shell's foreground job: a test
    # runner's worker may ignore SIGINT, and the command would inherit that.
    process = await asyncio.create_subprocess_exec(
        PYTHON, "-m", "inspector", "app", *argv, "--json", "--", PYTHON, SERVER, str(log),
        stdin=stdin, stdout=asyncio.subprocess.PIPE, stderr=stderr, preexec_fn=interruptible,
    )  # fmt: skip
    assert process.stdout is not None
    line = await asyncio.wait_for(process.stdout.readline(), HANG)
    if not line:
        error = await process.stderr.read() if process.stderr is not None else b""
        raise AssertionError(f"the preview ended: {error.decode(errors='replace')}")
    preview = Preview(process, json.loads(line))

    async def drain() -> None:
        assert process.stdout is not None
        while line := await process.stdout.readline():
            preview.printed.append(json.loads(line))

    async def drain_stderr() -> None:
        if process.stderr is not None:
            while chunk := await process.stderr.read(65536):
                preview.stderr += chunk

    readers = [asyncio.create_task(drain()), asyncio.create_task(drain_stderr())]
    try:
        yield preview
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGINT)
        await asyncio.wait_for(process.wait(), HANG)
        await asyncio.wait_for(asyncio.gather(*readers), HANG)


def tool_calls(log: Path) -> list[str]:
    return [m["params"]["name"] for m in asked(log) if m["method"] == "tools/call"]


async def test_preview_serves_behind_its_token(log: Path) -> None:
    async with previewing("weather", "--no-call", log=log) as preview:
        url = preview.url
        parts = urlsplit(url)
        assert parts.hostname == "127.0.0.1" and parts.port
        token = parts.path.strip("/")
        assert len(token) >= 24
        assert "connect-src https://api.example.test" in preview.announced["csp"]
        reads = [m["params"]["uri"] for m in asked(log) if m["method"] == "resources/read"]
        assert reads == ["ui://apps/weather"]

        status, _headers, page = await asyncio.to_thread(fetch, url)
        assert status == 200
        assert b'sandbox="allow-scripts"' in page and b"postMessage" in page and b'"socket"' in page
        status, headers, page = await asyncio.to_thread(fetch, url + "view")
        assert status == 200 and page.decode() == WEATHER_HTML
        assert "connect-src https://api.example.test" in headers["Content-Security-Policy"]
        assert "sandbox allow-scripts" in headers["Content-Security-Policy"]

        origin = f"http://127.0.0.1:{parts.port}"
        for path in ("/", "/view", "/socket", f"/{token[:-1]}/view", f"/x{token}/view"):
            status, _headers, body = await asyncio.to_thread(fetch, origin + path)
            assert status == 403 and WEATHER_HTML.encode() not in body
        import aiohttp

        async with aiohttp.ClientSession() as session:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await session.ws_connect(origin + "/wrong/socket")
            assert refused.value.status == 403
            # Another web page in the person's browser, even one that learnt the token.
            with pytest.raises(aiohttp.WSServerHandshakeError) as foreign:
                await session.ws_connect(url + "socket", origin="http://evil.test")
            assert foreign.value.status == 403

        # --no-call: the bare template, neither input nor result.
        async with ViewClient.open(url) as view:
            await view.handshake()
            assert (await view.request(2, "ping"))["result"] == {}
            assert view.posted_methods() == []
    assert tool_calls(log) == []


async def test_the_app_gets_the_tools_input_and_result_and_its_calls_reach_the_server(
    tmp_path: Path, log: Path
) -> None:
    record = tmp_path / "traffic.jsonl"
    argv = ("weather", "city=Paris", "--yes", "--allow-app-calls", "--record", str(record))
    async with previewing(*argv, log=log) as preview, ViewClient.open(preview.url) as view:
        answer = await view.handshake()
        result = answer["result"]
        assert result["protocolVersion"] == "2026-01-26" and result["hostInfo"]["name"] == "inspector"
        assert {"serverTools", "serverResources", "logging"} <= set(result["hostCapabilities"])
        assert result["hostCapabilities"]["sandbox"]["csp"] == {"connectDomains": ["https://api.example.test"]}
        assert result["hostContext"]["toolInfo"]["tool"]["name"] == "weather"
        assert await view.notification("ui/notifications/tool-input") == {"arguments": {"city": "Paris"}}
        tool_result = await view.notification("ui/notifications/tool-result")
        assert tool_result["structuredContent"] == {"city": "Paris", "temperature": 21}
        assert tool_result["content"] == [{"type": "text", "text": "Sunny in Paris"}]
        assert view.posted_methods() == ["ui/notifications/tool-input", "ui/notifications/tool-result"]

        called = await view.request(2, "tools/call", {"name": "refresh", "arguments": {}})
        assert called["result"]["content"] == [{"type": "text", "text": "refreshed"}]
        assert tool_calls(log) == ["weather", "refresh"]
        # The extension's MUST: a tool whose visibility leaves out "app" is refused, never sent.
        hidden = await view.request(3, "tools/call", {"name": "model_only", "arguments": {}})
        assert hidden["error"]["code"] == -32000 and "not callable by apps" in hidden["error"]["message"]
        read = await view.request(4, "resources/read", {"uri": "ui://apps/weather"})
        assert read["result"]["contents"][0]["text"] == WEATHER_HTML
        link = await view.request(5, "ui/open-link", {"url": "https://example.test/\x1b]0;pwned\x07"})
        assert link["error"]["code"] == -32000
        mode = await view.request(6, "ui/request-display-mode", {"mode": "fullscreen"})
        assert mode["result"] == {"mode": "inline"}
        assert (await view.request(7, "ui/no-such-thing"))["error"]["code"] == -32601
    assert tool_calls(log) == ["weather", "refresh"]
    # The link was shown to the person, inert; not opened.
    assert b"example.test" in preview.stderr and b"\x1b" not in preview.stderr
    printed = [(p["direction"], p["message"].get("method")) for p in preview.printed]
    assert ("app → host", "tools/call") in printed and ("host → app", "ui/notifications/tool-result") in printed

    frames = [json.loads(line) for line in record.read_text().splitlines()]
    notes = [f["note"] for f in frames if f.get("kind") == "app"]
    for note in (
        "app → host: ui/initialize",
        "host → app",
        "app → host: ui/notifications/initialized",
        "host → app: ui/notifications/tool-input",
        "host → app: ui/notifications/tool-result",
        "app → host: tools/call",
        "app → host: resources/read",
    ):
        assert note in notes
    # The app's message is kept with its exact text.
    first = next(f for f in frames if f.get("note") == "app → host: ui/initialize")
    assert json.loads(first["raw"])["id"] == "init"
    # The forwarded requests are ordinary traffic with the server.
    sent = [
        json.loads(f["raw"])["params"] for f in frames if f["kind"] == "request" and f.get("method") == "tools/call"
    ]
    assert [p["name"] for p in sent] == ["weather", "refresh"]


async def test_under_yes_the_apps_own_call_is_refused_and_never_reaches_the_server(log: Path) -> None:
    async with previewing("weather", "city=Rome", "--yes", log=log) as preview, ViewClient.open(preview.url) as view:
        await view.handshake()
        await view.notification("ui/notifications/tool-result")
        refused = await view.request(2, "tools/call", {"name": "refresh", "arguments": {}})
        assert refused["error"]["code"] == -32000 and "refused" in refused["error"]["message"]
    assert tool_calls(log) == ["weather"]
    assert b"--allow-app-calls" in preview.stderr


async def test_on_a_terminal_the_apps_call_waits_for_the_persons_answer(log: Path) -> None:
    with Transcript() as shown:
        master, slave, terminal = shown.master, shown.slave, shown.text
        running = previewing("weather", "city=Oslo", log=log, stdin=slave, stderr=slave)
        starting = asyncio.create_task(running.__aenter__())
        # The preview's own call is asked first, before anything is served.
        await eventually(lambda: "Proceed? [y/N]" in terminal(), "the question for the preview's call")
        os.write(master, b"y\n")
        preview = await starting
        try:
            async with ViewClient.open(preview.url) as view:
                await view.handshake()
                assert (await view.notification("ui/notifications/tool-input")) == {"arguments": {"city": "Oslo"}}
                await view.notification("ui/notifications/tool-result")
                await view.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "refresh"}})
                await eventually(lambda: terminal().count("Proceed? [y/N]") == 2, "the question for the app's call")
                assert "The MCP App asks the host to call a tool" in terminal() and "Call tool refresh" in terminal()
                # Asked, not sent: the server has seen only the preview's own call.
                assert tool_calls(log) == ["weather"]
                os.write(master, b"y\n")
                assert (await view.answer_to(2))["result"]["content"][0]["text"] == "refreshed"
                assert tool_calls(log) == ["weather", "refresh"]

                await view.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "refresh"}})
                await eventually(lambda: terminal().count("Proceed? [y/N]") == 3, "the second question")
                os.write(master, b"n\n")
                refused = await view.answer_to(3)
                assert refused["error"]["code"] == -32000 and "refused" in refused["error"]["message"]
        finally:
            await running.__aexit__(None, None, None)
    assert tool_calls(log) == ["weather", "refresh"]


async def test_a_call_that_fails_reaches_the_app_as_tool_cancelled(log: Path) -> None:
    async with previewing("failing", "--yes", log=log) as preview, ViewClient.open(preview.url) as view:
        await view.handshake()
        assert await view.notification("ui/notifications/tool-input") == {"arguments": {}}
        cancelled = await view.notification("ui/notifications/tool-cancelled")
        assert "the weather service is down" in cancelled["reason"]
        assert "ui/notifications/tool-result" not in view.posted_methods()
    assert b"the weather service is down" in preview.stderr


async def test_an_app_that_floods_its_host_gets_refusals_not_more_server_requests(log: Path) -> None:
    from inspector.core.extensions.app_bridge import MAX_IN_FLIGHT

    def never_read() -> list[dict[str, Any]]:
        return [m for m in asked(log) if m["method"] == "resources/read" and m["params"]["uri"] == "ui://apps/never"]

    async with previewing("weather", "--no-call", log=log) as preview, ViewClient.open(preview.url) as view:
        await view.handshake()
        for n in range(MAX_IN_FLIGHT):
            await view.send(
                {"jsonrpc": "2.0", "id": n, "method": "resources/read", "params": {"uri": "ui://apps/never"}}
            )
        refused = await view.request("one more", "resources/read", {"uri": "ui://apps/weather"})
        assert refused["error"]["code"] == -32000 and "in flight" in refused["error"]["message"]
        await eventually(lambda: len(never_read()) == MAX_IN_FLIGHT, "the requests in flight at the server")
    # The refused one never went to the server (the other read is the preview's own).
    assert len(never_read()) == MAX_IN_FLIGHT
    assert sum(m["method"] == "resources/read" for m in asked(log)) == MAX_IN_FLIGHT + 1


def test_without_a_terminal_or_yes_the_preview_calls_nothing(log: Path) -> None:
    done = run_inspector("app", "weather", "city=Paris", "--", PYTHON, SERVER, str(log))
    assert done.returncode == exitcodes.CONFIRMATION_REFUSED, done.stderr
    assert "--yes" in done.stderr
    assert tool_calls(log) == []


def test_app_of_a_tool_without_ui_is_a_usage_error(log: Path) -> None:
    done = run_inspector("app", "plain", "--", PYTHON, SERVER, str(log))
    assert done.returncode == exitcodes.USAGE
    assert "declares no UI resource" in done.stderr
    assert not any(m["method"] == "resources/read" for m in asked(log))


class Receiver:
    """What the preview's socket hands over, kept (no protocol: the bounds of the transport alone)."""

    def __init__(self) -> None:
        self.seen: list[tuple[Any, str]] = []
        self.views: list[Any] = []

    def attach(self, view: Any) -> None:
        self.views.append(view)

    def detach(self, view: Any) -> None:
        self.views.remove(view)

    async def receive(self, view: Any, message: Any, raw: str) -> None:
        self.seen.append((message, raw))


async def test_the_socket_bounds_and_tolerates_what_a_page_sends() -> None:
    import aiohttp

    from inspector.core.extensions.app_host import MAX_APP_MESSAGE, AppHost
    from inspector.core.extensions.apps import AppDocument

    receiver = Receiver()
    host = AppHost(AppDocument("ui://t", "<p>t</p>", APP_MIME_TYPE, {}), receiver)
    url = await host.start()
    try:
        async with ViewClient.open(url) as view:
            await view.socket.send_str("not json \x1b]0;t\x07")
            await view.socket.send_str("[" * 100_000)
            await eventually(lambda: len(receiver.seen) == 2, "both messages handed over")
            await view.socket.send_str("x" * (MAX_APP_MESSAGE + 1))
            closing = await asyncio.wait_for(view.socket.receive(), HANG)
            assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR)
            await eventually(lambda: not receiver.views, "the view detached")
        # The preview stops with a page still connected, at once (not after the server's shutdown timeout).
        async with ViewClient.open(url) as view:
            await eventually(lambda: receiver.views, "a view attached")
            await host.close()
            ended = await asyncio.wait_for(view.socket.receive(), HANG)
            assert ended.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
    finally:
        await host.close()
    assert [m for m, _raw in receiver.seen] == [None, None]
    assert receiver.seen[0][1].startswith("not json")


def start_preview(tool: str, *options: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [PYTHON, "-m", "inspector", "app", tool, "--json", "--no-call", *options, "--", PYTHON, SERVER],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
        # Ended with SIGINT (`stop`), which a test runner's worker may ignore and pass on.
        preexec_fn=interruptible,
    )


def stop(process: subprocess.Popen[str]) -> None:
    """Ctrl-C, as a person ends the preview; killed (and its pipes closed) if it does not end."""
    ended(process, signal.SIGINT)


def test_the_browser_opens_only_with_open_and_never_a_console_one(tmp_path: Path) -> None:
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


def servers_running(log: Path, besides: int) -> list[int]:
    """The processes, other than `besides`, whose command line names `log`
    (unique to the test): the preview's server while it runs."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == besides:
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue  # ended meanwhile
        if str(log).encode() in words:
            found.append(int(entry.name))
    return found


# Each moment: the preview's arguments, and what shows it has been reached.
CTRL_C_MOMENTS: dict[str, tuple[tuple[str, ...], Callable[[str, Path], bool]]] = {
    # Before the URL: the server never answers the UI resource's read.
    "start-up": (("slow_ui", "--no-call"), lambda seen, log: "ui://apps/never" in str(asked(log))),
    # The preview's own call, asked before anything is served.
    "own call's question": (("weather", "city=Oslo"), lambda seen, log: "Proceed? [y/N]" in seen),
    "serving": (("weather", "--no-call"), lambda seen, log: "Ctrl-C stops it" in seen),
}


@pytest.mark.parametrize("moment", CTRL_C_MOMENTS)
def test_ctrl_c_ends_the_preview_at_once_and_its_server_with_it(moment: str, log: Path) -> None:
    """Ctrl-C typed on the terminal, as a person does, at each moment that
    waits: the command ends with the INTERRUPTED code, and the server it
    started has ended before it (nothing left running)."""
    import pty

    from .terminal import _take_terminal

    argv, reached = CTRL_C_MOMENTS[moment]
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [PYTHON, "-m", "inspector", "app", *argv, "--", PYTHON, SERVER, str(log)],
        stdin=follower, stdout=follower, stderr=follower, preexec_fn=_take_terminal,
    )  # fmt: skip
    os.close(follower)
    seen = b""

    def read_on() -> bytes:
        nonlocal seen
        ready = select.select([leader], [], [], 0.1)[0]
        seen += read_pty(leader) if ready else b""
        return seen

    try:

        def waiting() -> bool:
            assert process.poll() is None, read_on().decode(errors="replace")
            return bool(reached(read_on().decode(errors="replace"), log))

        eventually_sync(waiting, f"the preview's {moment}")
        assert servers_running(log, process.pid), "the server runs while the preview waits"
        os.write(leader, b"\x03")  # Ctrl-C, as typed: the terminal sends SIGINT to the foreground group
        deadline = time.monotonic() + HANG  # only a hang reaches it
        while process.poll() is None and time.monotonic() < deadline:
            read_on()
        code = process.wait(max(0.0, deadline - time.monotonic()))
        # Once the command has ended, not a moment later: it waits for its server's end.
        left = servers_running(log, process.pid)
        # What it wrote last is still in the terminal: read up to its end (EOF, or EIO).
        while select.select([leader], [], [], HANG)[0] and (chunk := read_pty(leader)):
            seen += chunk
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
        os.close(leader)
    text = seen.decode(errors="replace")
    assert code == exitcodes.INTERRUPTED, text
    assert "inspector: interrupted" in text
    assert left == []


async def test_ctrl_c_while_the_apps_call_is_asked_ends_the_preview(log: Path) -> None:
    """Ctrl-C while the person is asked about the app's own tools/call: the
    question is not left waiting for an answer, the preview ends with the
    INTERRUPTED code and its server ended before it."""
    with Transcript() as shown:
        slave, terminal = shown.slave, shown.text
        async with (
            previewing("weather", "--no-call", log=log, stdin=slave, stderr=slave) as preview,
            ViewClient.open(preview.url) as view,
        ):
            await view.handshake()
            await view.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "refresh"}})
            await eventually(lambda: "Proceed? [y/N]" in terminal(), "the question for the app's call")
            assert servers_running(log, preview.process.pid), "the server runs while the question waits"
            preview.process.send_signal(signal.SIGINT)
            code = await asyncio.wait_for(preview.process.wait(), HANG)
            # Once the command has ended, not a moment later: it waits for its server's end.
            assert servers_running(log, preview.process.pid) == []
    assert code == exitcodes.INTERRUPTED, terminal()
    assert tool_calls(log) == []
