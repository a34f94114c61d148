"""`inspector list KIND --json` writes each page's items as the page
arrives (tests/servers/slow_pages.py: the first page at once, the later ones
once the test allows), and what it wrote stays one JSON value when a later
page never comes."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path

from inspector.commands import exitcodes

from .peers import PYTHON, SERVERS, run_inspector
from .waiting import eventually_sync

SLOW_PAGES = str(SERVERS / "slow_pages.py")
# 41 tools over 4 pages of 11: wide_form, tool_0000 … tool_0009 on the first.
FIRST_PAGE = ["wide_form", *[f"tool_{index:04d}" for index in range(10)]]
EVERY_TOOL = [*FIRST_PAGE, *[f"tool_{index:04d}" for index in range(10, 39)], "big_json"]
BOUND = 60  # only a hang reaches it (the process waits)


def listing(release: Path) -> list[str]:
    return ["list", "tools", "--json", "--", PYTHON, SLOW_PAGES, "--release", str(release)]


def test_the_first_page_is_written_before_the_next_arrives(tmp_path: Path) -> None:
    release = tmp_path / "release"
    process = subprocess.Popen(
        [PYTHON, "-m", "inspector", *listing(release)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    received = bytearray()

    def read() -> None:
        assert process.stdout is not None
        # A raw read returns what the pipe holds now, not a full buffer.
        while chunk := os.read(process.stdout.fileno(), 65536):
            received.extend(chunk)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        # Ended early (an error) counts as done too: the asserts below say what went wrong.
        eventually_sync(lambda: b'"tool_0009"' in received or process.poll() is not None, "the first page written")
        # Page 2 is not served yet: the inspector is still waiting for it.
        assert process.poll() is None
        assert b'"tool_0010"' not in received
        release.touch()
        assert process.wait(timeout=BOUND) == exitcodes.OK, process.stderr.read()  # type: ignore[union-attr]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        reader.join(timeout=BOUND)
        process.stdout.close()  # type: ignore[union-attr]
        process.stderr.close()  # type: ignore[union-attr]
    written = json.loads(bytes(received))
    assert [tool["name"] for tool in written["tools"]] == EVERY_TOOL
    assert bytes(received).endswith(b"}\n") and bytes(received).count(b"\n") == 1


def test_pages_written_before_a_page_that_never_comes_stay_one_json_value(tmp_path: Path) -> None:
    # The release file never appears: the second page's request times out.
    done = run_inspector("--timeout", "2", *listing(tmp_path / "never"), timeout=BOUND)
    assert done.returncode == exitcodes.TIMEOUT, done.stderr
    written = json.loads(done.stdout)
    assert [tool["name"] for tool in written["tools"]] == FIRST_PAGE
    assert "tools/list" in done.stderr


def test_a_stdio_server_may_write_a_megabyte_ahead_of_our_reading() -> None:
    """With a pipe of the default 64 KiB, a server writing a 2 MB page
    waits for us after every 64 KiB and we for it: the pipe is widened."""
    import fcntl

    from inspector.core.transports.childproc import STDOUT_PIPE_SIZE, spawn

    # It reads until its stdin closes, which leaving the block does (then it is waited for).
    with spawn(PYTHON, ["-c", "import sys; sys.stdin.read()"], None, None) as process:
        assert process.stdout is not None
        assert fcntl.fcntl(process.stdout.fileno(), fcntl.F_GETPIPE_SZ) == STDOUT_PIPE_SIZE == 1 << 20
