"""Start the TUI for a ServerSpec."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.spec import ServerSpec

if TYPE_CHECKING:
    from textual.app import App

__all__ = ["run_recording", "run_tui"]


def run_tui(spec: ServerSpec, args: argparse.Namespace) -> int:
    from .app import InspectorApp
    from .graphics import detect
    from .keymap import load_keymap

    detect()

    app = InspectorApp(
        spec,
        record=getattr(args, "record", None),
        watch=getattr(args, "watch", None) or [],
        keymap=load_keymap(),
    )
    answer_timeout = getattr(args, "answer_timeout", None)
    if answer_timeout:
        app.handlers.answer_timeout = answer_timeout
    roots = getattr(args, "root", None)
    if roots:
        app.handlers.roots = [{"uri": Path(os.path.abspath(r)).as_uri(), "name": Path(r).name or r} for r in roots]
    app.run()
    return exit_code(app)


def exit_code(app: App[Any]) -> int:
    """What the process exits with: non-zero when the app died of an error
    (Textual prints the traceback and sets return_code)."""
    return app.return_code or 0


def run_recording(path: str) -> int:
    """`inspector open FILE`: the TUI over a recording, read-only."""
    import sys

    from ..core.recordings import RecordingError, load_recording
    from .app import InspectorApp
    from .keymap import load_keymap

    try:
        traffic = load_recording(path)
    except RecordingError as exc:
        print(f"inspector: {exc}", file=sys.stderr)
        return 2
    app = InspectorApp(ServerSpec(name=path), recording=(path, traffic), keymap=load_keymap())
    app.run()
    return exit_code(app)
