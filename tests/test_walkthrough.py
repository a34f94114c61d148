"""`inspector demo`: walkthroughs played in the TUI against the embedded demo
server, as a presenter runs them: captions in order, the calls on the wire
with exactly the file's arguments, typing that fills the form, stepping back
and forth, the confirmation answered by the file or by the person, and one
SVG per step."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from textual.widgets import Input, Static, TextArea

from inspector.core.record.traffic import Frame
from inspector.core.servers.spec import demo_spec
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.widgets.form_row import FieldRow
from inspector.walkthrough import load_walkthrough
from inspector.walkthrough.demo_app import DemoApp

from .tui_helpers import console_for
from .waiting import eventually

SIZE = (150, 50)
# Fast, so a run takes seconds; the pauses that matter wait for a key.
PACE = 200.0
# A whole walkthrough types, calls and reads: a bound only a hang reaches on a crowded machine.
RUN = 240.0


def write(tmp_path: Path, text: str, name: str = "walk.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def sent(app: DemoApp, method: str) -> list[Frame]:
    return [f for f in app.traffic.frames if f.direction == "out" and f.method == method]


def arguments(frame: Frame) -> Any:
    return frame.message["params"].get("arguments")


def field_text(app: DemoApp, name: str) -> str:
    """What the tool form's field `name` shows (its line or multi-line editor)."""
    for row in app.query(FieldRow):
        if row.node.path == (name,):
            for widget in row.query("*"):
                if isinstance(widget, Input):
                    return widget.value
                if isinstance(widget, TextArea):
                    return widget.text
    raise AssertionError(f"no field {name}")


def caption_shown(app: DemoApp) -> str:
    return str(app.query_one("#walkthrough-caption", Static).render())


async def at_step(app: DemoApp, index: int) -> None:
    """Until step `index` has been played and waits in its pause."""
    await eventually(lambda: app.player.waiting and app.player.index == index, f"step {index + 1} to wait")


TOUR = """\
name: tour
pause: 0
steps:
  - caption: "First: the tools."
  - caption: "Select echo."
    tool: echo
  - caption: "Type its arguments."
    fill: {message: "hello, audience", repeat: 2}
    pause: key
  - caption: "Call it: the file says yes."
    call: echo
    confirm: yes
  - caption: "The call on the wire."
    traffic: tools/call
  - caption: "Divide by zero, arguments typed by the step."
    call: divide
    arguments: {dividend: 1, divisor: 0}
    confirm: yes
  - caption: "Read the readme."
    read: demo://readme
  - caption: "A URI no list holds: a template's expansion."
    read: demo://users/ada
  - caption: "A prompt."
    get: greeting
    arguments: {name: Ada}
"""


async def test_a_walkthrough_plays_against_the_demo_server(tmp_path: Path) -> None:
    walkthrough = load_walkthrough(str(write(tmp_path, TOUR)))
    app = DemoApp(demo_spec(), walkthrough, pace=PACE)
    async with app.run_test(size=SIZE) as pilot:
        # `pause: key` on the fill step: the form is seen filled, by typing.
        await at_step(app, 2)
        assert field_text(app, "message") == "hello, audience"
        assert field_text(app, "repeat") == "2"
        assert "Type its arguments." in caption_shown(app)
        assert "step 3 of 9" in caption_shown(app)
        assert sent(app, "tools/call") == []
        await pilot.press("pagedown")
        await eventually(lambda: app.player.finished, "the end of the walkthrough", RUN)
        captions = [caption for _index, caption in app.player.history]
        assert captions == [
            "First: the tools.",
            "Select echo.",
            "Type its arguments.",
            "Call it: the file says yes.",
            "The call on the wire.",
            "Divide by zero, arguments typed by the step.",
            "Read the readme.",
            "A URI no list holds: a template's expansion.",
            "A prompt.",
        ]
        calls = sent(app, "tools/call")
        assert [(f.message["params"]["name"], arguments(f)) for f in calls] == [
            ("echo", {"message": "hello, audience", "repeat": 2}),
            ("divide", {"dividend": 1, "divisor": 0}),
        ]
        reads = sent(app, "resources/read")
        assert [f.message["params"]["uri"] for f in reads] == ["demo://readme", "demo://users/ada"]
        gets = sent(app, "prompts/get")
        assert [(f.message["params"]["name"], arguments(f)) for f in gets] == [("greeting", {"name": "Ada"})]
        assert "End of the walkthrough." in caption_shown(app)


