"""A skill entry as `skills/list` and `skills/get` send it, leniently parsed:
the `Skill` shape (uri, frontmatter, resources with digest and size), with a
problem for each way an entry breaks it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.core.checks.problems import Problem
from inspector.core.extensions.skill_rules import skill_problem

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject

__all__ = [
    "SkillEntry",
    "SkillFile",
    "SkillListing",
    "check_frontmatter_fields",
    "final_segment",
    "parse_entry",
]

DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
# The extension's per-skill limits (a host must accept up to these).
MAX_RESOURCES = 512
MAX_TOTAL_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class SkillFile:
    """One file a skill entry lists: its URI, `sha256:` digest and size in bytes."""

    uri: str
    digest: str
    size: int


@dataclass
class SkillEntry:
    """A `Skill` entry as the server sent it (`raw`), leniently parsed."""

    uri: str
    frontmatter: JSONObject
    # The listed files, "dynamic", or None when the entry is invalid.
    resources: list[SkillFile] | str | None
    raw: Any
    problems: list[Problem] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The frontmatter's `name`, else the name the URI carries."""
        name = self.frontmatter.get("name")
        return name if isinstance(name, str) else final_segment(self.uri)

    @property
    def description(self) -> str:
        """The frontmatter's `description` ("" without one)."""
        description = self.frontmatter.get("description")
        return description if isinstance(description, str) else ""

    @property
    def loadable(self) -> bool:
        """Whether the entry can be read: its resources parse and no problem is an error."""
        return self.resources is not None and not any(p.severity == "error" for p in self.problems)

    def listed(self, uri: str) -> SkillFile | None:
        """The listed file at `uri` (None when the entry lists no such file, or lists none)."""
        if isinstance(self.resources, list):
            return next((f for f in self.resources if f.uri == uri), None)
        return None

    def files(self) -> list[str]:
        """The listed file URIs, SKILL.md first."""
        if not isinstance(self.resources, list):
            return [self.uri]
        rest = [f.uri for f in self.resources if f.uri != self.uri]
        return [self.uri, *rest]


@dataclass
class SkillListing:
    """What `skills/list` gave over its pages: the entries, the raw pages, problems, and whether every page came."""

    entries: list[SkillEntry] = field(default_factory=list)
    pages: list[Any] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    complete: bool = True

    def named(self, name: str) -> list[SkillEntry]:
        """Entries whose name or URI is `name` (names need not be unique)."""
        return [e for e in self.entries if name in (e.name, e.uri)]


def final_segment(uri: str) -> str:
    """The skill name the URI of a SKILL.md carries (its directory's name), or ""."""
    _scheme, found, rest = uri.partition("://")
    parts = [p for p in (rest if found else uri).split("/") if p]
    return parts[-2] if len(parts) >= 2 and parts[-1] == "SKILL.md" else ""


def check_frontmatter_fields(frontmatter: JSONObject, uri: str, subject: str, where: str) -> list[Problem]:
    """Problems with a frontmatter's `name` and `description`: missing or empty, or a name that is not the
    directory the URI names."""
    problems = []
    for key in ("name", "description"):
        value = frontmatter.get(key)
        if not isinstance(value, str) or not value:
            problems.append(skill_problem("skill-frontmatter-invalid", f"{where} has no non-empty {key}", subject))
    name = frontmatter.get("name")
    segment = final_segment(uri)
    if isinstance(name, str) and name and segment and segment != name:
        problems.append(
            skill_problem(
                "skill-frontmatter-invalid",
                f"{where} name {name!r} differs from the skill path's final segment {segment!r}",
                subject,
            )
        )
    return problems


def parse_entry(raw: Any, where: str = "skill") -> SkillEntry:
    """The entry, with a problem for each way it breaks the `Skill` shape."""
    if not isinstance(raw, dict):
        entry = SkillEntry(uri="", frontmatter={}, resources=None, raw=raw)
        entry.problems.append(skill_problem("skill-entry-invalid", "the entry is not an object", where))
        return entry
    uri = raw.get("uri")
    subject = f"skill {uri}" if isinstance(uri, str) else where
    entry = SkillEntry(uri=uri if isinstance(uri, str) else "", frontmatter={}, resources=None, raw=raw)
    if not isinstance(uri, str) or not uri:
        entry.problems.append(skill_problem("skill-entry-invalid", "uri is missing or not a string", subject, "uri"))
    elif not uri.endswith("/SKILL.md"):
        entry.problems.append(skill_problem("skill-entry-invalid", "uri does not name a SKILL.md", subject, "uri"))
    frontmatter = raw.get("frontmatter")
    if isinstance(frontmatter, dict):
        entry.frontmatter = frontmatter
        entry.problems += check_frontmatter_fields(frontmatter, entry.uri, subject, "the entry's frontmatter")
    else:
        entry.problems.append(
            skill_problem(
                "skill-frontmatter-invalid", "frontmatter is missing or not an object", subject, "frontmatter"
            )
        )
    entry.resources = _parse_resources(raw.get("resources"), entry, subject)
    return entry


def _parse_resources(value: Any, entry: SkillEntry, subject: str) -> list[SkillFile] | str | None:
    if value == "dynamic":
        entry.problems.append(
            skill_problem("skill-dynamic", 'resources is "dynamic": nothing can be verified', subject)
        )
        return "dynamic"
    if not isinstance(value, list):
        message = "resources is missing" if value is None else 'resources is neither an array nor "dynamic"'
        entry.problems.append(skill_problem("skill-entry-invalid", message, subject, "resources"))
        return None
    return _parse_files(value, entry, subject)


def _listed_file(item: Any, seen: set[str]) -> SkillFile | str:
    """One item of `resources` as a file, or why it breaks the shape."""
    if not isinstance(item, dict):
        return "not an object"
    uri, digest, size = item.get("uri"), item.get("digest"), item.get("size")
    reasons = []
    if not isinstance(uri, str) or not uri:
        reasons.append("uri is missing or not a string")
    elif uri in seen:
        reasons.append(f"{uri} is listed twice")
    if not isinstance(digest, str) or not DIGEST.match(digest):
        reasons.append("digest is not sha256: and 64 lowercase hex digits")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        reasons.append("size is not a non-negative integer")
    if reasons:
        return "; ".join(reasons)
    assert isinstance(uri, str) and isinstance(digest, str) and isinstance(size, int)
    return SkillFile(uri, digest, size)


def _parse_files(value: list[Any], entry: SkillEntry, subject: str) -> list[SkillFile] | None:
    """The listed files, or None when any item breaks the shape (each one a problem)."""
    files: list[SkillFile] = []
    seen: set[str] = set()
    broken = False
    for index, item in enumerate(value):
        listed = _listed_file(item, seen)
        if isinstance(listed, str):
            entry.problems.append(skill_problem("skill-entry-invalid", listed, subject, f"resources[{index}]"))
            broken = True
            continue
        seen.add(listed.uri)
        files.append(listed)
    if entry.uri and entry.uri not in seen and not broken:
        entry.problems.append(
            skill_problem("skill-entry-invalid", "resources does not list the SKILL.md itself", subject, "resources")
        )
    total = sum(f.size for f in files)
    if len(value) > MAX_RESOURCES or total > MAX_TOTAL_BYTES:
        entry.problems.append(skill_problem("skill-limits", f"{len(value)} files, {total} bytes", subject, "resources"))
    return None if broken else files
