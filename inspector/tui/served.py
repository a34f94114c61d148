"""One browser visit of `inspector serve`: the TUI, run by textual-serve
with the options `serve` was given (see `serving`)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from inspector.commands.inputs import spec_from_command_line
from inspector.tui.launch import run_tui
from inspector.tui.servers_args import tui_specs

# The environment variable that carries the TUI's options to each app process.
SERVED_ARGS = "INSPECTOR_SERVED_ARGS"


def main() -> int:
    """Run the TUI with the options `serve` left in the environment (taken out of it first); returns the exit code."""
    # Taken out of the environment, so a server started with --inherit-env never sees it.
    options = json.loads(os.environ.pop(SERVED_ARGS))
    args = argparse.Namespace(**options["args"])
    # Several servers (a repeated --server, a --config with several entries) open in one window here too.
    return run_tui(tui_specs(args, list(options["server_command"]), spec_from_command_line), args)


if __name__ == "__main__":
    sys.exit(main())
