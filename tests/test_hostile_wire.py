"""A server that abuses the wire itself (tests/servers/hostile_wire.py): JSON
nested past the bound, a flood of server requests, a line that never ends on
stdout or stderr, a line that trickles, ids of the wrong type.  Driven
through the scripting CLI (exit code, message, the --record file, peak
memory), the core and the TUI."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static, TextArea

from inspector.commands import exitcodes
from inspector.core.protocol.client import Client
from inspector.core.protocol.errors import JsonRpcError, ProtocolError
from inspector.core.protocol.handlers import ClientHandlers
from inspector.core.protocol.server_requests import MAX_SERVER_REQUESTS, SERVER_REQUESTS_FULL, ServerRequest
from inspector.core.protocol.wire_json import MAX_DEPTH, nested_deeper_than, shallow_members
from inspector.core.servers.spec import ServerSpec, parse_size
from inspector.tui.app import InspectorApp
from inspector.tui.handlers import DECLINE_ALL_KEY, RequestScreen
from inspector.tui.palette import ServerCommands
from inspector.tui.panes.bottom import BottomPanel
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.screens.help import all_bindings
from inspector.tui.widgets.json_tree import JsonTree
from inspector.tui.widgets.result_view import ResultView

from .peers import PYTHON, SERVERS, run_inspector
from .tui_helpers import focus, select, settle, wait_for
from .waiting import HANG, eventually_sync

WIRE = str(SERVERS / "hostile_wire.py")
FLOOD = 10_000
# Of the flood, every third request is a ping; the rest wait for a person.
PINGS = FLOOD // 3
HELD_KINDS = FLOOD - PINGS
DEEP_REASON = f"nested deeper than {MAX_DEPTH} levels"
# The deep mode wraps its array in four objects (message, result,
# structuredContent, "deep"): this depth makes the message exactly MAX_DEPTH deep.
WITHIN_BOUND = MAX_DEPTH - 4
NOISE = ("Traceback", "Future exception", "Task exception", "was never retrieved", "RecursionError")
GIB = 1024**3


def wire(mode: str, *extra: str) -> list[str]:
    return [PYTHON, WIRE, "--mode", mode, *extra]


def call_echo(
    mode: str, *extra: str, options: tuple[str, ...] = (), record: Path | None = None, timeout: str = "30"
) -> subprocess.CompletedProcess[str]:
    words = ["call", "echo", "text=hi", "--yes", "--json", "--timeout", timeout, *options]
    if record is not None:
        words += ["--record", str(record)]
    return run_inspector(*words, "--", *wire(mode, *extra), timeout=120)


def recorded(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def assert_quiet(stderr: str) -> None:
    for noise in NOISE:
        assert noise not in stderr, stderr


def the_call(frames: list[dict[str, Any]]) -> dict[str, Any]:
    return next(f for f in frames if f["dir"] == "out" and f.get("method") == "tools/call")


def run_measured(args: list[str], tmp_path: Path, timeout: float = 120) -> tuple[int, str, str, int]:
    """Run `inspector ARGS`; (exit code, stdout, stderr, peak RSS in bytes of
    the inspector process, its waited-for children included)."""
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen([PYTHON, "-m", "inspector", *args], stdout=stdout, stderr=stderr)

    def exited() -> tuple[int, Any] | None:
        # wait4 gives the usage of this one process; it has no timeout, so it is polled.
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        return (status, usage) if pid else None

    try:
        status, usage = eventually_sync(exited, f"inspector {args} to exit", timeout)
    except AssertionError:
        process.kill()
        process.wait()
        raise
    process.returncode = os.waitstatus_to_exitcode(status)
    # ru_maxrss is in kilobytes on Linux.
    return process.returncode, out.read_text(), err.read_text(), usage.ru_maxrss * 1024


# -- deep JSON -----------------------------------------------------------------------


def test_the_depth_scan_counts_brackets_outside_strings_only() -> None:
    def deep(levels: int) -> bytes:
        return b"[" * levels + b"]" * levels

    assert not nested_deeper_than(deep(MAX_DEPTH))
    assert nested_deeper_than(deep(MAX_DEPTH + 1))
    # Brackets inside strings (escaped quotes too) are text, not nesting.
    text = json.dumps({"s": "[" * 2000 + '\\"{' * 600}).encode()
    assert not nested_deeper_than(text)
    assert json.loads(text)
    members = shallow_members(b'{"result": ' + deep(5000) + b', "text": "\\"id\\": 9", "id": "a\\u0062c"}')
    assert members == {"id": "abc"}
    assert shallow_members(b'{"params": {"id": 1}, "method": "x/y", "id": 7}') == {"method": "x/y", "id": 7}
    assert shallow_members(deep(3)) == {}


def test_a_deep_answer_fails_its_request_at_once_and_the_rest_of_the_read_arrives(tmp_path: Path) -> None:
    record = tmp_path / "deep.jsonl"
    result = call_echo("deep", record=record)
    # A protocol error (4), not the timeout (6) it was when the read was lost.
    assert result.returncode == exitcodes.PROTOCOL_ERROR, result.stderr
    assert_quiet(result.stderr)
    assert DEEP_REASON in result.stderr and "tools/call" in result.stderr
    frames = recorded(record)
    request = the_call(frames)
    deep = next(f for f in frames if f["kind"] == "invalid")
    # Raw first: the whole frame is recorded, unparsed, with why.
    assert len(deep["raw"]) > 2 * 5000 and deep["raw"].startswith('{"jsonrpc"')
    assert DEEP_REASON in deep["error"] and DEEP_REASON in deep["problems"][0]
    assert deep["id"] == request["id"] and deep["partner"] == request["seq"] and deep["method"] == "tools/call"
    # The valid messages written with it, before and after, are delivered.
    logs = [f for f in frames if f.get("method") == "notifications/message"]
    assert [f["seq"] for f in logs] == [deep["seq"] - 1, deep["seq"] + 1]
    assert all("problems" not in f for f in logs)


def test_json_nested_up_to_the_bound_is_shown_by_every_output(tmp_path: Path) -> None:
    record = tmp_path / "deep.jsonl"
    # A secret in play, so masking walks every frame too.
    options = ("--env", "API_KEY=s3cr3t-value-123")
    result = call_echo("deep", "--depth", str(WITHIN_BOUND), options=options, record=record)
    assert result.returncode == exitcodes.OK, result.stderr
    assert_quiet(result.stderr)
    value = json.loads(result.stdout)["structuredContent"]["deep"]
    levels = 0
    while isinstance(value, list):
        value, levels = value[0], levels + 1
    assert levels == WITHIN_BOUND
    answer = next(f for f in recorded(record) if f["dir"] == "in" and f.get("method") == "tools/call")
    assert answer["kind"] == "response" and "problems" not in answer
    human = run_inspector(
        "call", "echo", "text=hi", "--yes", "--human", *options, "--", *wire("deep", "--depth", str(WITHIN_BOUND))
    )
    assert human.returncode == exitcodes.OK, human.stderr
    assert_quiet(human.stderr)
    assert "structuredContent" in human.stdout


def status_text(app: InspectorApp) -> str:
    return str(app.query_one(ResultView).query_one("#status", Static).render())


async def call_in_tui(pilot: Any, app: InspectorApp) -> None:
    await wait_for(pilot, lambda: app.client.state == "connected" and "tools" in app.lists, "connection")
    await select(pilot, app, "tools", "echo")
    await pilot.press("ctrl+enter")
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
    await pilot.press("y")
    await wait_for(pilot, lambda: "OK" in status_text(app) or "✖" in status_text(app), "the call's end")


async def test_tui_deep_answer_is_a_clear_error_and_the_app_goes_on() -> None:
    spec = ServerSpec(transport="stdio", command=PYTHON, args=[WIRE, "--mode", "deep"], timeout=30)
    app = InspectorApp(spec)
    async with app.run_test(size=(150, 50)) as pilot:
        await call_in_tui(pilot, app)
        assert "✖ protocol error" in status_text(app) and DEEP_REASON in status_text(app)
        deep = next(f for f in app.traffic if f.kind == "invalid")
        assert deep.method == "tools/call" and deep.raw is not None and len(deep.raw) > 10_000
        assert sum(f.method == "notifications/message" for f in app.traffic) == 2
        # The traffic pane shows the frame; the app still answers keys.
        app.query_one(BottomPanel).remove_class("hidden")
        assert app.query_one("#traffic-table").select_seq(deep.seq)  # type: ignore[attr-defined]
        await wait_for(pilot, lambda: DEEP_REASON in _detail_text(app), "the frame's detail")
        await pilot.press("f6")
        await wait_for(pilot, lambda: app.query_one("#main").active == "server", "the Server tab")  # type: ignore[attr-defined]


async def test_tui_shows_json_nested_up_to_the_bound() -> None:
    args = [WIRE, "--mode", "deep", "--depth", str(WITHIN_BOUND)]
    app = InspectorApp(ServerSpec(transport="stdio", command=PYTHON, args=args, timeout=30))
    async with app.run_test(size=(150, 50)) as pilot:
        await call_in_tui(pilot, app)
        assert "OK" in status_text(app)
        tree = app.query_one("#structured-tree", JsonTree)
        tree.root.expand_all()
        answer = next(f for f in app.traffic if f.direction == "in" and f.method == "tools/call")
        app.query_one(BottomPanel).remove_class("hidden")
        assert app.query_one("#traffic-table").select_seq(answer.seq)  # type: ignore[attr-defined]
        await wait_for(pilot, lambda: "tools/call" in _detail_text(app), "the frame's detail")
        # Drawn whole now (the deep tree and the detail): a crash in drawing them raises here.
        app.export_screenshot()
        # What drawing set off has run too (a crash there would stop the app).
        await settle(pilot, "the app after drawing the deep tree")
        assert app.is_running and "OK" in status_text(app)


def _detail_text(app: InspectorApp) -> str:
    return " ".join(str(s.render()) for s in app.query_one("#traffic-detail").query(Static))


# -- a flood of server requests --------------------------------------------------------


class HoldingHandlers(ClientHandlers):
    """A person who has not answered yet: every sampling and elicitation
    request waits until `release` is set."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.seen = 0

    async def create_message(self, request: ServerRequest) -> dict[str, Any]:
        self.seen += 1
        await self.release.wait()
        raise JsonRpcError(-1, "the user rejected the sampling request")

    async def elicit(self, request: ServerRequest) -> dict[str, Any]:
        self.seen += 1
        await self.release.wait()
        return {"action": "decline"}


