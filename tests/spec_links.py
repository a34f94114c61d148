"""Spec links checked against the spec itself: the page exists in that revision's
tree and the anchor is one of the page's headings.

The spec sources are the project's shared copy (``shared/spec`` beside the
repository, or ``$INSPECTOR_SPEC_DIR``): ``specification/<rev>/<page>.mdx`` or
``<page>/index.mdx``.  Anchors are the heading slugs the spec's own site makes:
lower case, punctuation (and ``_``) dropped, spaces to hyphens, so
``### `_meta``` is ``#meta`` and ``#### Tool Names`` is ``#tool-names`` (the
spec's own cross-links use exactly these).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from inspector.core.problems import SPEC_BASE

ROOT = Path(__file__).resolve().parent.parent
SPEC_DIR = Path(os.environ.get("INSPECTOR_SPEC_DIR", ROOT.parent / "shared" / "spec"))


def specification() -> Path:
    """The spec's page tree; a missing copy is a set-up failure, never a silent skip."""
    tree = SPEC_DIR / "specification"
    if not tree.is_dir():
        raise FileNotFoundError(f"{tree} is missing: set INSPECTOR_SPEC_DIR to the spec repository's copy")
    return tree


_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def slug(heading: str) -> str:
    text = _LINK.sub(r"\1", heading).replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text).replace("_", "")
    return text.replace(" ", "-")


def page_file(revision: str, page: str) -> Path | None:
    base = specification() / revision
    candidates = [base / f"{page}.mdx", base / page / "index.mdx"] if page else [base / "index.mdx"]
    return next((c for c in candidates if c.is_file()), None)


@cache
def anchors(path: Path) -> frozenset[str]:
    found: set[str] = set()
    fenced = False
    for line in path.read_text("utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match:
            found.add(slug(match.group(2)))
    return frozenset(found)


def pages(revision: str) -> set[str]:
    """Every page of a revision, as `spec_url` names them ("server/tools", "basic", "")."""
    root = specification() / revision
    out = set()
    for path in root.rglob("*.mdx"):
        name = path.relative_to(root).with_suffix("").as_posix()
        out.add("" if name == "index" else name.removesuffix("/index"))
    return out


def link_problem(url: str) -> str | None:
    """Why `url` does not point at an existing page and anchor of the spec (None when it does)."""
    if not url.startswith(SPEC_BASE + "/"):
        return f"not a spec link: {url}"
    where, _, anchor = url[len(SPEC_BASE) + 1 :].partition("#")
    revision, _, page = where.partition("/")
    found = page_file(revision, page)
    if found is None:
        return f"no page {page or '(index)'} in {revision}: {url}"
    if anchor and anchor not in anchors(found):
        return f"no heading #{anchor} on {revision}/{page}: {url}"
    return None


def assert_links(urls: Iterable[str]) -> None:
    problems = sorted({p for p in (link_problem(u) for u in urls if u) if p})
    assert not problems, "\n".join(problems)
