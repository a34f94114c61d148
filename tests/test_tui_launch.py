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
