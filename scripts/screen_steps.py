"""Drive the inspector's TUI to the screens worth a picture.

One list of screens, each with the steps a person would take to reach it
(against the real embedded demo server, or a server that fails to start),
shared by the SVG snapshot tests (`tests/test_snapshots.py`) and by
`scripts/screenshots.py`, which writes `screenshots/*.svg`.

The pictures must come out the same on every run and on every machine, so
what depends on the clock, the process or the path is kept off the screen:

* the server is started as `python …` found on PATH (never the absolute path
  of this interpreter, which differs between checkouts);
* `steady_clocks()` gives the TUI modules a `perf_counter` that advances by a
  fixed step, so "read in … ms" and the call status always say 12.5 ms;
* traffic frames get fixed times and latencies (`steady_traffic`) before the
  traffic pane draws them;
* cursors do not blink, animations are off, toasts are cleared, and the
  bottom panel (whose rows carry clock times and pids) is hidden on every
  screen but the traffic one;
* every screen ends with `settle()`, which waits until the screen has stopped
  changing (a form rebuilds and scrolls a moment after an edit).

The app is `ShotApp`, the real `InspectorApp` with one addition for exiting
in the middle of a tool call (see there).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import time
import types
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, Static, TextArea

from inspector.core.protocol import eras
from inspector.core.record.traffic import Frame
from inspector.core.servers.spec import ServerSpec, demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.bottom import BottomPanel
from inspector.tui.panes.collections import CollectionsPane
from inspector.tui.panes.tools import ToolsPane
from inspector.tui.panes.traffic import TrafficPane
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.screens.connect_error import ConnectErrorScreen
from inspector.tui.screens.elicitation import ElicitationScreen
from inspector.tui.screens.help import HelpScreen
from inspector.tui.screens.jump import JumpScreen
from inspector.tui.screens.run_steps import RunStepsScreen
from inspector.tui.screens.sampling import SamplingScreen
from inspector.tui.screens.save_step import SaveStepScreen
from inspector.tui.widgets.completing_field import CompletingField
from inspector.tui.widgets.content_view import BlockView
from inspector.tui.widgets.form_row import FieldRow
from inspector.tui.widgets.result_view import ResultView
from inspector.tui.widgets.traffic_table import TrafficTable

__all__ = ["SHOTS", "SIZE", "Shot", "shot_named", "steady_clocks"]

SIZE = (140, 42)
TIMEOUT = 60.0
# What every measured duration on screen says (perf_counter's fixed step).
STEP_SECONDS = 0.0125
# Traffic frames are redrawn as if the session began at 10:00:00 local time.
TRAFFIC_EPOCH = time.mktime((2025, 6, 18, 10, 0, 0, 0, 0, -1))
# Reads the client's first message before it fails: were it to exit at once,
# whether that happens before or after the client writes decides which
# error the screen shows, and that race is lost or won by machine load.
FAILING_SERVER = "import sys; sys.stdin.readline(); sys.stderr.write('boom\\n'); sys.exit(2)"

Drive = Callable[[Pilot[Any]], Awaitable[None]]


# -- servers -------------------------------------------------------------------------


def _python_on_path() -> tuple[str, dict[str, str]]:
    """`python` with this interpreter's directory first on PATH: the screens
    show `python -m inspector.demo`, the same on every checkout."""
    folder = os.path.dirname(sys.executable)
    path = os.pathsep.join([folder, os.environ.get("PATH", "")])
    if shutil.which("python", path=path) is None:  # an interpreter outside a virtualenv
        return sys.executable, {}
    return "python", {"PATH": path}


def demo_server() -> ServerSpec:
    command, env = _python_on_path()
    spec = demo_spec()
    return spec.with_overrides(command=command, env={**spec.env, **env})


def failing_server() -> ServerSpec:
    command, env = _python_on_path()
    return ServerSpec(transport="stdio", command=command, args=["-c", FAILING_SERVER], env=env)


# -- determinism ---------------------------------------------------------------------


class _SteadyTime(types.SimpleNamespace):
    """Stands in for the `time` module inside one TUI module: everything is
    the real thing except `perf_counter`, which advances by a fixed step per
    call, so a measured duration (two calls) is always STEP_SECONDS."""

    def __init__(self) -> None:
        super().__init__()
        self._now = 1000.0

    def perf_counter(self) -> float:
        self._now += STEP_SECONDS
        return self._now

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


@contextlib.contextmanager
def steady_clocks() -> Iterator[None]:
    """Give every loaded `inspector.tui` (and `inspector.collections`) module that imported `time` a steady clock."""
    patched: list[types.ModuleType] = []
    for name, module in list(sys.modules.items()):
        # The collection runner times its steps the same way the panes time calls.
        if name.startswith(("inspector.tui", "inspector.collections")) and getattr(module, "time", None) is time:
            module.time = _SteadyTime()  # type: ignore[attr-defined]
            patched.append(module)
    # On a busy machine the demo server may take longer than the era probe's
    # budget to read its first request, and the probe then notes the slow
    # start in the traffic log, which shifts every frame number on the
    # traffic screen.  A wider budget keeps that note off the pictures.
    probe_budget = eras.PROBE_TIMEOUT_STDIO
    eras.PROBE_TIMEOUT_STDIO = 120.0
    try:
        yield
    finally:
        eras.PROBE_TIMEOUT_STDIO = probe_budget
        for module in patched:
            module.time = time  # type: ignore[attr-defined]


def _steady_frame(frame: Frame) -> None:
    frame.time = TRAFFIC_EPOCH + frame.seq * 0.25
    if frame.latency is not None:
        frame.latency = 0.0042


def steady_traffic(app: InspectorApp) -> None:
    """Fixed clock times and latencies on every frame, recorded or to come."""
    for frame in app.traffic.frames:
        _steady_frame(frame)
    app.traffic.subscribe(_steady_frame)
    for table in app.query(TrafficTable):
        table.invalidate()


def hide_bottom_panel(app: InspectorApp) -> None:
    app.screen_stack[0].query_one(BottomPanel).set_class(True, "hidden")


async def settle(pilot: Pilot[Any]) -> None:
    """The last step of every screen: nothing left that moves."""
    app = pilot.app
    await pilot.pause(0.1)
    await pilot.wait_for_scheduled_animations()
    for screen in app.screen_stack:
        for field in screen.query(Input):
            field.cursor_blink = False
        for area in screen.query(TextArea):
            area.cursor_blink = False
            # Its line cache may hold the cursor row as drawn in the blink's
            # "off" phase; drop it so a focused area always shows its cursor.
            area.notify_style_update()
    app.clear_notifications()
    await until_still(pilot)


def _rows_settled(app: Any) -> bool:
    """No form row, on any screen of the stack (a modal's too), is waiting for its widgets or being built."""
    return all(row.settled for screen in app.screen_stack for row in screen.query(FieldRow))


async def until_still(pilot: Pilot[Any], quiet: int = 3) -> None:
    """Wait until the screen has looked the same `quiet` times in a row, a
    tenth of a second apart (forms rebuild and scroll after a change, a
    little later on a busy machine), and no form row is waiting for its
    widgets or being built (a sketch shown is built a moment later)."""
    app = pilot.app
    deadline = time.monotonic() + TIMEOUT
    previous = app.export_screenshot()
    same = 0
    while same < quiet or not _rows_settled(app):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the screen kept changing\n{_diagnosis(app)}")
        await pilot.pause(0.1)
        current = app.export_screenshot()
        same = same + 1 if current == previous else 0
        previous = current


# -- driving -------------------------------------------------------------------------


def inspector(pilot: Pilot[Any]) -> InspectorApp:
    app = pilot.app
    assert isinstance(app, InspectorApp)
    return app


async def wait_until(pilot: Pilot[Any], condition: Callable[[], object], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}\n{_diagnosis(pilot.app)}")
        await pilot.pause(0.05)


def _diagnosis(app: Any) -> str:
    """Where the app stands: for a timeout's message."""
    if not isinstance(app, InspectorApp):
        return ""
    client = app.client
    lines = [
        f"state {client.state} ({client.state_detail}); lists {sorted(app.lists)}; screen {app.screen!r}",
        *(
            f"  #{f.seq} {f.direction} {f.kind} {f.method or ''} {(f.note or f.text())[:100]!r}"
            for f in app.traffic.frames[-15:]
        ),
    ]
    return "\n".join(lines)


async def connected(pilot: Pilot[Any]) -> InspectorApp:
    app = inspector(pilot)
    app.animation_level = "none"
    lists = ("tools", "resources", "templates", "prompts")
    await wait_until(
        pilot,
        lambda: app.client.state == "connected" and all(kind in app.lists for kind in lists),
        "the connection and all four lists",
    )
    if app.client.modern is not None:
        await wait_until(
            pilot,
            lambda: app.client.subscription is not None and app.client.subscription.acknowledged is not None,
            "the listen subscription",
        )
    await pilot.pause(0.2)
    return app


def field_row(app: InspectorApp, path: tuple[object, ...]) -> FieldRow | None:
    return next((row for row in app.screen.query(FieldRow) if row.node.path == path), None)


def completing_field(app: InspectorApp, argument: str) -> CompletingField | None:
    return next((field for field in app.screen.query(CompletingField) if field.argument == argument), None)


async def focus(pilot: Pilot[Any], widget: Widget) -> None:
    """Focus a widget once the pane around it has settled (showing a tab
    focuses its list a moment later)."""
    await pilot.pause(0.2)
    widget.focus()
    await wait_until(pilot, lambda: widget.has_focus, f"focus on {widget!r}")


async def fill(pilot: Pilot[Any], path: tuple[object, ...], text: str) -> None:
    """Put text in a form field, whichever editor it has."""
    app = inspector(pilot)
    await wait_until(pilot, lambda: field_row(app, path) is not None, f"the form row {path}")
    row = field_row(app, path)
    assert row is not None
    areas = row.query(TextArea)
    if areas:
        area = areas.first()
        await focus(pilot, area)
        area.text = text
    else:
        field = row.query_one(Input)
        await focus(pilot, field)
        field.value = text
    await pilot.pause()


def form_ready(app: InspectorApp, name: str) -> bool:
    """The Tools pane shows `name` and its form is built: a row for every
    property, each row composed or drawn as a sketch (calling sooner trips
    over a half-built row)."""
    tool = app.query_one(ToolsPane).tool
    if tool is None or tool.key != name:
        return False
    properties = tool.input_schema.get("properties")
    expected = {(key,) for key in properties} if isinstance(properties, dict) else set()
    rows = list(app.screen.query(FieldRow))
    return expected <= {row.node.path for row in rows} and all(row.children or row.sketched for row in rows)


async def select_tool(pilot: Pilot[Any], name: str) -> InspectorApp:
    app = await connected(pilot)
    hide_bottom_panel(app)
    app.select_item("tools", name)
    await wait_until(pilot, lambda: form_ready(app, name), f"the form of {name}")
    await pilot.pause(0.1)
    return app


async def ask_to_call(pilot: Pilot[Any]) -> ConfirmCallScreen:
    app = inspector(pilot)
    await pilot.press("ctrl+enter")
    await wait_until(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "the confirmation")
    screen = app.screen
    assert isinstance(screen, ConfirmCallScreen)
    return screen


def status_text(app: InspectorApp) -> str:
    return str(app.query_one(ResultView).query_one("#status", Static).render())


async def call_and_wait(pilot: Pilot[Any]) -> None:
    app = inspector(pilot)
    await ask_to_call(pilot)
    await pilot.press("y")
    await wait_until(pilot, lambda: "OK" in status_text(app) or "ERROR" in status_text(app), "the call result")
    await wait_until(pilot, lambda: app.client.in_flight == 0 and app.facts.in_flight == 0, "nothing in flight")


async def contents_shown(pilot: Pilot[Any], selector: str) -> None:
    app = inspector(pilot)
    await wait_until(pilot, lambda: len(app.query_one(selector).children) > 1, f"{selector} filled")


# -- the screens ---------------------------------------------------------------------


async def tools_form(pilot: Pilot[Any]) -> None:
    """plan_trip: a nested form, filled down to traveller → home → city."""
    await select_tool(pilot, "plan_trip")
    await fill(pilot, ("traveller", "full_name"), "Ada Lovelace")
    await fill(pilot, ("traveller", "home", "city"), "Lisbon")


async def jump_overlay(pilot: Pilot[Any]) -> None:
    """The jump key (ctrl+l) over plan_trip's form: a letter beside every field and button in view."""
    await tools_form(pilot)
    app = inspector(pilot)
    await settle(pilot)
    await pilot.press("ctrl+l")
    await wait_until(pilot, lambda: isinstance(app.screen, JumpScreen), "the jump overlay")


async def completion_dropdown(pilot: Pilot[Any]) -> None:
    """code_review's language: "c" typed, every suggestion in the dropdown, the second one chosen."""
    app = await connected(pilot)
    hide_bottom_panel(app)
    app.select_item("prompts", "code_review")
    await wait_until(pilot, lambda: completing_field(app, "language") is not None, "the prompt form")
    field = completing_field(app, "language")
    assert field is not None
    await focus(pilot, field.query_one(Input))
    await pilot.press("c")
    await wait_until(pilot, lambda: field.dropdown_open and len(field.shown) == 3, "the suggestions")
    await pilot.press("down")


async def tools_result(pilot: Pilot[Any]) -> None:
    """media_gallery called: the status line, a text block and the image."""
    await select_tool(pilot, "media_gallery")
    await call_and_wait(pilot)


async def tools_result_blocks(pilot: Pilot[Any]) -> None:
    """media_gallery's result scrolled on: audio, resource links, an embedded resource."""
    app = await select_tool(pilot, "media_gallery")
    await call_and_wait(pilot)
    audio = next(view for view in app.query(BlockView) if view.block.get("type") == "audio")
    app.query_one(ResultView).scroll_to_widget(audio, animate=False, top=True)


async def tools_structured(pilot: Pilot[Any]) -> None:
    """weather_report called: structuredContent as a tree, checked against the outputSchema."""
    app = await select_tool(pilot, "weather_report")
    await fill(pilot, ("city",), "Kyōto")
    await call_and_wait(pilot)
    tree = app.query_one("#structured-tree")
    app.query_one(ResultView).scroll_to_widget(tree, animate=False, top=True)


async def confirm_destructive(pilot: Pilot[Any]) -> None:
    """delete_remote_file: destructive and open-world by its own annotations."""
    await select_tool(pilot, "delete_remote_file")
    await fill(pilot, ("url",), "https://files.example.com/reports/2024.pdf")
    await ask_to_call(pilot)


async def confirm_unannotated(pilot: Pilot[Any]) -> None:
    """echo declares no hints: the spec's defaults are assumed and said so."""
    await select_tool(pilot, "echo")
    await fill(pilot, ("message",), "hello, inspector")
    await ask_to_call(pilot)


async def resources(pilot: Pilot[Any]) -> None:
    """demo://readme read."""
    app = await connected(pilot)
    hide_bottom_panel(app)
    app.select_item("resources", "demo://readme")
    await pilot.pause(0.2)
    await pilot.press("enter")
    await contents_shown(pilot, "#resource-contents")


async def templates(pilot: Pilot[Any]) -> None:
    """demo://users/{user_id} with the server's completions for "a"."""
    app = await connected(pilot)
    hide_bottom_panel(app)
    app.select_item("templates", "demo://users/{user_id}")
    await wait_until(pilot, lambda: completing_field(app, "user_id") is not None, "the template form")
    field = completing_field(app, "user_id")
    assert field is not None
    await focus(pilot, field.query_one(Input))
    await pilot.press("a")
    await wait_until(
        pilot, lambda: field.last_values and all(v.startswith("a") for v in field.last_values), "completions"
    )
    await pilot.pause(0.2)


async def prompts(pilot: Pilot[Any]) -> None:
    """code_review got: messages of both roles, an embedded resource, an image."""
    app = await connected(pilot)
    hide_bottom_panel(app)
    app.select_item("prompts", "code_review")
    await wait_until(pilot, lambda: completing_field(app, "language") is not None, "the prompt form")
    field = completing_field(app, "language")
    assert field is not None
    editor = field.query_one(Input)
    await focus(pilot, editor)
    editor.value = "Python"
    await pilot.pause()
    await pilot.press("ctrl+enter")
    await contents_shown(pilot, "#prompt-messages")


async def server(pilot: Pilot[Any]) -> None:
    """The Server tab: identity, revision, capabilities, instructions."""
    app = await connected(pilot)
    hide_bottom_panel(app)
    await pilot.press("f6")
    await wait_until(
        pilot, lambda: "honours" in str(app.query_one("#server-identity", Static).render()), "the server facts"
    )


async def help_screen(pilot: Pilot[Any]) -> None:
    app = await connected(pilot)
    hide_bottom_panel(app)
    await pilot.press("f1")
    await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help screen")


async def sampling(pilot: Pilot[Any]) -> None:
    """sample_llm asks the client for a model reply; the person writes it."""
    app = await select_tool(pilot, "sample_llm")
    await ask_to_call(pilot)
    await pilot.press("y")
    await wait_until(pilot, lambda: isinstance(app.screen, SamplingScreen), "the sampling request")
    await wait_until(pilot, lambda: app.facts.server_requests == 1, "the waiting request in the header")
    reply = app.screen.query_one("#sampling-reply", TextArea)
    reply.text = "Frames on the wire,\nevery byte laid bare in green —\nthe server confesses."


async def elicitation(pilot: Pilot[Any]) -> None:
    """elicit_profile asks the person to fill a form."""
    app = await select_tool(pilot, "elicit_profile")
    await ask_to_call(pilot)
    await pilot.press("y")
    await wait_until(pilot, lambda: isinstance(app.screen, ElicitationScreen), "the elicitation request")
    await wait_until(pilot, lambda: app.facts.server_requests == 1, "the waiting request in the header")


async def connect_error(pilot: Pilot[Any]) -> None:
    """A server that writes to stderr and exits with code 2."""
    app = inspector(pilot)
    app.animation_level = "none"
    hide_bottom_panel(app)
    await wait_until(pilot, lambda: isinstance(app.screen, ConnectErrorScreen), "the error screen")

    def tail() -> str:
        return " ".join(str(widget.render()) for widget in app.screen.query("#tail-text").results(Static))

    await wait_until(pilot, lambda: "boom" in tail(), "the stderr tail")


async def traffic(pilot: Pilot[Any]) -> None:
    """The traffic pane: echo's tools/call and its answer, the answer's JSON shown."""
    app = await select_tool(pilot, "echo")
    await fill(pilot, ("message",), "hello, inspector")
    await call_and_wait(pilot)
    # Open: a short terminal starts with the panel collapsed to its tab row.
    app.screen_stack[0].query_one(BottomPanel).open()
    app.query_one(BottomPanel).styles.height = 20
    steady_traffic(app)
    pane = app.query_one(TrafficPane)
    pane.query_one("#traffic-filter", Input).value = "method:tools/call"
    await pilot.pause(0.2)
    table = pane.table
    table.focus()
    await pilot.press("end")
    await wait_until(pilot, lambda: len(pane.query_one("#traffic-detail").children) > 1, "the frame's JSON")


def _append_text(path: str, text: str) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)


