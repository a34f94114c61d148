"""`--update`: rewrite expectations from the current answers (snapshot style).

What an answer decides is rewritten: the outcome (`success`, `isError`,
`error: CODE`) and each `values:` entry that no longer matches (set to what
is there now).  A step without `expect:` gets one: its outcome and a
snapshot of the answer's main part (`content` or `structuredContent`,
`contents`, `messages`, the listed names, a raw message's whole result),
and `outputSchema: true` for a tool that declares one.  What a person chose
and an answer cannot decide (`exists`, `text`, `matches`, `maxMs`,
`outputSchema`) is kept as written; a step that got no answer is left alone.
The document is edited in place, so comments, key order and quoting stay.
"""

from __future__ import annotations

import difflib
import io
from typing import Any

from inspector.collections.expectations import Answer, search_path
from inspector.collections.model import Collection, Step
from inspector.collections.running import StepResult

__all__ = ["UNFIXABLE", "snapshot_expect", "unified_diff", "update_collection"]

# Expectations --update does not rewrite: a step failing one of these still fails.
UNFIXABLE = ("exists", "text", "matches", "latency", "outputSchema", "save", "variables")


def _outcome_entry(answer: Answer) -> tuple[str, Any]:
    outcome = answer.outcome
    if outcome == "error" and answer.error is not None:
        code = answer.error.get("code")
        return "error", code if isinstance(code, int) and not isinstance(code, bool) else True
    if outcome == "isError":
        return "isError", True
    return "success", True


def _snapshot_path(step: Step, answer: Answer) -> str | None:
    document = answer.result
    if answer.outcome not in ("success", "isError") or not isinstance(document, dict):
        return None
    if step.kind == "list":
        from inspector.core.protocol.items import KIND_FIELDS

        key, name = KIND_FIELDS[str(step.target)]
        return f"{key}[].{name}"
    if step.kind == "call":
        return "structuredContent" if "structuredContent" in document else "content"
    if step.kind == "read":
        return "contents"
    if step.kind == "get":
        return "messages"
    return "@"


def snapshot_expect(step: Step, answer: Answer) -> dict[str, Any]:
    """Expectations that `answer` meets (for a step that had none)."""
    key, value = _outcome_entry(answer)
    expect: dict[str, Any] = {key: value}
    path = _snapshot_path(step, answer)
    if path is not None:
        expect["values"] = {path: search_path(path, answer.document)}
    tool = answer.tool
    if answer.outcome == "success" and tool is not None and isinstance(tool.get("outputSchema"), dict):
        expect["outputSchema"] = True
    return expect


def update_collection(collection: Collection, results: list[StepResult]) -> tuple[str, list[str]]:
    """The collection's new text, and a note for each step left as it was."""
    notes: list[str] = []
    for result in results:
        step = result.step
        if result.answer.outcome in ("failure", "sent"):
            if result.answer.failure is not None:
                notes.append(f"{step.name}: no answer ({result.answer.failure}); not updated")
            continue
        node = collection.step_node(step)
        if not step.expect.written or node.get("expect") is None:
            at = list(node).index("save") if "save" in node else len(node)
            node.insert(at, "expect", snapshot_expect(step, result.answer))
            continue
        _update_expect(node["expect"], result, notes)
    from inspector.collections.reading import yaml_round_trip

    stream = io.StringIO()
    yaml_round_trip().dump(collection.document, stream)
    return stream.getvalue(), notes


def _update_expect(expect: Any, result: StepResult, notes: list[str]) -> None:
    """The written `expect:` node made to hold what the step got, where a failed check can say it;
    a note for each failed check it cannot."""
    for check in result.failed_checks:
        if check.kind == "outcome":
            for key in ("success", "isError", "error"):
                if key in expect:
                    del expect[key]
            key, value = _outcome_entry(result.answer)
            expect.insert(0, key, value)
        elif check.kind == "value" and check.key is not None and not check.extra.get("unevaluable"):
            expect["values"][check.key] = check.actual
        elif check.kind in UNFIXABLE or check.extra.get("unevaluable"):
            notes.append(f"{result.step.name}: {check.label} kept as written")


def unified_diff(before: str, after: str, path: str) -> list[str]:
    """The lines of a unified diff between the file's text before and after `--update`."""
    return [
        line.rstrip("\n")
        for line in difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"{path} (before)", f"{path} (updated)"
        )
    ]
