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

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from inspector.core.checks.problems import Problem, Rule
from inspector.core.protocol.errors import JsonRpcError

if TYPE_CHECKING:
    from inspector.core.protocol.client import Client
    from inspector.forms.values import JSONObject

__all__ = [
    "EXTENSION",
    "SKILL_RULES",
    "FetchedFile",
    "SkillEntry",
    "SkillFile",
    "SkillListing",
    "declares_skills",
    "get_skill",
    "list_skills",
    "load_skill",
    "parse_entry",
    "parse_frontmatter",
    "read_skill_file",
    "verify_content",
]

EXTENSION = "io.modelcontextprotocol/skills"
SPEC_PAGE = "https://modelcontextprotocol.io/extensions/skills"
DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
# The extension's per-skill limits (a host must accept up to these).
MAX_RESOURCES = 512
MAX_TOTAL_BYTES = 16 * 1024 * 1024
# A SKILL.md's frontmatter bigger than this is refused unparsed (YAML
# aliases can expand a small text into a huge object).
MAX_FRONTMATTER_CHARS = 256 * 1024
MAX_FRONTMATTER_NODES = 100_000
DEFAULT_MAX_PAGES = 1000
FRONTMATTER = re.compile(r"^---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|$)", re.DOTALL)


class _SkillRule(Rule):
    """A rule of the skills extension: its spec is the extension's page, not a base-protocol page."""

    __slots__ = ()

    def url(self, revision: str | None = None) -> str:
        return f"{SPEC_PAGE}#{self.anchor}" if self.anchor else SPEC_PAGE


_rule = partial(_SkillRule, page="", category="skills")

SKILL_RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in (
        _rule(
            "skill-digest-mismatch",
            "error",
            "a skill file's bytes do not hash to the digest its entry lists",
            anchor="verification-on-read",
            spec="When a host retrieves a file listed in a skill's resources, it MUST verify the content against "
            "that entry's digest and size. [...] hosts MUST NOT use the unverified content.",
        ),
        _rule(
            "skill-size-mismatch",
            "error",
            "a skill file's byte length differs from the size its entry lists",
            anchor="resources",
            spec="A read whose byte length differs from the entry's size is a verification failure equivalent to "
            "a digest mismatch, whether or not the host goes on to compute the digest.",
        ),
        _rule(
            "skill-frontmatter-mismatch",
            "error",
            "the SKILL.md frontmatter differs from the entry's frontmatter",
            anchor="frontmatter-verification",
            spec="hosts MUST parse its YAML frontmatter and compare it field-by-field against the entry's "
            "frontmatter. Any discrepancy MUST be treated as a verification failure equivalent to a digest "
            "mismatch, and the skill MUST NOT be loaded.",
        ),
        _rule(
            "skill-frontmatter-invalid",
            "error",
            "a skill's frontmatter is missing, unparseable, or lacks name or description, or name does not "
            "match the skill path",
            anchor="skill-format",
            spec="SKILL.md MUST begin with YAML frontmatter containing at minimum the name and description fields. "
            "The final <skill-path> segment of the entry's uri MUST equal frontmatter.name.",
        ),
        _rule(
            "skill-unlisted-file",
            "error",
            "a read of a file the skill's entry does not list (refused without asking the server)",
            anchor="the-acting-window-and-the-held-entry",
            spec="A host MUST treat a read of an unlisted file within the skill as a verification failure "
            "equivalent to a digest mismatch.",
        ),
        _rule(
            "skill-entry-invalid",
            "error",
            "a skill entry breaks the Skill shape (uri, frontmatter, resources with digest and size)",
            anchor="skill-entries",
            spec="resources is REQUIRED on every skill entry [...] An entry with no resources at all, or with any "
            'value other than an array or "dynamic", is invalid, and hosts MUST NOT load it.',
        ),
        _rule(
            "skill-limits",
            "warning",
            "a skill lists more than 512 files or more than 16 MiB in total",
            anchor="limits",
            spec="Servers SHOULD NOT serve a skill that exceeds either limit.",
        ),
        _rule(
            "skill-dynamic",
            "info",
            "a dynamic skill publishes no digests, so its files cannot be verified",
            anchor="resources",
            spec='A skill whose resources is "dynamic" offers no content integrity and cannot be content-bound.',
        ),
    )
}


def _problem(rule: str, message: str, subject: str = "", path: str = "") -> Problem:
    return SKILL_RULES[rule].problem(message, subject=subject, path=path)