async def save_step(pilot: Pilot[Any]) -> None:
    """ctrl+b after echo's call: the step as it will be saved (arguments as sent)."""
    app = await select_tool(pilot, "echo")
    await fill(pilot, ("message",), "hello, inspector")
    await call_and_wait(pilot)
    await pilot.press("ctrl+b")
    await wait_until(pilot, lambda: isinstance(app.screen, SaveStepScreen), "the save dialog")


async def _save_last_call(pilot: Pilot[Any], pane: CollectionsPane, steps: int) -> None:
    """ctrl+b, then enter: the selected tool's last call joins the collection as its step `steps`."""
    app = inspector(pilot)
    await pilot.press("ctrl+b")
    await wait_until(pilot, lambda: isinstance(app.screen, SaveStepScreen), "the save dialog")
    await pilot.press("enter")
    await wait_until(
        pilot, lambda: pane.collection is not None and len(pane.collection.steps) == steps, f"saved step {steps}"
    )


async def collections(pilot: Pilot[Any]) -> None:
    """The Collections pane after a run: three saved steps pass, a hand-written one fails one expectation."""
    app = await select_tool(pilot, "echo")
    pane = app.query_one(CollectionsPane)
    # The default file name, collection.yaml, in a folder of its own: the screen
    # shows the relative name, the same on every checkout.
    import tempfile

    here, folder = os.getcwd(), tempfile.mkdtemp(prefix="inspector-shot-")
    os.chdir(folder)
    try:
        await fill(pilot, ("message",), "hello, inspector")
        await call_and_wait(pilot)
        await _save_last_call(pilot, pane, 1)
        # A structured answer (its step checks the outputSchema) and a tool error (isError expected).
        await select_tool(pilot, "weather_report")
        await fill(pilot, ("city",), "Paris")
        await call_and_wait(pilot)
        await _save_last_call(pilot, pane, 2)
        await select_tool(pilot, "divide")
        await fill(pilot, ("dividend",), "1")
        await fill(pilot, ("divisor",), "0")
        await call_and_wait(pilot)
        await _save_last_call(pilot, pane, 3)
        _append_text(
            "collection.yaml",
            "  - name: shouting\n    call: echo\n    arguments: {message: hello}\n"
            "    expect:\n      success: true\n      text: hello\n      maxMs: 5000\n"
            "      values:\n        content[0].text: HELLO\n        content[0].type: text\n",
        )
        pane.load("collection.yaml")
        app.action_show_tab("collections")
        table = pane.query_one("#collection-steps")
        await focus(pilot, table)
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, RunStepsScreen), "the run confirmation")
        await pilot.press("y")
        await wait_until(pilot, lambda: len(pane.results) == 4, "every step run")
        await wait_until(pilot, lambda: app.client.in_flight == 0, "nothing in flight")
        await pilot.press("down", "down", "down")
        await wait_until(pilot, lambda: "✗" in str(pane.query_one("#collection-checks", Static).render()), "checks")
    finally:
        os.chdir(here)
        shutil.rmtree(folder, ignore_errors=True)


