"""The Skills tab against our skills server: it appears for a server that
declares the extension, lists entries without reading a file, and reads and
verifies a file only when the person presses enter on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Static, TabbedContent

from inspector.core.servers.spec import ServerSpec, demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.problems import ProblemsPane
from inspector.tui.panes.skills import SkillsPane

from .peers import PYTHON, SERVERS
from .tui_helpers import settle, wait_connected, wait_for

pytestmark = pytest.mark.usefixtures("own_config")


def reads(log: Path) -> list[str]:
    if not log.exists():
        return []
    asked = [json.loads(line) for line in log.read_text().splitlines()]
    return [m["params"]["uri"] for m in asked if m["method"] == "resources/read"]


def shown(app: InspectorApp, widget_id: str) -> str:
    return str(app.query_one(f"#{widget_id}", Static).render())


def tab_shown(app: InspectorApp, tab: str) -> bool:
    tabs = app.query_one("#main", TabbedContent)
    return not tabs.get_tab(tab).has_class("-hidden") and tabs.get_tab(tab).display


async def open_skill(pilot: object, app: InspectorApp, index: int) -> SkillsPane:
    pane = app.query_one(SkillsPane)
    await wait_for(pilot, lambda: len(pane.entries) == 8, "the skills listed")  # type: ignore[arg-type]
    app.query_one("#main", TabbedContent).active = "skills"
    pane.skill_list.focus_list()
    pane.skill_list.highlight_index(index)
    await wait_for(pilot, lambda: pane.current is pane.entries[index], "the skill shown")  # type: ignore[arg-type]
    return pane


async def test_skills_tab_reads_and_verifies_on_request(tmp_path: Path) -> None:
    log = tmp_path / "asked.jsonl"
    app = InspectorApp(ServerSpec(command=PYTHON, args=[str(SERVERS / "skills_server.py"), str(log)], timeout=30))
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_connected(pilot, app)
        await wait_for(pilot, lambda: tab_shown(app, "skills"), "the Skills tab")
        pane = await open_skill(pilot, app, 0)
        entry_text = shown(app, "skill-entry-text")
        assert "pdf-processing" in entry_text and "Extract, fill, and assemble PDF documents" in entry_text
        assert "skill://pdf-processing/references/FORMS.md  23 bytes  sha256:" in entry_text
        await settle(pilot)
        # Listed and shown: not a file read yet.
        assert reads(log) == []

        # enter on the skill, then enter on its SKILL.md: read, verified, shown.
        await pilot.press("enter")
        await wait_for(pilot, lambda: pane.file_list.has_focus_within, "the files list focused")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "verified" in shown(app, "skill-read-text"), "SKILL.md verified")
        assert "See references/FORMS.md." in shown(app, "skill-read-text")
        assert reads(log) == ["skill://pdf-processing/SKILL.md"]

        # A tampered skill: the failure names its rule.
        pane = await open_skill(pilot, app, 3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: pane.file_list.has_focus_within, "the files list focused")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "verification failed" in shown(app, "skill-read-text"), "the failure")
        assert "[skill-digest-mismatch]" in shown(app, "skill-read-text")
        # ... and it is a problem in the Problems tab, pointing at the read's answer.
        problems = app.query_one(ProblemsPane)
        await wait_for(pilot, lambda: any(p.rule == "skill-digest-mismatch" for p in problems.problems), "problem")
        [found] = [p for p in problems.problems if p.rule == "skill-digest-mismatch"]
        answer = app.traffic.by_seq(found.seq or 0)
        assert answer is not None and answer.method == "resources/read" and answer.kind == "response"


async def test_no_skills_tab_for_a_server_without_skills() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_connected(pilot, app)
        await settle(pilot)
        assert not tab_shown(app, "skills")


async def test_f11_escape_and_the_files_marks_as_a_person_reads_them(tmp_path: Path) -> None:
    """F11 reaches the tab from anywhere; enter goes into a skill's files and
    escape back to the skills; each file read is marked with what its check found."""
    from inspector.tui.panes.skills import file_row

    log = tmp_path / "asked.jsonl"
    app = InspectorApp(ServerSpec(command=PYTHON, args=[str(SERVERS / "skills_server.py"), str(log)], timeout=30))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_connected(pilot, app)
        pane = app.query_one(SkillsPane)
        await wait_for(pilot, lambda: len(pane.entries) == 8, "the skills listed")
        await pilot.press("f11")
        await wait_for(pilot, lambda: pane.skill_list.options.has_focus, "focus on the skills list")
        assert app.query_one("#main", TabbedContent).active == "skills"

        def marks() -> list[str]:
            entry = pane.current
            assert entry is not None
            return [str(file_row(entry, uri, pane.fetched.get((entry.uri, uri))))[:2] for uri in entry.files()]

        await pilot.press("enter")
        await wait_for(pilot, lambda: pane.file_list.options.has_focus, "focus on the files")
        assert marks() == ["· ", "· ", "· "]
        await pilot.press("enter")
        await wait_for(pilot, lambda: "verified" in shown(app, "skill-read-text"), "SKILL.md verified")
        assert "size and digest and its frontmatter match the entry" in shown(app, "skill-read-text")
        assert marks() == ["✔ ", "· ", "· "]
        # escape: back to the skills, down to the tampered one (a page further on).
        await pilot.press("escape")
        await wait_for(pilot, lambda: pane.skill_list.options.has_focus, "focus back on the skills")
        await pilot.press("down", "down", "down")
        await wait_for(pilot, lambda: pane.current is pane.entries[3], "the tampered skill shown")
        await pilot.press("enter", "enter")
        await wait_for(pilot, lambda: "verification failed" in shown(app, "skill-read-text"), "the failure")
        assert marks() == ["✖ "]
        assert reads(log) == ["skill://pdf-processing/SKILL.md", "skill://tampered-digest/SKILL.md"]


async def test_f11_on_a_server_without_skills_says_why_the_tab_is_empty() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_connected(pilot, app)
        await settle(pilot)
        assert not tab_shown(app, "skills")
        await pilot.press("f11")
        await wait_for(pilot, lambda: tab_shown(app, "skills"), "the Skills tab, asked for")
        assert "does not declare the io.modelcontextprotocol/skills extension" in shown(app, "skill-entry-text")
        assert not [f for f in app.traffic if f.method == "skills/list"]


async def test_g_gets_a_skill_as_it_is_now_or_one_the_listing_left_out(tmp_path: Path) -> None:
    """`g`: skills/get of the highlighted skill (a changed file set forgets what
    was verified against the listing's entry), or of a SKILL.md URI typed in
    the filter, for a skill the listing leaves out."""
    log = tmp_path / "asked.jsonl"
    app = InspectorApp(ServerSpec(command=PYTHON, args=[str(SERVERS / "skills_server.py"), str(log)], timeout=30))

    def gets() -> list[str]:
        asked = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        return [m["params"]["uri"] for m in asked if m["method"] == "skills/get"]

    async with app.run_test(size=(140, 45)) as pilot:
        await wait_connected(pilot, app)
        pane = await open_skill(pilot, app, 0)
        await pilot.press("g")
        await wait_for(pilot, lambda: "the same files as listed" in shown(app, "skill-entry-text"), "the same entry")
        assert gets() == ["skill://pdf-processing/SKILL.md"]

        # The support refunds skill gained a file since the listing; its SKILL.md was verified before.
        pane = await open_skill(pilot, app, 2)
        support = pane.entries[2]
        assert "from skills/list" in shown(app, "skill-entry-text")
        await pilot.press("enter", "enter")
        await wait_for(pilot, lambda: (support.uri, support.uri) in pane.fetched, "its SKILL.md read")
        await pilot.press("escape", "g")
        await wait_for(pilot, lambda: "files changed since the listing" in shown(app, "skill-entry-text"), "changed")
        assert pane.current is not None and pane.current.files()[-1] == "skill://acme/support/refunds/examples/email.md"
        assert not [key for key in pane.fetched if key[0] == support.uri]

        # A skill no listing names, got by the URI typed in the filter.
        await pilot.press("slash", *"skill://unlisted-notes/SKILL.md", "enter")
        await wait_for(pilot, lambda: pane.skill_list.options.has_focus, "the (empty) filtered list")
        await pilot.press("g")
        await wait_for(pilot, lambda: len(pane.entries) == 9, "the skill added")
        await wait_for(pilot, lambda: "not in skills/list" in shown(app, "skill-entry-text"), "its origin")
        assert pane.current is pane.entries[8] and pane.current.name == "unlisted-notes"
        await pilot.press("enter", "enter")
        await wait_for(pilot, lambda: "verified" in shown(app, "skill-read-text"), "its SKILL.md verified")
        assert gets()[-1] == "skill://unlisted-notes/SKILL.md"
