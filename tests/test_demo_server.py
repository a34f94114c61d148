"""The embedded demo server, driven as a real subprocess by the official SDK client.

Every feature check runs against four connections: stdio and Streamable HTTP, each in the
handshake era (2025-11-25) and the stateless era (2026-07-28). Each connection is opened once
per module and shared by the checks, so the whole file stays fast.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import subprocess
import sys
import tempfile
import warnings
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import anyio
import mcp_types as types
import pytest
import pytest_asyncio
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.subscriptions import ResourceUpdated, ToolsListChanged
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from .peers import free_port, wait_for_port
from .waiting import HANG, eventually

ROOT = Path(__file__).resolve().parent.parent
SERVER_ARGV = [sys.executable, "-m", "inspector.demo"]
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
# Bounds only a hang reaches: a busy machine is slow, never this slow.
CALL_TIMEOUT = HANG

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.timeout(300)]


@dataclass
class Recorder:
    """The client side of the conversation: answers the server's requests, keeps what arrived."""

    logs: list[types.LoggingMessageNotificationParams] = field(default_factory=list)
    notifications: list[types.ServerNotification | Exception] = field(default_factory=list)
    sampling: list[types.CreateMessageRequestParams] = field(default_factory=list)
    elicitations: list[types.ElicitRequestParams] = field(default_factory=list)
    roots_asked: int = 0

    async def on_sampling(self, context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        self.sampling.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="A reply typed by the test"),
            model="test-model",
            stop_reason="endTurn",
        )

    async def on_elicitation(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.elicitations.append(params)
        if isinstance(params, types.ElicitRequestURLParams):
            return types.ElicitResult(action="accept")
        schema = params.requested_schema
        content = {name: prop["default"] for name, prop in schema["properties"].items()}
        content |= {"name": "Grace", "size": "l"}
        return types.ElicitResult(action="accept", content=content)

    async def on_roots(self, context: Any) -> types.ListRootsResult:
        self.roots_asked += 1
        return types.ListRootsResult(
            roots=[types.Root.model_validate({"uri": "file:///tmp/project", "name": "project"})]
        )

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)

    async def on_message(self, message: types.ServerNotification | Exception) -> None:
        self.notifications.append(message)

    def client(self, server: Any, mode: str) -> Client:
        return Client(
            server,
            mode=mode,
            read_timeout_seconds=CALL_TIMEOUT,
            sampling_callback=self.on_sampling,
            elicitation_callback=self.on_elicitation,
            list_roots_callback=self.on_roots,
            logging_callback=self.on_log,
            message_handler=self.on_message,
            log_level="debug",
            # The demo sends caching hints; these tests check the server's
            # current state, so every list must really be fetched.
            cache=None,
        )


@dataclass
class Demo:
    client: Client
    recorder: Recorder
    transport: str
    modern: bool


@contextlib.contextmanager
def http_server(*flags: str) -> Iterator[int]:
    port = free_port()
    with tempfile.TemporaryFile("w+") as errlog:
        process = subprocess.Popen(
            [*SERVER_ARGV, *flags, str(port)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=errlog
        )
        try:
            wait_for_port(port, process)
            yield port
        finally:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)


@pytest.fixture(scope="module")
def http_port() -> Iterator[int]:
    with http_server("--http") as port:
        yield port


def stdio_transport(errlog: TextIO, *extra: str) -> Any:
    params = StdioServerParameters(command=sys.executable, args=["-m", "inspector.demo", *extra], cwd=str(ROOT))
    return stdio_client(params, errlog=errlog)


@contextlib.asynccontextmanager
async def held(client: Client) -> AsyncIterator[Client]:
    """Enter `client` in a task of its own: its task groups must be left from the task that
    entered them, and a module-scoped fixture tears down from a different task."""
    ready = asyncio.Event()
    stop = asyncio.Event()

    async def hold() -> None:
        async with client:
            ready.set()
            await stop.wait()

    task = asyncio.create_task(hold())
    waiter = asyncio.create_task(ready.wait())
    await asyncio.wait({task, waiter}, timeout=HANG, return_when=asyncio.FIRST_COMPLETED)
    if not ready.is_set():
        waiter.cancel()
        task.cancel()
        raise RuntimeError(f"could not connect to the demo server: {task.exception() if task.done() else 'timeout'}")
    try:
        yield client
    finally:
        stop.set()
        await asyncio.wait_for(task, HANG)