class ShotApp(InspectorApp):
    """The inspector, unchanged but for one thing: on exit it first cancels a
    tool call still waiting for the person (the sampling and elicitation
    screens are taken mid-call), while its widgets are still mounted.
    Quitting mid-call otherwise ends in NoScreen from the call worker."""

    def exit(self, result: Any = None, return_code: int = 0, message: Any = None) -> None:
        self.workers.cancel_group(self, "call")
        super().exit(result, return_code, message)


@dataclass(frozen=True)
class Shot:
    """One screen: its file name, the server it talks to, how to get there."""

    name: str
    drive: Drive
    server: Callable[[], ServerSpec] = demo_server
    size: tuple[int, int] = SIZE
    theme: str | None = None

    def app(self) -> InspectorApp:
        return ShotApp(self.server(), theme=self.theme)

    async def run(self, pilot: Pilot[Any]) -> None:
        await self.drive(pilot)
        await settle(pilot)


SHOTS: tuple[Shot, ...] = (
    Shot("tools-form", tools_form),
    Shot("form-100x30", tools_form, size=(100, 30)),
    Shot("form-200x50", tools_form, size=(200, 50)),
    Shot("jump", jump_overlay),
    Shot("completion", completion_dropdown),
    Shot("tools-result", tools_result),
    Shot("tools-result-blocks", tools_result_blocks),
    Shot("tools-structured", tools_structured),
    Shot("confirm", confirm_destructive),
    Shot("confirm-no-hints", confirm_unannotated),
    Shot("resources", resources),
    Shot("templates", templates),
    Shot("prompts", prompts),
    Shot("server", server),
    Shot("help", help_screen),
    Shot("sampling", sampling),
    Shot("elicitation", elicitation),
    Shot("connect-error", connect_error, failing_server),
    Shot("traffic", traffic),
    Shot("traffic-light-100x30", traffic, size=(100, 30), theme="textual-light"),
    Shot("save-step", save_step),
    Shot("collections", collections),
)


def shot_named(name: str) -> Shot:
    for shot in SHOTS:
        if shot.name == name:
            return shot
    raise KeyError(name)
