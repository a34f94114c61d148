"""What a walkthrough file holds, once read: steps a presenter plays in the TUI."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "ACTIONS",
    "CONFIRM_ANSWERS",
    "SELECTS",
    "SENDS",
    "WAIT_FOR_KEY",
    "WalkStep",
    "Walkthrough",
    "WalkthroughError",
]

# The key that names what a step does, in the order they are looked for.
# tool / resource / prompt select an item in its list; fill types into the
# selected tool's or prompt's form; call, read and get send something.
SELECTS = {"tool": "tools", "resource": "resources", "prompt": "prompts"}
SENDS = ("call", "read", "get")
ACTIONS = (*SELECTS, "fill", *SENDS, "traffic")
CONFIRM_ANSWERS = ("yes", "no", "trust")
# `pause: key`: the step waits for the presenter's "next" key.
WAIT_FOR_KEY = "key"


class WalkthroughError(Exception):
    """A walkthrough file that cannot be read or makes no sense (a usage error)."""


@dataclass
class WalkStep:
    """One step.  `action` None: the step only shows its caption.

    `target` is the tool or prompt name, the URI, the arguments to fill, or
    for `traffic` the method whose last request is shown ("last": any).
    `pause` is seconds, WAIT_FOR_KEY, or None for the file's default.
    """

    index: int
    line: int
    action: str | None
    target: Any = None
    arguments: dict[str, Any] | None = None
    caption: str = ""
    pause: float | str | None = None
    confirm: str | None = None

    @property
    def label(self) -> str:
        """What the step does, in a few words (`call echo`)."""
        if self.action is None:
            return "caption"
        if self.action == "fill":
            return "fill " + ", ".join(sorted(self.target))
        return f"{self.action} {self.target}"

    @property
    def sends(self) -> bool:
        """Whether the step sends something to the server (call, read, get): never twice."""
        return self.action in SENDS


@dataclass
class Walkthrough:
    """A walkthrough file: its name, its steps, the server it names and the default pause."""

    path: str
    name: str
    steps: list[WalkStep]
    # The `server:` entry as written (the collections' forms), or None.
    server: Any = None
    # Seconds each step stays before the next one, unless it says otherwise.
    pause: float | str = 2.0
