"""One browser visit of `inspector serve`: the TUI, run by textual-serve
with the options `serve` was given (see `serving`)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..cli import spec_from_args
from .launch import run_tui

# The environment variable that carries the TUI's options to each app process.
SERVED_ARGS = "INSPECTOR_SERVED_ARGS"


def main() -> int:
    # Taken out of the environment, so a server started with --inherit-env never sees it.
    options = json.loads(os.environ.pop(SERVED_ARGS))
    args = argparse.Namespace(**options["args"])
    return run_tui(spec_from_args(args, list(options["server_command"])), args)


if __name__ == "__main__":
    sys.exit(main())
