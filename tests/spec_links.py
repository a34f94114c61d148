"""Spec links checked against the spec itself: the page exists in that revision's
tree and the anchor is one of the page's headings.

The checks read `tests/spec_index.json`, an index of every page and heading of
every revision (and a digest of each revision's schema.json), built from the
spec's sources by `python scripts/spec_index.py` so the suite does not need
the sources at hand.  Where the sources are (``shared/spec`` beside the
repository, or ``$INSPECTOR_SPEC_DIR``), a test rebuilds the index and
compares.  Pages are ``specification/<rev>/<page>.mdx`` or
``<page>/index.mdx``.  Anchors are the heading slugs the spec's own site
makes: lower case, punctuation (and ``_``) dropped, spaces to hyphens, so
``### `_meta``` is ``#meta`` and ``#### Tool Names`` is ``#tool-names`` (the
spec's own cross-links use exactly these).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from inspector.core.checks.spec_pages import SPEC_BASE

ROOT = Path(__file__).resolve().parent.parent
SPEC_DIR = Path(os.environ.get("INSPECTOR_SPEC_DIR", ROOT.parent / "shared" / "spec"))
INDEX = ROOT / "tests" / "spec_index.json"


@cache
def index() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(INDEX.read_text("utf-8"))
    return loaded


_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def slug(heading: str) -> str:
    text = _LINK.sub(r"\1", heading).replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text).replace("_", "")
    return text.replace(" ", "-")


def _headings(path: Path) -> list[str]:
    found: set[str] = set()
    fenced = False
    for line in path.read_text("utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match:
            found.add(slug(match.group(2)))
    return sorted(found)


def canonical_digest(document: Any) -> str:
    return hashlib.sha256(json.dumps(document, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def build_index(spec_dir: Path) -> dict[str, Any]:
    """Every page (as `spec_url` names them: "server/tools", "basic", "") and
    its anchors, per revision; and the digest of each revision's schema.json."""
    tree = spec_dir / "specification"
    built: dict[str, Any] = {"pages": {}, "schemas": {}}
    for revision_dir in sorted(p for p in tree.iterdir() if p.is_dir()):
        pages: dict[str, list[str]] = {}
        for path in sorted(revision_dir.rglob("*.mdx")):
            name = path.relative_to(revision_dir).with_suffix("").as_posix()
            page = "" if name == "index" else name.removesuffix("/index")
            pages[page] = _headings(path)
        built["pages"][revision_dir.name] = pages
        schema = spec_dir / "schema" / revision_dir.name / "schema.json"
        if schema.is_file():
            built["schemas"][revision_dir.name] = canonical_digest(json.loads(schema.read_text("utf-8")))
    return built


def pages(revision: str) -> set[str]:
    return set(index()["pages"].get(revision, {}))


def page_anchors(revision: str, page: str) -> frozenset[str] | None:
    """The anchors of a page, or None when the revision has no such page."""
    found = index()["pages"].get(revision, {}).get(page)
    return frozenset(found) if found is not None else None


def link_problem(url: str) -> str | None:
    """Why `url` does not point at an existing page and anchor of the spec (None when it does)."""
    if not url.startswith(SPEC_BASE + "/"):
        return f"not a spec link: {url}"
    where, _, anchor = url[len(SPEC_BASE) + 1 :].partition("#")
    revision, _, page = where.partition("/")
    found = page_anchors(revision, page)
    if found is None:
        return f"no page {page or '(index)'} in {revision}: {url}"
    if anchor and anchor not in found:
        return f"no heading #{anchor} on {revision}/{page}: {url}"
    return None


def assert_links(urls: Iterable[str]) -> None:
    problems = sorted({p for p in (link_problem(u) for u in urls if u) if p})
    assert not problems, "\n".join(problems)
