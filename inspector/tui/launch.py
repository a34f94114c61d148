"""Start the TUI for a ServerSpec."""

from __future__ import annotations

import argparse

from ..core.spec import ServerSpec

__all__ = ["run_tui"]


def run_tui(spec: ServerSpec, args: argparse.Namespace) -> int:
    from .app import InspectorApp
    from .graphics import detect

    detect()

    app = InspectorApp(spec, record=getattr(args, "record", None), watch=getattr(args, "watch", None) or [])
    code = app.run()
    return int(code or 0)
