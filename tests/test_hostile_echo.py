"""A server that echoes the secret it was given (`--env`) and sends terminal
controls: neither reaches any output (CLI stdout and stderr, human and
`--json`), the `--record` file (in any spelling), the TUI's header, tool
description, result view and server-request dialogs, nor a clipboard copy.
Against tests/servers/hostile_echo.py."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from inspector.core.record.frame_lines import frame_from_record, frame_to_record
from inspector.core.record.traffic import RECENT, Frame, TrafficLog
from inspector.core.servers.spec import ServerSpec
from inspector.tui.app import InspectorApp
from inspector.tui.handlers import RequestScreen
from inspector.tui.panes.tools import ToolsPane
from inspector.tui.panes.traffic import TrafficPane
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.screens.elicitation import ElicitationScreen
from inspector.tui.screens.sampling import SamplingScreen
from inspector.tui.widgets.status_bar import StatusBar

from .peers import PYTHON, SERVERS, run_inspector
from .tui_helpers import focus, wait_for

ECHO = str(SERVERS / "hostile_echo.py")
SECRET = "SEKRET-7f3a9c1d2e"
# What no output may carry raw: C0 but newline and tab, DEL, C1, bidi controls.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
CONTROLS = "\x1b[201~\x07\x9b31m\x9d0;title\x07\u202eevil\u202c\u2066iso\u2069\u200fmark\u200e\u061c"
SIZE = (150, 50)


def echo(*args: str) -> subprocess.CompletedProcess[str]:
    return run_inspector(*args, "--env", f"API_TOKEN={SECRET}", "--", PYTHON, ECHO)


def assert_clean(done: subprocess.CompletedProcess[str]) -> None:
    for name, text in (("stdout", done.stdout), ("stderr", done.stderr)):
        assert SECRET not in text, f"the secret on {name}: {text!r}"
        found = RAW_CONTROL.findall(text)
        assert not found, f"raw control characters on {name}: {found!r} in {text!r}"


def decoded_escapes(text: str) -> str:
    """`text` with every JSON `\\uXXXX` escape decoded, at any depth of escaping."""
    pattern = re.compile(r"\\+u([0-9a-fA-F]{4})")
    previous = None
    while previous != text:
        previous = text
        text = pattern.sub(lambda m: chr(int(m.group(1), 16)), text)
    return text


def strings_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *strings_in(v)]]
    if isinstance(value, list):
        return [s for v in value for s in strings_in(v)]
    return []


# -- the CLI -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["--json", "--human"])
def test_info_and_lists_hide_the_secret_and_the_controls(mode: str) -> None:
    for args in (("info",), ("list", "tools"), ("list", "prompts"), ("list", "resources")):
        done = echo(*args, mode)
        assert done.returncode == 0, done.stderr
        assert_clean(done)
        assert "***" in done.stdout, done.stdout
        if mode == "--json":
            json.loads(done.stdout)
    info = json.loads(echo("info", "--json").stdout)
    # Escaped, not dropped: the JSON carries exactly what the server sent, secret masked.
    assert info["serverInfo"]["title"] == f"Echo *** {CONTROLS}"
    assert info["instructions"] == f"Use the token *** {CONTROLS} wisely."
    tools = json.loads(echo("list", "tools", "--json").stdout)["tools"]
    assert tools[0]["description"] == f"Echoes the token *** back {CONTROLS}"


def test_call_masks_the_secret_in_every_spelling_and_escapes_controls(tmp_path: Path) -> None:
    record = tmp_path / "session.jsonl"
    done = echo("call", "echo_secret", "--yes", "--json", "--record", str(record))
    assert done.returncode == 0, done.stderr
    assert_clean(done)
    result = json.loads(done.stdout)
    assert [block["text"] for block in result["content"]] == [
        f"plain: *** {CONTROLS}",
        f"escaped: *** and {CONTROLS}",
    ]
    human = echo("call", "echo_secret", "--yes", "--human")
    assert human.returncode == 0, human.stderr
    assert_clean(human)
    assert "plain: *** ␛[201~␇\\u009b31m" in human.stdout and "\\u200fmark" in human.stdout

    text = record.read_text(encoding="utf-8")
    assert SECRET not in text and SECRET not in decoded_escapes(text)
    frames = [json.loads(line) for line in text.splitlines()]
    for entry in frames:
        assert not any(SECRET in s for s in strings_in(entry))
        if "raw" in entry and entry["kind"] in ("response", "request", "notification"):
            assert not any(SECRET in s for s in strings_in(json.loads(entry["raw"])))
    answer = next(f for f in frames if f["kind"] == "response" and f.get("method") == "tools/call")
    # Masked where it stood, escaped spelling and all: the raw is still the server's line.
    assert "escaped: *** and \\u001B\\u005B" in answer["raw"]
    assert any(f["kind"] == "stderr" and "starting with token ***" in f["raw"] for f in frames)


@pytest.mark.parametrize("mode", ["--json", "--human"])
def test_read_get_and_errors_hide_the_secret_and_the_controls(mode: str) -> None:
    for args in (("read", "echo://token"), ("get", "greet"), ("call", "controls", "--yes")):
        done = echo(*args, mode)
        assert done.returncode == 0, done.stderr
        assert_clean(done)
        if mode == "--json":
            value = json.loads(done.stdout)
            assert any(CONTROLS in s for s in strings_in(value)), "escaped, so the value round-trips"
    failed = echo("call", "fail", "--yes", mode)
    assert failed.returncode != 0
    assert_clean(failed)
    assert "failed ␛[201~␇\\u009b31m" in failed.stderr and "with ***" in failed.stderr
    if mode == "--json":
        error = json.loads(failed.stderr.splitlines()[-1])["error"]
        assert error["message"] == f"failed {CONTROLS} with ***" and error["data"] == {"why": CONTROLS}


@pytest.mark.parametrize("mode", ["--json", "--human"])
def test_the_stderr_quoted_in_an_error_is_masked(mode: str) -> None:
    done = run_inspector("info", mode, "--env", f"API_TOKEN={SECRET}", "--", PYTHON, ECHO, "--exit-at-once")
    assert done.returncode != 0
    assert_clean(done)
    assert "fatal: token *** ␛[201~" in done.stderr, done.stderr


# -- the traffic log -----------------------------------------------------------------------


def test_a_frame_keeps_its_message_without_holding_it() -> None:
    traffic = TrafficLog()
    raw = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}'
    message = json.loads(raw)
    first = traffic.add("in", "notification", raw=raw, message=message, method=message["method"])
    assert first.message is message, "the session and the observers share the parsed object"
    for _ in range(4 * RECENT.count):
        traffic.add("in", "notification", raw=raw, message=json.loads(raw), method="notifications/message")
    assert first._message is not message, "an old frame no longer holds its parsed message"
    assert first.message == message, "it is parsed again from the raw bytes"
    assert first.method is traffic.frames[-1].method, "method names are interned"
    # Problems and findings exist once something is put in them, through any caller.
    assert first._problems is None and not first.problems
    first.problems.append("late")
    first.problems.append("later")
    assert first.problems == ["late", "later"]
    # A message that is not its raw's JSON is kept as given.
    built = traffic.add("out", "request", message={"jsonrpc": "2.0", "id": 1, "method": "x"}, method="x", id=1)
    assert built.message == {"jsonrpc": "2.0", "id": 1, "method": "x"}
    invalid = traffic.add("in", "invalid", raw=b"[1,", error="invalid JSON")
    assert invalid.message is None
    # Loaded from a recording, a frame parses its raw when asked.
    loaded = frame_from_record(frame_to_record(first))
    assert isinstance(loaded, Frame) and loaded.message == message and loaded.problems == ["late", "later"]


def test_masking_that_would_break_the_json_re_encodes_and_says_so() -> None:
    from inspector.core.record.secret_mask import SecretMask

    traffic = TrafficLog(mask=SecretMask(["u00e9-and"]))
    # The secret's text sits across an escape: masked in place, the line would not parse.
    raw = b'{"jsonrpc":"2.0","id":1,"result":{"text":"caf\\u00e9-and more"}}'
    frame = traffic.add("in", "response", raw=raw, message=json.loads(raw), id=1)
    assert frame.raw is not None and b"u00e9-and" not in frame.raw
    assert json.loads(frame.raw) == frame.message == json.loads(raw), "nothing decoded held the secret"
    assert frame.meta == {"reencoded": True} and "re-encoded" in (frame.note or "")
    # A secret spanning JSON syntax stays masked even though the raw then cannot parse.
    traffic = TrafficLog(mask=SecretMask(['ab","k']))
    raw = b'{"jsonrpc":"2.0","id":1,"result":{"t":"xab","k":"y"}}'
    frame = traffic.add("in", "response", raw=raw, message=json.loads(raw), id=1)
    assert frame.raw is not None and b'ab","k' not in frame.raw
    assert frame.message == json.loads(raw) and frame.meta == {"masked_raw_invalid": True}


# -- the TUI ---------------------------------------------------------------------------------


def echo_spec() -> ServerSpec:
    return ServerSpec(command=sys.executable, args=[ECHO], env={"API_TOKEN": SECRET})


def screen_text(app: InspectorApp) -> str:
    update: Any = app.screen._compositor.render_update(full=True)
    return "\n".join("".join(strip.text for strip in line) for line in update.strips)


def shown_text(app: InspectorApp) -> str:
    return " ".join(str(static.render()) for static in app.screen.query(Static))


async def test_the_tui_never_shows_the_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    copied: list[str] = []
    import pyperclip

    monkeypatch.setattr(pyperclip, "copy", copied.append)
    app = InspectorApp(echo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.client.state == "connected" and "tools" in app.lists, "tools")
        await wait_for(pilot, lambda: "prompts" in app.lists and "resources" in app.lists, "lists")
        header = app.query_one(StatusBar).render().plain
        assert "Echo ***" in header and SECRET not in header

        app.select_item("tools", "echo_secret")
        await wait_for(pilot, lambda: "Echoes the token ***" in screen_text(app), "the tool's description")
        description = str(app.query_one("#tool-header-text", Static).render())
        assert SECRET not in description and "\x1b" not in description

        await focus(pilot, app.query_one(ToolsPane).query_one("#tool-list #options"))
        await pilot.press("ctrl+enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "confirmation")
        await pilot.press("y")
        await wait_for(pilot, lambda: "escaped: ***" in screen_text(app), "the result")
        assert "plain: ***" in screen_text(app) and SECRET not in screen_text(app)
        assert "Echo ***" in app.query_one(StatusBar).render().plain

        sampling = asyncio.create_task(app.client.call_tool("ask_sampling", {}))
        await wait_for(pilot, lambda: isinstance(app.screen, SamplingScreen), "the sampling dialog")
        await wait_for(pilot, lambda: "Use ***" in screen_text(app) + shown_text(app), "the masked prompt shown")
        assert SECRET not in screen_text(app) and SECRET not in shown_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, RequestScreen), "the dialog closed")

        elicitation = asyncio.create_task(app.client.call_tool("ask_elicitation", {}))
        await wait_for(pilot, lambda: isinstance(app.screen, ElicitationScreen), "the elicitation dialog")
        await wait_for(
            pilot, lambda: "Confirm the token ***" in screen_text(app) + shown_text(app), "the masked message shown"
        )
        assert SECRET not in screen_text(app) and SECRET not in shown_text(app)
        await pilot.press("escape")
        await asyncio.wait_for(asyncio.gather(sampling, elicitation, return_exceptions=True), 30)

        # Copy, from the Traffic pane, the frame with the controls in it.
        pane = app.query_one(TrafficPane)
        answer = next(f for f in app.traffic if f.kind == "response" and f.method == "tools/call")
        await wait_for(pilot, lambda: pane.table.select_seq(answer.seq), "the answer selected")
        await focus(pilot, pane.table)
        await pilot.press("c")
        await wait_for(pilot, lambda: copied, "a copy")
    text = copied[-1]
    assert "escaped: ***" in text and SECRET not in text
    assert not RAW_CONTROL.findall(text), text
    assert "\\u001b[201~" in text.lower()
