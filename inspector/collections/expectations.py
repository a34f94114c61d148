"""Judging one answer against a step's expectations.

Paths are JMESPath expressions, read against the answer's `result` (or,
when the server answered with a JSON-RPC error, against the error object:
`code`, `message`, `data`).  Regular expressions run through the schema
regex engine (RE2, with a time bound for the few it cannot run), so a
pattern cannot hang the run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from inspector.collections.model import Expect
from inspector.core.safetext import one_line

__all__ = ["Answer", "Check", "answer_text", "evaluate", "lookup", "search_path"]

_SHOWN = 120


@dataclass
class Answer:
    """What came back for one step."""

    result: Any = None
    error: dict[str, Any] | None = None
    # No answer at all: why (a timeout, the connection lost, a variable without value).
    failure: str | None = None
    # A notification: nothing answers it.
    sent_only: bool = False
    elapsed_ms: float = 0.0
    # For a call: the tool as tools/list gave it (None when it is not listed).
    tool: dict[str, Any] | None = None
    revision: str | None = None

    @property
    def outcome(self) -> str:
        """Which of `OUTCOMES` the answer is: failure, sent, error, isError or success."""
        if self.failure is not None:
            return "failure"
        if self.sent_only:
            return "sent"
        if self.error is not None:
            return "error"
        if isinstance(self.result, dict) and self.result.get("isError") is True:
            return "isError"
        return "success"

    @property
    def document(self) -> Any:
        """What paths are read from."""
        return self.error if self.error is not None else self.result

    def describe(self) -> str:
        """The outcome in words, for a report: "no answer: …", "error -32602: …", "a result"."""
        outcome = self.outcome
        if outcome == "failure":
            return f"no answer: {self.failure}"
        if outcome == "error" and self.error is not None:
            return f"error {self.error.get('code')}: {self.error.get('message')}"
        return {"isError": "a result with isError: true", "sent": "sent (a notification)"}.get(outcome, "a result")


@dataclass
class Check:
    """One expectation, judged."""

    kind: str
    label: str
    passed: bool
    detail: str = ""
    # For `values`: the expression and the value found there.
    key: str | None = None
    actual: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The check for the JSON report: kind, label, verdict, and the detail, path and value when there are."""
        out: dict[str, Any] = {"kind": self.kind, "label": self.label, "passed": self.passed}
        if self.detail:
            out["detail"] = self.detail
        if self.key is not None:
            out["path"] = self.key
            out["actual"] = self.actual
        return out


def shown(value: Any) -> str:
    """`value` as one line of JSON for a report: control characters made visible, cut at 120 characters."""
    return one_line(json.dumps(value, ensure_ascii=False), _SHOWN)


def search_path(expression: str, document: Any) -> Any:
    """What the JMESPath expression finds (None for nothing, or for a
    function applied to a value of the wrong type)."""
    return lookup(expression, document)[0]


def lookup(expression: str, document: Any) -> tuple[Any, str | None]:
    """(what the expression finds, why it could not be evaluated on this answer)."""
    import jmespath
    from jmespath.exceptions import JMESPathError

    try:
        return jmespath.search(expression, document), None
    except JMESPathError as exc:
        # `length(tools)` on an answer without `tools`: a failed check, not a crash.
        return None, one_line(str(exc), _SHOWN)


def answer_text(answer: Answer) -> str:
    """The answer's text: every `text` string in the result (content blocks,
    resource contents, prompt messages), or the error's message, one per line."""
    if answer.error is not None:
        message = answer.error.get("message")
        data = answer.error.get("data")
        parts = [message if isinstance(message, str) else ""]
        if isinstance(data, str):
            parts.append(data)
        return "\n".join(parts)
    found: list[str] = []
    stack: list[Any] = [answer.result]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            text = value.get("text")
            if isinstance(text, str):
                found.append(text)
            stack.extend(reversed([v for k, v in value.items() if k != "text"]))
        elif isinstance(value, list):
            stack.extend(reversed(value))
    return "\n".join(found)


def evaluate(expect: Expect, answer: Answer) -> list[Check]:
    """Every expectation of `expect` (its variables already substituted) against `answer`."""
    checks = [_outcome(expect, answer)]
    if answer.outcome in ("failure", "sent"):
        # Nothing came back to read paths, text or timings from.
        return checks
    document = answer.document
    for expression, expected in expect.values.items():
        checks.append(_value(expression, expected, document))
    for expression in expect.exists:
        found, problem = lookup(expression, document)
        detail = "" if found is not None else problem or "nothing there"
        checks.append(Check("exists", f"{expression} exists", found is not None, detail, key=expression, actual=found))
    text = answer_text(answer) if expect.text or expect.matches else ""
    for wanted in expect.text:
        ok = wanted in text
        checks.append(Check("text", f"text contains {shown(wanted)}", ok, "" if ok else f"text was {shown(text)}"))
    for pattern in expect.matches:
        checks.append(_matches(pattern, text))
    if expect.output_schema:
        checks.append(_output_schema(answer))
    if expect.max_ms is not None:
        ok = answer.elapsed_ms <= expect.max_ms
        detail = f"took {answer.elapsed_ms:.0f} ms"
        checks.append(Check("latency", f"within {expect.max_ms:g} ms", ok, "" if ok else detail))
    return checks


def _outcome(expect: Expect, answer: Answer) -> Check:
    actual = answer.outcome
    if actual == "sent":
        ok = expect.outcome is None
        return Check("outcome", "sent", ok, "" if ok else "a notification gets no answer to expect anything of")
    wanted = expect.outcome or "success"
    label = {"success": "success", "isError": "isError: true"}.get(wanted, "error")
    if wanted == "error" and expect.error_code is not None:
        label = f"error {expect.error_code}"
    ok = actual == wanted
    if ok and expect.error_code is not None and answer.error is not None:
        ok = answer.error.get("code") == expect.error_code
    return Check("outcome", label, ok, "" if ok else f"got {answer.describe()}")


def _value(expression: str, expected: Any, document: Any) -> Check:
    from inspector.forms.values import json_equal

    found, problem = lookup(expression, document)
    label = f"{expression} == {shown(expected)}"
    if problem is not None:
        return Check("value", label, False, problem, key=expression, extra={"unevaluable": True})
    ok = json_equal(found, expected)
    return Check("value", label, ok, "" if ok else f"found {shown(found)}", key=expression, actual=found)


def _matches(pattern: str, text: str) -> Check:
    from inspector.forms.schema_regex import PatternNotChecked, compile_pattern

    label = f"text matches /{one_line(pattern, _SHOWN)}/"
    try:
        ok = compile_pattern(pattern).search(text)
    except PatternNotChecked as exc:
        return Check("matches", label, False, f"pattern not checked: {exc.reason}")
    return Check("matches", label, ok, "" if ok else f"text was {shown(text)}")


def _output_schema(answer: Answer) -> Check:
    from inspector.core.checks.tool_schema_checks import check_structured_content

    label = "structuredContent matches the outputSchema"
    if answer.tool is None:
        return Check("outputSchema", label, False, "the tool is not in tools/list")
    if not isinstance(answer.tool.get("outputSchema"), dict):
        return Check("outputSchema", label, False, "the tool declares no outputSchema")
    problems = check_structured_content(answer.result, answer.tool, answer.revision)
    if not problems:
        return Check("outputSchema", label, True)
    listed = "; ".join(f"{p.path}: {p.message}" if p.path else p.message for p in problems[:5])
    return Check("outputSchema", label, False, listed)