@pytest_asyncio.fixture(
    scope="module",
    loop_scope="module",
    params=["stdio-legacy", "stdio-modern", "http-legacy", "http-modern"],
)
async def demo(request: pytest.FixtureRequest) -> AsyncIterator[Demo]:
    transport, era = request.param.split("-")
    mode = "legacy" if era == "legacy" else MODERN
    recorder = Recorder()
    with tempfile.TemporaryFile("w+") as errlog:
        if transport == "stdio":
            server: Any = stdio_transport(errlog)
        else:
            server = f"http://127.0.0.1:{request.getfixturevalue('http_port')}/mcp"
        async with held(recorder.client(server, mode)) as client:
            yield Demo(client, recorder, transport, era == "modern")


async def call(demo: Demo, name: str, arguments: dict[str, Any] | None = None, **kw: Any) -> types.CallToolResult:
    with anyio.fail_after(CALL_TIMEOUT):
        return await demo.client.call_tool(name, arguments or {}, **kw)


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def find_key(schema: Any, key: str) -> list[Any]:
    """Every value of `key` anywhere inside a JSON Schema."""
    found: list[Any] = []
    if isinstance(schema, dict):
        for name, value in schema.items():
            if name == key:
                found.append(value)
            found += find_key(value, key)
    elif isinstance(schema, list):
        for item in schema:
            found += find_key(item, key)
    return found


# --- identity and capabilities ---------------------------------------------------------------


async def test_identity_instructions_and_capabilities(demo: Demo) -> None:
    client = demo.client
    assert client.protocol_version == (MODERN if demo.modern else LEGACY)
    if not demo.modern:
        # A 2026-07-28 connection adopted without discovery has no initialize result to read.
        info = client.server_info
        assert info is not None
        assert (info.name, info.title, info.version) == ("inspector-demo", "Inspector Demo Server", "0.1.0")
        assert info.icons and {icon.mime_type for icon in info.icons} >= {"image/svg+xml", "image/png"}
        assert "demo://readme" in (client.instructions or "")
        caps = client.server_capabilities
        assert caps.tools and caps.tools.list_changed
        assert caps.prompts and caps.prompts.list_changed
        assert caps.resources and caps.resources.subscribe and caps.resources.list_changed
        assert caps.logging is not None and caps.completions is not None


# --- tools: annotations and schemas ----------------------------------------------------------


async def test_tool_annotation_variants(demo: Demo) -> None:
    tools = {tool.name: tool for tool in (await demo.client.list_tools()).tools}
    assert tools["echo"].annotations is None

    local = tools["weather_report"].annotations
    assert local is not None
    assert (local.read_only_hint, local.idempotent_hint, local.open_world_hint) == (True, True, False)

    risky = tools["delete_remote_file"].annotations
    assert risky is not None and risky.destructive_hint is True and risky.open_world_hint is True

    appending = tools["append_note"].annotations
    assert appending is not None
    assert (appending.destructive_hint, appending.idempotent_hint, appending.read_only_hint) == (False, False, False)

    divide = tools["divide"].annotations
    assert divide is not None and divide.title == "Divide two numbers"
    assert tools["divide"].icons


