"""`--record-cast FILE`: an asciinema v2 cast of what the TUI writes to its terminal.

The TUI runs on a pseudo-terminal as a person's would; the cast must parse
as asciinema v2, hold what the terminal was sent (the demo server's tools),
and hold no secret.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import termios
from functools import partial
from pathlib import Path
from typing import Any

from inspector.core.record.secret_mask import secret_mask
from inspector.core.servers.spec import ServerSpec
from inspector.tui.cast import CastWriter

from .peers import PYTHON, SERVERS
from .terminal import interruptible, read_pty
from .waiting import eventually_sync

SECRET = "sk-live-4f9a8b7c6d5e"


QUIT = b"\x11"  # ctrl+q


# Once the cast holds these texts: type these keys, or resize the terminal to (columns, rows).
Step = tuple[list[str], bytes | tuple[int, int]]


def _controlling_terminal() -> None:
    # A session of its own with the pty as its controlling terminal, so a
    # resize reaches the TUI as SIGWINCH, as in a person's terminal.
    interruptible()
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _resize(fd: int, size: tuple[int, int]) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))


def run_on_terminal(
    argv: list[str], cast: Path, steps: list[Step], *, cwd: Path, size: tuple[int, int] = (100, 30)
) -> tuple[int, bytes]:
    """Run the TUI on a pty of `size` (columns, rows); at each step, once the cast holds every
    text it names, type its keys, as a person would (the last step's keys
    should quit).  The exit code and all the TUI wrote."""
    controller, terminal = pty.openpty()
    _resize(terminal, size)
    # COLUMNS and LINES would override the pty's size (pytest-xdist's workers set them).
    inherited = {name: value for name, value in os.environ.items() if name not in ("COLUMNS", "LINES")}
    env = {**inherited, "TERM": "xterm-256color", "INSPECTOR_IMAGES": "cells"}
    process = subprocess.Popen(
        argv, stdin=terminal, stdout=terminal, stderr=terminal, cwd=cwd, env=env, preexec_fn=_controlling_terminal
    )
    os.close(terminal)
    shown = bytearray()

    def drain() -> None:
        # The terminal must be read, or the TUI blocks on a full pty.
        while select.select([controller], [], [], 0)[0]:
            chunk = read_pty(controller)
            if not chunk:
                return
            shown.extend(chunk)

    def cast_holds(wanted: list[str]) -> bool:
        drain()
        if process.poll() is not None:
            raise AssertionError(f"the TUI exited with {process.returncode}: {shown[-2000:]!r}")
        text = cast.read_text(encoding="utf-8", errors="replace") if cast.exists() else ""
        # A text the TUI drew across regions (a caption over the panes) is cut by cursor moves.
        return all(word in text or word in plain_output(text) for word in wanted)

    try:
        for wanted, action in steps:
            # Bounded only against a hang: the TUI imports Textual and starts its server first.
            eventually_sync(partial(cast_holds, wanted), f"the cast to show {wanted}", timeout=90, poll=0.1)
            if isinstance(action, bytes):
                os.write(controller, action)
            else:
                _resize(controller, action)

        def ended() -> bool:
            drain()
            return process.poll() is not None

        eventually_sync(ended, "the TUI to quit on ctrl+q", timeout=60, poll=0.1)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)
        os.close(controller)
    return process.returncode, bytes(shown)


ESCAPES = re.compile(r"\x1b\[[0-9;?<>=$]*[A-Za-z~]|\x1b\][^\x07]*\x07|\x1b[()][A-Za-z0-9]|\x1b[=>]")


def plain_output(cast_text: str) -> str:
    """What the cast's output events wrote, its escape sequences left out (a
    last line still being written is skipped)."""
    chunks = []
    for line in cast_text.splitlines()[1:]:
        try:
            _time, kind, data = json.loads(line)
        except ValueError:
            continue
        if kind == "o":
            chunks.append(data)
    return ESCAPES.sub("", "".join(chunks))


def read_cast(path: Path) -> tuple[dict[str, Any], list[list[Any]]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    events = [json.loads(line) for line in lines[1:]]
    return header, events


def check_asciinema_v2(header: dict[str, Any], events: list[list[Any]]) -> None:
    assert header["version"] == 2
    assert isinstance(header["width"], int) and isinstance(header["height"], int)
    assert isinstance(header["timestamp"], int) and header["timestamp"] > 1_600_000_000
    assert events
    times = [event[0] for event in events]
    assert times == sorted(times) and times[0] >= 0
    for event in events:
        assert len(event) == 3
        assert event[1] in ("o", "r")
        assert isinstance(event[2], str)


def test_a_session_is_cast_with_what_the_terminal_showed(tmp_path: Path) -> None:
    cast = tmp_path / "session.cast"
    code, shown = run_on_terminal(
        [PYTHON, "-m", "inspector", "--record-cast", str(cast)],
        cast,
        [(["echo", "divide", "weather_report"], (120, 36)), (['"r", "120x36"'], QUIT)],
        cwd=tmp_path,
    )
    assert code == 0, shown[-2000:]
    header, events = read_cast(cast)
    check_asciinema_v2(header, events)
    assert (header["width"], header["height"]) == (100, 30)
    assert [event[2] for event in events if event[1] == "r"] == ["120x36"]
    output = "".join(event[2] for event in events if event[1] == "o")
    # What the terminal was sent: the alternate screen entered and left, the tools drawn.
    assert "\x1b[?1049h" in output and "\x1b[?1049l" in output
    for tool in ("echo", "divide", "weather_report", "media_gallery"):
        assert tool in output
    # The cast is the terminal's own stream: every byte written to it is in the cast.
    drawn = shown.decode("utf-8", errors="replace")
    assert "weather_report" in drawn


def test_a_secret_on_the_command_line_never_reaches_the_cast(tmp_path: Path) -> None:
    cast = tmp_path / "secret.cast"
    # The server's command line carries the secret (as a token argument would);
    # the Stderr tab (alt+2) shows that command line as the process starts.
    code, shown = run_on_terminal(
        [
            PYTHON,
            "-m",
            "inspector",
            "--record-cast",
            str(cast),
            "--env",
            f"API_TOKEN={SECRET}",
            "--",
            PYTHON,
            str(SERVERS / "exact_args.py"),
            SECRET,
        ],
        cast,
        [(["log_query", "travel"], b"\x1b2"), (["exact_args.py"], QUIT)],
        cwd=tmp_path,
        # Wide enough for the whole command line on one row.
        size=(220, 40),
    )
    assert code == 0, shown[-2000:]
    header, events = read_cast(cast)
    check_asciinema_v2(header, events)
    text = cast.read_text(encoding="utf-8")
    assert SECRET not in text
    assert "exact_args.py ***" in text


def test_the_cast_masks_what_it_is_given_with_the_sessions_secrets(tmp_path: Path) -> None:
    # The cast's own masking, apart from the TUI's: text that reaches the
    # terminal with a secret in it (split across no escape) is masked in the file.
    spec = ServerSpec(transport="stdio", command="server", env={"API_TOKEN": SECRET})
    mask = secret_mask(spec)
    assert mask is not None
    path = tmp_path / "direct.cast"
    cast = CastWriter.open(str(path), lambda: mask)
    cast.output(f"\x1b[1;1Htoken: {SECRET}\x1b[0m", (80, 24))
    cast.output(f'{{"escaped": "{json.dumps(SECRET)[1:-1]}"}}', (80, 24))
    cast.close()
    header, events = read_cast(path)
    check_asciinema_v2(header, events)
    assert (header["width"], header["height"]) == (80, 24)
    assert [event[2] for event in events] == ["\x1b[1;1Htoken: ***\x1b[0m", '{"escaped": "***"}']


def test_a_resize_is_an_r_event(tmp_path: Path) -> None:
    path = tmp_path / "resize.cast"
    cast = CastWriter.open(str(path), lambda: None)
    for chunk, size in (("a", (80, 24)), ("b", (80, 24)), ("c", (120, 40))):
        cast.output(chunk, size)
    cast.close()
    header, events = read_cast(path)
    check_asciinema_v2(header, events)
    assert [event[1:] for event in events] == [["o", "a"], ["o", "b"], ["r", "120x40"], ["o", "c"]]


WALK = """\
name: Cast tour
pause: key
steps:
  - caption: "Casting the first step."
  - caption: "Echo, called for the cast."
    call: echo
    arguments: {message: "cast-me-please"}
    confirm: yes
  - caption: "The call on the wire."
    traffic: tools/call
