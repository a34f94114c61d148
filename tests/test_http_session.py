"""Streamable HTTP sessions (handshake era) against a server whose sessions
expire on demand (tests/servers/expiring_http.py): DELETE on close, the
optional GET stream resumed with Last-Event-ID, one re-initialisation for
several requests that get 404 at once (each resent, linked to its original),
the GET stream moving to the new session, and an expiry noticed by the GET
stream alone; and a server request sent on the GET stream the instant the
session is initialised is answered (tests/servers/eager_get.py)."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from inspector.core.protocol.client import Client
from inspector.core.protocol.handlers import ClientHandlers
from inspector.core.protocol.server_requests import ServerRequest
from inspector.core.servers.spec import ServerSpec
from inspector.core.transports.streamable_http import StreamableHttpTransport

from .peers import PYTHON, SERVERS, free_port, serving
from .waiting import HANG, eventually

EXPIRING = str(SERVERS / "expiring_http.py")
EAGER_GET = str(SERVERS / "eager_get.py")


@pytest.fixture
def server() -> Iterator[str]:
    port = free_port()
    with serving([PYTHON, EXPIRING, str(port)], port):
        yield f"http://127.0.0.1:{port}"


def server_log(base: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{base}/log", timeout=HANG) as response:
        entries: list[dict[str, Any]] = json.loads(response.read())
        return entries


def initializes(base: str) -> list[dict[str, Any]]:
    return [e for e in server_log(base) if e.get("method") == "initialize"]


async def open_client(base: str) -> tuple[Client, str]:
    client = Client(ServerSpec(transport="http", url=f"{base}/mcp", timeout=HANG))
    await client.connect()
    assert client.era == "legacy"
    session_id = client.transport.session_id  # type: ignore[union-attr]
    assert session_id
    return client, session_id


async def test_delete_on_close(server: str) -> None:
    client, session_id = await open_client(server)
    await client.list_all("tools")
    await client.close()
    deletes = [e for e in server_log(server) if e["verb"] == "DELETE"]
    assert [e["session"] for e in deletes] == [session_id]
    recorded = [f for f in client.traffic if f.kind == "http" and (f.meta or {}).get("http") == "DELETE"]
    assert recorded and recorded[0].meta["status"] == 200  # type: ignore[index]
    assert recorded[0].meta["request_headers"]["Mcp-Session-Id"] == session_id  # type: ignore[index]


async def test_get_stream_resumes_with_last_event_id(server: str) -> None:
    client, session_id = await open_client(server)
    try:
        # The server closes the first GET after one event; the client comes
        # back after the event's retry delay, naming the last event it saw.
        resumed = await eventually(
            lambda: [e for e in server_log(server) if e["verb"] == "GET" and e.get("last_event_id")], "a resumed GET"
        )
        assert resumed[0]["last_event_id"] == f"{session_id}-1" and resumed[0]["session"] == session_id
        messages = await eventually(
            lambda: [f for f in client.traffic if f.method == "notifications/message"], "the resumed event"
        )
        await eventually(
            lambda: len([f for f in client.traffic if f.method == "notifications/message"]) >= 2, "2 events"
        )
        texts = [f.message["params"]["data"] for f in client.traffic if f.method == "notifications/message"]
        assert texts == ["first event", f"resumed after {session_id}-1"]
        assert (messages[0].meta or {})["sse_id"] == f"{session_id}-1"
        gets = [e for e in server_log(server) if e["verb"] == "GET"]
        assert len(gets) == 2, "one resume, no extra streams"
    finally:
        await client.close()


async def test_requests_that_all_get_404_reinitialise_once(server: str) -> None:
    client, old_session = await open_client(server)
    try:
        await eventually(lambda: [e for e in server_log(server) if e.get("last_event_id")], "the GET stream, resumed")
        # The server holds each `slow` until a session expires: all three are
        # in flight at the server when `expire` ends their session.
        slow = [await client.start_call_tool("slow", {"seconds": HANG}, timeout=HANG) for _ in range(3)]
        await eventually(
            lambda: len([e for e in server_log(server) if e.get("method") == "tools/call"]) == 3, "3 calls"
        )
        ended = await client.call_tool("expire", {})
        assert old_session in ended["content"][0]["text"]
        results = await asyncio.gather(*(operation.result() for operation in slow))
        new_session = client.transport.session_id  # type: ignore[union-attr]
        assert new_session and new_session != old_session
        assert all(r["content"][0]["text"] == f"slow done in {new_session}" for r in results)
        assert len(initializes(server)) == 2, "one new session for all three"
        # Each resend names its original request; each keeps its own response.
        for operation in slow:
            first = operation.first_frame
            resend = operation.current.frame  # type: ignore[union-attr]
            assert first is not None and resend is not first
            assert resend.meta == {"retry_of": first.seq}
            assert resend.note == "resent after the session expired"
            assert client.traffic.by_seq(resend.partner or 0).kind == "response"  # type: ignore[union-attr]
        # The GET stream follows the new session, without the old session's event id.
        new_gets = await eventually(
            lambda: [e for e in server_log(server) if e["verb"] == "GET" and e["session"] == new_session],
            "a GET on the new session",
        )
        assert new_gets[0]["last_event_id"] is None
        # The session works as before.
        assert (await client.call_tool("echo", {"text": "again"}))["content"][0]["text"] == "again"
    finally:
        await client.close()
    log = server_log(server)
    posts_after = [e for e in log if e["verb"] == "POST" and e["session"] == new_session]
    assert {e["method"] for e in posts_after} >= {"notifications/initialized", "tools/call"}
    assert [e["session"] for e in log if e["verb"] == "DELETE"] == [new_session]
    expired_notes = [f for f in client.traffic if "expired (HTTP 404)" in (f.note or "")]
    assert len(expired_notes) == 1


async def test_an_expiry_seen_only_by_the_get_stream(server: str) -> None:
    """No request is in flight: the GET stream's 404 opens the new session."""
    client, old_session = await open_client(server)
    try:
        await eventually(lambda: [e for e in server_log(server) if e.get("last_event_id")], "the GET stream, resumed")
        await client.call_tool("expire", {})
        await eventually(lambda: len(initializes(server)) == 2, "a new session")
        transport = client.transport
        assert isinstance(transport, StreamableHttpTransport)
        new_session = await eventually(
            lambda: transport.session_id not in (None, old_session) and transport.session_id, "the new session id"
        )
        await eventually(
            lambda: [e for e in server_log(server) if e["verb"] == "GET" and e["session"] == new_session],
            "a GET on the new session",
        )
        assert (await client.call_tool("echo", {"text": "still here"}))["content"][0]["text"] == "still here"
        assert len(initializes(server)) == 2
    finally:
        await client.close()
    assert any("GET stream: the server no longer knows session" in (f.note or "") for f in client.traffic)


