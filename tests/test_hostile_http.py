"""A misbehaving HTTP server (tests/servers/hostile_http.py) meets a deadline,
a size bound and a refusal, never a hang: --timeout holds whatever the body
does, a 200 that cannot be JSON-RPC fails at once naming what arrived, one
message past the size limit fails its request, a redirect to another origin
is refused before any header goes there, and the body of an HTTP error is
kept in the traffic, in the CLI's error and in the TUI."""

from __future__ import annotations

import asyncio
import json
import resource
import subprocess
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from inspector.commands import exitcodes
from inspector.core.auth.config import AuthConfig
from inspector.core.auth.session import session_for
from inspector.core.auth.store import TokenStore
from inspector.core.protocol.errors import MessageTooLarge, RequestTimeout
from inspector.core.protocol.pending import PendingRequest
from inspector.core.protocol.session import Session
from inspector.core.record.traffic import TrafficLog
from inspector.core.servers.spec import ServerSpec
from inspector.core.transports.streamable_http import StreamableHttpTransport

from .peers import PYTHON, SERVERS, free_port, run_inspector, serving

HOSTILE_HTTP = str(SERVERS / "hostile_http.py")
FORBIDDEN_TEXT = "Access is only allowed at localhost:8803"
SECRET = "secret-key-4f9a"
NOISE = ("Traceback", "Task exception", "was never retrieved", "Task was destroyed")
# Far above what any of these commands needs; the bugs took minutes or forever.
BOUND = 60


@dataclass
class Hostile:
    base: str
    second_port: int

    def url(self, mode: str) -> str:
        return f"{self.base}/{mode}"

    def log(self) -> list[dict[str, Any]]:
        with urllib.request.urlopen(f"{self.base}/log", timeout=BOUND) as response:
            entries: list[dict[str, Any]] = json.loads(response.read())
            return entries


@pytest.fixture(scope="module")
def hostile() -> Iterator[Hostile]:
    port, second = free_port(), free_port()
    with serving([PYTHON, HOSTILE_HTTP, str(port), "--second-port", str(second)], port):
        yield Hostile(f"http://127.0.0.1:{port}", second)


def inspector(*args: str) -> subprocess.CompletedProcess[str]:
    return run_inspector(*args, timeout=BOUND)


def list_tools(url: str, *options: str, record: Path | None = None) -> subprocess.CompletedProcess[str]:
    extra = ["--record", str(record)] if record is not None else []
    return inspector("--url", url, *options, *extra, "list", "tools")