"""
PAGE_DOWN = b"\x1b[6~"


def test_a_walkthrough_run_is_cast(tmp_path: Path) -> None:
    (tmp_path / "walk.yaml").write_text(WALK, encoding="utf-8")
    cast = tmp_path / "walk.cast"
    # Each step waits for the presenter's page down, sent once the cast holds what the step
    # shows; --quit-at-end: the run ends by itself after the last one.
    code, shown = run_on_terminal(
        [PYTHON, "-m", "inspector", "demo", "walk.yaml", "--record-cast", str(cast), "--quit-at-end"],
        cast,
        [
            (["Casting the first step.", "Cast tour: step 1 of 3"], PAGE_DOWN),
            (["Echo, called for the cast.", "cast-me-please"], PAGE_DOWN),
            (["The call on the wire.", "Cast tour: step 3 of 3"], PAGE_DOWN),
        ],
        cwd=tmp_path,
    )
    assert code == 0, shown[-2000:]
    header, events = read_cast(cast)
    check_asciinema_v2(header, events)
    assert (header["width"], header["height"]) == (100, 30)
    output = "".join(event[2] for event in events if event[1] == "o")
    assert "\x1b[?1049h" in output and "\x1b[?1049l" in output
    # The call went out with the file's arguments and its frame was drawn in the traffic panel.
    plain = plain_output(cast.read_text(encoding="utf-8"))
    assert '"message": "cast-me-please"' in plain and "tools/call" in plain
