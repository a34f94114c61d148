"""Alt+key as a terminal sends it (ESC and the key), read at once
(inspector/tui/terminal_keys.py), and the private Textual names that relies on."""

from __future__ import annotations

import inspect
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual._xterm_parser import XTermParser
from textual.drivers import linux_driver, web_driver

from inspector.tui.terminal_keys import AltKeyParser, install

from .peers import FILESYSTEM, NODE, PYTHON, require
from .tmux_session import TmuxRun, tmux_running
from .waiting import eventually_sync


def keys_of(parser: XTermParser, data: str) -> list[str]:
    """The keys *parser* reads from *data* arriving at once, then the end of input."""
    tokens = [*parser.feed(data), *parser.feed("")]
    return [token.key for token in tokens if isinstance(token, events.Key)]


def test_stock_textual_types_alt_n_as_text_when_another_escape_follows() -> None:
    """Why the parser exists: Textual 8 reads ESC n 6 ESC n 7 as `^ n 6` and
    alt+n, so `^n` is typed into the field.  When an upgrade reads it right,
    this fails and terminal_keys.py can go."""
    assert keys_of(XTermParser(), "5\x1bn6\x1bn7")[:4] == ["5", "circumflex_accent", "n", "6"]


def test_alt_keys_are_read_at_once() -> None:
    assert keys_of(AltKeyParser(), "5\x1bn6\x1bn7") == ["5", "alt+n", "6", "alt+n", "7"]
    # Held down, alt+n repeats without a gap.
    assert keys_of(AltKeyParser(), "\x1bn\x1bn\x1bn") == ["alt+n"] * 3
    assert keys_of(AltKeyParser(), "\x1bx\x1b[1;3A") == ["alt+x", "alt+up"]
    assert keys_of(AltKeyParser(), "\x1bN") == ["alt+shift+n"]
    # Textual reads ESC 1 as macOS's option+1 character, which a text field types.
    assert keys_of(XTermParser(), "\x1b1") == ["inverted_exclamation_mark"]
    assert keys_of(AltKeyParser(), "\x1b1\x1b5") == ["alt+1", "alt+5"]


def test_longer_sequences_and_textuals_own_pairs_are_untouched() -> None:
    parser = AltKeyParser
    assert keys_of(parser(), "\x1b[A\x1bOB") == ["up", "down"]  # CSI, SS3
    assert keys_of(parser(), "\x1bb") == ["ctrl+left"]
    assert keys_of(parser(), "\x1b") == ["escape"]
    assert keys_of(parser(), "\x1b\x1b") == ["escape", "escape"]


def test_install_rebinds_only_the_drivers_parser_name() -> None:
    saved = linux_driver.XTermParser, web_driver.XTermParser  # type: ignore[attr-defined]
    try:
        linux_driver.XTermParser = XTermParser  # type: ignore[attr-defined]
        web_driver.XTermParser = XTermParser  # type: ignore[attr-defined]
        install(type("Casting", (linux_driver.LinuxDriver,), {}))
        assert linux_driver.XTermParser is AltKeyParser  # type: ignore[attr-defined]
        assert web_driver.XTermParser is XTermParser  # type: ignore[attr-defined]
    finally:
        linux_driver.XTermParser, web_driver.XTermParser = saved  # type: ignore[attr-defined]


@pytest.mark.parametrize("module", [linux_driver, web_driver], ids=["linux", "web"])
def test_the_private_textual_names_are_where_terminal_keys_expects(module: object) -> None:
    """The driver's input thread builds its parser from the module's own name."""
    driver: Any = next(c for c in vars(module).values() if inspect.isclass(c) and "run_input_thread" in vars(c))
    assert "XTermParser(" in inspect.getsource(driver.run_input_thread)
    parameters = list(inspect.signature(XTermParser._sequence_to_key_events).parameters)
    assert parameters == ["self", "sequence", "alt"]
    assert isinstance(ANSI_SEQUENCES_KEYS, dict) and "\x1b1" in ANSI_SEQUENCES_KEYS


def wait_screen(run: TmuxRun, text: str) -> str:
    def shown() -> bool:
        screen = run.capture()
        assert not run.status.exists(), screen
        return text in screen

    try:
        eventually_sync(shown, repr(text), timeout=120, poll=0.2)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{run.screen}") from None
    return run.screen


@pytest.mark.timeout(300)
def test_alt_n_typed_at_full_speed_in_a_terminal(tmp_path: Path) -> None:
    """server-filesystem's read_multiple_files in tmux at 100x30: `a`, alt+n,
    `b`, alt+n, `c` sent at once gave the items "a^nb" and "c"; alt+1 in a
    field typed ¡."""
    served = tmp_path / "served"
    served.mkdir()
    argv = [PYTHON, "-m", "inspector", "--", NODE, str(require(FILESYSTEM)), str(served)]
    env = {**os.environ, "INSPECTOR_IMAGES": "cells", "INSPECTOR_CONFIG_DIR": str(tmp_path / "config")}
    with tmux_running(argv, env, tmp_path, f"keys-{os.getpid()}", (100, 30)) as run:
        wait_screen(run, "Tools (14)")
        for key in ("/", "read_multiple", "Enter"):
            run.send(key)
        wait_screen(run, "(read_multiple_files)")
        run.send("Enter")  # the form, at its first required field: paths' add button
        wait_screen(run, "0 items")
        run.send("Enter")
        wait_screen(run, "1 item")
        subprocess_keys(run, "a", "M-n", "b", "M-n", "c", "C-j")
        screen = wait_screen(run, "Call tool read_multiple_files")
        assert '"a",' in screen and '"b",' in screen and '"c"' in screen, screen
        assert "^n" not in screen, screen
        # Back in the field of `c`: alt+1 opens Traffic instead of typing ¡.
        subprocess_keys(run, "n", "M-1")
        screen = wait_screen(run, "filter: words")
        assert "¡" not in screen, screen
        run.quit_with_ctrl_q()


def subprocess_keys(run: TmuxRun, *keys: str) -> None:
    """Several keys in one `tmux send-keys`: they reach the program at once."""
    subprocess.run([*run.tmux, "send-keys", *keys], check=True)
