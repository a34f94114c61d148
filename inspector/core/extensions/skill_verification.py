"""Verifying what a skill's file read brings back against the skill's entry:
the size first, then the SHA-256 digest, and for the SKILL.md its YAML
frontmatter, field by field.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from typing import TYPE_CHECKING, Any

from inspector.core.checks.problems import Problem
from inspector.core.extensions.skill_rules import skill_problem

if TYPE_CHECKING:
    from inspector.core.extensions.skill_entries import SkillEntry
    from inspector.forms.values import JSONObject

__all__ = ["compare_frontmatter", "content_bytes", "parse_frontmatter", "verify_content"]

# A SKILL.md's frontmatter bigger than this is refused unparsed (YAML
# aliases can expand a small text into a huge object).
MAX_FRONTMATTER_CHARS = 256 * 1024
MAX_FRONTMATTER_NODES = 100_000
FRONTMATTER = re.compile(r"^---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|$)", re.DOTALL)


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
        return [
            skill_problem("skill-size-mismatch", f"{len(data)} bytes read, the entry lists {listed.size}", subject, uri)
        ]
    actual = "sha256:" + hashlib.sha256(data).hexdigest()
    if actual != listed.digest:
        return [skill_problem("skill-digest-mismatch", f"read {actual}, the entry lists {listed.digest}", subject, uri)]
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
    """A mismatch problem for each key on which SKILL.md's frontmatter and the entry's disagree (or that one lacks)."""
    subject = f"skill {entry.uri}"
    problems = []
    for key in sorted(set(parsed) | set(entry.frontmatter), key=str):
        in_file, in_entry = parsed.get(key), entry.frontmatter.get(key)
        if key not in parsed or key not in entry.frontmatter or in_file != in_entry:
            problems.append(
                skill_problem(
                    "skill-frontmatter-mismatch",
                    f"{key}: SKILL.md has {json.dumps(in_file)[:200]}, the entry has {json.dumps(in_entry)[:200]}",
                    subject,
                    f"frontmatter.{key}",
                )
            )
    return problems
