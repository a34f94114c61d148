"""A stand-in for the system browser, for `BROWSER=<wrapper of this script>`.

Python's `webbrowser` runs `$BROWSER URL` when BROWSER names a command; this
script then does what a person's browser does after they approve: a GET of
the authorization URL, following the redirects to the inspector's loopback
listener.  Each URL it is given is appended to the file named by
`FAKE_BROWSER_LOG`, with the final status or the error, so a test can see
that the system-browser path was taken.

`FAKE_BROWSER_DELAY` (seconds) makes the person slow: the GET starts that
long after the browser was opened (a person reading the consent page).
`FAKE_BROWSER_STAY=1` is a browser that stays open and never approves: it
writes `pid N` to the log and waits, deaf to SIGINT, until it is terminated.

It always exits 0: a failing browser command would make `webbrowser` try the
next browser it knows (possibly a text browser in the test's terminal).
"""

from __future__ import annotations

import os
import signal
import sys
import time
import urllib.error
import urllib.request


def main() -> int:
    log = os.environ.get("FAKE_BROWSER_LOG")
    # Straight to the test's servers on 127.0.0.1, whatever proxy the environment names.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    if os.environ.get("FAKE_BROWSER_STAY"):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if log:
            with open(log, "a", encoding="utf-8") as handle:
                handle.write(f"pid {os.getpid()}\n")
        while True:
            signal.pause()  # a browser window left open: nothing ever comes back (the behaviour under test)
    delay = float(os.environ.get("FAKE_BROWSER_DELAY") or 0)
    for url in sys.argv[1:]:
        time.sleep(delay)  # a person slow to approve: the slowness is what the test asks for
        try:
            with opener.open(url, timeout=20) as response:
                outcome = f"{response.status} {response.geturl()}"
        except urllib.error.HTTPError as exc:
            outcome = f"{exc.code} {exc.geturl()}"
        except OSError as exc:
            outcome = f"error {exc!r}"
        if log:
            with open(log, "a", encoding="utf-8") as handle:
                handle.write(f"{url}\n{outcome}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
