"""What a collection file holds, once read: steps and their expectations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["KINDS", "LIST_KINDS", "OUTCOMES", "Collection", "CollectionError", "Expect", "Step"]

# The key that names a step's kind, in the order they are looked for.
KINDS = ("list", "call", "read", "get", "raw")
LIST_KINDS = ("tools", "resources", "templates", "prompts")
# What an answer can be: a result, a tool's `isError: true`, a JSON-RPC error,
# or no answer at all (timeout, connection lost); "sent" for a notification.
OUTCOMES = ("success", "isError", "error", "failure", "sent")


class CollectionError(Exception):
    """A collection file that cannot be read or makes no sense (a usage error)."""


@dataclass
class Expect:
    """A step's expectations, as written (variables not yet substituted).

    `outcome` None means none was written: success is expected.
    """

    outcome: str | None = None
    error_code: int | None = None
    values: dict[str, Any] = field(default_factory=dict)
    exists: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    matches: list[str] = field(default_factory=list)
    output_schema: bool = False
    max_ms: float | None = None
    # Whether the step had an `expect:` at all (`--update` fills one that had none).
    written: bool = False


@dataclass
class Step:
    """One saved request.

    `target` is the list kind, the tool or prompt name, the URI, or the raw
    message (a mapping, or a string sent as its own text).
    """

    index: int
    name: str
    kind: str
    target: Any
    arguments: dict[str, Any] | None = None
    expect: Expect = field(default_factory=Expect)
    save: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """What the step sends, in a few words (`call get-sum`)."""
        if self.kind == "raw":
            method = self.raw_method
            return f"raw {method}" if method is not None else "raw message"
        return f"{self.kind} {self.target}"

    @property
    def raw_method(self) -> str | None:
        """The method a raw step's message names (the target, a mapping or JSON text), or None."""
        message = self.target
        if isinstance(message, str):
            import json

            try:
                message = json.loads(message)
            except ValueError:
                return None
        method = message.get("method") if isinstance(message, dict) else None
        return method if isinstance(method, str) else None


@dataclass
class Collection:
    """A collection file: its name, its steps and the server it names, with the text and document
    `--update` writes back."""

    path: str
    name: str
    steps: list[Step]
    # The `server:` entry as written (a string or a mapping), or None.
    server: Any = None
    # The original text and the round-trip document (`--update` edits it in place).
    text: str = ""
    document: Any = None

    def step_node(self, step: Step) -> Any:
        """The step's mapping in the round-trip document."""
        return self.document["steps"][step.index]