STEPS = """\
name: steps
steps:
  - caption: "One."
  - caption: "Two: a call."
    call: echo
    arguments: {message: once}
    confirm: yes
  - caption: "Three."
"""


async def test_stepping_back_and_forth_never_sends_a_call_twice(tmp_path: Path) -> None:
    walkthrough = load_walkthrough(str(write(tmp_path, STEPS)))
    # --manual: every step waits for the presenter's key.
    app = DemoApp(demo_spec(), walkthrough, pace=PACE, manual=True)
    async with app.run_test(size=SIZE) as pilot:
        await at_step(app, 0)
        await pilot.press("pagedown")
        await at_step(app, 1)
        assert [arguments(f) for f in sent(app, "tools/call")] == [{"message": "once"}]
        await pilot.press("pagedown")
        await at_step(app, 2)
        await pilot.press("pageup")
        await at_step(app, 1)
        # Shown again: the caption says so, the form holds what was sent, nothing is sent.
        assert "Two: a call." in caption_shown(app)
        assert "not sent again" in caption_shown(app)
        assert field_text(app, "message") == "once"
        await pilot.press("pageup")
        await at_step(app, 0)
        await pilot.press("pageup")  # at the first step, back stays there
        await eventually(lambda: len(app.player.history) == 6, "the first step shown again")
        await at_step(app, 0)
        for index in (1, 2):
            await pilot.press("pagedown")
            await at_step(app, index)
        await pilot.press("pagedown")
        await eventually(lambda: app.player.finished, "the end", RUN)
        assert [index for index, _caption in app.player.history] == [0, 1, 2, 1, 0, 0, 1, 2]
        assert [arguments(f) for f in sent(app, "tools/call")] == [{"message": "once"}]


async def test_pause_holds_the_walkthrough_until_resumed(tmp_path: Path) -> None:
    walkthrough = load_walkthrough(
        str(write(tmp_path, 'steps:\n  - caption: "A."\n    pause: 0\n  - caption: "B."\n    pause: 0\n'))
    )
    app = DemoApp(demo_spec(), walkthrough, pace=PACE)
    async with app.run_test(size=SIZE) as pilot:
        # Paused before the server is up: the first step, once shown, stays.
        await pilot.press("f12")
        assert app.player.paused
        await at_step(app, 0)
        assert "paused" in caption_shown(app)
        assert not app.player.finished
        await pilot.press("f12")
        await eventually(lambda: app.player.finished, "the end after resuming", RUN)
        assert [caption for _index, caption in app.player.history] == ["A.", "B."]


CONFIRMS = """\
name: confirmations
pause: 0
steps:
  - caption: "The file says no: nothing is sent."
    call: echo
    arguments: {message: declined}
    confirm: no
  - caption: "The file leaves it to you."
    call: echo
    arguments: {message: "asked you"}
  - caption: "Trusted for the session (divide is read-only)."
    call: divide
    arguments: {dividend: 6, divisor: 3}
    confirm: trust
  - caption: "A trusted tool is called without asking."
    call: divide
    arguments: {dividend: 9, divisor: 3}
  - caption: "Done."
"""


async def test_the_file_answers_the_confirmation_or_leaves_it_to_the_person(tmp_path: Path) -> None:
    walkthrough = load_walkthrough(str(write(tmp_path, CONFIRMS)))
    app = DemoApp(demo_spec(), walkthrough, pace=PACE)
    async with app.run_test(size=SIZE) as pilot:
        await eventually(lambda: app.player.index == 1, "step 2")
        await eventually(lambda: isinstance(app.screen, ConfirmCallScreen), "the confirmation of step 2")
        screen = app.screen
        assert isinstance(screen, ConfirmCallScreen)
        assert screen.arguments == {"message": "asked you"}
        # The first call was declined by the file: nothing went out.
        assert sent(app, "tools/call") == []
        assert app.player.index == 1 and not app.player.waiting
        await pilot.press("y")
        await eventually(lambda: app.player.finished, "the end", RUN)
        assert [arguments(f) for f in sent(app, "tools/call")] == [
            {"message": "asked you"},
            {"dividend": 6, "divisor": 3},
            {"dividend": 9, "divisor": 3},
        ]
        assert "divide" in app.trusted_tools


