"""What a test does with a process it started when the process does not end as asked: it is
killed and reaped and its pipes closed there and then.  Left behind, the garbage collector
reports it (a ResourceWarning, an error in this suite) in whatever test runs next on the
worker: a DPoP test once failed for a preview that a test_apps test could not stop."""

from __future__ import annotations

import gc
import signal
import subprocess

import pytest

from .peers import PYTHON, ended

# A child that says when its SIGINT handler is in place, then ignores SIGINT forever.
DEAF = (
    "import signal, sys, time\n"
    "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    "print('ready', flush=True)\n"
    "while True:\n"
    "    time.sleep(60)\n"
)
# One that ends on SIGINT with exit code 130 (its handler in place before it says so).
LISTENING = (
    "import os, signal, time\n"
    "signal.signal(signal.SIGINT, lambda *_: os._exit(130))\n"
    "print('ready', flush=True)\n"
    "while True:\n"
    "    time.sleep(60)\n"
)


def started(code: str) -> subprocess.Popen[str]:
    child = subprocess.Popen([PYTHON, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout is not None
    assert child.stdout.readline() == "ready\n"  # its signal handling is in place
    return child


def test_a_child_deaf_to_the_signal_is_killed_and_leaves_nothing_open() -> None:
    child = started(DEAF)
    # It never ends on SIGINT, so the grace runs out whatever the machine's speed.
    with pytest.raises(subprocess.TimeoutExpired):
        ended(child, signal.SIGINT, grace=0.5)
    assert child.returncode == -signal.SIGKILL
    assert child.stdout is not None and child.stdout.closed
    assert child.stderr is not None and child.stderr.closed
    # Anything left open would be reported here now (ResourceWarning is an error), not in a later test.
    del child
    gc.collect()


def test_a_child_that_ends_on_the_signal_gives_its_code() -> None:
    child = started(LISTENING)
    assert ended(child, signal.SIGINT) == 130
    assert child.stdout is not None and child.stdout.closed
    assert child.stderr is not None and child.stderr.closed
    del child
    gc.collect()
