"""Several servers in one window: the embedded demo, the reference TypeScript
server (server-everything) and a server that dies in the middle of a call,
each with its own connection, traffic, stderr and panes."""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from inspector.cli.parser import build_parser
from inspector.core.servers.from_args import spec_from_args, split_server_command
from inspector.core.servers.spec import ServerSpec, demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.server_list import ServerList
from inspector.tui.server_view import ServerView
from inspector.tui.servers_args import tui_specs
from inspector.tui.widgets.arguments import ArgumentsEditor
from inspector.tui.widgets.form_row import FieldRow
from inspector.tui.widgets.result_view import ResultView
from inspector.tui.widgets.status_bar import StatusBar

from .peers import EVERYTHING, NODE, ROOT, SERVERS, require
from .tui_helpers import fill, settle, wait_for

SIZE = (160, 50)
CRASHING = SERVERS / "crashing_later.py"
LAST_WORDS = "crashing_later: going down in the middle of a call"


def crashing_spec() -> ServerSpec:
    return ServerSpec(transport="stdio", command=sys.executable, args=[str(CRASHING)], name="crashing")


async def wait_all_connected(pilot: Pilot[int], app: InspectorApp, views: list[ServerView] | None = None) -> None:
    for view in views or app.views:
        await wait_for(
            pilot,
            lambda view=view: (
                view.client.state == "connected"  # type: ignore[misc]
                and all(kind in view.lists for kind in ("tools", "resources", "templates", "prompts"))
            ),
            f"{view.label} connected with its lists",
        )
    await settle(pilot, "the panes to draw the lists")


@asynccontextmanager
async def demo_and_everything(size: tuple[int, int] = SIZE) -> AsyncIterator[tuple[InspectorApp, Pilot[int]]]:
    """One window on the demo server and server-everything (stdio), both connected."""
    everything = ServerSpec(
        transport="stdio", command=NODE, args=[str(require(EVERYTHING)), "stdio"], timeout=20, name="everything"
    )
    app = InspectorApp([demo_spec(), everything])
    async with app.run_test(size=size) as pilot:
        await wait_all_connected(pilot, app)
        yield app, pilot


def status_of(view: ServerView) -> str:
    return str(view.query_one(ResultView).query_one("#status", Static).render())


def row_in(view: ServerView, path: tuple[object, ...]) -> FieldRow:
    for row in view.query(FieldRow):
        if row.node.path == path:
            return row
    raise AssertionError(f"no form row for {path} in {view.label}")


def tool_calls(view: ServerView) -> list[Any]:
    return [
        frame.message["params"]["name"]
        for frame in view.traffic.frames
        if frame.method == "tools/call" and frame.direction == "out" and frame.kind == "request"
    ]


def list_text(app: InspectorApp) -> str:
    options = app.query_one(ServerList)
    return "\n".join(str(options.get_option_at_index(i).prompt) for i in range(options.option_count))


async def call_through_confirmation(
    pilot: Pilot[int], app: InspectorApp, tool: str, values: dict[tuple[object, ...], str]
) -> None:
    """Select `tool` in the shown server's Tools pane, type the values, ctrl+enter, y."""
    view = app.view
    view.select_item("tools", tool)

    def drawn() -> bool:
        editor = view.query_one(ArgumentsEditor)
        return editor.key == tool and not editor.form._rebuild_pending

    await wait_for(pilot, drawn, f"the form of {tool} in {view.label}")
    await settle(pilot, f"the panes to follow the selection of {tool}")
    for path, text in values.items():
        await fill(pilot, row_in(view, path), text)
    await pilot.press("ctrl+enter")
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), f"the confirmation of {tool}")
    # The confirmation says whose tool it calls: several servers may have one of that name.
    screen = app.screen
    assert isinstance(screen, ConfirmCallScreen)
    assert screen.server == f"{app.views.index(view) + 1} {view.label}"
    assert f"on server {screen.server}?" in str(screen.query(Static).first().render())
    await pilot.press("y")