async def test_tool_input_schema_features(demo: Demo) -> None:
    tools = {tool.name: tool for tool in (await demo.client.list_tools()).tools}
    user = tools["register_user"].input_schema
    trip = tools["plan_trip"].input_schema
    props = user["properties"]

    assert {"email", "uri", "date", "date-time"} <= set(find_key(user, "format"))
    assert props["username"]["pattern"] and props["username"]["minLength"] == 3
    assert (props["age"]["minimum"], props["age"]["maximum"]) == (13, 130)
    assert props["role"]["enum"] == ["viewer", "editor", "admin"]
    assert all({"const", "title"} <= set(option) for option in props["plan"]["oneOf"])
    assert props["nickname"]["type"] == ["string", "null"]
    assert {"type": "null"} in props["referred_by"]["anyOf"]
    assert props["newsletter"]["default"] is True
    assert set(user["required"]) == {"username", "email", "age", "plan"}
    assert "multi-line" in props["bio"]["description"].lower()

    assert {"Place", "Stop", "Train", "Flight", "Car"} <= set(trip["$defs"])
    assert "#/$defs/Stop" in find_key(trip, "$ref")
    assert trip["properties"]["stops"]["type"] == "array"
    assert trip["properties"]["tags"]["items"] == {"type": "string", "maxLength": 20}
    assert len(trip["properties"]["transport"]["oneOf"]) == 3
    assert trip["properties"]["budget"]["anyOf"]
    assert trip["properties"]["schema_version"]["const"] == 1
    coordinates = trip["$defs"]["Place"]["properties"]["coordinates"]
    assert coordinates["type"] == "object" and "lat" in coordinates["properties"]

    assert tools["weather_report"].output_schema is not None
    assert tools["weather_report"].output_schema["type"] == "object"


async def test_form_tools_validate_against_their_schema(demo: Demo) -> None:
    bad = await call(demo, "register_user", {"username": "X", "email": "nope", "age": 3, "plan": "gold"})
    assert bad.is_error
    for field_name in ("username", "email", "age", "plan"):
        assert field_name in text_of(bad)

    good = await call(
        demo,
        "register_user",
        {"username": "ada_l", "email": "ada@example.org", "age": 36, "plan": "pro", "languages": ["en", "ja"]},
    )
    assert not good.is_error
    assert "Pro — €9 / month" in text_of(good) and "日本語" in text_of(good)

    trip = {
        "traveller": {"full_name": "Zoë", "home": {"city": "Lyon", "country": "FR"}},
        "start": "2030-05-01",
        "stops": [{"place": {"city": "Kyōto", "country": "JP"}, "nights": 3}],
        "transport": {"mode": "train"},
        "budget": "comfortable",
    }
    planned = await call(demo, "plan_trip", trip)
    assert not planned.is_error and "Lyon → Kyōto" in text_of(planned)


# --- tool results ----------------------------------------------------------------------------


async def test_structured_output(demo: Demo) -> None:
    result = await call(demo, "weather_report", {"city": "Paris"})
    assert not result.is_error
    assert result.structured_content is not None
    assert result.structured_content["city"] == "Paris"
    assert len(result.structured_content["forecast"]) == 3
    assert json.loads(text_of(result)) == result.structured_content


async def test_media_gallery_has_every_content_type(demo: Demo) -> None:
    result = await call(demo, "media_gallery")
    kinds = [block.type for block in result.content]
    assert {"text", "image", "audio", "resource_link", "resource"} <= set(kinds)
    image = next(block for block in result.content if isinstance(block, types.ImageContent))
    assert base64.b64decode(image.data).startswith(b"\x89PNG")
    audio = next(block for block in result.content if isinstance(block, types.AudioContent))
    assert base64.b64decode(audio.data)[:4] == b"RIFF" and audio.mime_type == "audio/wav"
    link = next(block for block in result.content if isinstance(block, types.ResourceLink))
    listed = {str(resource.uri) for resource in (await demo.client.list_resources()).resources}
    assert str(link.uri) in listed


async def test_json_text_and_error_results(demo: Demo) -> None:
    document = json.loads(text_of(await call(demo, "get_json")))
    assert "ada" in document["users"]

    failed = await call(demo, "divide", {"dividend": 1, "divisor": 0})
    assert failed.is_error and "zero" in text_of(failed)
    assert text_of(await call(demo, "divide", {"dividend": 1, "divisor": 4})).endswith("0.25")


async def test_progress_notifications(demo: Demo) -> None:
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    result = await call(demo, "long_running_task", {"steps": 4, "interval_ms": 10}, progress_callback=on_progress)
    assert not result.is_error
    assert [update[0] for update in updates] == [1, 2, 3, 4]
    assert updates[-1][1] == 4 and updates[-1][2] == "Step 4 of 4"


async def test_logging_at_every_level(demo: Demo) -> None:
    demo.recorder.logs.clear()
    await call(demo, "log_every_level")
    await eventually(lambda: len(demo.recorder.logs) >= 9, "nine log messages")
    levels = [entry.level for entry in demo.recorder.logs]
    assert levels[:8] == ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
    assert isinstance(demo.recorder.logs[-1].data, dict)


