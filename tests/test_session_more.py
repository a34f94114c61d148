"""Session behaviours against real servers: the timeout restarted by
progress, the server's own ping answered, a counter-offered older revision
accepted and an unknown one refused clearly, the page cap, lenient lists,
raw stdout bytes kept exact, late answers after cancel / reconnect, and no
roots notification in the stateless era."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from inspector.commands import exitcodes
from inspector.core.protocol.client import Client
from inspector.core.protocol.errors import InspectorError, ProtocolError, RequestTimeout
from inspector.core.protocol.handlers import ClientHandlers
from inspector.core.protocol.server_requests import ServerRequest
from inspector.core.servers.spec import ServerSpec, demo_spec

from .peers import SERVERS
from .waiting import eventually

HOSTILE = str(SERVERS / "hostile.py")


def hostile(mode: str, *extra: str, timeout: float = 10) -> ServerSpec:
    return ServerSpec(command=sys.executable, args=[HOSTILE, "--mode", mode, *extra], timeout=timeout)


async def connected(spec: ServerSpec, handlers: ClientHandlers | None = None) -> Client:
    client = Client(spec, handlers=handlers)
    await client.connect()
    return client


# -- timeouts and progress ---------------------------------------------------------


async def test_progress_restarts_the_timeout() -> None:
    client = await connected(demo_spec())
    try:
        seen: list[float] = []
        # 6 steps of 0.5 s: 3 s in all, past the 2 s timeout, but every
        # progress notification restarts it.  Each gap leaves 1.5 s for a
        # loaded machine to deliver the next notification.
        result = await client.call_tool(
            "long_running_task",
            {"steps": 6, "interval_ms": 500},
            on_progress=lambda p, t, m: seen.append(p),
            timeout=2,
        )
        assert seen == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
        assert "Finished all 6 steps" in str(result)
        # Without a progress token nothing restarts it: the same call times out.
        with pytest.raises(RequestTimeout, match=r"no response within 2 s"):
            await client.call_tool("long_running_task", {"steps": 6, "interval_ms": 500}, timeout=2)
    finally:
        await client.close()


async def test_late_answer_after_a_timeout_is_not_blamed_on_the_server() -> None:
    client = await connected(demo_spec())
    try:
        session, _transport = client.require()
        with pytest.raises(RequestTimeout):
            # Not cancelled at the server, so its answer comes after all.
            await session.request(
                "tools/call",
                {"name": "long_running_task", "arguments": {"steps": 1, "interval_ms": 500}},
                timeout=0.3,
                cancel_on_timeout=False,
            )
        request = next(f for f in client.traffic if f.direction == "out" and f.method == "tools/call")
        # Chosen by what it answers: other late answers (the era probe's, on
        # a busy machine) may come first.
        late = await eventually(
            lambda: [
                f for f in client.traffic if f.direction == "in" and f.kind == "response" and f.partner == request.seq
            ],
            "the late answer to tools/call",
        )
    finally:
        await client.close()
    assert late[0].method == "tools/call" and late[0].id == request.id
    assert late[0].note == f"late answer to request #{request.seq}, which had timed out; ignored"
    assert not [f for f in client.traffic if f.problems and f is not request]


# -- the server's own requests -------------------------------------------------------


async def test_a_server_ping_is_answered() -> None:
    client = await connected(hostile("ping-back"))
    try:
        result = await client.call_tool("echo", {"text": "x"})
        assert result["content"][0]["text"] == "ping answered: {}"
    finally:
        await client.close()
    ping = next(f for f in client.traffic if f.direction == "in" and f.kind == "request" and f.method == "ping")
    answer = client.traffic.by_seq(ping.partner or 0)
    assert answer is not None and answer.direction == "out" and answer.kind == "response"
    assert answer.message == {"jsonrpc": "2.0", "id": "server-ping-1", "result": {}}


# -- revisions -------------------------------------------------------------------------


async def test_a_counter_offered_older_revision_is_accepted() -> None:
    client = await connected(hostile("counter-offer", "--answer-version", "2025-03-26"))
    try:
        assert client.era == "legacy"
        assert client.offered_version == "2025-11-25" and client.protocol_version == "2025-03-26"
        assert any("the server chose 2025-03-26 (accepted)" in (f.note or "") for f in client.traffic)
        # The session goes on in that revision.
        assert (await client.list_all("tools")).names() == ["echo"]
        assert client.transport is not None and client.transport.protocol_version == "2025-03-26"
    finally:
        await client.close()


async def test_an_unknown_revision_is_a_clear_error() -> None:
    client = Client(hostile("counter-offer", "--answer-version", "2099-01-01"))
    with pytest.raises(ProtocolError, match="'2099-01-01', which this client does not know; it can speak: 2024-11-05"):
        await client.connect()
    assert client.state == "disconnected"


def test_an_unknown_revision_through_the_cli() -> None:
    server = [sys.executable, HOSTILE, "--mode", "counter-offer", "--answer-version", "2099-01-01"]
    result = subprocess.run(
        [sys.executable, "-m", "inspector", "info", "--", *server],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == exitcodes.PROTOCOL_ERROR, result.stderr
    assert "2099-01-01" in result.stderr and "Traceback" not in result.stderr


# -- lists -----------------------------------------------------------------------------


async def test_the_page_cap_stops_an_endless_list() -> None:
    client = await connected(hostile("paged"))
    try:
        pages: list[int] = []
        listing = await client.list_all("tools", max_pages=4, on_page=lambda items: pages.append(len(items)))
        assert len(listing.pages) == 4 and pages == [1, 1, 1, 1]
        assert listing.names() == ["echo_1", "echo_2", "echo_3", "echo_4"]
        assert not listing.complete
        assert listing.problems == ["stopped after 4 pages; the server still offered a nextCursor"]
        sent = [f for f in client.traffic if f.direction == "out" and f.method == "tools/list"]
        assert len(sent) == 4
    finally:
        await client.close()


async def test_a_list_with_one_broken_tool_stays_usable() -> None:
    client = await connected(hostile("bad-tool"))
    try:
        listing = await client.list_all("tools")
        assert len(listing.items) == 3 and listing.complete and not listing.problems
        good, bad, second = listing.items
        assert good.ok and good.key == "echo"
        assert second.ok and second.key == "second" and second.hints()[0].value is True
        assert not bad.ok
        assert bad.raw == {"name": 42, "description": ["not", "text"], "inputSchema": "nope"}
        assert "name is missing or not a string" in bad.problems
        assert "description is not a string" in bad.problems
        assert "inputSchema is not an object: str" in bad.problems
        assert listing.find("second") is second
        result = await client.call_tool("second", {})
        assert result["content"] == [{"type": "text", "text": ""}]
    finally:
        await client.close()


# -- raw bytes -------------------------------------------------------------------------


async def test_stdout_bytes_are_kept_exact() -> None:
    client = await connected(hostile("crlf"))
    try:
        result = await client.call_tool("echo", {"text": "crlf"})
        assert result["content"][0]["text"] == "crlf"
    finally:
        await client.close()
    answers = [f for f in client.traffic if f.direction == "in" and f.kind == "response"]
    assert answers and all(f.raw is not None and f.raw.endswith(b"}\r") for f in answers)
    assert all(f.message is not None and not f.problems for f in answers)
    blanks = [f for f in client.traffic if f.direction == "in" and f.kind == "transport" and f.raw == b"\r"]
    assert len(blanks) >= len(answers)
    assert all("empty line" in (f.note or "") and not f.problems for f in blanks)


# -- the stateless era: the client's own traffic -----------------------------------------


class Roots(ClientHandlers):
    async def list_roots(self, request: ServerRequest) -> list[dict[str, Any]]:
        return [{"uri": "file:///tmp/project", "name": "project"}]


async def test_roots_changed_sends_no_notification_in_the_stateless_era() -> None:
    client = await connected(demo_spec(), Roots())
    try:
        assert client.era == "modern"
        await client.roots_changed()
    finally:
        await client.close()
    assert not [f for f in client.traffic if f.method == "notifications/roots/list_changed"]
    assert any("no notifications/roots/list_changed" in (f.note or "") for f in client.traffic)

    legacy = demo_spec()
    legacy.era = "legacy"
    client = await connected(legacy, Roots())
    try:
        await client.roots_changed()
    finally:
        await client.close()
    assert [f for f in client.traffic if f.method == "notifications/roots/list_changed" and f.direction == "out"]


async def test_answers_for_the_old_connection_are_not_problems() -> None:
    """A reconnect ends the old listen first (notifications/cancelled on
    stdio); an answer that still comes for a request of a closed connection
    (the SDK answers an open listen as its stdin closes) is recognised as a
    late answer, not a response to an unknown id."""
    client = await connected(demo_spec())
    try:
        first = await client.listen_changes()
        assert first is not None
        # The server has the listen open once it acknowledges it.
        await eventually(lambda: first.acknowledged is not None, "the first listen acknowledged")
        await client.reconnect()
        second = await client.listen_changes()
        assert second is not None
        listen = [f for f in client.traffic if f.direction == "out" and f.method == "subscriptions/listen"]
        cancels = [f for f in client.traffic if f.direction == "out" and f.method == "notifications/cancelled"]
        assert len(listen) == 2 and cancels and cancels[0].message["params"]["requestId"] == listen[0].id
        await eventually(lambda: second.acknowledged is not None, "the second listen acknowledged")
        # The connection goes away under an open listen.
        session, _transport = client.require()
        await session.close()
        late = await eventually(
            lambda: [
                f
                for f in client.traffic
                if f.direction == "in" and f.kind in ("response", "error") and f.partner == listen[-1].seq
            ],
            "the late answer to the second listen",
        )
        assert "still open when the client closed the connection" in (late[-1].note or "")
    finally:
        await client.close()
    assert not [(f.seq, f.problems) for f in client.traffic if f.problems]


@pytest.mark.parametrize(("revision", "titled"), [("2024-11-05", False), ("2025-03-26", False), ("2025-06-18", True)])
async def test_client_info_holds_only_what_the_offered_revision_defines(revision: str, titled: bool) -> None:
    spec = demo_spec()
    spec.era = "legacy"
    spec.protocol_version = revision
    client = await connected(spec)
    try:
        sent = next(f for f in client.traffic if f.direction == "out" and f.method == "initialize")
        assert ("title" in sent.message["params"]["clientInfo"]) is titled
        assert not [f for f in client.traffic if f.direction == "out" and f.findings]
    finally:
        await client.close()


@pytest.mark.parametrize("mode", ["exit-at-once", "silent"])
async def test_a_failed_connect_leaves_nothing_negotiated(mode: str) -> None:
    client = Client(hostile(mode, timeout=1))
    with pytest.raises(InspectorError):
        await client.connect()
    assert client.state == "disconnected"
    assert client.protocol_version is None and client.offered_version is None and client.modern is None
    assert client.initialize_result == {}