@dataclass(frozen=True, slots=True)
class SkillFile:
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
        name = self.frontmatter.get("name")
        return name if isinstance(name, str) else final_segment(self.uri)

    @property
    def description(self) -> str:
        description = self.frontmatter.get("description")
        return description if isinstance(description, str) else ""

    @property
    def loadable(self) -> bool:
        return self.resources is not None and not any(p.severity == "error" for p in self.problems)

    def listed(self, uri: str) -> SkillFile | None:
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
    entries: list[SkillEntry] = field(default_factory=list)
    pages: list[Any] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    complete: bool = True

    def named(self, name: str) -> list[SkillEntry]:
        """Entries whose name or URI is `name` (names need not be unique)."""
        return [e for e in self.entries if name in (e.name, e.uri)]


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
        return self.data is not None and not any(p.severity == "error" for p in self.problems)

    def text(self) -> str:
        return (self.data or b"").decode("utf-8", errors="replace")


def final_segment(uri: str) -> str:
    """The skill name the URI of a SKILL.md carries (its directory's name), or ""."""
    _scheme, found, rest = uri.partition("://")
    parts = [p for p in (rest if found else uri).split("/") if p]
    return parts[-2] if len(parts) >= 2 and parts[-1] == "SKILL.md" else ""


def declares_skills(client: Client) -> bool:
    extensions = client.server_capabilities.get("extensions")
    return isinstance(extensions, dict) and EXTENSION in extensions


