"""The wire of the hand-written stdio test servers: JSON-RPC messages, one a
line, on stdin and stdout.  Standard library only.

A line that is not a JSON object is passed over, as the servers have nothing
to answer to it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from typing import Any


def messages() -> Iterator[dict[str, Any]]:
    """Each JSON object that arrives on stdin, until it closes."""
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            yield message


def requests() -> Iterator[dict[str, Any]]:
    """Each message that arrives with an id and a method: what a server answers."""
    for message in messages():
        if "id" in message and "method" in message:
            yield message


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def serve(answer: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
    """Send `answer(message)` for each message that arrives, when it is not None."""
    for message in messages():
        reply = answer(message)
        if reply is not None:
            send(reply)
