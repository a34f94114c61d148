"""Names for several servers in one window: a label each, a recording file each."""

from __future__ import annotations

import os
from collections.abc import Sequence

from inspector.core.servers.spec import ServerSpec


def server_labels(specs: Sequence[ServerSpec]) -> list[str]:
    """A name per server for the list and the header; two alike get a number."""
    labels = [spec.label() for spec in specs]
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if labels.count(label) == 1 else f"{label} #{seen[label]}")
    return out


def numbered(path: str | None, number: int) -> str | None:
    """FILE.jsonl -> FILE-N.jsonl: one recording per server."""
    if path is None:
        return None
    stem, extension = os.path.splitext(path)
    return f"{stem}-{number}{extension or '.jsonl'}"