async def test_svg_dir_writes_one_svg_per_step_with_its_caption(tmp_path: Path) -> None:
    walkthrough = load_walkthrough(str(write(tmp_path, TOUR.replace("    pause: key\n", ""))))
    folder = tmp_path / "svg"
    app = DemoApp(demo_spec(), walkthrough, pace=PACE, svg_dir=str(folder))
    async with app.run_test(size=SIZE):
        await eventually(lambda: app.player.finished, "the end", RUN)
    files = sorted(folder.glob("*.svg"))
    assert [f.name for f in files] == [
        "01-caption.svg",
        "02-tool-echo.svg",
        "03-fill-message-repeat.svg",
        "04-call-echo.svg",
        "05-traffic-tools-call.svg",
        "06-call-divide.svg",
        "07-read-demo-readme.svg",
        "08-read-demo-users-ada.svg",
        "09-get-greeting.svg",
    ]
    for file, step in zip(files, walkthrough.steps, strict=True):
        text = svg_text(file)
        assert step.caption in text, (file.name, step.caption)
        assert f"step {step.index + 1} of 9" in text
    # The call's step shows its result; the traffic step the request's frame.
    assert "hello, audience" in svg_text(files[3])
    assert "tools/call" in svg_text(files[4])


def svg_text(path: Path) -> str:
    """The text an SVG screenshot shows, its cells joined (Textual writes a text node per run)."""
    raw = path.read_text(encoding="utf-8")
    runs = re.findall(r"<text[^>]*>(.*?)</text>", raw, re.S)
    return html.unescape("".join(runs)).replace("\xa0", " ")


async def test_the_caption_keeps_to_the_bottom_and_the_help_lists_the_presenter_keys(tmp_path: Path) -> None:
    walkthrough = load_walkthrough(str(write(tmp_path, 'steps:\n  - caption: "Hi."\n    pause: key\n')))
    app = DemoApp(demo_spec(), walkthrough, pace=PACE)
    async with app.run_test(size=SIZE) as pilot:
        await at_step(app, 0)
        # Just above the key bar's row, on a shorter terminal too.
        await eventually(lambda: app.overlay.region.bottom == SIZE[1] - 1, "the caption at the bottom")
        await pilot.resize_terminal(SIZE[0], 36)
        await eventually(lambda: app.overlay.region.bottom == 36 - 1, "the caption at the new bottom")
        await pilot.press("f1")
        await eventually(lambda: app.screen.query("#help-keys"), "the help")
        console = console_for(app, record=True)
        console.print(app.screen.query_one("#help-keys", Static).content)
        rows = console.export_text().splitlines()
        for key, words, binding_id in (
            ("page down", "Next step", "walk_next"),
            ("page up", "Step back", "walk_back"),
            ("f12", "Pause", "walk_pause"),
        ):
            found = [row for row in rows if row.split()[: len(key.split())] == key.split()]
            assert any(words in row and binding_id in row for row in found), key


async def test_a_step_naming_what_the_server_lacks_is_said_and_the_walkthrough_goes_on(tmp_path: Path) -> None:
    walkthrough = load_walkthrough(
        str(
            write(
                tmp_path,
                "pause: 0\nsteps:\n"
                '  - caption: "No such tool."\n    call: no_such_tool\n    confirm: yes\n'
                '  - caption: "No such prompt."\n    get: no_such_prompt\n'
                '  - caption: "Still here."\n',
            )
        )
    )
    app = DemoApp(demo_spec(), walkthrough, pace=PACE)
    async with app.run_test(size=SIZE):
        await eventually(lambda: app.player.finished, "the end", RUN)
        captions = [caption for _index, caption in app.player.history]
        assert captions == ["No such tool.", "No such prompt.", "Still here."]
        assert sent(app, "tools/call") == [] and sent(app, "prompts/get") == []
        toasts = " ".join(str(note.message) for note in app._notifications)
        assert "no tool 'no_such_tool' in the list" in toasts
        assert "no prompt 'no_such_prompt' in the list" in toasts


BACK_AND_END = """\
name: traffic
steps:
  - caption: "First call."
    call: echo
    arguments: {message: first}
    confirm: yes
  - caption: "Its frame."
    traffic: tools/call
  - caption: "Second call."
    call: echo
    arguments: {message: second}
    confirm: yes
  - caption: "Last."
"""


