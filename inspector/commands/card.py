"""`inspector card FILE|URL`: a registry server.json against the live server.

The live side is the server named as usual (`-- CMD`, `--url`, `--config`)
when one is named; otherwise every remote the card lists (each over the
transport it declares), and with no remote either, the embedded demo
server, as for every command.  Exit 0 when the card and the server agree,
`DIFFERENCES` when anything differs (a remote that does not answer, a card
that breaks the registry schema), `USAGE` when the card cannot be read.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import dataclass, field
from typing import Any

from inspector.commands import exitcodes
from inspector.commands.output import Output
from inspector.core.compare.card import Card, CardError, Difference, LiveView, compare_live, load_card, schema_problems
from inspector.core.protocol.errors import InspectorError
from inspector.core.safetext import one_line, visible
from inspector.core.servers.spec import ServerSpec

__all__ = ["run_card"]


@dataclass
class Target:
    """One server compared with the card: its spec, whether the card named it, the differences or the error."""

    spec: ServerSpec
    by_card: bool
    differences: list[Difference] = field(default_factory=list)
    server_info: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The target for the JSON report."""
        return {
            "server": self.spec.label(),
            "fromCard": self.by_card,
            "serverInfo": self.server_info,
            "error": self.error,
            "differences": [difference.to_json() for difference in self.differences],
        }


def _targets(card: Card, spec: ServerSpec, named: bool) -> tuple[list[Target], list[str]]:
    if named:
        return [Target(spec, by_card=False)], []
    targets, skipped = [], []
    for remote in card.remotes:
        if remote.transport is None or remote.templated:
            skipped.append(f"{remote.type} {remote.url}: not checked (its URL needs variables the card leaves open)")
            continue
        remote_spec = ServerSpec(transport=remote.transport, url=remote.url, timeout=spec.timeout)
        targets.append(Target(remote_spec, by_card=True))
    if not targets and not skipped:
        # No remote to reach: the server named as usual, which is the demo when none is.
        return [Target(spec, by_card=False)], []
    return targets, skipped


async def _check(card: Card, target: Target, args: argparse.Namespace, record: str | None) -> None:
    from inspector.commands.runner import connected, failure

    try:
        async with connected(target.spec, args, record=record) as client:
            target.server_info = dict(client.server_info)
            tools = None
            if card.tools is not None:
                tools = (await client.list_all("tools")).names()
            live = LiveView(target.server_info, client.transport_kind, target.spec.url, tools)
            target.differences = compare_live(card, live, reached_by_card=target.by_card)
    except InspectorError as exc:
        _code, message, _detail = failure(exc)
        target.error = message
        target.differences = [Difference("reachable", target.spec.label(), None, f"did not answer: {message}")]


def _card_document(card: Card) -> dict[str, Any]:
    return {
        "name": card.name,
        "title": card.title,
        "version": card.version,
        "remotes": [{"type": remote.type, "url": remote.url} for remote in card.remotes],
        "packageTransports": card.package_transports,
        "tools": card.tools,
    }


def _short(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, list) and all(isinstance(entry, str) for entry in value):
        return ", ".join(one_line(entry, 80) for entry in value) or "(none)"
    return one_line(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False), 120)


def _print_human(out: Output, source: str, card: Card, problems: list[str], targets: list[Target]) -> None:
    doc = _card_document(card)
    out.line(f"card {source}")
    out.line(f"  name: {_short(doc['name'])}   title: {_short(doc['title'])}   version: {_short(doc['version'])}")
    for remote in card.remotes:
        out.line(f"  remote: {one_line(remote.type, 40)} {one_line(remote.url, 200)}")
    if card.package_transports:
        out.line("  packages: " + ", ".join(one_line(kind, 40) for kind in card.package_transports))
    if card.tools is not None:
        out.line(f"  tools: {_short(card.tools)}")
    for problem in problems:
        out.line(f"  schema: {one_line(problem, 200)}")
    for target in targets:
        info = target.server_info
        live = f"{_short(info.get('name'))} {_short(info.get('version'))}" if info else "(not reached)"
        out.line(f"live {one_line(target.spec.label(), 120)}: {live}")
        for difference in target.differences:
            note = f" ({one_line(difference.note, 120)})" if difference.note else ""
            out.line(
                f"  differs: {difference.what}: card {_short(difference.card)} ≠ live {_short(difference.live)}{note}"
            )
        if not target.differences:
            out.line("  matches the card")


def run_card(args: argparse.Namespace, spec: ServerSpec, named: bool) -> int:
    """`inspector card FILE|URL`: the registry card against the live server(s); returns the exit code."""
    out = Output.for_args(args)
    source = args.card
    try:
        card = load_card(source, spec.timeout)
    except CardError as exc:
        print(f"inspector: {visible(str(exc))}", file=sys.stderr)
        return exitcodes.USAGE
    problems = schema_problems(card)
    targets, skipped = _targets(card, spec, named)

    record = getattr(args, "record", None)
    if record and len(targets) > 1:
        print("inspector: --record records one server; this card names several remotes: not recorded", file=sys.stderr)
        record = None

    async def check_all() -> None:
        for target in targets:
            await _check(card, target, args, record)

    try:
        asyncio.run(check_all())
    except BrokenPipeError:
        raise
    except Exception as exc:  # noqa: BLE001 - a failure becomes a message and an exit code
        from inspector.commands.runner import reported

        return reported(exc)
    differs = bool(problems) or any(target.differences for target in targets)
    if out.json:
        out.json_value(
            {
                "card": _card_document(card),
                "source": source,
                "schemaProblems": problems,
                "skipped": skipped,
                "live": [target.to_json() for target in targets],
                "matches": not differs,
            }
        )
    else:
        _print_human(out, source, card, problems, targets)
        for line in skipped:
            out.line(f"  {line}")
        out.line("the card differs from the server" if differs else "the card matches the server")
    return exitcodes.DIFFERENCES if differs else exitcodes.OK
