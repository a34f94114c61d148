"""Stateless-era (2026-07-28) recoveries and limits against a hand-written
server (tests/servers/stateless_raw.py) that shows them on demand: -32020
re-listing for real, -32022 retries on any request (and inside a multi
round-trip round, keeping its answers), the round cap, an unknown
resultType, and the traffic links from every retry to the original request."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector.core.protocol.client import Client
from inspector.core.protocol.errors import JsonRpcError, ProtocolError
from inspector.core.protocol.handlers import ClientHandlers
from inspector.core.protocol.mrtr import MAX_ROUNDS
from inspector.core.protocol.server_requests import ServerRequest
from inspector.core.record.traffic import Frame
from inspector.core.servers.spec import ServerSpec

from .peers import PYTHON, SERVERS, free_port, serving

RAW = str(SERVERS / "stateless_raw.py")


class Person(ClientHandlers):
    async def elicit(self, request: ServerRequest) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Ada"}}

    async def list_roots(self, request: ServerRequest) -> list[dict[str, Any]]:
        return [{"uri": "file:///tmp/project", "name": "project"}]


@pytest.fixture
def raw_http() -> Iterator[str]:
    """A fresh server per test: its one-shot behaviours are state."""
    port = free_port()
    with serving([PYTHON, RAW, "--http", str(port)], port):
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(params=["stdio", "http"])
def raw_spec(request: pytest.FixtureRequest) -> ServerSpec:
    if request.param == "stdio":
        return ServerSpec(command=PYTHON, args=[RAW], timeout=10)
    return ServerSpec(transport="http", url=request.getfixturevalue("raw_http"), timeout=10)


def sent(client: Client, method: str) -> list[Frame]:
    return [f for f in client.traffic if f.direction == "out" and f.kind == "request" and f.method == method]


def retry_of(frame: Frame) -> int | None:
    return (frame.meta or {}).get("retry_of")


def assert_linked(frames: list[Frame], client: Client) -> None:
    """Every retry names the original request; every request keeps its own response as partner."""
    original = frames[0]
    assert retry_of(original) is None
    for retry in frames[1:]:
        assert retry_of(retry) == original.seq, (retry.note, retry.meta)
    for frame in frames:
        answer = client.traffic.by_seq(frame.partner or 0)
        assert answer is not None and answer.direction == "in" and answer.id == frame.id


async def test_header_mismatch_relists_past_the_cache(raw_http: str) -> None:
    client = Client(ServerSpec(transport="http", url=raw_http, timeout=10), handlers=Person())
    await client.connect()
    try:
        assert client.era == "modern"
        tools = await client.list_all("tools")
        assert tools.ttl_ms == 60_000 and "regional" in tools.names()
        assert client.transport.tool_headers["regional"] == {"Region": ("region",)}  # type: ignore[union-attr]
        # The tool is redeployed with another header name; the list is still
        # fresh in the cache, so only a real refresh learns the new name.
        result = await client.call_tool("regional", {"region": "eu-west"})
        assert result["content"][0]["text"] == "zone eu-west"
        assert client.transport.tool_headers["regional"] == {"Zone": ("region",)}  # type: ignore[union-attr]
        assert len(sent(client, "tools/list")) == 2
        calls = sent(client, "tools/call")
        assert len(calls) == 2 and calls[1].note == "retry after re-listing tools"
        assert_linked(calls, client)
        # The refreshed list went back into the cache: the next call needs no list.
        await client.call_tool("regional", {"region": "eu-north"})
        assert len(sent(client, "tools/list")) == 2
        again = await client.list_all("tools")
        assert again.from_cache
        assert client.transport.tool_headers["regional"] == {"Zone": ("region",)}  # type: ignore[union-attr]
    finally:
        await client.close()
    posts = [f for f in client.traffic if f.kind == "http" and (f.meta or {}).get("for_method") == "tools/call"]
    headers = [p.meta["request_headers"] for p in posts]  # type: ignore[index]
    assert headers[0].get("Mcp-Param-Region") == "eu-west" and "Mcp-Param-Zone" not in headers[0]
    assert headers[1].get("Mcp-Param-Zone") == "eu-west"
    assert headers[2].get("Mcp-Param-Zone") == "eu-north"


async def test_version_retry_inside_a_round_keeps_its_answers(raw_spec: ServerSpec) -> None:
    client = Client(raw_spec, handlers=Person())
    await client.connect()
    try:
        result = await client.call_tool("ask", {"trap": True})
        assert result["content"][0]["text"] == "hello Ada"
    finally:
        await client.close()
    calls = sent(client, "tools/call")
    # The original, the answer round (refused with -32022), the same round again.
    assert len(calls) == 3
    assert "inputResponses" not in calls[0].message["params"]
    for retry in calls[1:]:
        params = retry.message["params"]
        assert params["inputResponses"] == {"who": {"action": "accept", "content": {"name": "Ada"}}}
        assert params["requestState"] == "state-1"
        assert params["arguments"] == {"trap": True}
    assert calls[1].note == f"MRTR round 2 of request #{calls[0].seq}"
    assert calls[2].note == "retry with protocol 2026-07-28"
    assert_linked(calls, client)
    refused = client.traffic.by_seq(calls[1].partner or 0)
    assert refused is not None and refused.kind == "error"


async def test_version_retry_on_other_requests(raw_spec: ServerSpec) -> None:
    client = Client(raw_spec, handlers=Person())
    await client.connect()
    try:
        prompts = await client.list_all("prompts")
        assert prompts.names() == ["hello"] and prompts.complete
        lists = sent(client, "prompts/list")
        assert len(lists) == 2 and lists[1].note == "retry with protocol 2026-07-28"
        assert_linked(lists, client)
        # No version in common: the error stands, and nothing is retried.
        with pytest.raises(JsonRpcError) as excinfo:
            await client.get_prompt("unsupported")
        assert excinfo.value.code == -32022
        assert len(sent(client, "prompts/get")) == 1
    finally:
        await client.close()


async def test_round_cap(raw_spec: ServerSpec) -> None:
    client = Client(raw_spec, handlers=Person())
    await client.connect()
    try:
        with pytest.raises(ProtocolError, match=f"still input_required after {MAX_ROUNDS} rounds"):
            await client.call_tool("forever", {})
        # The session is still usable afterwards.
        assert (await client.call_tool("regional", {"region": "x"}))["content"]
    finally:
        await client.close()
    calls = [f for f in sent(client, "tools/call") if f.message["params"]["name"] == "forever"]
    assert len(calls) == MAX_ROUNDS + 1
    assert_linked(calls, client)
    assert calls[-1].note == f"MRTR round {MAX_ROUNDS + 1} of request #{calls[0].seq}"


async def test_unknown_result_type_is_a_problem_not_a_crash(raw_spec: ServerSpec) -> None:
    client = Client(raw_spec, handlers=Person())
    await client.connect()
    try:
        result = await client.call_tool("mystery", {})
        assert result["resultType"] == "mystery" and result["content"][0]["text"] == "?"
        call = sent(client, "tools/call")[-1]
        answer = client.traffic.by_seq(call.partner or 0)
        assert answer is not None and answer.problems == ["unknown resultType 'mystery' (shown as is)"]
        # Known result types (discover, lists, complete) are not flagged.
        await client.list_all("tools")
        assert not [f for f in client.traffic if f.direction == "in" and f.problems and f is not answer]
    finally:
        await client.close()


def test_unknown_result_type_through_the_cli(tmp_path: Path) -> None:
    record = tmp_path / "mystery.jsonl"
    command = ["call", "mystery", "--yes", "--json", "--record", str(record), "--", PYTHON, RAW]
    result = subprocess.run(
        [sys.executable, "-m", "inspector", *command],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["resultType"] == "mystery"
    assert "Traceback" not in result.stderr
    frames = [json.loads(line) for line in record.read_text().splitlines()]
    answers = [f for f in frames if f["kind"] == "response" and f.get("method") == "tools/call"]
    assert answers and "unknown resultType 'mystery'" in str(answers[-1].get("problems"))
