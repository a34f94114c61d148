"""Opening an MCP App preview in the person's web browser, never in this terminal.

The server's HTML must not run where the inspector runs: a console browser
(lynx, w3m, …) would draw it in this very terminal, and under the TUI even a
graphical browser's chatter on stdout would land on the screen.  So the
browser is chosen and started by a child process in a session of its own,
with no terminal (no controlling terminal; stdin, stdout and stderr away
from ours), which refuses a console browser and says what it did on a pipe.
The choice is made afresh each time, from the environment as it is then
(`$BROWSER`), not from the registry Python's `webbrowser` keeps per process.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading

__all__ = ["CONSOLE_BROWSERS", "open_in_browser"]

# Browsers that would draw the page in the terminal they are started from.
CONSOLE_BROWSERS = frozenset({"www-browser", "links", "links2", "elinks", "lynx", "w3m", "browsh", "carbonyl"})

# The child: the browser webbrowser would pick, refused if it is a console one;
# one line on stdout says which, then stdout goes to /dev/null and the browser starts.
_CHILD = """
import os, sys, webbrowser
try:
    browser = webbrowser.get()
except webbrowser.Error:
    print("none", flush=True)
    sys.exit()
name = os.path.basename(str(getattr(browser, "name", "") or ""))
if name in sys.argv[2].split(","):
    print("console " + name, flush=True)
    sys.exit()
print("ok", flush=True)
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
webbrowser.open(sys.argv[1])
"""


async def open_in_browser(url: str) -> str | None:
    """Start the person's browser on `url`: None once started, else why it was not."""
    return await asyncio.to_thread(_open, url)


def _open(url: str) -> str | None:
    try:
        process = subprocess.Popen(
            [sys.executable, "-c", _CHILD, url, ",".join(sorted(CONSOLE_BROWSERS))],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            text=True,
        )
    except OSError as exc:
        return f"the browser could not be started: {exc}"
    assert process.stdout is not None
    with process.stdout:
        said = process.stdout.readline().strip()
    # Some browser commands return only when the browser closes: reaped by a thread nobody waits for.
    threading.Thread(target=process.wait, name="browser-reaper", daemon=True).start()
    if said == "ok":
        return None
    if said.startswith("console "):
        return f"the only browser is a console one ({said.removeprefix('console ')}); open the URL elsewhere"
    if said == "none":
        return "no web browser found; open the URL yourself"
    return "the browser could not be started"
