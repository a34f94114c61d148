"""`inspector lint`, the run: list everything, probe what is declared, run the rules.

    report = await lint_server(client)        # a connected `Client`
    report.findings                           # list[Problem], errors first
    report.failed(strict=False)               # any error (with strict: any warning)

Three sources of findings:

* the item rules (`lint_items`, with `lint_schemas` and `uri_template`):
  tool names and schemas, annotations, resources, templates, prompts;
* the live checks (`lint_live`): each list paged by hand, each declared
  capability exercised once;
* the wire validation (`frame_validator.FrameValidator`) over every frame the
  server sent during the run, including non-JSON lines on stdout.

Every rule they report is in `rules.RULES`, whose order is the report's
order within a severity.  Lint never calls a tool: that could change the
world.  Checks that need a tool result (structuredContent against
outputSchema) run in the live validation instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from inspector.core.checks.frame_validator import FrameValidator
from inspector.core.checks.lint_items import check_prompts, check_resources, check_templates, check_tools
from inspector.core.checks.lint_live import list_pages, probe_capabilities
from inspector.core.checks.problems import Problem, severity_rank
from inspector.core.checks.rules import RULES
from inspector.core.protocol.handlers import capabilities_for
from inspector.core.protocol.items import Item
from inspector.core.protocol.versions import LATEST_HANDSHAKE

if TYPE_CHECKING:
    from inspector.core.protocol.client import Client
    from inspector.forms.values import JSONObject

__all__ = ["DEFAULT_MAX_PAGES", "KINDS", "LintReport", "lint_server"]

KINDS = ("tools", "resources", "templates", "prompts")
DEFAULT_MAX_PAGES = 50

_RULE_ORDER = {rule_id: index for index, rule_id in enumerate(RULES)}


@dataclass
class LintReport:
    """What one lint run found: the server, the revision, era and transport, the findings,
    how many items of each kind were listed, and the capabilities the client declared."""

    server: JSONObject
    protocol_version: str | None
    era: str
    transport: str
    findings: list[Problem] = field(default_factory=list)
    listed: dict[str, int] = field(default_factory=dict)
    # What the client declared: a server may hide tools from a client
    # without sampling or elicitation, so the listing depends on it.
    client_capabilities: JSONObject = field(default_factory=dict)

    def count(self, severity: str) -> int:
        """How many findings have `severity`."""
        return sum(1 for finding in self.findings if finding.severity == severity)

    def failed(self, strict: bool = False) -> bool:
        """Whether any finding is an error (with `strict`, or a warning)."""
        return any(f.severity == "error" or (strict and f.severity == "warning") for f in self.findings)

    def summary(self) -> dict[str, int]:
        """The number of findings per severity."""
        return {severity: self.count(severity) for severity in ("error", "warning", "info")}

    def to_dict(self, strict: bool = False) -> JSONObject:
        """The report as JSON, with its summary and whether it passes (`strict`: warnings fail too)."""
        return {
            "server": self.server,
            "protocolVersion": self.protocol_version,
            "era": self.era,
            "transport": self.transport,
            "listed": self.listed,
            "clientCapabilities": self.client_capabilities,
            "summary": self.summary(),
            "ok": not self.failed(strict),
            "findings": [finding.to_dict() for finding in self.findings],
        }


async def lint_server(client: Client, *, max_pages: int = DEFAULT_MAX_PAGES, probes: bool = True) -> LintReport:
    """Lint a connected server; the client's traffic log must keep its frames."""
    revision = client.protocol_version
    transport = client.transport.describe() if client.transport is not None else client.transport_kind
    report = LintReport(dict(client.server_info), revision, client.era, str(transport))
    report.client_capabilities = capabilities_for(client.handlers, revision or LATEST_HANDSHAKE)
    findings: list[Problem] = []
    listings: dict[str, list[Item]] = {}
    for kind in KINDS:
        items, problems = await list_pages(client, kind, max_pages)
        listings[kind] = items
        report.listed[kind] = len(items)
        findings.extend(problems)
    findings.extend(check_tools(listings["tools"], revision))
    findings.extend(check_resources(listings["resources"], revision))
    findings.extend(check_templates(listings["templates"], revision))
    findings.extend(check_prompts(listings["prompts"], revision))
    if probes:
        findings.extend(await probe_capabilities(client, listings))
    findings.extend(_wire_findings(client))
    report.findings = _sorted(_grouped(_deduplicated(findings)))
    return report


# -- the wire validation of the whole run ----------------------------------------------------


def _wire_findings(client: Client) -> list[Problem]:
    """Problems in what the server sent (our own messages are the inspector's business)."""
    frames = list(client.traffic.frames)
    validator = FrameValidator(lambda: client.protocol_version, frames=client.traffic.by_seq)
    inbound = {frame.seq for frame in frames if frame.direction == "in"}
    return [problem for problem in validator.check_all(frames) if problem.seq in inbound]


def _deduplicated(findings: list[Problem]) -> list[Problem]:
    seen: set[tuple[str, str, str, str]] = set()
    out = []
    for finding in findings:
        key = (finding.rule, finding.subject, finding.path, finding.message)
        if key not in seen:
            seen.add(key)
            out.append(finding)
    return out


# Rules whose findings repeat on every item of a list (a server that sends a
# newer field sends it on every tool): one finding per field, naming the items.
_GROUPED_RULES = frozenset({"wire-field-newer", "wire-field-unknown"})
_INDEX = re.compile(r"\[\d+\]")


def _grouped(findings: list[Problem]) -> list[Problem]:
    groups: dict[tuple[str, str, str], list[Problem]] = {}
    out: list[Problem] = []
    for finding in findings:
        if finding.rule not in _GROUPED_RULES:
            out.append(finding)
            continue
        key = (finding.rule, finding.message, _INDEX.sub("[*]", finding.path))
        group = groups.setdefault(key, [])
        if not group:
            out.append(finding)  # placeholder, replaced below
        group.append(finding)
    for index, finding in enumerate(out):
        if finding.rule not in _GROUPED_RULES:
            continue
        group = groups[(finding.rule, finding.message, _INDEX.sub("[*]", finding.path))]
        if len(group) > 1:
            names = [f.subject for f in group if f.subject]
            shown = ", ".join(names[:3]) + (", …" if len(names) > 3 else "")
            out[index] = replace(finding, subject=f"{len(group)} items ({shown})", path=_INDEX.sub("[*]", finding.path))
    return out


def _sorted(findings: list[Problem]) -> list[Problem]:
    return sorted(findings, key=lambda f: (severity_rank(f.severity), _RULE_ORDER.get(f.rule, len(_RULE_ORDER))))
