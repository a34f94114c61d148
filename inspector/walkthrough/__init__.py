"""Walkthroughs: a presenter's steps (select, type, call, show the traffic,
read, get), each with a caption and a pause, played live in the TUI by
`inspector demo`.  The file is YAML of the collections' family (`loading`);
`player` drives the app through its own keys and widgets."""

from __future__ import annotations

from inspector.walkthrough.loading import load_walkthrough
from inspector.walkthrough.model import WalkStep, Walkthrough, WalkthroughError

__all__ = ["WalkStep", "Walkthrough", "WalkthroughError", "load_walkthrough"]