# --- requests to the client ------------------------------------------------------------------


async def test_sampling_round_trip(demo: Demo) -> None:
    result = await call(demo, "sample_llm", {"prompt": "Say hi", "max_tokens": 50})
    assert "A reply typed by the test" in text_of(result)
    request = demo.recorder.sampling[-1]
    assert request.max_tokens == 50 and request.system_prompt
    assert request.model_preferences and request.model_preferences.hints


async def test_form_elicitation_round_trip(demo: Demo) -> None:
    result = await call(demo, "elicit_profile")
    assert "Thanks, Grace!" in text_of(result) and "Large" in text_of(result)
    request = demo.recorder.elicitations[-1]
    assert isinstance(request, types.ElicitRequestFormParams)
    properties = request.requested_schema["properties"]
    assert {properties[name]["type"] for name in properties} == {"string", "integer", "number", "boolean"}
    assert all("default" in prop for prop in properties.values())
    assert properties["colour"]["enum"] and properties["size"]["oneOf"]


async def test_url_elicitation_round_trip(demo: Demo) -> None:
    result = await call(demo, "elicit_url")
    assert text_of(result) == "URL elicitation answered: accept."
    request = demo.recorder.elicitations[-1]
    assert isinstance(request, types.ElicitRequestURLParams) and request.url.startswith("https://")


async def test_roots_round_trip(demo: Demo) -> None:
    result = await call(demo, "list_roots")
    assert "project: file:///tmp/project" in text_of(result)
    assert demo.recorder.roots_asked >= 1


# --- resources, templates, completion, prompts -----------------------------------------------


async def test_resources_list_and_read(demo: Demo) -> None:
    resources = {str(resource.uri): resource for resource in (await demo.client.list_resources()).resources}
    expected = {
        "demo://readme": "text/markdown",
        "demo://config.json": "application/json",
        "demo://source/fizzbuzz.py": "text/x-python",
        "demo://images/gradient.png": "image/png",
        "demo://audio/a440.wav": "audio/wav",
    }
    for uri, mime in expected.items():
        assert resources[uri].mime_type == mime and resources[uri].title and resources[uri].description

    readme = (await demo.client.read_resource("demo://readme")).contents[0]
    assert isinstance(readme, types.TextResourceContents) and readme.text.startswith("# inspector-demo")
    config = (await demo.client.read_resource("demo://config.json")).contents[0]
    assert isinstance(config, types.TextResourceContents) and json.loads(config.text)["server"] == "inspector-demo"
    image = (await demo.client.read_resource("demo://images/gradient.png")).contents[0]
    assert isinstance(image, types.BlobResourceContents) and image.mime_type == "image/png"
    assert base64.b64decode(image.blob).startswith(b"\x89PNG")


async def test_templates_and_completion(demo: Demo) -> None:
    templates = {t.uri_template for t in (await demo.client.list_resource_templates()).resource_templates}
    assert {"demo://users/{user_id}", "demo://files/{+path}", "demo://weather/{city}{?units}"} <= templates

    users = types.ResourceTemplateReference(type="ref/resource", uri="demo://users/{user_id}")
    completion = (await demo.client.complete(users, {"name": "user_id", "value": "a"})).completion
    assert completion.values == ["ada", "alan"]
    profile = (await demo.client.read_resource("demo://users/ada")).contents[0]
    assert isinstance(profile, types.TextResourceContents) and "Lovelace" in profile.text

    files = types.ResourceTemplateReference(type="ref/resource", uri="demo://files/{+path}")
    completion = (await demo.client.complete(files, {"name": "path", "value": "src/"})).completion
    assert completion.values == ["src/app.py", "src/utils/"]
    nested = (await demo.client.read_resource("demo://files/src/utils/text.py")).contents[0]
    assert isinstance(nested, types.TextResourceContents) and "def shout" in nested.text

    trip = types.PromptReference(type="ref/prompt", name="travel_plan")
    completion = (
        await demo.client.complete(trip, {"name": "city", "value": ""}, context_arguments={"country": "JP"})
    ).completion
    assert completion.values == ["Kyōto", "Tokyo"]