async def server_stats(client: Client, want: dict[str, int]) -> dict[str, int]:
    """The server's count of our answers, once it has read `want` of them."""
    deadline = time.monotonic() + HANG
    while True:
        result = await client.call_tool("stats", {})
        stats: dict[str, int] = json.loads(result["content"][0]["text"])
        if all(stats.get(key, 0) >= count for key, count in want.items()) or time.monotonic() > deadline:
            return stats
        # The polling interval of this wait (asking costs a tool call), not a wait of its own.
        await asyncio.sleep(0.1)


async def test_a_flood_of_server_requests_is_bounded_and_the_list_still_arrives() -> None:
    handlers = HoldingHandlers()
    spec = ServerSpec(transport="stdio", command=PYTHON, args=[WIRE, "--mode", "flood"], timeout=60)
    client = Client(spec, handlers=handlers)
    await client.connect()
    try:
        listing = await client.list_all("tools")
        assert [item.key for item in listing.items] == ["echo", "stats"]
        session, _transport = client.require()
        declined = HELD_KINDS - MAX_SERVER_REQUESTS
        stats = await server_stats(client, {f"error {SERVER_REQUESTS_FULL}": declined, "result": PINGS})
        # Every ping answered; past the bound, declined at once; the rest held.
        assert stats == {f"error {SERVER_REQUESTS_FULL}": declined, "result": PINGS}
        assert handlers.seen == MAX_SERVER_REQUESTS
        assert len(session.pending_server_requests()) == MAX_SERVER_REQUESTS
        refusals = [f for f in client.traffic if f.direction == "out" and f.kind == "error"]
        assert len(refusals) == declined
        error = refusals[0].message["error"]
        assert error["code"] == SERVER_REQUESTS_FULL and "too many server requests pending" in error["message"]
        assert error["data"] == {"limit": MAX_SERVER_REQUESTS}
        assert refusals[0].note is not None and "declined at once" in refusals[0].note
        handlers.release.set()
        stats = await server_stats(client, {"error -1": MAX_SERVER_REQUESTS // 2})
        assert stats["error -1"] + stats["result"] == PINGS + MAX_SERVER_REQUESTS
        assert not session.pending_server_requests()
    finally:
        await client.close()


def test_cli_lists_tools_through_a_flood() -> None:
    result = run_inspector("list", "tools", "--json", "--timeout", "60", "--", *wire("flood"), timeout=120)
    assert result.returncode == exitcodes.OK, result.stderr
    assert_quiet(result.stderr)
    assert [tool["name"] for tool in json.loads(result.stdout)["tools"]] == ["echo", "stats"]


async def test_tui_stays_responsive_in_a_flood_and_one_key_declines_all() -> None:
    spec = ServerSpec(transport="stdio", command=PYTHON, args=[WIRE, "--mode", "flood"], timeout=60)
    app = InspectorApp(spec)
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_for(pilot, lambda: "tools" in app.lists, "the tool list", timeout=60)
        assert [item.key for item in app.lists["tools"].items] == ["echo", "stats"]
        await wait_for(pilot, lambda: isinstance(app.screen, RequestScreen), "the first request's modal", timeout=60)
        assert len(app.handlers.waiting) == MAX_SERVER_REQUESTS
        note = str(app.screen.query_one("#queue-position", Static).render())
        assert f"1 of {MAX_SERVER_REQUESTS} pending" in note and f"{DECLINE_ALL_KEY} declines all" in note
        palette = [name for name, _help, _run in ServerCommands(app.screen)._entries()]
        assert "decline: all pending server requests" in palette
        # Keys are handled while the flood is pending: the reply is typed.
        reply = app.screen.query_one("#sampling-reply", TextArea)
        await focus(pilot, reply)
        await pilot.press("o", "k")
        await wait_for(pilot, lambda: reply.text == "ok", "the typed reply")
        await pilot.press(DECLINE_ALL_KEY)
        await wait_for(pilot, lambda: not app.handlers.waiting, "an empty queue")
        await wait_for(pilot, lambda: not isinstance(app.screen, RequestScreen), "no modal left")
        answers = [f for f in app.traffic if f.direction == "out" and f.kind in ("error", "response")]
        codes = [f.message.get("error", {}).get("code") for f in answers]
        assert codes.count(SERVER_REQUESTS_FULL) == HELD_KINDS - MAX_SERVER_REQUESTS
        declined = [f.message for f in answers if f.message.get("result") == {"action": "decline"}]
        assert codes.count(-1) + len(declined) == MAX_SERVER_REQUESTS
        assert len(answers) == FLOOD


def test_the_decline_all_key_is_in_the_help() -> None:
    bindings = [(owner.__name__, binding) for owner, binding in all_bindings()]
    found = [binding for owner, binding in bindings if binding.id == "decline_all_requests"]
    assert found and found[0].key == DECLINE_ALL_KEY and found[0].description == "Decline all"


# -- lines that never end ----------------------------------------------------------------


def test_an_endless_stdout_line_disconnects_the_server_with_bounded_memory(tmp_path: Path) -> None:
    record = tmp_path / "endless.jsonl"
    args = ["call", "echo", "text=hi", "--yes", "--json", "--record", str(record), "--", *wire("endless-stdout")]
    code, _out, err, peak = run_measured(args, tmp_path)
    assert code == exitcodes.CANNOT_CONNECT, err
    assert_quiet(err)
    limit = parse_size("256MiB")
    assert f"message exceeded {limit} bytes" in err and "server disconnected" in err
    assert peak < GIB, f"peak RSS {peak} bytes"
    frames = recorded(record)
    broken = next(f for f in frames if f["kind"] == "invalid")
    assert "server disconnected" in broken["error"] and broken["meta"]["received"] > limit
    assert len(broken["raw"]) == broken["meta"]["kept"] < 1024 * 1024
    assert broken["raw"].startswith('{"jsonrpc":"2.0","id":')
    assert any("SIGTERM" in str(f.get("note")) for f in frames if f["kind"] == "process")


def test_max_message_size_is_an_option(tmp_path: Path) -> None:
    result = call_echo("endless-stdout", "--stop-mb", "8", options=("--max-message-size", "1MiB"))
    assert result.returncode == exitcodes.CANNOT_CONNECT, result.stderr
    assert "message exceeded 1048576 bytes" in result.stderr
    # A result within the bound passes.
    assert call_echo("plain", options=("--max-message-size", "64KiB")).returncode == exitcodes.OK
    wrong = call_echo("plain", options=("--max-message-size", "lots"))
    assert wrong.returncode == exitcodes.USAGE and "--max-message-size" in wrong.stderr


def test_an_endless_stderr_line_is_cut_with_bounded_memory(tmp_path: Path) -> None:
    record = tmp_path / "stderr.jsonl"
    args = ["call", "echo", "text=hi", "--yes", "--json", "--record", str(record), "--", *wire("endless-stderr")]
    code, out, err, peak = run_measured(args, tmp_path)
    assert code == exitcodes.OK, err
    assert json.loads(out)["content"][0]["text"] == "hi"
    assert peak < GIB, f"peak RSS {peak} bytes"
    line = next(f for f in recorded(record) if f["kind"] == "stderr")
    kept = len(line["raw"])
    assert kept == 64 * 1024
    cut = 600 * 1_000_000 - kept
    assert line["note"].startswith(f"… {cut} bytes cut") and line["meta"] == {"cut": cut}


def test_timeout_is_a_deadline_for_a_line_that_trickles() -> None:
    # One byte a second, never a newline: --timeout still ends it.
    result = call_echo("trickle", timeout="3")
    assert result.returncode == exitcodes.TIMEOUT, result.stderr
    assert_quiet(result.stderr)
    assert "tools/call: no response within 3 s" in result.stderr


# -- ids of the wrong type ---------------------------------------------------------------


WRONG_IDS = [("string-id", "'{}'", "a string"), ("float-id", "{}.0", "a number with a fraction part")]


@pytest.mark.parametrize(("mode", "shown", "kind"), WRONG_IDS)
def test_an_answer_under_an_id_of_another_type_answers_nothing(
    tmp_path: Path, mode: str, shown: str, kind: str
) -> None:
    record = tmp_path / "ids.jsonl"
    result = call_echo(mode, record=record, timeout="3")
    frames = recorded(record)
    request_id = the_call(frames)["id"]
    assert isinstance(request_id, int)
    assert result.returncode == exitcodes.TIMEOUT, result.stderr
    wrong = shown.format(request_id)
    assert f"the server answered under the id {wrong} ({kind}) instead" in result.stderr
    answer = next(f for f in frames if f["dir"] == "in" and f["seq"] > the_call(frames)["seq"])
    problem = answer["problems"][0]
    assert problem.startswith(f"response to unknown request id {wrong}")
    assert f"request {request_id} (tools/call) is pending, but its id is the number {request_id}" in problem
    assert "partner" not in answer


def test_unhashable_tokens_do_not_lose_the_rest_of_the_read(tmp_path: Path) -> None:
    record = tmp_path / "tokens.jsonl"
    result = call_echo("odd-token", record=record)
    assert result.returncode == exitcodes.OK, result.stderr
    assert_quiet(result.stderr)
    assert json.loads(result.stdout)["content"][0]["text"] == "hi"
    progress = [f for f in recorded(record) if f.get("method") == "notifications/progress"]
    assert len(progress) == 2
    assert all("progress for unknown or finished token" in f["problems"][0] for f in progress)


async def test_a_deep_answer_in_the_core_is_a_protocol_error() -> None:
    client = Client(ServerSpec(transport="stdio", command=PYTHON, args=[WIRE, "--mode", "deep"], timeout=30))
    await client.connect()
    try:
        with pytest.raises(ProtocolError, match=DEEP_REASON):
            await client.call_tool("echo", {"text": "x"})
        # The session goes on: the next call is answered (by the same deep mode).
        with pytest.raises(ProtocolError):
            await client.call_tool("echo", {"text": "y"})
        assert await client.ping() == {}
    finally:
        await client.close()