def assert_failure(result: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    assert result.returncode == code, (result.returncode, result.stderr)
    for noise in NOISE:
        assert noise not in result.stderr, result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr


def recorded(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def notes(frames: list[dict[str, Any]]) -> list[str]:
    return [str(f.get("note")) for f in frames if f.get("note")]


# -- --timeout is a deadline ----------------------------------------------------------------


def test_a_trickling_initialize_ends_at_the_deadline(hostile: Hostile, tmp_path: Path) -> None:
    """The initialize POST (and the era probe before it) was awaited whole,
    outside the deadline: one byte a second took minutes."""
    record = tmp_path / "trickle.jsonl"
    result = list_tools(hostile.url("trickle"), "--timeout", "3", record=record)
    assert_failure(result, exitcodes.TIMEOUT, "did not answer initialize within 3 s")
    assert any("the transport's send was stopped" in note for note in notes(recorded(record)))


@pytest.mark.parametrize("mode", ["trickle", "comments"])
async def test_a_raw_initialize_ends_at_the_deadline(hostile: Hostile, mode: str) -> None:
    """A request typed in the composer goes through `send_raw`; a raw
    `initialize` is sent and read in one go on HTTP, and its send was not
    bounded by the deadline: the server held it for minutes."""
    traffic = TrafficLog()
    transport = StreamableHttpTransport(traffic, hostile.url(mode), open_get_stream=False)
    session = Session(transport, traffic, default_timeout=2)
    await transport.start()
    typed = '{"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"capabilities": {}}}'
    try:
        sent = await asyncio.wait_for(session.send_raw(typed), BOUND)
        assert isinstance(sent, PendingRequest)
        with pytest.raises(RequestTimeout):
            await asyncio.wait_for(sent.future, BOUND)
    finally:
        await session.close()
    assert any("initialize: the transport's send was stopped" in (f.note or "") for f in traffic)


@pytest.mark.parametrize("mode", ["trickle/later", "comments/later"])
def test_a_request_whose_body_never_ends_fails_at_its_deadline(hostile: Hostile, tmp_path: Path, mode: str) -> None:
    """Bytes that trickle and SSE keep-alive comments do not restart the
    timeout, and the body is not read on after it."""
    record = tmp_path / "later.jsonl"
    result = list_tools(hostile.url(mode), "--timeout", "3", record=record)
    assert_failure(result, exitcodes.TIMEOUT, "tools/list: no response within 3 s")
    frames = recorded(record)
    assert any("stopped reading the answer to request" in note for note in notes(frames))
    assert any(f.get("method") == "notifications/cancelled" for f in frames)


def test_sse_comments_forever_on_initialize_end_at_the_deadline(hostile: Hostile) -> None:
    result = list_tools(hostile.url("comments"), "--timeout", "3")
    assert_failure(result, exitcodes.TIMEOUT, "did not answer initialize within 3 s")


# -- a 200 that cannot be JSON-RPC fails at once ----------------------------------------------


@pytest.mark.parametrize(
    ("mode", "needles", "kept"),
    [
        ("html", ["'text/html; charset=utf-8'", "neither application/json nor text/event-stream"], "<!DOCTYPE html>"),
        ("json-html", ["saying 'application/json', but the body is not JSON"], "<!DOCTYPE html>"),
        ("sse-json", ["saying 'text/event-stream', but the body is not an event stream"], '{"jsonrpc": "2.0"'),
    ],
)
def test_an_answer_that_is_not_what_it_says_fails_at_once(
    hostile: Hostile, tmp_path: Path, mode: str, needles: list[str], kept: str
) -> None:
    """With a 120 s timeout, inside the 60 s bound: not after the timeout.
    The error names the content type and quotes the first bytes; the body
    stays in the traffic."""
    record = tmp_path / "wrong.jsonl"
    result = list_tools(hostile.url(f"{mode}/later"), "--timeout", "120", record=record)
    assert_failure(result, exitcodes.PROTOCOL_ERROR, "tools/list", *needles, f"the body starts: {kept}")
    bodies = [f for f in recorded(record) if f["kind"] == "http" and f.get("raw")]
    assert any(str(f["raw"]).startswith(kept) for f in bodies), bodies


# -- one message past the size limit ------------------------------------------------------------


@pytest.mark.parametrize(("mode", "what"), [("oversize/later", "JSON body"), ("oversize-sse/later", "SSE event")])
async def test_one_message_past_the_size_limit_fails_its_request(hostile: Hostile, mode: str, what: str) -> None:
    """The server sends one body (or one `data:` line) that never ends: the
    request fails when the running count passes the limit, not at the
    timeout and not when memory runs out."""
    limit = 64 * 1024
    traffic = TrafficLog()
    transport = StreamableHttpTransport(traffic, hostile.url(mode), max_message_size=limit, open_get_stream=False)
    session = Session(transport, traffic, default_timeout=BOUND)
    await transport.start()
    try:
        await session.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {}})
        with pytest.raises(MessageTooLarge) as caught:
            await session.request("tools/list")
    finally:
        await session.close()
    assert what in str(caught.value)
    assert f"message size limit of {limit} bytes" in str(caught.value)
    request = next(f for f in traffic if f.method == "tools/list" and f.direction == "out")
    assert any("message size limit" in problem for problem in request.problems)