async def test_prompts(demo: Demo) -> None:
    prompts = {prompt.name: prompt for prompt in (await demo.client.list_prompts()).prompts}
    arguments = {arg.name: arg.required for arg in prompts["greeting"].arguments or []}
    assert arguments == {"name": True, "style": False}

    greeting = await demo.client.get_prompt("greeting", {"name": "Zoë", "style": "pirate"})
    assert len(greeting.messages) == 1
    assert isinstance(greeting.messages[0].content, types.TextContent)
    assert "Zoë" in greeting.messages[0].content.text

    review = await demo.client.get_prompt("code_review", {"language": "Python"})
    assert {message.role for message in review.messages} == {"user", "assistant"}
    assert {message.content.type for message in review.messages} >= {"text", "resource", "image"}

    # The spec's code for an unknown prompt and for a missing required argument.
    with pytest.raises(MCPError) as unknown:
        await demo.client.get_prompt("no_such_prompt", {})
    assert unknown.value.error.code == types.INVALID_PARAMS
    with pytest.raises(MCPError) as missing:
        await demo.client.get_prompt("greeting", {})
    assert missing.value.error.code == types.INVALID_PARAMS
    assert "name" in missing.value.error.message


async def test_descriptions_have_no_source_indentation(demo: Demo) -> None:
    described = [tool.description for tool in (await demo.client.list_tools()).tools]
    described += [prompt.description for prompt in (await demo.client.list_prompts()).prompts]
    described += [resource.description for resource in (await demo.client.list_resources()).resources]
    multi_line = [text for text in described if text and "\n" in text]
    assert multi_line, "the demo has multi-line docstrings: this check would prove nothing"
    for text in multi_line:
        assert "\n " not in text, text


# --- change notifications --------------------------------------------------------------------


async def test_resource_update_reaches_subscriber(demo: Demo) -> None:
    uri = "demo://notes"
    if demo.modern:
        async with demo.client.listen(resource_subscriptions=[uri]) as subscription:
            await call(demo, "append_note", {"text": "from the modern test"})
            with anyio.fail_after(HANG):
                event = await subscription.__anext__()
        assert event == ResourceUpdated(uri=uri)
    else:
        demo.recorder.notifications.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await demo.client.subscribe_resource(uri)
        await call(demo, "append_note", {"text": "from the legacy test"})
        await eventually(
            lambda: any(isinstance(n, types.ResourceUpdatedNotification) for n in demo.recorder.notifications),
            "notifications/resources/updated",
        )
    notes = (await demo.client.read_resource(uri)).contents[0]
    assert isinstance(notes, types.TextResourceContents) and "test" in notes.text


async def test_list_changed_when_extras_toggle(demo: Demo) -> None:
    async def names() -> set[str]:
        return {tool.name for tool in (await demo.client.list_tools()).tools}

    assert "bonus_fortune" not in await names()
    if demo.modern:
        async with demo.client.listen(tools_list_changed=True) as subscription:
            await call(demo, "toggle_extras", {"kind": "all"})
            with anyio.fail_after(HANG):
                assert await subscription.__anext__() == ToolsListChanged()
    else:
        demo.recorder.notifications.clear()
        await call(demo, "toggle_extras", {"kind": "all"})
        wanted = (
            types.ToolListChangedNotification,
            types.PromptListChangedNotification,
            types.ResourceListChangedNotification,
        )
        await eventually(
            lambda: all(any(isinstance(n, kind) for n in demo.recorder.notifications) for kind in wanted),
            "the three list_changed notifications",
        )
    try:
        assert "bonus_fortune" in await names()
        assert "bonus_haiku" in {prompt.name for prompt in (await demo.client.list_prompts()).prompts}
        uris = {str(resource.uri) for resource in (await demo.client.list_resources()).resources}
        assert "demo://extras/bonus.txt" in uris
        assert not (await call(demo, "bonus_fortune", {"number": 2})).is_error
    finally:
        await call(demo, "toggle_extras", {"kind": "all"})
    assert "bonus_fortune" not in await names()


# --- single-connection checks ----------------------------------------------------------------


