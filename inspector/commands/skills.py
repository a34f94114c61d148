"""`inspector skills list` and `inspector skills get NAME [--verify]` (SEP-2640).

Listing and getting fetch entries only; `--verify` is the one way a file is
read, and then every listed file is checked against the entry.  A failed
check is a problem naming its rule, and the first failure found sets the
exit code (21 digest, 22 size, 23 frontmatter).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from inspector.commands import exitcodes
from inspector.commands.runner import CommandContext, CommandFailed
from inspector.core.checks.problems import Problem
from inspector.core.extensions.skill_entries import SkillEntry
from inspector.core.extensions.skills import (
    EXTENSION,
    FetchedFile,
    declares_skills,
    get_skill,
    list_skills,
    load_skill,
    read_skill_file,
)
from inspector.core.safetext import visible

__all__ = ["exit_code_for", "run_skills"]

# The rule of a finding -> the exit code it gives.  An unlisted file counts
# as a digest mismatch, as the extension says; an invalid entry is a protocol error.
RULE_CODES = {
    "skill-digest-mismatch": exitcodes.SKILL_DIGEST_MISMATCH,
    "skill-unlisted-file": exitcodes.SKILL_DIGEST_MISMATCH,
    "skill-size-mismatch": exitcodes.SKILL_SIZE_MISMATCH,
    "skill-frontmatter-mismatch": exitcodes.SKILL_FRONTMATTER,
    "skill-frontmatter-invalid": exitcodes.SKILL_FRONTMATTER,
    "skill-entry-invalid": exitcodes.PROTOCOL_ERROR,
}


def exit_code_for(problems: list[Problem]) -> int:
    """The code of the first error among the findings, in the order they were found."""
    for problem in problems:
        if problem.severity == "error" and problem.rule in RULE_CODES:
            return RULE_CODES[problem.rule]
    return exitcodes.OK


async def run_skills(ctx: CommandContext) -> int:
    """`inspector skills list|get NAME [--verify]`; returns the exit code."""
    if not declares_skills(ctx.client):
        raise CommandFailed(
            exitcodes.USAGE, f"the server does not declare the {EXTENSION} extension; skills/list was not sent"
        )
    if ctx.args.action == "list":
        if ctx.args.name:
            raise CommandFailed(exitcodes.USAGE, "skills list takes no name (did you mean skills get NAME?)")
        return await _list(ctx)
    if not ctx.args.name:
        raise CommandFailed(exitcodes.USAGE, "skills get needs a skill name or the URI of its SKILL.md")
    return await _get(ctx)


async def _list(ctx: CommandContext) -> int:
    listing = await list_skills(ctx.client, max_pages=ctx.args.max_pages)
    problems = [p for entry in listing.entries for p in entry.problems]
    for text in listing.problems:
        print(f"inspector: skills/list: {visible(text)}", file=sys.stderr)
    if ctx.out.json:
        value: dict[str, Any] = {"skills": [entry.raw for entry in listing.entries]}
        if problems:
            value["problems"] = [p.to_dict() for p in problems]
        ctx.out.json_value(value)
    else:
        if not listing.entries:
            ctx.out.line("(no skills listed: the server may still serve skills by URI)")
        for entry in listing.entries:
            files = entry.resources if isinstance(entry.resources, str) else f"{len(entry.resources or [])} file(s)"
            ctx.out.line(f"{entry.name}  {entry.uri}  ({files})")
            if entry.description:
                ctx.out.line(f"    {entry.description}")
        for problem in problems:
            ctx.out.line(str(problem))
    if not listing.complete:
        return exitcodes.PROTOCOL_ERROR
    return exit_code_for(problems)


async def _resolve(ctx: CommandContext, name: str) -> str:
    """The SKILL.md URI for a name (from the listing) or a URI given as is."""
    if "://" in name:
        return name
    listing = await list_skills(ctx.client, max_pages=ctx.args.max_pages)
    matches = listing.named(name)
    if not matches:
        raise CommandFailed(
            exitcodes.USAGE, f"no skill named {name!r} in skills/list; give the URI of its SKILL.md instead"
        )
    if len(matches) > 1:
        # Names are labels, not identifiers: several skills may share one.
        uris = ", ".join(entry.uri for entry in matches)
        raise CommandFailed(exitcodes.USAGE, f"{len(matches)} skills are named {name!r}: {uris}; give one URI")
    return matches[0].uri


async def _verify(ctx: CommandContext, entry: SkillEntry) -> list[FetchedFile]:
    if not entry.loadable:
        return []
    loaded = await load_skill(ctx.client, entry)
    fetched = [loaded]
    if not loaded.verified:
        # The skill is not loaded, so none of its other files is read.
        return fetched
    for uri in entry.files()[1:]:
        fetched.append(await read_skill_file(ctx.client, entry, uri))
    return fetched


def _file_record(entry: SkillEntry, fetched: FetchedFile | None, uri: str) -> dict[str, Any]:
    listed = entry.listed(uri)
    record: dict[str, Any] = {"uri": uri}
    if listed is not None:
        record.update(digest=listed.digest, size=listed.size)
    if fetched is None:
        record["read"] = False
        return record
    record["read"] = fetched.sent
    if fetched.data is not None:
        record["bytesRead"] = len(fetched.data)
    record["verified"] = fetched.verified
    return record


async def _get(ctx: CommandContext) -> int:
    uri = await _resolve(ctx, ctx.args.name)
    entry = await get_skill(ctx.client, uri)
    fetched = await _verify(ctx, entry) if ctx.args.verify else []
    by_uri = {f.uri: f for f in fetched}
    problems = [*entry.problems, *(p for f in fetched for p in f.problems)]
    if ctx.out.json:
        value: dict[str, Any] = {"skill": entry.raw}
        if ctx.args.verify:
            value["verification"] = {
                "loaded": bool(fetched) and all(f.verified for f in fetched),
                "files": [_file_record(entry, by_uri.get(u), u) for u in entry.files()],
            }
            skill_md = by_uri.get(entry.uri)
            if skill_md is not None and skill_md.verified:
                value["verification"]["skillMd"] = skill_md.text()
        value["problems"] = [p.to_dict() for p in problems]
        ctx.out.json_value(value)
    else:
        _print_entry(ctx, entry, by_uri if ctx.args.verify else None)
        for problem in problems:
            ctx.out.line(str(problem))
    return exit_code_for(problems)


def _print_entry(ctx: CommandContext, entry: SkillEntry, fetched: dict[str, FetchedFile] | None) -> None:
    ctx.out.line(f"{entry.name}  {entry.uri}")
    ctx.out.line("frontmatter:")
    for line in json.dumps(entry.frontmatter, indent=2, ensure_ascii=False).splitlines():
        ctx.out.line(f"  {line}")
    dynamic = isinstance(entry.resources, str)
    ctx.out.line("files: dynamic (no digests: nothing can be verified)" if dynamic else "files:")
    for uri in entry.files():
        listed = entry.listed(uri)
        facts = f"{listed.size} bytes  {listed.digest}" if listed is not None else ""
        state = ""
        if fetched is not None:
            got = fetched.get(uri)
            if got is None or not got.sent:
                state = "not read"
            elif dynamic and got.verified:
                state = "read (unverifiable)"
            else:
                state = "verified" if got.verified else "FAILED"
        ctx.out.line(f"  {uri}  {facts}  {state}".rstrip())
    skill_md = (fetched or {}).get(entry.uri)
    if skill_md is not None and skill_md.verified:
        ctx.out.line("── SKILL.md")
        ctx.out.lines(skill_md.text().splitlines())
