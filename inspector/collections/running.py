"""Running a collection's steps on a connected client.

Each step sends exactly what the file says (variables substituted, nothing
added: no schema defaults, no empty `arguments`), waits for the answer
within the client's timeout, and judges it.  A step that cannot run (a
variable without value, the connection gone) fails on its own; the next
step still runs.  Every step leaves two local notes in the traffic log, so
a recording shows where each step began and how it ended.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from inspector.collections.expectations import Answer, Check, evaluate, lookup
from inspector.collections.model import Collection, Expect, Step
from inspector.collections.variables import VariableError, substitute
from inspector.core.protocol.client import Client
from inspector.core.protocol.errors import ConnectionClosed, InspectorError, JsonRpcError, RequestTimeout
from inspector.core.protocol.items import KIND_FIELDS, LIST_METHODS
from inspector.core.protocol.pending import PendingRequest

__all__ = ["Answer", "Check", "CollectionResult", "CollectionRunner", "StepResult"]


@dataclass
class StepResult:
    """One step run: the answer, the checks judged on it, the variables it saved and what it sent."""

    step: Step
    answer: Answer
    checks: list[Check]
    saved: dict[str, Any] = field(default_factory=dict)
    # What went out: the arguments, URI or raw message after substitution.
    sent: Any = None

    @property
    def passed(self) -> bool:
        """Whether every check passed."""
        return all(check.passed for check in self.checks)

    @property
    def failed_checks(self) -> list[Check]:
        """The checks that did not pass, in order."""
        return [check for check in self.checks if not check.passed]

    def to_json(self) -> dict[str, Any]:
        """The step for the JSON report: name, label, verdict, outcome, time, checks, failure and saved values."""
        out: dict[str, Any] = {
            "name": self.step.name,
            "step": self.step.label,
            "passed": self.passed,
            "outcome": self.answer.outcome,
            "ms": round(self.answer.elapsed_ms, 1),
            "checks": [check.to_json() for check in self.checks],
        }
        if self.answer.failure is not None:
            out["failure"] = self.answer.failure
        if self.saved:
            out["saved"] = self.saved
        return out


@dataclass
class CollectionResult:
    """One collection run: its steps' results, the server and revision it ran on, or why it could not run."""

    collection: Collection
    steps: list[StepResult] = field(default_factory=list)
    server: str = ""
    era: str | None = None
    protocol_version: str | None = None
    # The collection could not run at all (no connection): why, and the exit code it means.
    failure: str | None = None
    failure_code: int | None = None
    record: str | None = None

    @property
    def passed(self) -> bool:
        """Whether the collection ran and every step passed."""
        return self.failure is None and all(step.passed for step in self.steps)