def test_the_default_size_limit_bounds_the_inspectors_memory(hostile: Hostile) -> None:
    """An endless JSON body with a long timeout: the CLI stops at 256 MiB
    and its peak memory stays near that, instead of growing until the
    machine gives out."""
    result = list_tools(hostile.url("oversize/later"), "--timeout", "120")
    assert_failure(result, exitcodes.PROTOCOL_ERROR, "larger than the message size limit of 268435456 bytes")
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert peak_kib < 1024 * 1024, f"peak RSS of a child: {peak_kib} KiB"


async def test_the_login_probe_reads_no_more_than_the_size_limit(hostile: Hostile, tmp_path: Path) -> None:
    """The login check before connecting sends its own `initialize` probe;
    its answer was read whole, so a body that never ends grew the memory
    until the server gave up.  It is read up to --max-message-size, like
    every other body: the probe was not challenged, so there is no login."""
    limit = 64 * 1024
    spec = ServerSpec(url=hostile.url("oversize"), max_message_size=limit)
    spec.auth = AuthConfig(store=TokenStore(tmp_path, keyring=False))
    session = session_for(spec)
    assert session is not None
    assert await asyncio.wait_for(session.preflight(), BOUND) is False
    said = [event.title for event in session.log.events]
    assert any(f"larger than the message size limit ({limit} bytes)" in title for title in said), said
    assert any("did not ask for authorization (POST" in title and "→ 200" in title for title in said), said


# -- redirects ------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["redirect", "redirect/later"])
def test_a_redirect_to_another_origin_is_refused_before_any_header_goes_there(
    hostile: Hostile, tmp_path: Path, mode: str
) -> None:
    """A 307 to another port of 127.0.0.1 (another origin), on initialize or
    on a later request: refused with both origins named, recorded with the
    headers it would have carried, and the target never hears of us."""
    record = tmp_path / "redirect.jsonl"
    options = ["--header", f"X-Api-Key: {SECRET}", "--bearer", "bearer-token-77", "--timeout", "10"]
    result = list_tools(hostile.url(mode), *options, record=record)
    source = hostile.base
    target = f"http://127.0.0.1:{hostile.second_port}"
    assert_failure(result, exitcodes.CANNOT_CONNECT, f"on another origin ({source} → {target})", "not followed")
    assert SECRET not in result.stderr
    refused = [f for f in recorded(record) if (f.get("meta") or {}).get("redirect_refused")]
    assert refused, "the refused redirect is in the traffic"
    assert "X-Api-Key" in refused[0]["meta"]["withheld_headers"]
    assert "redirect to another origin refused" in refused[0]["note"]
    reached = [e for e in hostile.log() if e["port"] == hostile.second_port]
    assert reached == [], reached
    assert all(SECRET not in json.dumps(e) for e in reached)


def test_a_legacy_endpoint_on_another_origin_is_refused(hostile: Hostile, tmp_path: Path) -> None:
    """Legacy HTTP+SSE: every POST goes to the URL of the `endpoint` event;
    one on another origin would get the person's headers like a redirect."""
    record = tmp_path / "endpoint.jsonl"
    options = ["--transport", "sse", "--header", f"X-Api-Key: {SECRET}", "--timeout", "10"]
    result = list_tools(hostile.url("endpoint-elsewhere"), *options, record=record)
    target = f"http://127.0.0.1:{hostile.second_port}/ok"
    assert_failure(result, exitcodes.CANNOT_CONNECT, f"named its message endpoint on another origin: {target}")
    assert any((f.get("meta") or {}).get("refused") for f in recorded(record))
    assert [e for e in hostile.log() if e["port"] == hostile.second_port] == []


