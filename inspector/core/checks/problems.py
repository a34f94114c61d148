"""Structured findings: what is wrong with a message or a server, where, and
what the spec says about it.

A `Problem` is the unit both faces show: the live wire validation attaches
them to traffic frames (`Frame.findings`), and `inspector lint` reports them.
Each one names a `Rule` by its stable id; the rule carries the default
severity, a one-line rationale and the spec page (`spec_pages` makes the
link).  Every rule lint and the wire validation report is in `rules.RULES`.
Kept free of any heavy import: the traffic log imports this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from inspector.core.checks.spec_pages import spec_url

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["SEVERITIES", "Problem", "Rule", "severity_rank"]

SEVERITIES = ("error", "warning", "info")


def severity_rank(severity: str) -> int:
    """0 for error, 1 for warning, 2 for info (unknown severities sort last)."""
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding.

    ``rule``      stable id of the `Rule` it comes from ("wire-schema", "tool-name-chars", ...)
    ``severity``  "error", "warning" or "info"
    ``message``   what is wrong, for people (untrusted text may appear quoted in it)
    ``path``      where in the message: ``result.tools[3].inputSchema.type`` ("" = the whole message)
    ``spec``      what the spec says, in short
    ``url``       the spec page (for the negotiated revision)
    ``subject``   what it is about, when not the message itself: ``tool "add"``, ``capability tools``
    ``seq``       the traffic frame it was found in, if any
    """

    rule: str
    severity: str
    message: str
    path: str = ""
    spec: str = ""
    url: str = ""
    subject: str = ""
    seq: int | None = None

    @property
    def where(self) -> str:
        """Subject and path together: ``tool "add" › inputSchema.type``."""
        if self.subject and self.path:
            return f"{self.subject} › {self.path}"
        return self.subject or self.path

    def __str__(self) -> str:
        where = self.where
        return f"{self.severity} [{self.rule}] {where + ': ' if where else ''}{self.message}"

    def to_dict(self) -> JSONObject:
        """The problem as JSON, without the members that are empty."""
        record: JSONObject = {"rule": self.rule, "severity": self.severity, "message": self.message}
        for key in ("path", "spec", "url", "subject"):
            value = getattr(self, key)
            if value:
                record[key] = value
        if self.seq is not None:
            record["seq"] = self.seq
        return record

    @classmethod
    def from_dict(cls, record: JSONObject) -> Problem:
        """The problem a `to_dict` record describes (missing members take their defaults)."""
        seq = record.get("seq")
        return cls(
            rule=str(record.get("rule", "")),
            severity=str(record.get("severity", "info")),
            message=str(record.get("message", "")),
            path=str(record.get("path", "")),
            spec=str(record.get("spec", "")),
            url=str(record.get("url", "")),
            subject=str(record.get("subject", "")),
            seq=seq if isinstance(seq, int) else None,
        )


@dataclass(frozen=True, slots=True)
class Rule:
    """A check: stable id, default severity, one-line rationale, and where the spec says so.

    ``page`` is a spec page relative to the revision ("server/tools"), with an
    optional ``anchor``; ``since`` is the first revision that has the page.
    ``spec`` is the short "what the spec says" attached to each problem.
    ``anchor_before`` names the anchor to use in revisions older than the
    one where ``anchor`` first exists (see `spec_url`).
    """

    id: str
    severity: str
    rationale: str
    page: str
    anchor: str = ""
    since: str = "2024-11-05"
    spec: str = ""
    category: str = ""
    anchor_before: tuple[tuple[str, str], ...] = ()

    def url(self, revision: str | None = None) -> str:
        """The link to the rule's spec page in `revision` (the newest revision's when it is unknown or None)."""
        return spec_url(revision, self.page, self.anchor, self.since, self.anchor_before)

    def problem(
        self,
        message: str,
        *,
        revision: str | None = None,
        path: str = "",
        subject: str = "",
        severity: str | None = None,
        spec: str | None = None,
        seq: int | None = None,
        url: str | None = None,
    ) -> Problem:
        """A problem of this rule; severity, spec text and link default to the rule's own."""
        return Problem(
            rule=self.id,
            severity=severity or self.severity,
            message=message,
            path=path,
            spec=self.spec if spec is None else spec,
            url=self.url(revision) if url is None else url,
            subject=subject,
            seq=seq,
        )

    def to_dict(self, revision: str | None = None) -> JSONObject:
        """The rule as JSON, with its spec link in `revision`."""
        return {
            "id": self.id,
            "severity": self.severity,
            "rationale": self.rationale,
            "url": self.url(revision),
            "category": self.category,
        }