class CollectionRunner:
    """Runs a collection's steps on a connected client; variables saved by a step serve the later ones."""

    def __init__(self, client: Client, collection: Collection, env: Mapping[str, str] | None = None) -> None:
        self.client = client
        self.collection = collection
        self.env = env if env is not None else os.environ
        self.saved: dict[str, Any] = {}
        self._tools: dict[str, dict[str, Any]] | None = None

    async def run(self) -> list[StepResult]:
        """Every step in order (a step that fails does not stop the next)."""
        return [await self.run_step(step) for step in self.collection.steps]

    async def run_step(self, step: Step) -> StepResult:
        """Substitute the step's variables, send it, judge the answer and save what it asks to save;
        a note in the traffic log before and after."""
        traffic = self.client.traffic
        traffic.event("local", "transport", note=f"collection step {step.name!r}: {step.label}")
        try:
            target, arguments, expect = self._substituted(step)
        except VariableError as exc:
            answer = Answer(failure=str(exc))
            result = StepResult(step, answer, [Check("variables", "variables have values", False, str(exc))])
        else:
            answer, sent = await self._send(step, target, arguments)
            result = StepResult(step, answer, evaluate(expect, answer), sent=sent)
            self._save(step, result)
        verdict = "passed" if result.passed else "FAILED: " + "; ".join(c.label for c in result.failed_checks)
        traffic.event("local", "transport", note=f"collection step {step.name!r} {verdict}")
        return result

    def _substituted(self, step: Step) -> tuple[Any, Any, Expect]:
        env, saved = self.env, self.saved
        target = substitute(step.target, env, saved)
        arguments = substitute(step.arguments, env, saved) if step.arguments is not None else None
        written = step.expect
        expect = replace(
            written,
            values={key: substitute(value, env, saved) for key, value in written.values.items()},
            text=[_as_text(substitute(text, env, saved)) for text in written.text],
            matches=[_as_text(substitute(pattern, env, saved)) for pattern in written.matches],
        )
        return target, arguments, expect

    def _save(self, step: Step, result: StepResult) -> None:
        if not step.save or result.answer.outcome in ("failure", "sent"):
            return
        for name, expression in step.save.items():
            value, problem = lookup(expression, result.answer.document)
            ok = value is not None
            if ok:
                self.saved[name] = value
                result.saved[name] = value
            detail = "" if ok else f"{problem or 'nothing there'}: later steps that use it fail"
            result.checks.append(Check("save", f"save {name} = {expression}", ok, detail, key=expression, actual=value))

    async def _tool(self, name: str) -> dict[str, Any] | None:
        """The tool as listed.  tools/list is asked once, before the first
        call, as `inspector call` does (a stateless HTTP server's
        `x-mcp-header` parameters are learned from it)."""
        if self._tools is None:
            listing = await self.client.list_all("tools", force=True)
            self._tools = {item.key: item.data for item in listing.items}
        return self._tools.get(name)

    async def _send(self, step: Step, target: Any, arguments: Any) -> tuple[Answer, Any]:
        answer = Answer(revision=self.client.protocol_version)
        sent: Any = arguments
        started = time.perf_counter()
        try:
            sent = _what_is_sent(step.kind, target, arguments)
            if step.kind == "call":
                answer.tool = await self._tool(str(target))
                # The call's time starts after the listing asked before it.
                started = time.perf_counter()
            await self._ask(step, target, arguments, sent, answer)
        except JsonRpcError as exc:
            answer.error = exc.to_dict()
        except RequestTimeout as exc:
            answer.failure = f"timeout: {exc}"
        except ConnectionClosed as exc:
            answer.failure = f"connection lost: {exc}"
        except InspectorError as exc:
            answer.failure = str(exc) or exc.__class__.__name__
        except ValueError as exc:
            # A raw message that is not JSON text.
            answer.failure = f"not sent: {exc}"
        answer.elapsed_ms = (time.perf_counter() - started) * 1000
        return answer, sent

    async def _ask(self, step: Step, target: Any, arguments: Any, sent: Any, answer: Answer) -> None:
        """Send the step's request (`sent` as `_what_is_sent` made it) and put its result in `answer`."""
        client = self.client
        if step.kind == "list":
            answer.result = await self._list(target)
        elif step.kind == "call":
            operation = await client.start_call_tool(str(target), arguments)
            result = await operation.result()
            answer.result, _task = await client.finish_task(result, str(target))
        elif step.kind == "read":
            answer.result = await client.request("resources/read", {"uri": sent})
        elif step.kind == "get":
            params: dict[str, Any] = {"name": _as_text(target)}
            if arguments is not None:
                params["arguments"] = arguments
            answer.result = await client.request("prompts/get", params)
        else:
            session, _transport = client.require()
            pending = await session.send_raw(sent, note=f"collection step {step.name!r}")
            if isinstance(pending, PendingRequest):
                answer.result = await pending.future
            else:
                answer.sent_only = True

    async def _list(self, kind: str) -> dict[str, Any]:
        """Every page, the items as received (also those the client would exclude)."""
        listing = await self.client.list_all(kind, force=True, refresh=True)
        key = KIND_FIELDS[kind][0]
        items: list[Any] = []
        for page in listing.pages:
            found = page.get(key)
            if isinstance(found, list):
                items.extend(found)
        if not listing.complete:
            raise InspectorError(f"{LIST_METHODS[kind]} could not be read to the end: {'; '.join(listing.problems)}")
        return {key: items}


def _what_is_sent(kind: str, target: Any, arguments: Any) -> Any:
    """What the step's report shows as sent: the URI read, the raw message's text, else the arguments."""
    if kind == "read":
        return _as_text(target)
    if kind in ("list", "call", "get"):
        return arguments
    return target if isinstance(target, str) else json.dumps(target, ensure_ascii=False)


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