def test_a_redirect_within_the_origin_is_followed(hostile: Hostile, tmp_path: Path) -> None:
    record = tmp_path / "same.jsonl"
    result = list_tools(hostile.url("same-origin"), "--header", f"X-Api-Key: {SECRET}", "--json", record=record)
    assert result.returncode == exitcodes.OK, result.stderr
    assert json.loads(result.stdout)["tools"][0]["name"] == "echo"
    assert any("redirect within the origin, followed" in note for note in notes(recorded(record)))


# -- the body of an HTTP error is kept --------------------------------------------------------


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_a_403_body_is_in_the_error_and_the_recording(hostile: Hostile, tmp_path: Path, transport: str) -> None:
    record = tmp_path / "forbidden.jsonl"
    result = list_tools(hostile.url("forbidden"), "--transport", transport, "--timeout", "10", record=record)
    assert_failure(result, exitcodes.CANNOT_CONNECT, "HTTP 403", f"the server said: {FORBIDDEN_TEXT}")
    bodies = [f for f in recorded(record) if f["kind"] == "http" and f.get("raw") == FORBIDDEN_TEXT]
    assert bodies, "the 403 body is in the recorded traffic"
    assert bodies[0]["meta"]["http_body"] == 403


def test_a_500_json_body_is_in_the_error_and_the_recording(hostile: Hostile, tmp_path: Path) -> None:
    record = tmp_path / "error500.jsonl"
    result = list_tools(hostile.url("error500"), "--timeout", "10", record=record)
    assert_failure(result, exitcodes.CANNOT_CONNECT, "HTTP 500 Internal Server Error", '"database unavailable"')
    bodies = [f for f in recorded(record) if f["kind"] == "http" and "database unavailable" in str(f.get("raw"))]
    assert bodies and bodies[0]["meta"]["http_body"] == 500


@pytest.mark.parametrize("oauth", [[], ["--no-oauth"]], ids=["login-preflight", "no-oauth"])
async def test_the_tui_shows_the_403_body(hostile: Hostile, oauth: list[str]) -> None:
    """The TUI's login preflight meets the 403 first; with --no-oauth the
    transport does: the server's reason is on the error screen either way."""
    from textual.widgets import Static

    from inspector.cli.parser import build_parser
    from inspector.core.servers.from_args import spec_from_args
    from inspector.tui.app import InspectorApp
    from inspector.tui.screens.connect_error import ConnectErrorScreen

    from .tui_helpers import wait_for

    argv = ["--url", hostile.url("forbidden"), "--timeout", "10", *oauth]
    app = InspectorApp(spec_from_args(build_parser().parse_args(argv), []))
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ConnectErrorScreen), "error screen", timeout=40)

        def shown() -> str:
            return " ".join(str(s.render()) for s in app.screen.query(Static))

        await wait_for(pilot, lambda: FORBIDDEN_TEXT in shown(), "the server's reason on the error screen")
        if oauth:
            assert any(f.kind == "http" and f.raw == FORBIDDEN_TEXT.encode() for f in app.traffic)


async def test_the_tui_refuses_a_redirect_to_another_origin(hostile: Hostile) -> None:
    """The TUI checks for a login before connecting (its own probe POST):
    that probe must not carry the person's headers to another origin either."""
    from textual.widgets import Static

    from inspector.cli.parser import build_parser
    from inspector.core.servers.from_args import spec_from_args
    from inspector.tui.app import InspectorApp
    from inspector.tui.screens.connect_error import ConnectErrorScreen

    from .tui_helpers import wait_for

    argv = ["--url", hostile.url("redirect"), "--header", f"X-Api-Key: {SECRET}", "--timeout", "10"]
    app = InspectorApp(spec_from_args(build_parser().parse_args(argv), []))
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ConnectErrorScreen), "error screen", timeout=40)

        def shown() -> str:
            return " ".join(str(s.render()) for s in app.screen.query(Static))

        await wait_for(pilot, lambda: "on another origin" in shown(), "the refusal on the error screen")
    assert [e for e in hostile.log() if e["port"] == hostile.second_port] == []
