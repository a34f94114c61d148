"""Era selection and the stateless era (2026-07-28) against real servers:
legacy-only (server-everything, a quiet legacy server), modern-only (an
official-SDK server that refuses initialize) and dual-era (the demo server,
`MCPServer`), over stdio and Streamable HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector.core.protocol.client import Client
from inspector.core.protocol.eras import ModernEra
from inspector.core.protocol.errors import ConnectError
from inspector.core.protocol.handlers import ClientHandlers
from inspector.core.protocol.modern import PROTOCOL_VERSION_KEY
from inspector.core.protocol.server_requests import ServerRequest
from inspector.core.servers.spec import ServerSpec, demo_spec

from .peers import EVERYTHING, NODE, PYTHON, SERVERS, everything_http, free_port, require, serving
from .waiting import HANG, eventually

MODERN_ONLY = str(SERVERS / "modern_only.py")
QUIET_LEGACY = str(SERVERS / "quiet_legacy.py")


class Answers(ClientHandlers):
    supports_url_elicitation = True

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def elicit(self, request: ServerRequest) -> dict[str, Any]:
        self.asked.append(request.method)
        schema = (request.params or {}).get("requestedSchema", {})
        content = {k: v["default"] for k, v in schema.get("properties", {}).items() if "default" in v}
        content["name"] = "Ada"
        return {"action": "accept", "content": content}

    async def create_message(self, request: ServerRequest) -> dict[str, Any]:
        self.asked.append(request.method)
        return {"role": "assistant", "content": {"type": "text", "text": "typed by a person"}, "model": "human"}

    async def list_roots(self, request: ServerRequest) -> list[dict[str, Any]]:
        self.asked.append(request.method)
        return [{"uri": "file:///tmp/project", "name": "project"}]


@pytest.fixture(scope="module")
def modern_http() -> Iterator[str]:
    port = free_port()
    with serving([PYTHON, MODERN_ONLY, "--http", str(port)], port):
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(scope="module")
def demo_http() -> Iterator[str]:
    port = free_port()
    with serving([PYTHON, "-m", "inspector.demo", "--http", str(port)], port):
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(scope="module")
def legacy_http() -> Iterator[str]:
    with everything_http("streamableHttp") as url:
        yield url


def spec_for(name: str, request: pytest.FixtureRequest) -> ServerSpec:
    if name == "legacy-stdio":
        return ServerSpec(command=NODE, args=[str(require(EVERYTHING)), "stdio"])
    if name == "quiet-legacy-stdio":
        return ServerSpec(command=PYTHON, args=[QUIET_LEGACY])
    if name == "modern-stdio":
        return ServerSpec(command=PYTHON, args=[MODERN_ONLY])
    if name == "dual-stdio":
        return demo_spec()
    url = request.getfixturevalue(
        {"legacy-http": "legacy_http", "modern-http": "modern_http", "dual-http": "demo_http"}[name]
    )
    return ServerSpec(transport="auto", url=url)


EXPECTED_ERA = {
    "legacy-stdio": "legacy",
    "quiet-legacy-stdio": "legacy",
    "legacy-http": "legacy",
    "modern-stdio": "modern",
    "modern-http": "modern",
    "dual-stdio": "modern",
    "dual-http": "modern",
}


@pytest.mark.parametrize("name", list(EXPECTED_ERA))
async def test_default_settings_find_the_era(name: str, request: pytest.FixtureRequest) -> None:
    """One probe, then the era's own opening: no initialize for a stateless
    server, and the probe's budget spent at most once (on a silent legacy
    server).  How long it takes is measured in bench/run.py, not here."""
    spec = spec_for(name, request)
    client = Client(spec, handlers=Answers())
    await client.connect()
    try:
        assert client.era == EXPECTED_ERA[name]
        assert (await client.list_all("tools")).items
    finally:
        await client.close()
    sent = [f for f in client.traffic if f.direction == "out" and f.kind == "request"]
    probes = [f for f in sent if f.method == "server/discover"]
    assert len(probes) == 1 and "era probe" in (probes[0].note or "") and sent[0] is probes[0]
    initializes = [f for f in sent if f.method == "initialize"]
    assert len(initializes) == (1 if EXPECTED_ERA[name] == "legacy" else 0)
    notes = [f.note or "" for f in client.traffic]
    budget_spent = [n for n in notes if "of the server reading it" in n]
    assert len(budget_spent) == (1 if name == "quiet-legacy-stdio" else 0), notes
    assert not [n for n in notes if "late answer" in n]


async def test_pinned_eras() -> None:
    legacy = demo_spec()
    legacy.era = "legacy"
    client = Client(legacy)
    await client.connect()
    assert client.era == "legacy" and client.protocol_version == "2025-11-25"
    first = next(f for f in client.traffic if f.direction == "out" and f.kind == "request")
    assert first.method == "initialize"
    await client.close()

    pinned = ServerSpec(command=PYTHON, args=[MODERN_ONLY], protocol_version="2026-07-28")
    client = Client(pinned)
    await client.connect()
    assert client.era == "modern"
    await client.close()

    old = demo_spec()
    old.protocol_version = "2025-03-26"
    client = Client(old)
    await client.connect()
    assert client.era == "legacy" and client.protocol_version == "2025-03-26"
    await client.close()


async def test_modern_pinned_against_a_legacy_server_fails_clearly() -> None:
    spec = ServerSpec(command=NODE, args=[str(require(EVERYTHING)), "stdio"], era="modern", timeout=HANG)
    client = Client(spec)
    with pytest.raises(ConnectError, match=r"server/discover|refused|Method not found"):
        await client.connect()


async def test_legacy_client_against_modern_only_server_shows_the_reason() -> None:
    spec = ServerSpec(command=PYTHON, args=[MODERN_ONLY], era="legacy", timeout=HANG)
    client = Client(spec)
    with pytest.raises(ConnectError, match="2026-07-28"):
        await client.connect()


@pytest.fixture(params=["stdio", "http"])
def dual(request: pytest.FixtureRequest) -> ServerSpec:
    if request.param == "stdio":
        return demo_spec()
    return ServerSpec(transport="auto", url=request.getfixturevalue("demo_http"))


async def test_modern_session_features(dual: ServerSpec) -> None:
    answers = Answers()
    client = Client(dual, handlers=answers)
    seen: list[str] = []
    client.on_notification(lambda method, params, frame: seen.append(method))
    await client.connect()
    try:
        assert client.era == "modern" and client.protocol_version == "2026-07-28"
        assert client.server_info["name"] == "inspector-demo"
        assert "2026-07-28" in client.modern.supported_versions  # type: ignore[union-attr]
        assert client.initialize_result["ttlMs"] == 300_000

        # Every request carries the envelope (an initialize sent because the
        # probe's answer came late, on a busy machine, is refused and has none).
        for frame in client.traffic:
            if frame.direction == "out" and frame.kind == "request" and frame.method != "initialize":
                assert frame.message["params"]["_meta"][PROTOCOL_VERSION_KEY] == "2026-07-28"

        tools = await client.list_all("tools")
        assert tools.ttl_ms == 30_000 and tools.cache_scope == "public" and not tools.from_cache
        again = await client.list_all("tools")
        assert again.from_cache and again.names() == tools.names()
        fresh = await client.list_all("tools", refresh=True)
        assert not fresh.from_cache

        progress: list[float] = []
        await client.call_tool(
            "long_running_task", {"steps": 3, "interval_ms": 20}, on_progress=lambda p, t, m: progress.append(p)
        )
        assert progress == [1.0, 2.0, 3.0]

        result = await client.call_tool("elicit_profile", {})
        assert "Ada" in result["content"][0]["text"]
        assert "elicitation/create" in answers.asked
        calls = [
            f
            for f in client.traffic
            if f.direction == "out" and f.method == "tools/call" and f.message["params"]["name"] == "elicit_profile"
        ]
        first, retry = calls[0], calls[-1]
        assert "inputResponses" not in first.message["params"] and (first.meta or {}).get("retry_of") is None
        assert retry.note == f"MRTR round 2 of request #{first.seq}"
        assert "inputResponses" in retry.message["params"]
        # The retry names the ORIGINAL request, and keeps its own response as partner.
        assert retry.meta == {"retry_of": first.seq}
        answer = client.traffic.by_seq(retry.partner or 0)
        assert answer is not None and answer.direction == "in" and answer.id == retry.id
        input_required = client.traffic.by_seq(first.partner or 0)
        assert input_required is not None and input_required.message["result"]["resultType"] == "input_required"

        result = await client.call_tool("sample_llm", {"prompt": "hi"})
        assert "typed by a person" in result["content"][0]["text"]

        result = await client.call_tool("weather_report", {"city": "Paris"})
        assert "structuredContent" in result

        subscription = await client.listen_changes()
        assert subscription is not None
        await eventually(lambda: subscription.acknowledged is not None, "the listen acknowledged")
        assert subscription.acknowledged and subscription.acknowledged.get("toolsListChanged")
        await client.call_tool("toggle_extras", {"kind": "tool"})
        await eventually(lambda: "notifications/tools/list_changed" in seen, "tools/list_changed")
        changed = [f for f in client.traffic if f.method == "notifications/tools/list_changed"]
        assert changed[-1].partner == subscription.operation.first_frame.seq  # type: ignore[union-attr]
        relisted = await client.list_all("tools")
        assert not relisted.from_cache and "bonus_fortune" in relisted.names()

        await client.set_logging_level("debug")
        await client.call_tool("log_every_level", {})
        last = [f for f in client.traffic if f.method == "tools/call" and f.direction == "out"][-1]
        assert last.message["params"]["_meta"]["io.modelcontextprotocol/logLevel"] == "debug"
        assert any(f.method == "notifications/message" for f in client.traffic)
    finally:
        await client.close()
    if dual.transport == "stdio":
        cancels = [f for f in client.traffic if f.method == "notifications/cancelled" and f.direction == "out"]
        assert cancels, "closing a listen on stdio sends notifications/cancelled"


async def test_modern_http_headers_and_excluded_tools(modern_http: str) -> None:
    client = Client(ServerSpec(transport="auto", url=modern_http), handlers=Answers())
    await client.connect()
    try:
        tools = await client.list_all("tools")
        assert "bad_header" not in tools.names()
        assert [item.key for item in tools.excluded] == ["bad_header"]
        assert "x-mcp-header" in tools.excluded[0].problems[0]
        await client.call_tool("regional", {"region": "Zürich", "size": 3})
    finally:
        await client.close()
    posts = [f for f in client.traffic if f.kind == "http" and (f.meta or {}).get("for_method") == "tools/call"]
    headers = posts[-1].meta["request_headers"]  # type: ignore[index]
    assert headers["Mcp-Method"] == "tools/call" and headers["Mcp-Name"] == "regional"
    assert headers["Mcp-Param-Region"] == "=?base64?WsO8cmljaA==?="
    assert headers["Mcp-Param-Size"] == "3"
    assert "Mcp-Session-Id" not in headers


async def test_modern_cancel_over_http_closes_the_stream(demo_http: str) -> None:
    client = Client(ServerSpec(transport="auto", url=demo_http))
    await client.connect()
    try:
        seen: list[float] = []
        operation = await client.start_call_tool(
            "long_running_task", {"steps": 50, "interval_ms": 100}, on_progress=lambda p, t, m: seen.append(p)
        )
        await eventually(lambda: seen, "the first progress notification")
        await operation.cancel("test")
        with pytest.raises(Exception, match="test"):
            await operation.result()
    finally:
        await client.close()
    closed = [f for f in client.traffic if f.kind == "http" and "cancellation" in (f.note or "")]
    assert closed
    assert not [f for f in client.traffic if f.method == "notifications/cancelled" and f.direction == "out"]


def test_version_choice_prefers_known_stateless_revisions() -> None:
    era = ModernEra.__new__(ModernEra)
    assert ModernEra.choose(era, ["2025-11-25", "2026-07-28"]) == "2026-07-28"
    assert ModernEra.choose(era, ["2025-11-25"]) is None
    assert ModernEra.choose(era, "garbage") is None


def test_cli_info_reports_the_era() -> None:
    import json
    import subprocess

    out = subprocess.run(
        [sys.executable, "-m", "inspector", "info", "--json"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    info = json.loads(out)
    assert info["era"] == "modern" and info["protocolVersion"] == "2026-07-28"
    out = subprocess.run(
        [sys.executable, "-m", "inspector", "info", "--json", "--era", "legacy"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert json.loads(out)["era"] == "legacy"


async def test_a_slow_start_tells_one_story() -> None:
    """The server sleeps 4 s before it reads its stdin (far past the probe's
    1.5 s budget): the budget starts when the server has read the probe, so
    the probe is answered once, no initialize is sent, and nothing in the
    traffic is an error."""
    spec = ServerSpec(command=PYTHON, args=[str(SERVERS / "slow_start.py"), "4"], timeout=60)
    client = Client(spec)
    await client.connect()
    try:
        assert client.era == "modern" and client.protocol_version == "2026-07-28"
        assert (await client.list_all("tools")).items
    finally:
        await client.close()
    sent = [f for f in client.traffic if f.direction == "out" and f.kind == "request"]
    assert [f.method for f in sent[:2]] == ["server/discover", "tools/list"]
    probe = sent[0]
    answer = client.traffic.by_seq(probe.partner or 0)
    assert answer is not None and answer.kind == "response" and "supportedVersions" in answer.message["result"]
    answers = [f for f in client.traffic if f.direction == "in" and f.id == probe.id]
    assert answers == [answer]
    assert not [f for f in client.traffic if f.kind == "error" or f.problems], "an error in the traffic"
    assert "-32022" not in " ".join(f.note or "" for f in client.traffic)
    notes = [f.note or "" for f in client.traffic if f.kind == "transport"]
    slow = [n for n in notes if "era probe" in n]
    assert len(slow) == 1 and "a slow start" in slow[0] and "budget for its answer counts from then" in slow[0]


def test_banner_on_stdout_before_anything_is_recorded(tmp_path: Path) -> None:
    """The CLI starts the server early: a banner printed at once is still
    recorded (and flagged), not lost."""
    record = tmp_path / "banner.jsonl"
    command = f"echo 'booting up on port 8080'; exec {PYTHON} {QUIET_LEGACY}"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "inspector",
            "list",
            "tools",
            "--json",
            "--record",
            str(record),
            "--",
            "sh",
            "-c",
            command,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    frames = [json.loads(line) for line in record.read_text().splitlines()]
    banner = [f for f in frames if f["kind"] == "invalid"]
    assert banner and "booting up" in banner[0]["raw"] and "stdout" in str(banner[0]["problems"])