class Answers(ClientHandlers):
    def __init__(self) -> None:
        self.asked: list[ServerRequest] = []

    async def elicit(self, request: ServerRequest) -> dict[str, Any]:
        self.asked.append(request)
        return {"action": "accept", "content": {"name": "Ada"}}


@pytest.fixture
def eager() -> Iterator[str]:
    port = free_port()
    with serving([PYTHON, EAGER_GET, str(port)], port):
        yield f"http://127.0.0.1:{port}/mcp"


async def test_a_request_on_the_get_stream_at_once_is_answered(eager: str) -> None:
    """The server asks on its GET stream the moment `notifications/initialized`
    arrives, and drops the request if no stream is open then: the stream is
    open (answered with its headers) before the client says it is ready."""
    answers = Answers()
    client = Client(ServerSpec(transport="http", url=eager, timeout=HANG), handlers=answers)
    await client.connect()
    try:
        report = json.loads((await client.call_tool("report", {}))["content"][0]["text"])
        assert report["sent"] is True, "the request was dropped: no GET stream was open"
        # The answer is POSTed while the first report is on its way: ask
        # again until the server has it.
        deadline = asyncio.get_running_loop().time() + HANG
        while report["answer"] is None:
            assert asyncio.get_running_loop().time() < deadline, "the answer never reached the server"
            await eventually(
                lambda: [f for f in client.traffic if f.direction == "out" and f.id == "eager-elicitation-1"],
                "the answer",
            )
            report = json.loads((await client.call_tool("report", {}))["content"][0]["text"])
        assert report == {"sent": True, "answer": {"action": "accept", "content": {"name": "Ada"}}}
    finally:
        await client.close()
    asked = [f for f in client.traffic if f.direction == "in" and f.method == "elicitation/create"]
    assert len(asked) == 1 and (asked[0].meta or {}).get("stream") == "GET stream"
    assert [r.method for r in answers.asked] == ["elicitation/create"]
    get = next(f for f in client.traffic if f.kind == "http" and (f.meta or {}).get("http") == "GET")
    initialized = next(f for f in client.traffic if f.method == "notifications/initialized")
    assert get.seq < initialized.seq, "the GET stream was answered before the client said it was ready"