async def test_a_traffic_step_shows_its_call_large_and_the_same_one_when_shown_again(tmp_path: Path) -> None:
    from inspector.tui.panes.bottom import BottomPanel
    from inspector.tui.panes.traffic import TrafficPane

    walkthrough = load_walkthrough(str(write(tmp_path, BACK_AND_END)))
    # A presenter's short terminal, where the bottom panel has only a few rows of its own.
    app = DemoApp(demo_spec(), walkthrough, pace=PACE, manual=True)
    async with app.run_test(size=(100, 30)) as pilot:
        panel = app.view.query_one(BottomPanel)
        table = app.view.query_one(TrafficPane).table

        def shown_arguments() -> Any:
            frame = table.selected_frame
            return None if frame is None else arguments(frame)

        await at_step(app, 0)
        await pilot.press("pagedown")
        await at_step(app, 1)
        # The step is about the frame: the panel takes most of the rows, the request's JSON in view.
        await eventually(lambda: panel.outer_size.height >= app.view.outer_size.height * 0.6, "the panel grown")
        assert panel.has_class("-presenting") and shown_arguments() == {"message": "first"}
        await pilot.press("pagedown")
        await at_step(app, 2)
        # Another step: the panel gives the rows back (open, at its own size on a short terminal).
        await eventually(lambda: panel.outer_size.height < app.view.outer_size.height * 0.4, "the panel's size back")
        assert not panel.has_class("-presenting")
        assert [arguments(f) for f in sent(app, "tools/call")] == [{"message": "first"}, {"message": "second"}]
        # Back to the traffic step: the frame it showed, not the later call's.
        await pilot.press("pageup")
        await at_step(app, 1)
        await eventually(lambda: shown_arguments() == {"message": "first"}, "the first call's frame again")
        assert panel.has_class("-presenting")


async def test_at_the_end_page_up_goes_back_to_the_last_step(tmp_path: Path) -> None:
    walkthrough = load_walkthrough(str(write(tmp_path, BACK_AND_END)))
    app = DemoApp(demo_spec(), walkthrough, pace=PACE, manual=True)
    async with app.run_test(size=SIZE) as pilot:
        for index in range(4):
            await at_step(app, index)
            await pilot.press("pagedown")
        await eventually(lambda: app.player.finished, "the end", RUN)
        end = caption_shown(app)
        # Only what still works is offered: going back and quitting.
        assert "End of the walkthrough." in end and "page up step back" in end and "ctrl+q quit" in end
        assert "page down" not in end
        await pilot.press("pagedown")  # past the end: nothing to move to
        await pilot.press("pageup")
        await at_step(app, 3)
        assert not app.player.finished and "Last." in caption_shown(app)
        await pilot.press("pageup")
        await at_step(app, 2)
        assert "not sent again" in caption_shown(app)
        await pilot.press("pagedown")
        await at_step(app, 3)
        await pilot.press("pagedown")
        await eventually(lambda: app.player.finished, "the end again", RUN)
        assert [index for index, _caption in app.player.history] == [0, 1, 2, 3, 3, 2, 3]
        assert len(sent(app, "tools/call")) == 2


async def test_quit_at_end_does_not_wait_at_the_end(tmp_path: Path) -> None:
    walkthrough = load_walkthrough(str(write(tmp_path, 'pause: 0\nsteps:\n  - caption: "Only."\n')))
    app = DemoApp(demo_spec(), walkthrough, pace=PACE, quit_at_end=True)
    async with app.run_test(size=SIZE):
        await eventually(lambda: app.return_code == 0, "the app to quit at the end", RUN)
    assert app.player.finished


def test_the_screenshot_script_writes_the_svg_sequence(tmp_path: Path) -> None:
    """`scripts/screenshots.py --walkthrough FILE`: the same sequence without a
    terminal, a `pause: key` step moved past by itself."""
    import subprocess

    from .peers import PYTHON, ROOT

    walk = write(tmp_path, 'name: script\nsteps:\n  - caption: "Waits for a key."\n    pause: key\n  - tool: echo\n')
    done = subprocess.run(
        [PYTHON, str(ROOT / "scripts" / "screenshots.py"), "--walkthrough", str(walk), "--out", str(tmp_path / "svg")],
        capture_output=True,
        text=True,
        timeout=RUN,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    files = sorted((tmp_path / "svg").glob("*.svg"))
    assert [f.name for f in files] == ["01-caption.svg", "02-tool-echo.svg"]
    assert "Waits for a key." in svg_text(files[0]) and "step 2 of 2" in svg_text(files[1])
    assert done.stdout.split() == [str(f) for f in files]
