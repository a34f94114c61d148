"""Sleeps before serving: a server that is slow to start (like one launched
through npx), to show the era probe's late answer is still used.

    python tests/servers/slow_start.py SECONDS [demo-server args...]
    python tests/servers/slow_start.py --until FILE [demo-server args...]

With --until, it starts once FILE exists (a test decides when, whatever
the machine's load).
"""

from __future__ import annotations

import os
import sys
import time

if __name__ == "__main__":
    if sys.argv[1] == "--until":
        while not os.path.exists(sys.argv[2]):
            time.sleep(0.02)
        sys.argv = [sys.argv[0], *sys.argv[3:]]
    else:
        time.sleep(float(sys.argv[1]))  # the slow start is the behaviour under test
        sys.argv = [sys.argv[0], *sys.argv[2:]]
    from inspector.demo.server import main

    sys.exit(main(sys.argv[1:]))