def _check_frontmatter_fields(frontmatter: JSONObject, uri: str, subject: str, where: str) -> list[Problem]:
    problems = []
    for key in ("name", "description"):
        value = frontmatter.get(key)
        if not isinstance(value, str) or not value:
            problems.append(_problem("skill-frontmatter-invalid", f"{where} has no non-empty {key}", subject))
    name = frontmatter.get("name")
    segment = final_segment(uri)
    if isinstance(name, str) and name and segment and segment != name:
        problems.append(
            _problem(
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
        entry.problems.append(_problem("skill-entry-invalid", "the entry is not an object", where))
        return entry
    uri = raw.get("uri")
    subject = f"skill {uri}" if isinstance(uri, str) else where
    entry = SkillEntry(uri=uri if isinstance(uri, str) else "", frontmatter={}, resources=None, raw=raw)
    if not isinstance(uri, str) or not uri:
        entry.problems.append(_problem("skill-entry-invalid", "uri is missing or not a string", subject, "uri"))
    elif not uri.endswith("/SKILL.md"):
        entry.problems.append(_problem("skill-entry-invalid", "uri does not name a SKILL.md", subject, "uri"))
    frontmatter = raw.get("frontmatter")
    if isinstance(frontmatter, dict):
        entry.frontmatter = frontmatter
        entry.problems += _check_frontmatter_fields(frontmatter, entry.uri, subject, "the entry's frontmatter")
    else:
        entry.problems.append(
            _problem("skill-frontmatter-invalid", "frontmatter is missing or not an object", subject, "frontmatter")
        )
    entry.resources = _parse_resources(raw.get("resources"), entry, subject)
    return entry


def _parse_resources(value: Any, entry: SkillEntry, subject: str) -> list[SkillFile] | str | None:
    if value == "dynamic":
        entry.problems.append(_problem("skill-dynamic", 'resources is "dynamic": nothing can be verified', subject))
        return "dynamic"
    if not isinstance(value, list):
        message = "resources is missing" if value is None else 'resources is neither an array nor "dynamic"'
        entry.problems.append(_problem("skill-entry-invalid", message, subject, "resources"))
        return None
    files: list[SkillFile] = []
    seen: set[str] = set()
    broken = False
    for index, item in enumerate(value):
        path = f"resources[{index}]"
        if not isinstance(item, dict):
            entry.problems.append(_problem("skill-entry-invalid", "not an object", subject, path))
            broken = True
            continue
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
            entry.problems.append(_problem("skill-entry-invalid", "; ".join(reasons), subject, path))
            broken = True
            continue
        assert isinstance(uri, str) and isinstance(digest, str) and isinstance(size, int)
        seen.add(uri)
        files.append(SkillFile(uri, digest, size))
    if entry.uri and entry.uri not in seen and not broken:
        entry.problems.append(
            _problem("skill-entry-invalid", "resources does not list the SKILL.md itself", subject, "resources")
        )
    if len(value) > MAX_RESOURCES or sum(f.size for f in files) > MAX_TOTAL_BYTES:
        total = sum(f.size for f in files)
        entry.problems.append(_problem("skill-limits", f"{len(value)} files, {total} bytes", subject, "resources"))
    return None if broken else files


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
            _problem("skill-entry-invalid", f"skills/get for {uri} answered with another skill", entry.uri)
        )
    return entry


def content_bytes(result: Any, uri: str) -> tuple[bytes | None, str]:
    """The raw bytes of the file in a `resources/read` result, or (None, why not)."""
    contents = result.get("contents") if isinstance(result, dict) else None
    if not isinstance(contents, list) or not contents:
        return None, "the result has no contents"
    entries = [c for c in contents if isinstance(c, dict)]
    chosen = next((c for c in entries if c.get("uri") == uri), entries[0] if entries else None)
    if chosen is None:
        return None, "the result's contents hold no object"
    if isinstance(chosen.get("text"), str):
        # A lone surrogate cannot be UTF-8; kept as its escape, it fails the digest as it should.
        return chosen["text"].encode("utf-8", errors="surrogatepass"), ""
    if isinstance(chosen.get("blob"), str):
        try:
            return base64.b64decode(chosen["blob"], validate=True), ""
        except (binascii.Error, ValueError):
            return None, "blob is not valid base64"
    return None, "the content has neither text nor blob"


def verify_content(entry: SkillEntry, uri: str, data: bytes) -> list[Problem]:
    """Size first (a wrong length fails without hashing), then the digest."""
    listed = entry.listed(uri)
    if listed is None:
        return []
    subject = f"skill {entry.uri}"
    if len(data) != listed.size:
        return [_problem("skill-size-mismatch", f"{len(data)} bytes read, the entry lists {listed.size}", subject, uri)]
    actual = "sha256:" + hashlib.sha256(data).hexdigest()
    if actual != listed.digest:
        return [_problem("skill-digest-mismatch", f"read {actual}, the entry lists {listed.digest}", subject, uri)]
    return []


def parse_frontmatter(text: str) -> tuple[JSONObject | None, str]:
    """The YAML frontmatter at the start of a SKILL.md as JSON values, or (None, why not)."""
    match = FRONTMATTER.match(text.removeprefix("\ufeff"))
    if match is None:
        return None, "SKILL.md does not begin with a --- delimited frontmatter block"
    if len(match.group(1)) > MAX_FRONTMATTER_CHARS:
        return None, f"the frontmatter is longer than {MAX_FRONTMATTER_CHARS} characters"
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        value = YAML(typ="safe", pure=True).load(match.group(1))
    except (YAMLError, ValueError, RecursionError) as exc:
        return None, f"the frontmatter is not valid YAML: {str(exc).splitlines()[0] if str(exc) else exc!r}"
    if not isinstance(value, dict):
        return None, "the frontmatter is not a mapping"
    try:
        return _as_json(value, [MAX_FRONTMATTER_NODES]), ""
    except (ValueError, RecursionError) as exc:
        return None, f"the frontmatter cannot be rendered as JSON: {exc}"


def _as_json(value: Any, budget: list[int]) -> Any:
    """The YAML value as JSON would carry it (dates become their ISO text), so it
    compares with the entry's.  YAML aliases share one object many times over;
    walked as a tree that can be astronomically large, hence the node budget."""
    budget[0] -= 1
    if budget[0] < 0:
        raise ValueError(f"more than {MAX_FRONTMATTER_NODES} values (aliases expanded)")
    if isinstance(value, dict):
        return {str(k): _as_json(v, budget) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_json(v, budget) for v in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def compare_frontmatter(entry: SkillEntry, parsed: JSONObject) -> list[Problem]:
    subject = f"skill {entry.uri}"
    problems = []
    for key in sorted(set(parsed) | set(entry.frontmatter), key=str):
        in_file, in_entry = parsed.get(key), entry.frontmatter.get(key)
        if key not in parsed or key not in entry.frontmatter or in_file != in_entry:
            problems.append(
                _problem(
                    "skill-frontmatter-mismatch",
                    f"{key}: SKILL.md has {json.dumps(in_file)[:200]}, the entry has {json.dumps(in_entry)[:200]}",
                    subject,
                    f"frontmatter.{key}",
                )
            )
    return problems


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
        fetched.problems.append(_problem("skill-entry-invalid", "the entry is invalid: nothing is read", subject))
        return fetched
    if isinstance(entry.resources, list) and entry.listed(uri) is None:
        fetched.sent = False
        fetched.problems.append(_problem("skill-unlisted-file", "not in the entry's resources; not read", subject, uri))
        return fetched
    fetched.result = await client.read_resource(uri)
    data, why = content_bytes(fetched.result, uri)
    if data is None:
        fetched.problems.append(_problem("skill-digest-mismatch", why, subject, uri))
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
        fetched.problems.append(_problem("skill-frontmatter-invalid", why, subject, entry.uri))
        return fetched
    fetched.problems += _check_frontmatter_fields(parsed, entry.uri, subject, "SKILL.md's frontmatter")
    fetched.problems += compare_frontmatter(entry, parsed)
    return fetched
