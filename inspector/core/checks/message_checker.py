"""One message's check in progress: what it knows, and the problems found so far.

`validate_message` (`message_checks`) makes a `MessageChecker` per message;
the checks add problems to it by rule id, and it turns the wire models'
findings (`model_issues`, `field_notes`, `revision_issues`) into `Problem`s
with the path in the message, the spec's words and the spec page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from inspector.core.checks.field_notes import FieldNote, field_notes
from inspector.core.checks.model_issues import ModelIssue, validate_model
from inspector.core.checks.problems import Problem
from inspector.core.checks.revision_issues import RevisionIssue, revision_issues
from inspector.core.checks.rules import RULES
from inspector.core.checks.spec_pages import page_for_model, spec_url
from inspector.core.protocol.versions import KNOWN_VERSIONS
from inspector.forms.paths import Path, format_path
from inspector.forms.values import short_json

__all__ = ["MAX_ISSUES", "CheckContext", "MessageChecker", "join_path"]

# At most this many issues of one kind are reported for one message (a
# broken list would otherwise bury the rest).
MAX_ISSUES = 50


def join_path(prefix: Path, path: Iterable[str | int]) -> str:
    """A path inside the message, as shown: ``result.tools[3].inputSchema``."""
    return format_path((*prefix, *path))


@dataclass(slots=True)
class CheckContext:
    """What one check needs to know besides the message."""

    revision: str | None
    direction: str
    seq: int | None = None
    method: str | None = None
    request_params: Any = None
    client_caps: dict[str, Any] | None = None
    server_caps: dict[str, Any] | None = None
    tool_lookup: Callable[[str], dict[str, Any] | None] | None = None
    pause: Callable[[], None] | None = None


class MessageChecker:
    """Turns one message into problems; shared state lives in `FrameValidator`."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.out: list[Problem] = []

    def add(self, rule: str, message: str, *, path: str = "", subject: str = "", **kw: Any) -> None:
        """Add a problem of rule `rule` (past four times `MAX_ISSUES`, no more are kept)."""
        if len(self.out) >= MAX_ISSUES * 4:
            return
        self.out.append(
            RULES[rule].problem(message, revision=self.ctx.revision, path=path, subject=subject, seq=self.ctx.seq, **kw)
        )

    # -- the wire models' findings ---------------------------------------------------

    def issues(
        self,
        issues: list[ModelIssue],
        prefix: Path,
        *,
        subject: str = "",
        item_kind: str | None = None,
    ) -> None:
        """Add the wire models' validation errors as problems, with the field's declared type where known
        and its spec page (some errors have a rule of their own, by `item_kind` and path)."""
        for issue in issues[:MAX_ISSUES]:
            rule = _specific_rule(item_kind, issue.path) or "wire-schema"
            spec = ""
            if issue.model and issue.field:
                spec = f"{issue.model}.{issue.field}: {issue.expected}"
                if issue.kind == "missing":
                    spec += " (required)"
            page = page_for_model(issue.model) if issue.model else "basic"
            problem = RULES[rule].problem(
                issue.message,
                revision=self.ctx.revision,
                path=join_path(prefix, issue.path),
                subject=subject,
                seq=self.ctx.seq,
                spec=spec or None,
            )
            if rule == "wire-schema":
                problem = replace(problem, url=spec_url(self.ctx.revision, page))
            self.out.append(problem)

    def notes(self, notes: list[FieldNote], prefix: Path, subject: str = "") -> None:
        """Add a problem for each field the negotiated revision does not define: newer than it, or in no revision."""
        revision = self.ctx.revision
        if revision not in KNOWN_VERSIONS:
            return
        for note in notes[:MAX_ISSUES]:
            path = join_path(prefix, note.path)
            if note.added_in is not None and KNOWN_VERSIONS.index(note.added_in) > KNOWN_VERSIONS.index(revision):
                self.add(
                    "wire-field-newer",
                    f"{note.model}.{note.field} was added in {note.added_in}; this session uses {revision}",
                    path=path,
                    subject=subject,
                    url=spec_url(note.added_in, "changelog"),
                )
            elif note.added_in is None:
                self.add(
                    "wire-field-unknown",
                    f"{note.model} has no field {short_json(note.field, 60)} in {revision} (ignored by clients)",
                    path=path,
                    subject=subject,
                )

    def model(
        self,
        model: Any,
        value: Any,
        prefix: Path,
        *,
        skip_root: int = 1,
        subject: str = "",
        item_kind: str | None = None,
    ) -> Any:
        """Validate `value` against `model`, adding what is wrong, what the revision lacks and what it
        rejects; returns the model instance (None when the value does not fit)."""
        instance, issues = validate_model(model, value)
        self.issues(issues, prefix, subject=subject, item_kind=item_kind)
        if instance is not None and self.ctx.revision:
            self.notes(field_notes(instance, value, self.ctx.revision, skip_root=skip_root), prefix, subject)
            self.newer_values(revision_issues(instance, value, self.ctx.revision), prefix, subject)
        return instance

    def newer_values(self, issues: list[RevisionIssue], prefix: Path, subject: str = "") -> None:
        """What the negotiated (older) revision's own schema rejects: it needs a later revision."""
        for issue in issues[:MAX_ISSUES]:
            self.add(
                "wire-value-newer",
                issue.message,
                path=join_path(prefix, issue.path),
                subject=subject,
                spec=f"{RULES['wire-value-newer'].spec} ({issue.spec})" if issue.spec else None,
                url=spec_url(issue.added_in, "changelog"),
            )


def _specific_rule(item_kind: str | None, path: tuple[str | int, ...]) -> str | None:
    """Some schema errors have a rule of their own (and a lint rule id to match)."""
    if item_kind == "tools":
        if path == ("inputSchema",) or path == ("inputSchema", "type"):
            return "tool-input-schema-root"
        if path[:1] == ("outputSchema",) and len(path) <= 2:
            return "tool-output-schema-invalid"
    if item_kind == "prompts" and len(path) == 3 and path[0] == "arguments" and path[2] == "name":
        return "prompt-argument-name"
    return None
