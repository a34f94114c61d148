"""Walkthroughs: a presenter's steps (select, type, call, show the traffic,
read, get), each with a caption and a pause, played live in the TUI by
`inspector demo`.  The file is YAML of the collections' family (`reading`);
`player` plays the steps and `step_actions` does each on the screen, through
the app's own keys and widgets."""

from __future__ import annotations

from inspector.walkthrough.model import WalkStep, Walkthrough, WalkthroughError
from inspector.walkthrough.reading import load_walkthrough

__all__ = ["WalkStep", "Walkthrough", "WalkthroughError", "load_walkthrough"]
