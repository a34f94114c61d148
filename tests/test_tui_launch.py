"""Starting the TUI: the exit status after a crash, and when the terminal is
asked about graphics."""

from __future__ import annotations

import pytest
from textual.app import App

from inspector.tui import graphics
from inspector.tui.launch import exit_code


class Crashing(App[None]):
    def on_mount(self) -> None:
        raise RuntimeError("boom")


class Quitting(App[None]):
    def on_mount(self) -> None:
        self.exit()


def test_a_crash_is_a_failing_exit_status() -> None:
    app = Crashing()
    app.run(headless=True)
    assert exit_code(app) == 1


def test_a_clean_exit_is_zero() -> None:
    app = Quitting()
    app.run(headless=True)
    assert exit_code(app) == 0


@pytest.mark.parametrize(
    ("env", "multiplexed"),
    [
        ({"TMUX": "/tmp/tmux-0/default,1,0", "TERM": "xterm-256color"}, True),
        ({"TERM": "screen-256color"}, True),
        ({"TERM": "tmux-256color"}, True),
        ({"STY": "123.pts-0.host", "TERM": "xterm"}, True),
        ({"TERM": "xterm-kitty"}, False),
    ],
)
def test_multiplexers_are_not_asked_about_graphics(
    env: dict[str, str], multiplexed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("TMUX", "STY", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert graphics._multiplexed() is multiplexed


@pytest.mark.parametrize(("argv", "expected"), [(["--answer-timeout", "5"], 5.0), ([], 600.0)])
def test_the_answer_timeout_reaches_the_handlers(
    argv: list[str], expected: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspector.cli.parser import build_parser
    from inspector.core.servers.spec import demo_spec
    from inspector.tui import launch
    from inspector.tui.app import InspectorApp

    seen: list[float] = []

    def run(app: InspectorApp, *args: object, **kwargs: object) -> None:
        seen.append(app.handlers.answer_timeout)

    monkeypatch.setattr(InspectorApp, "run", run)
    monkeypatch.setattr(launch, "exit_code", lambda app: 0)
    for prefix in ([], ["tui"]):
        args = build_parser().parse_args([*prefix, *argv])
        assert launch.run_tui(demo_spec(), args) == 0
    assert seen == [expected, expected]
