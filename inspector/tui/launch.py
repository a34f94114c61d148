"""Start the TUI for a ServerSpec."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.core.servers.spec import ServerSpec

if TYPE_CHECKING:
    from textual.app import App

    from inspector.tui.app import InspectorApp
    from inspector.tui.cast import CastWriter

__all__ = ["roots_of", "run_casting", "run_recording", "run_tui"]


def run_tui(spec: ServerSpec | list[ServerSpec], args: argparse.Namespace) -> int:
    """Run the TUI on *spec* (or several servers in one window) with the command line's options; the exit code."""
    from inspector.tui.app import InspectorApp
    from inspector.tui.graphics import detect
    from inspector.tui.keymap import load_keymap

    detect()

    from textual.app import InvalidThemeError
    from textual.theme import BUILTIN_THEMES

    try:
        app = InspectorApp(
            spec,
            record=getattr(args, "record", None),
            watch=getattr(args, "watch", None) or [],
            keymap=load_keymap(),
            theme=getattr(args, "theme", None),
        )
    except InvalidThemeError:
        print(f"inspector: no theme named {args.theme!r}; there are: {', '.join(BUILTIN_THEMES)}", file=sys.stderr)
        return 2
    answer_timeout = getattr(args, "answer_timeout", None)
    roots = getattr(args, "root", None)
    for view in app.views:
        if answer_timeout:
            view.handlers.answer_timeout = answer_timeout
        if roots:
            view.handlers.roots = roots_of(roots)
    return run_casting(app, getattr(args, "record_cast", None))


def roots_of(paths: list[str]) -> list[dict[str, str]]:
    """The roots the client offers for the folders given on the command line."""
    return [{"uri": Path(os.path.abspath(r)).as_uri(), "name": Path(r).name or r} for r in paths]


def run_casting(app: InspectorApp, cast_path: str | None) -> int:
    """Run `app`; with `cast_path`, what its terminal shows is written there
    as an asciinema cast.  The process's exit code."""
    from inspector.tui.terminal_keys import install

    install(app.driver_class)
    if not cast_path:
        app.run()
        return exit_code(app)
    try:
        cast = start_cast(app, cast_path)
    except OSError as exc:
        print(f"inspector: cannot write the cast {cast_path}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        app.run()
    finally:
        cast.close()
    if cast.error is not None:
        print(f"inspector: the cast {cast_path} stopped early: {cast.error.strerror or cast.error}", file=sys.stderr)
    return exit_code(app)


def start_cast(app: InspectorApp, path: str) -> CastWriter:
    """Record what `app` writes to its terminal in an asciinema cast at `path`."""
    from inspector.core.record.secret_mask import SecretMask
    from inspector.tui.cast import CastWriter, casting_driver

    def mask() -> SecretMask | None:
        # The traffic log's own mask: it also learns the tokens an OAuth login brings.
        current = app.traffic.mask
        return current if isinstance(current, SecretMask) else None

    term = {name: os.environ[name] for name in ("TERM", "SHELL") if os.environ.get(name)}
    cast = CastWriter.open(path, mask, term)
    app.driver_class = casting_driver(app.driver_class, cast)
    return cast


def exit_code(app: App[Any]) -> int:
    """What the process exits with: non-zero when the app died of an error
    (Textual prints the traceback and sets return_code)."""
    return app.return_code or 0


def run_recording(path: str) -> int:
    """`inspector open FILE`: the TUI over a recording, read-only."""
    import sys

    from inspector.core.record.recording_files import RecordingError, load_recording
    from inspector.tui.app import InspectorApp
    from inspector.tui.keymap import load_keymap

    try:
        traffic = load_recording(path)
    except RecordingError as exc:
        print(f"inspector: {exc}", file=sys.stderr)
        return 2
    app = InspectorApp(ServerSpec(name=path), recording=(path, traffic), keymap=load_keymap())
    from inspector.tui.terminal_keys import install

    install(app.driver_class)
    app.run()
    return exit_code(app)
