"""Skills (SEP-2640, extension `io.modelcontextprotocol/skills`): list and get
skill entries, fetch a skill's files only when asked, and verify what comes
back against the entry (size, SHA-256 digest, frontmatter).

Verification failures are host-side findings, not protocol errors: each one
is a `Problem` naming the rule it breaks, so every face shows them the way
it shows the wire validation's findings.  Nothing here reads a file on its
own initiative (the extension forbids prefetching): `list_skills` and
`get_skill` only fetch entries; `load_skill` and `read_skill_file` are the
only calls that issue `resources/read`, and only for what the caller names.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from inspector.core.checks.problems import Problem
from inspector.core.extensions.skill_entries import (
    SkillEntry,
    SkillListing,
    check_frontmatter_fields,
    parse_entry,
)
from inspector.core.extensions.skill_rules import skill_problem
from inspector.core.extensions.skill_verification import (
    compare_frontmatter,
    content_bytes,
    parse_frontmatter,
    verify_content,
)
from inspector.core.protocol.errors import JsonRpcError

if TYPE_CHECKING:
    from inspector.core.protocol.client import Client

__all__ = [
    "EXTENSION",
    "FetchedFile",
    "declares_skills",
    "get_skill",
    "list_skills",
    "load_skill",
    "read_skill_file",
    "record_failures",
]

EXTENSION = "io.modelcontextprotocol/skills"
DEFAULT_MAX_PAGES = 1000


@dataclass
class FetchedFile:
    """One file read for a skill, and what its verification found."""

    uri: str
    data: bytes | None = None
    result: Any = None
    problems: list[Problem] = field(default_factory=list)
    # False when nothing was asked of the server (an unlisted file is refused locally).
    sent: bool = True

    @property
    def verified(self) -> bool:
        """Whether the file was read and its checks found no error."""
        return self.data is not None and not any(p.severity == "error" for p in self.problems)

    def text(self) -> str:
        """The file's bytes as text (undecodable bytes as U+FFFD; "" when nothing was read)."""
        return (self.data or b"").decode("utf-8", errors="replace")


def declares_skills(client: Client) -> bool:
    """Whether the server declares the skills extension in its capabilities."""
    extensions = client.server_capabilities.get("extensions")
    return isinstance(extensions, dict) and EXTENSION in extensions


async def list_skills(client: Client, *, max_pages: int = DEFAULT_MAX_PAGES) -> SkillListing:
    """Every page of `skills/list` (entries only: no file is read)."""
    listing = SkillListing()
    cursor: str | None = None
    seen: set[str] = set()
    for page_number in range(1, max_pages + 1):
        params = {"cursor": cursor} if cursor is not None else {}
        try:
            result = await client.request("skills/list", params)
        except JsonRpcError as exc:
            if page_number == 1:
                raise
            listing.problems.append(f"page {page_number} failed: {exc.message} (code {exc.code})")
            listing.complete = False
            return listing
        listing.pages.append(result)
        if not isinstance(result, dict):
            listing.problems.append(f"page {page_number}: the result is not an object")
            listing.complete = False
            return listing
        skills = result.get("skills")
        if not isinstance(skills, list):
            listing.problems.append(f"page {page_number}: 'skills' is missing or not an array")
            skills = []
        base = len(listing.entries)
        listing.entries += [parse_entry(raw, f"skills[{base + i}]") for i, raw in enumerate(skills)]
        next_cursor = result.get("nextCursor")
        if next_cursor is None:
            return listing
        if not isinstance(next_cursor, str) or next_cursor in seen:
            listing.problems.append(f"page {page_number}: nextCursor {next_cursor!r} is not a new string; stopped")
            listing.complete = False
            return listing
        seen.add(next_cursor)
        cursor = next_cursor
    listing.problems.append(f"stopped after {max_pages} pages; the server still offered a nextCursor")
    listing.complete = False
    return listing


async def get_skill(client: Client, uri: str) -> SkillEntry:
    """`skills/get` for the SKILL.md at `uri` (the entry only: no file is read)."""
    result = await client.request("skills/get", {"uri": uri})
    skill = result.get("skill") if isinstance(result, dict) else None
    entry = parse_entry(skill, "result.skill")
    if isinstance(skill, dict) and skill.get("uri") != uri:
        entry.problems.append(
            skill_problem("skill-entry-invalid", f"skills/get for {uri} answered with another skill", entry.uri)
        )
    return entry


def _last_read_answer(client: Client) -> int | None:
    for frame in reversed(client.traffic.frames[-50:]):
        if frame.kind == "response" and frame.method == "resources/read":
            return frame.seq
    return None


def record_failures(client: Client, fetched: FetchedFile) -> None:
    """A failed verification goes to the traffic log as a local frame carrying
    its findings, so the Problems tab counts it and points at the answer."""
    errors = [p for p in fetched.problems if p.severity == "error"]
    if not errors:
        return
    seq = _last_read_answer(client) if fetched.sent else None
    findings = [replace(p, seq=seq) for p in errors]
    frame = client.traffic.add(
        "local",
        "transport",
        note=f"skill file {fetched.uri} failed verification ({', '.join(sorted({p.rule for p in errors}))})",
        problems=[p.message for p in errors],
        meta={"answer": seq, "findings": [p.to_dict() for p in findings]},
    )
    frame.findings = findings


async def read_skill_file(client: Client, entry: SkillEntry, uri: str) -> FetchedFile:
    """Read one of the skill's files and verify it; an unlisted file is refused without a request."""
    fetched = await _read_skill_file(client, entry, uri)
    if uri != entry.uri:
        record_failures(client, fetched)
    return fetched


async def _read_skill_file(client: Client, entry: SkillEntry, uri: str) -> FetchedFile:
    fetched = FetchedFile(uri)
    subject = f"skill {entry.uri}"
    if entry.resources is None:
        fetched.sent = False
        fetched.problems.append(skill_problem("skill-entry-invalid", "the entry is invalid: nothing is read", subject))
        return fetched
    if isinstance(entry.resources, list) and entry.listed(uri) is None:
        fetched.sent = False
        fetched.problems.append(
            skill_problem("skill-unlisted-file", "not in the entry's resources; not read", subject, uri)
        )
        return fetched
    fetched.result = await client.read_resource(uri)
    data, why = content_bytes(fetched.result, uri)
    if data is None:
        fetched.problems.append(skill_problem("skill-digest-mismatch", why, subject, uri))
        return fetched
    fetched.data = data
    fetched.problems += verify_content(entry, uri, data)
    return fetched


async def load_skill(client: Client, entry: SkillEntry) -> FetchedFile:
    """Read the skill's SKILL.md, verify it, and compare its frontmatter with the entry's."""
    fetched = await _load_skill(client, entry)
    record_failures(client, fetched)
    return fetched


async def _load_skill(client: Client, entry: SkillEntry) -> FetchedFile:
    fetched = await _read_skill_file(client, entry, entry.uri)
    if fetched.data is None or any(p.severity == "error" for p in fetched.problems):
        return fetched
    parsed, why = parse_frontmatter(fetched.text())
    subject = f"skill {entry.uri}"
    if parsed is None:
        fetched.problems.append(skill_problem("skill-frontmatter-invalid", why, subject, entry.uri))
        return fetched
    fetched.problems += check_frontmatter_fields(parsed, entry.uri, subject, "SKILL.md's frontmatter")
    fetched.problems += compare_frontmatter(entry, parsed)
    return fetched