async def test_cancellation_stops_the_long_task() -> None:
    recorder = Recorder()
    with tempfile.TemporaryFile("w+") as errlog:
        async with held(recorder.client(stdio_transport(errlog), "legacy")) as client:
            steps: list[float] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                steps.append(progress)

            async def long_task() -> None:
                await client.call_tool(
                    "long_running_task", {"steps": 50, "interval_ms": 100}, progress_callback=on_progress
                )

            # Cancelled once it is under way (its first progress), not after a fixed time.
            async with anyio.create_task_group() as group:
                group.start_soon(long_task)
                await eventually(lambda: steps, "the task's first progress")
                group.cancel_scope.cancel()
            assert 0 < len(steps) < 50

            def server_saw_the_cancellation() -> bool:
                errlog.seek(0)
                return "long_running_task cancelled during step" in errlog.read()

            await eventually(server_saw_the_cancellation, "the server's note that the task was cancelled")
            # The server is still healthy after the cancellation.
            echoed = await client.call_tool("echo", {"message": "still here"})
            assert text_of(echoed) == "still here"


async def test_log_level_filter_in_handshake_era() -> None:
    recorder = Recorder()
    with tempfile.TemporaryFile("w+") as errlog:
        async with held(recorder.client(stdio_transport(errlog), "legacy")) as client:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await client.set_logging_level("error")
            result = await client.call_tool("log_every_level", {})
            # The server's own count of what it sent: once that many are in, nothing else is coming.
            assert text_of(result) == "Sent up to 4 log messages."
            await eventually(lambda: len(recorder.logs) >= 4, "four log messages")
            assert [entry.level for entry in recorder.logs] == ["error", "critical", "alert", "emergency"]


async def test_legacy_sse_transport() -> None:
    with http_server("--sse") as port:
        recorder = Recorder()
        async with held(recorder.client(sse_client(f"http://127.0.0.1:{port}/sse"), "legacy")) as client:
            result = await client.call_tool("sample_llm", {"prompt": "hello"})
            assert "A reply typed by the test" in text_of(result)
            tools = {tool.name for tool in (await client.list_tools()).tools}
            assert {"echo", "register_user", "media_gallery"} <= tools


async def test_stdout_carries_only_protocol_for_the_oldest_revision() -> None:
    """Raw JSON-RPC at 2024-11-05: every stdout line is a protocol message, and content types the
    revision lacks are left out of the media gallery."""
    process = await asyncio.create_subprocess_exec(
        *SERVER_ARGV,
        cwd=ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    messages: list[dict[str, Any]] = [
        {
            "method": "initialize",
            "params": {
                "protocolVersion": "2024-11-05",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"method": "notifications/initialized"},
        {"method": "tools/list"},
        {"method": "tools/call", "params": {"name": "media_gallery", "arguments": {}}},
        {"method": "resources/read", "params": {"uri": "demo://unicode.txt"}},
    ]
    responses: dict[int, dict[str, Any]] = {}
    try:
        for number, message in enumerate(messages):
            frame: dict[str, Any] = {"jsonrpc": "2.0", **message}
            if not message["method"].startswith("notifications/"):
                frame["id"] = number
            process.stdin.write(json.dumps(frame).encode() + b"\n")
            await process.stdin.drain()
            if "id" not in frame:
                continue
            while number not in responses:
                line = await asyncio.wait_for(process.stdout.readline(), CALL_TIMEOUT)
                decoded = json.loads(line)  # anything but JSON-RPC on stdout fails here
                assert decoded["jsonrpc"] == "2.0"
                if "id" in decoded:
                    responses[decoded["id"]] = decoded
    finally:
        process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 5)
        except TimeoutError:
            process.kill()
            await process.wait()

    assert responses[0]["result"]["protocolVersion"] == "2024-11-05"
    trip = next(tool for tool in responses[2]["result"]["tools"] if tool["name"] == "plan_trip")
    assert "$defs" in trip["inputSchema"]
    kinds = [block["type"] for block in responses[3]["result"]["content"]]
    assert "audio" not in kinds and "resource_link" not in kinds and "image" in kinds
    text = responses[4]["result"]["contents"][0]["text"]
    assert "こんにちは" in text and "🚀" in text
    assert not any(ord(char) < 32 and char not in "\n\t" for char in text)
