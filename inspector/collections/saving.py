"""Saving a call that was made (in the TUI) as a step of a collection file.

The step holds what went out (the arguments as they were on the wire, or
no `arguments` when none were sent) and expectations filled from what came
back, as `--update` fills a step that has none.  The file is created when it
does not exist; an existing one keeps its comments and layout, the step is
appended.
"""

from __future__ import annotations

import io
import os
from typing import Any

from inspector.collections.expectations import Answer
from inspector.collections.model import Step
from inspector.collections.reading import load_collection, yaml_round_trip
from inspector.collections.updating import snapshot_expect

__all__ = ["append_step", "call_step"]


def call_step(name: str, tool: str, params: dict[str, Any], answer: Answer) -> dict[str, Any]:
    """A `call` step for a tools/call sent with `params`, answered with `answer`."""
    step: dict[str, Any] = {"name": name, "call": tool}
    if "arguments" in params:
        step["arguments"] = params["arguments"]
    model = Step(0, name, "call", tool, params.get("arguments"))
    step["expect"] = snapshot_expect(model, answer)
    return step


def _unique(name: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    number = 2
    while f"{name} ({number})" in taken:
        number += 1
    return f"{name} ({number})"


def append_step(path: str, step: dict[str, Any]) -> str:
    """Append `step` to the collection at `path` (created if missing); the name it got."""
    if os.path.exists(path):
        collection = load_collection(path)
        document = collection.document
        step["name"] = _unique(str(step["name"]), {s.name for s in collection.steps})
        document["steps"].append(step)
    else:
        title = os.path.splitext(os.path.basename(path))[0]
        document = {"name": title, "steps": [step]}
    stream = io.StringIO()
    yaml_round_trip().dump(document, stream)
    text = stream.getvalue()
    # Checked before it is written: a file that would not load back is not written.
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    temporary = f"{path}.saving"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    try:
        load_collection(temporary)
    except Exception:
        os.unlink(temporary)
        raise
    os.replace(temporary, path)
    return str(step["name"])