async def test_two_servers_in_one_window_each_call_in_its_own_traffic() -> None:
    async with demo_and_everything() as (app, pilot):
        demo, ts = app.views
        # The list beside the panes: both servers, both connected; the header names the shown one.
        server_list = app.query_one(ServerList)
        assert server_list.display and server_list.option_count == 2
        await wait_for(pilot, lambda: list_text(app).count("connected") == 2, "both connected in the list")
        assert app.view is demo and app.facts.showing == "1/2 inspector-demo"
        assert "Everything" not in app.facts.server and not demo.has_class("-inactive")
        assert ts.has_class("-inactive")  # out of sight, still connected

        await call_through_confirmation(pilot, app, "echo", {("message",): "from the demo window"})
        await wait_for(pilot, lambda: "OK" in status_of(demo), "the demo's echo result")
        assert demo.query_one(ResultView).last_result["content"][0]["text"] == "from the demo window"

        # One key shows the other server's panes, header and list arrow included.
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.view is ts, "the switch to server-everything")
        assert app.facts.showing == "2/2 everything" and "Everything" in app.facts.server
        assert demo.has_class("-inactive") and not ts.has_class("-inactive")
        assert "▶2" in list_text(app)

        await call_through_confirmation(pilot, app, "get-sum", {("a",): "5", ("b",): "37"})
        await wait_for(pilot, lambda: "OK" in status_of(ts), "server-everything's sum")
        assert ts.query_one(ResultView).last_result["content"][0]["text"] == "The sum of 5 and 37 is 42."

        # Each call went to its own server and sits in that server's traffic only.
        assert tool_calls(demo) == ["echo"] and tool_calls(ts) == ["get-sum"]
        # The demo's result stayed in its own (hidden) panes.
        assert demo.query_one(ResultView).last_result["content"][0]["text"] == "from the demo window"

        # Choosing an entry of the list switches back.
        server_list.focus()
        server_list.highlighted = 0
        await settle(pilot, "the list focused")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.view is demo, "the switch back from the list")
        assert app.facts.showing == "1/2 inspector-demo"


async def test_a_crashing_server_leaves_the_other_working() -> None:
    app = InspectorApp([crashing_spec(), demo_spec()])
    async with app.run_test(size=SIZE) as pilot:
        await wait_all_connected(pilot, app)
        crashing, demo = app.views
        assert app.view is crashing

        await call_through_confirmation(pilot, app, "crash", {})
        await wait_for(pilot, lambda: crashing.list_state()[0] == "exited", "the crashed server shown as exited")
        await wait_for(pilot, lambda: "exited" in list_text(app), "exited in the server list")
        # No modal took the window: the other server is still one key away.
        assert not isinstance(app.screen, ConfirmCallScreen) and len(app.screen_stack) == 1
        stderr = [frame.text() for frame in crashing.traffic.frames if frame.kind == "stderr"]
        assert any(LAST_WORDS in line for line in stderr), stderr
        assert demo.client.state == "connected"

        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.view is demo, "the switch to the demo")
        await call_through_confirmation(pilot, app, "echo", {("message",): "still here"})
        await wait_for(pilot, lambda: "OK" in status_of(demo), "the demo's echo after the crash")
        assert demo.query_one(ResultView).last_result["content"][0]["text"] == "still here"
        assert tool_calls(demo) == ["echo"] and tool_calls(crashing) == ["crash"]
        # The crashed server keeps its state and stderr for a look afterwards.
        assert crashing.list_state()[0] == "exited"
        assert any(LAST_WORDS in frame.text() for frame in crashing.traffic.frames if frame.kind == "stderr")
        assert "connected" in list_text(app).split("inspector-demo", 1)[1]


def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "servers.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "demo": {
                        "command": sys.executable,
                        "args": ["-m", "inspector.demo"],
                        "env": {"PYTHONPATH": str(ROOT)},
                    },
                    "everything": {"command": NODE, "args": [str(require(EVERYTHING)), "stdio"]},
                    "crashing": {"command": sys.executable, "args": [str(CRASHING)]},
                }
            }
        )
    )
    return path


def specs_for(argv: list[str]) -> list[ServerSpec]:
    own, command = split_server_command(argv)
    return tui_specs(build_parser().parse_args(own), command, spec_from_args)


