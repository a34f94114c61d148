"""`inspector lint`, the logic: list everything, probe what is declared, run the rules.

    report = await lint_server(client)        # a connected `Client`
    report.findings                           # list[Problem], errors first
    report.failed(strict=False)               # any error (with strict: any warning)

Three sources of findings:

* the item rules (`lint_items`, with `lint_schemas` and `uri_template`):
  tool names and schemas, annotations, resources, templates, prompts;
* the live checks here: each list is paged by hand (so a repeating or
  endless cursor, or a page that fails, is seen and the items before it
  are kept), and each declared capability is exercised once
  (resources/subscribe, completion/complete, logging/setLevel,
  subscriptions/listen) while undeclared ones are tried too; in the
  handshake era a declared listChanged whose notification never arrived
  is reported as info (lint cannot make a list change);
* the wire validation (`validation.FrameValidator`) over every frame the
  server sent during the run, including non-JSON lines on stdout.

Lint never calls a tool: that could change the world.  Checks that need a
tool result (structuredContent against outputSchema) run in the live
validation instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from inspector.core.checks.lint_items import check_prompts, check_resources, check_templates, check_tools
from inspector.core.checks.problems import Problem, severity_rank
from inspector.core.checks.rules import RULES
from inspector.core.checks.spec_pages import spec_url
from inspector.core.checks.uri_template import template_errors
from inspector.core.checks.validation import FrameValidator
from inspector.core.protocol.client import CAPABILITY_OF_KIND
from inspector.core.protocol.errors import ConnectionClosed, InspectorError, JsonRpcError
from inspector.core.protocol.handlers import capabilities_for
from inspector.core.protocol.items import KIND_FIELDS, LIST_METHODS, Item, parse_item
from inspector.core.protocol.versions import LATEST_HANDSHAKE

if TYPE_CHECKING:
    from inspector.core.protocol.client import Client
    from inspector.forms.values import JSONObject

__all__ = ["DEFAULT_MAX_PAGES", "KINDS", "LintReport", "lint_server"]

KINDS = ("tools", "resources", "templates", "prompts")
DEFAULT_MAX_PAGES = 50
LISTEN_WAIT = 3.0

_RULE_ORDER = {rule_id: index for index, rule_id in enumerate(RULES)}


@dataclass
class LintReport:
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
        return sum(1 for finding in self.findings if finding.severity == severity)

    def failed(self, strict: bool = False) -> bool:
        return any(f.severity == "error" or (strict and f.severity == "warning") for f in self.findings)

    def summary(self) -> dict[str, int]:
        return {severity: self.count(severity) for severity in ("error", "warning", "info")}

    def to_dict(self, strict: bool = False) -> JSONObject:
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
        items, problems = await _list(client, kind, max_pages)
        listings[kind] = items
        report.listed[kind] = len(items)
        findings.extend(problems)
    findings.extend(check_tools(listings["tools"], revision))
    findings.extend(check_resources(listings["resources"], revision))
    findings.extend(check_templates(listings["templates"], revision))
    findings.extend(check_prompts(listings["prompts"], revision))
    if probes:
        findings.extend(await _probe_capabilities(client, listings))
    findings.extend(_wire_findings(client))
    report.findings = _sorted(_grouped(_deduplicated(findings)))
    return report


# -- listing -------------------------------------------------------------------------------


async def _list(client: Client, kind: str, max_pages: int) -> tuple[list[Item], list[Problem]]:
    """Every page of one list, by hand: repeats, endless cursors and failing pages are findings."""
    revision = client.protocol_version
    capability = CAPABILITY_OF_KIND[kind]
    declared = capability in client.server_capabilities
    method = LIST_METHODS[kind]
    key = KIND_FIELDS[kind][0]
    items: list[Item] = []
    problems: list[Problem] = []
    seen: set[str] = set()
    cursor: str | None = None
    pages = 0
    subject = f"capability {capability}"
    while True:
        try:
            result = await client.request(method, {"cursor": cursor} if cursor is not None else None)
        except ConnectionClosed:
            raise
        except InspectorError as exc:
            if declared:
                where = f" on page {pages + 1}" if pages else ""
                problems.append(
                    RULES["capability-list-fails"].problem(
                        f"{method} failed{where}: {exc}", revision=revision, subject=subject
                    )
                )
            break
        pages += 1
        if not isinstance(result, dict):
            break  # the wire validation says what is wrong with it
        raw_items = result.get(key)
        if isinstance(raw_items, list):
            items.extend(parse_item(kind, raw, pages - 1) for raw in raw_items)
        next_cursor = result.get("nextCursor")
        if not isinstance(next_cursor, str):
            break
        if next_cursor in seen or next_cursor == cursor:
            problems.append(
                RULES["pagination-cursor-repeats"].problem(
                    f"{method} page {pages} offers nextCursor {next_cursor!r} again; stopped",
                    revision=revision,
                    subject=f"list {kind}",
                )
            )
            break
        if pages >= max_pages:
            problems.append(
                RULES["pagination-endless"].problem(
                    f"{method} still offers a nextCursor after {pages} pages; stopped",
                    revision=revision,
                    subject=f"list {kind}",
                )
            )
            break
        seen.add(next_cursor)
        cursor = next_cursor
    if not declared and items:
        problems.append(
            RULES["capability-undeclared-list"].problem(
                f"{method} answered with {len(items)} item(s) but the server does not declare {capability!r}",
                revision=revision,
                subject=subject,
            )
        )
    return items, problems


# -- declared capabilities, exercised once ---------------------------------------------------


async def _probe_capabilities(client: Client, listings: dict[str, list[Item]]) -> list[Problem]:
    caps = client.server_capabilities
    revision = client.protocol_version
    out: list[Problem] = []
    modern = client.modern is not None
    resources = caps.get("resources")
    if not modern and isinstance(resources, dict) and resources.get("subscribe") is True:
        uri = next((item.key for item in listings["resources"] if isinstance(item.data.get("uri"), str)), None)
        if uri is not None:
            try:
                await client.request("resources/subscribe", {"uri": uri})
            except ConnectionClosed:
                raise
            except InspectorError as exc:
                out.append(
                    RULES["capability-subscribe-fails"].problem(
                        f"resources/subscribe {uri!r} failed: {exc}", revision=revision, subject="capability resources"
                    )
                )
            else:
                with contextlib.suppress(JsonRpcError):
                    await client.request("resources/unsubscribe", {"uri": uri})
    if "completions" in caps:
        params = _completion_params(listings)
        if params is not None:
            try:
                await client.request("completion/complete", params)
            except ConnectionClosed:
                raise
            except InspectorError as exc:
                out.append(
                    RULES["capability-completions-fails"].problem(
                        f"completion/complete failed: {exc}", revision=revision, subject="capability completions"
                    )
                )
    if "logging" in caps and not modern:
        try:
            await client.request("logging/setLevel", {"level": "warning"})
        except ConnectionClosed:
            raise
        except InspectorError as exc:
            out.append(
                RULES["capability-logging-fails"].problem(
                    f"logging/setLevel failed: {exc}", revision=revision, subject="capability logging"
                )
            )
    if modern:
        out.extend(await _probe_listen(client))
    else:
        out.extend(_list_changed_unobserved(client))
    return out


# The list capabilities whose listChanged promises a notification.
_LIST_CHANGED = ("tools", "resources", "prompts")


def _list_changed_unobserved(client: Client) -> list[Problem]:
    """Handshake era: a declared listChanged whose notification never arrived during the run.

    Lint cannot make a list change, so this is info, not a failure.  The
    opposite (a notification for a list whose capability did not declare
    listChanged) is the wire validation's capability-undeclared-notification.
    """
    caps = client.server_capabilities
    seen = {
        frame.method
        for frame in client.traffic.frames
        if frame.direction == "in" and frame.kind == "notification" and isinstance(frame.method, str)
    }
    out = []
    for capability in _LIST_CHANGED:
        declared = caps.get(capability)
        method = f"notifications/{capability}/list_changed"
        if isinstance(declared, dict) and declared.get("listChanged") is True and method not in seen:
            out.append(
                RULES["capability-list-changed-unobserved"].problem(
                    f"{capability}.listChanged is declared, but no {method} arrived during the lint run "
                    "(lint cannot change the list: check it by changing one while connected)",
                    revision=client.protocol_version,
                    subject=f"capability {capability}",
                    url=spec_url(client.protocol_version, f"server/{capability}", "list-changed-notification"),
                )
            )
    return out


def _completion_params(listings: dict[str, list[Item]]) -> JSONObject | None:
    """A completion request the server should be able to answer: a prompt argument or a template variable."""
    for item in listings["prompts"]:
        arguments = item.data.get("arguments")
        if isinstance(arguments, list):
            for argument in arguments:
                if isinstance(argument, dict) and isinstance(argument.get("name"), str) and argument["name"]:
                    return {
                        "ref": {"type": "ref/prompt", "name": item.name},
                        "argument": {"name": argument["name"], "value": ""},
                    }
    for item in listings["templates"]:
        template = item.data.get("uriTemplate")
        if isinstance(template, str) and not template_errors(template):
            import uritemplate

            names = list(uritemplate.URITemplate(template).variable_names)
            if names:
                return {
                    "ref": {"type": "ref/resource", "uri": template},
                    "argument": {"name": names[0], "value": ""},
                }
    return None


async def _probe_listen(client: Client) -> list[Problem]:
    """Stateless era: every declared listChanged should be honoured by subscriptions/listen."""
    revision = client.protocol_version
    try:
        subscription = await client.listen_changes()
    except ConnectionClosed:
        raise
    except InspectorError as exc:
        return [
            RULES["capability-listen-refused"].problem(
                f"subscriptions/listen failed: {exc}", revision=revision, subject="capability listChanged"
            )
        ]
    if subscription is None:
        return []
    out: list[Problem] = []
    try:
        deadline = asyncio.get_running_loop().time() + LISTEN_WAIT
        while subscription.acknowledged is None and subscription.ended is None:
            if asyncio.get_running_loop().time() > deadline:
                break
            await asyncio.sleep(0.02)
        if subscription.acknowledged is None:
            out.append(
                RULES["capability-listen-refused"].problem(
                    f"subscriptions/listen was not acknowledged within {LISTEN_WAIT:g} s"
                    + (f" ({subscription.ended})" if subscription.ended else ""),
                    revision=revision,
                    subject="capability listChanged",
                )
            )
        for refused in subscription.refused:
            out.append(
                RULES["capability-listen-refused"].problem(
                    f"{refused} is declared but subscriptions/listen did not acknowledge it",
                    revision=revision,
                    subject="capability listChanged",
                )
            )
    finally:
        await subscription.close()
        client.subscription = None
    return out


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
