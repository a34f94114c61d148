"""What a load run sends and how hard: the step mix and its bounds."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from inspector.collections import Collection, Step
from inspector.collections.running import StepResult

__all__ = ["LoadPlan", "failure_text", "request_name", "step_method"]


@dataclass
class LoadPlan:
    """What a load run sends and how hard: the collection, sessions, rate, duration or count."""

    collection: Collection
    # Concurrent sessions (connections), each with its own CollectionRunner.
    sessions: int = 1
    # Requests started per second over all sessions (open loop); None: each
    # session sends its next step as soon as the previous one is answered.
    rate: float | None = None
    duration: float | None = None
    count: int | None = None
    # Open loop only: past this many unanswered requests the rate falls
    # behind instead of memory growing without bound.
    max_in_flight: int = 1000

    @property
    def steps(self) -> list[Step]:
        """The collection's steps: the mix."""
        return self.collection.steps


def step_method(step: Step) -> str:
    """The JSON-RPC method a step sends (what Locust calls the request type)."""
    if step.kind == "list":
        from inspector.core.protocol.items import LIST_METHODS

        return str(LIST_METHODS[step.target])
    if step.kind == "raw":
        method = step.raw_method
        return method if method is not None else "raw"
    return {"call": "tools/call", "read": "resources/read", "get": "prompts/get"}[step.kind]


def request_name(step: Step) -> str:
    """What a request is about: the tool or prompt name, the URI, the list
    kind, the raw message's method (Locust groups its statistics by it)."""
    if step.kind == "raw":
        return step_method(step)
    return step.target if isinstance(step.target, str) else json.dumps(step.target, ensure_ascii=False)


def failure_text(result: StepResult) -> str | None:
    """Why a step counts as an error, or None when every expectation held
    (with no `expect:`, a step expects success: an `isError: true` tool
    result or a JSON-RPC error counts)."""
    if result.passed:
        return None
    answer = result.answer
    if answer.failure is not None:
        return answer.failure
    error: Any = answer.error
    if isinstance(error, dict):
        return f"JSON-RPC error {error.get('code')}: {error.get('message')}"
    failed = "; ".join(check.label for check in result.failed_checks)
    if answer.outcome == "isError":
        from inspector.collections.expectations import answer_text

        # The tool's own words, cut short: the report counts distinct messages.
        return f"isError: {answer_text(answer)[:200]}"
    return failed