async def test_every_server_of_the_command_line_is_started(tmp_path: Path) -> None:
    config = str(config_file(tmp_path))
    # --config FILE alone: every entry; --server repeated: those, in that order; once: one, as always.
    assert [spec.name for spec in specs_for(["--config", config])] == ["demo", "everything", "crashing"]
    assert [spec.name for spec in specs_for(["--config", config, "--server", "crashing", "--server", "demo"])] == [
        "crashing",
        "demo",
    ]
    assert [spec.name for spec in specs_for(["--config", config, "--server", "everything"])] == ["everything"]

    app = InspectorApp(specs_for(["--config", config, "--timeout", "30"]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_all_connected(pilot, app)
        assert [view.label for view in app.views] == ["demo", "everything", "crashing"]
        assert all(view.spec.timeout == 30 for view in app.views)
        assert [view.client.server_info.get("name") for view in app.views] == [
            "inspector-demo",
            "mcp-servers/everything",
            "crashing-later",
        ]
        await wait_for(pilot, lambda: list_text(app).count("connected") == 3, "three connected in the list")


def test_a_scripting_command_refuses_two_servers(tmp_path: Path) -> None:
    import subprocess

    config = str(config_file(tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "info", "--config", config, "--server", "demo", "--server", "everything"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "one server" in done.stderr and not done.stdout


async def test_diff_of_two_servers_from_the_palette_is_inspector_diff() -> None:
    import shlex
    import subprocess

    from inspector.tui.servers_compare import DiffScreen

    from .test_tui_palette import choose

    async with demo_and_everything() as (app, pilot):
        await choose(pilot, app, "diff: these two servers: 1 inspector-demo → 2 everything")
        await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen), "the diff screen")
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        await wait_for(pilot, lambda: screen.lines is not None or screen.error is not None, "both sides compared")
        assert screen.error is None and screen.lines is not None
        shown = str(screen.query_one("#diff-report", Static).render())
        assert "  + get-annotated-message" in shown.splitlines() and "  - travel_plan" in shown.splitlines()
        # The sessions on screen were left alone: the diff used connections of its own.
        assert tool_calls(app.views[0]) == [] and app.views[1].client.state == "connected"
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, DiffScreen), "the diff closed")

    # The command line's diff of the same two servers prints the same lines.
    command = shlex.join([NODE, str(require(EVERYTHING)), "stdio"])
    done = subprocess.run(  # noqa: ASYNC221 - the app has ended: nothing else runs on this loop
        [sys.executable, "-m", "inspector", "diff", "live", f"stdio:{command}", "--human"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 9, done.stderr  # differences found
    assert done.stdout.splitlines() == screen.lines


async def test_record_writes_a_file_per_server(tmp_path: Path) -> None:
    app = InspectorApp([demo_spec(), crashing_spec()], record=str(tmp_path / "session.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_all_connected(pilot, app)
    assert not (tmp_path / "session.jsonl").exists()
    for number, name in ((1, "inspector-demo"), (2, "crashing-later")):
        frames = [json.loads(line) for line in (tmp_path / f"session-{number}.jsonl").read_text().splitlines()]
        answers = [json.dumps(frame) for frame in frames if "serverInfo" in json.dumps(frame)]
        assert answers and all(name in answer for answer in answers), (number, answers[:1])


async def test_the_picker_opens_every_server_marked(tmp_path: Path) -> None:
    from textual.widgets import OptionList

    from inspector.core.servers.discovery import discover
    from inspector.tui.picker import PickerApp

    project = tmp_path / "project"
    project.mkdir()
    entries = {name: {"command": sys.executable, "args": [str(CRASHING)]} for name in ("first", "second", "third")}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": entries}))
    found = [entry for entry in discover(cwd=str(project), home=str(tmp_path), platform="linux", environ={})]
    assert [entry.name for entry in found] == ["first", "second", "third"]
    app = PickerApp(found)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: app.query_one(OptionList).highlighted == 0, "the first entry highlighted")
        # space marks the first and the third; enter opens the marked ones, in the order marked.
        await pilot.press("down", "down", "space", "up", "up", "space", "enter")
    assert app.return_value == [found[2], found[0]]


async def test_a_server_that_cannot_start_shows_failed_and_takes_no_window() -> None:
    from inspector.tui.keymap import binding_ids
    from inspector.tui.screens.matrix import MatrixScreen

    from .test_tui_palette import choose

    broken = ServerSpec(
        transport="stdio", command=sys.executable, args=[str(SERVERS / "hostile.py"), "--mode", "exit-at-once"]
    )
    broken.name = "broken"
    app = InspectorApp([demo_spec(), broken])
    async with app.run_test(size=SIZE) as pilot:
        demo, failed = app.views
        await wait_all_connected(pilot, app, [demo])
        await wait_for(pilot, lambda: failed.list_state()[0] == "failed", "the broken server shown as failed")
        await wait_for(pilot, lambda: "failed" in list_text(app), "failed in the server list")
        # With one server a connection error is a modal; with several it must not stop the others.
        assert len(app.screen_stack) == 1 and app.view is demo
        assert any("cannot open database" in f.text() for f in failed.traffic.frames if f.kind == "stderr")
        # The palette names each server: going to one, and its matrix on connections of its own.
        await choose(pilot, app, "server: 2 broken")
        await wait_for(pilot, lambda: app.view is failed, "the switch from the palette")
        assert app.facts.showing == "2/2 broken" and app.facts.state == "disconnected"
        await choose(pilot, app, "matrix: server 1 inspector-demo")
        await wait_for(pilot, lambda: isinstance(app.screen, MatrixScreen), "the matrix of the demo")
        screen = app.screen
        assert isinstance(screen, MatrixScreen) and screen.spec is demo.spec
        await pilot.press("escape")
    # ctrl+n is a binding the help lists and a keymap may move.
    assert "next_server" in binding_ids()


def header_text(app: InspectorApp) -> str:
    return str(app.query_one(StatusBar).render())


async def test_server_everything_killed_the_demo_keeps_working_at_a_presenters_size() -> None:
    """100x30, as a presenter's terminal: a call on each server, then
    server-everything's process is killed from outside; the demo goes on."""
    async with demo_and_everything(size=(100, 30)) as (app, pilot):
        demo, ts = app.views
        server_list = app.query_one(ServerList)
        # A narrow terminal: the list gives the panes columns; its border names the key that switches.
        assert server_list.outer_size.width == 20 and server_list.border_subtitle == "ctrl+n next"
        # The header starts with the server shown, so its state still fits in 100 columns.
        assert header_text(app).startswith("▶ 1/2 inspector-demo ") and "● connected" in header_text(app)

        await call_through_confirmation(pilot, app, "echo", {("message",): "before"})
        await wait_for(pilot, lambda: "OK" in status_of(demo), "the demo's echo")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.view is ts, "the switch to server-everything")
        assert header_text(app).startswith("▶ 2/2 everything ") and "● connected" in header_text(app)
        await call_through_confirmation(pilot, app, "get-sum", {("a",): "2", ("b",): "3"})
        await wait_for(pilot, lambda: "OK" in status_of(ts), "server-everything's sum")

        assert ts.client.transport is not None
        pid = ts.client.transport.pid  # type: ignore[attr-defined]
        demo_pid = demo.client.transport.pid  # type: ignore[union-attr]
        assert isinstance(pid, int) and pid != demo_pid
        os.kill(pid, signal.SIGKILL)
        await wait_for(pilot, lambda: ts.list_state()[0] == "exited", "server-everything shown as exited")
        await wait_for(pilot, lambda: "exited" in list_text(app), "exited in the server list")
        assert "✖ disconnected" in header_text(app) and header_text(app).startswith("▶ 2/2 everything ")
        # The Stderr tab shows the process lifecycle beside its stderr: the kill is there.
        assert any(f"{pid} was killed by SIGKILL" in f.text() for f in ts.traffic.frames if f.kind == "process")
        # No modal took the window, and the demo never noticed.
        assert len(app.screen_stack) == 1 and demo.client.state == "connected"
        assert not any("SIGKILL" in f.text() for f in demo.traffic.frames)

        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.view is demo, "the switch back to the demo")
        await call_through_confirmation(pilot, app, "echo", {("message",): "after"})
        await wait_for(pilot, lambda: tool_calls(demo) == ["echo", "echo"], "the demo's second echo")
        await wait_for(pilot, lambda: "OK" in status_of(demo), "the demo's echo after the kill")
        assert demo.query_one(ResultView).last_result["content"][0]["text"] == "after"
        assert tool_calls(ts) == ["get-sum"]

        # ctrl+r on the killed one starts it again; the demo's process is the same one.
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.view is ts, "server-everything shown again")
        await pilot.press("ctrl+r")
        await wait_for(
            pilot,
            lambda: ts.client.state == "connected" and getattr(ts.client.transport, "pid", pid) != pid,
            "server-everything restarted",
        )
        await wait_for(pilot, lambda: list_text(app).count("connected") == 2, "both connected in the list")
        assert demo.client.transport is not None and demo.client.transport.pid == demo_pid  # type: ignore[attr-defined]
