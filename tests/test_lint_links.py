"""Every spec link that lint and the wire validation emit points at a page and a
heading that exist in that revision of the spec (shared/spec), for every
revision a session can negotiate.  See tests/spec_links.py for how anchors are
made from headings."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from inspector.core.checks.rules import RULES
from inspector.core.checks.spec_pages import MODEL_PAGES, PAGES, SPEC_BASE, spec_url
from inspector.core.protocol.versions import KNOWN_VERSIONS

from .spec_links import SPEC_DIR, assert_links, build_index, index, link_problem, page_anchors, pages, slug

REVISIONS = (None, *KNOWN_VERSIONS)


def test_the_slugs_are_the_ones_the_spec_links_to() -> None:
    assert slug("`_meta`") == "meta"
    assert slug("Tool Names") == "tool-names"
    assert slug("Tool with default 2020-12 schema:") == "tool-with-default-2020-12-schema"
    tools = page_anchors("2025-11-25", "server/tools")
    assert tools is not None and {"tool-names", "tool", "output-schema", "list-changed-notification"} <= tools
    old_tools = page_anchors("2025-06-18", "server/tools")
    assert old_tools is not None and "tool-names" not in old_tools
    basic = page_anchors("2025-11-25", "basic")
    assert basic is not None and "meta" in basic


def test_the_index_is_the_specs_own() -> None:
    """The committed index against the spec's sources, where they are here;
    elsewhere at least every revision the client speaks must be indexed."""
    stored = index()
    assert set(KNOWN_VERSIONS) <= set(stored["pages"]) and all(stored["pages"][rev] for rev in KNOWN_VERSIONS)
    if (SPEC_DIR / "specification").is_dir():
        assert build_index(SPEC_DIR) == stored, "tests/spec_index.json is stale: run scripts/spec_index.py"


def test_the_checker_catches_what_it_should() -> None:
    assert link_problem(f"{SPEC_BASE}/2025-06-18/server/tools#tool-names") is not None
    assert link_problem(f"{SPEC_BASE}/2024-11-05/changelog") is not None  # 2024-11-05 has no changelog
    assert link_problem(f"{SPEC_BASE}/2025-11-25/server/tools#tool-names") is None
    assert link_problem(f"{SPEC_BASE}/2026-07-28") is None


@pytest.mark.parametrize("revision", KNOWN_VERSIONS)
def test_the_page_list_matches_the_spec(revision: str) -> None:
    assert PAGES[revision] <= pages(revision)


@pytest.mark.parametrize("rule", RULES.values(), ids=lambda rule: rule.id)
def test_every_rule_links_an_existing_page_and_anchor_in_every_revision(rule: object) -> None:
    assert_links(rule.url(revision) for revision in REVISIONS)  # type: ignore[attr-defined]


def test_the_rule_lives_where_it_links() -> None:
    names = {rule.id: rule for rule in RULES.values()}
    # The "Tool Names" section exists from 2025-11-25; before it, a name's uniqueness is in the Tool data type.
    assert names["tool-name-duplicate"].url("2025-06-18") == f"{SPEC_BASE}/2025-06-18/server/tools#tool"
    assert names["tool-name-duplicate"].url("2025-11-25") == f"{SPEC_BASE}/2025-11-25/server/tools#tool-names"
    # The length and character rules exist only from 2025-11-25: always linked there or later.
    for rule_id in ("tool-name-length", "tool-name-chars"):
        assert names[rule_id].url("2024-11-05") == f"{SPEC_BASE}/2025-11-25/server/tools#tool-names"
        assert names[rule_id].url("2026-07-28") == f"{SPEC_BASE}/2026-07-28/server/tools#tool-names"
    # The `_meta` section of the basic page exists from 2025-06-18.
    assert names["wire-field-unknown"].url("2025-03-26") == f"{SPEC_BASE}/2025-03-26/basic"
    assert names["wire-field-unknown"].url("2025-06-18") == f"{SPEC_BASE}/2025-06-18/basic#meta"


def test_wire_schema_topic_pages_exist_in_every_revision() -> None:
    # A wire-schema problem links the topic page of the failing model (spec_pages.MODEL_PAGES).
    topics = {page for _prefix, page in MODEL_PAGES} | {"basic"}
    assert_links(spec_url(revision, page) for page in topics for revision in REVISIONS)


def test_changelog_links_of_newer_fields_and_values() -> None:
    # wire-field-newer and wire-value-newer link the changelog of the revision that added the thing.
    for revision in KNOWN_VERSIONS[1:]:
        url = spec_url(revision, "changelog")
        assert url == f"{SPEC_BASE}/{revision}/changelog"
        assert link_problem(url) is None


def test_rules_listing_links() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "lint", "--rules", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    listed = json.loads(done.stdout)["rules"]
    assert {rule["id"] for rule in listed} == {rule.id for rule in RULES.values()}
    for rule in listed:
        assert rule["rationale"] and rule["url"]
    assert_links(rule["url"] for rule in listed)
