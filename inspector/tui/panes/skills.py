"""Skills (SEP-2640): the server's skill entries, their frontmatter and files,
and each file's verification, read only when the person asks.

The tab appears for a server that declares the skills extension.  Listing
reads no file; enter on a file reads it (SKILL.md also has its frontmatter
compared with the entry's) and shows whether it matched the entry, with the
rule a failure breaks.  A file the entry does not list is never asked for.
"""

from __future__ import annotations

import json

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static

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
from inspector.core.protocol.errors import InspectorError
from inspector.tui import looks
from inspector.tui.panes.context import ServerContext
from inspector.tui.panes.messages import Notice
from inspector.tui.safe import plain, plain_line
from inspector.tui.widgets.filter_list import FilterList

__all__ = ["SkillsPane", "file_row", "skill_row"]

# A file's text shown at most this long (the rest is in the traffic log).
MAX_SHOWN_CHARS = 64 * 1024


def skill_row(entry: SkillEntry) -> Text:
    """A skill entry's two lines: a warning mark when it has an error, its name, then its URI."""
    text = Text(no_wrap=True, overflow="ellipsis")
    if any(p.severity == "error" for p in entry.problems):
        text.append("⚠ ", style=looks.ERROR_STRONG)
    text.append_text(plain_line(entry.name or "(no name)", 50, style="bold"))
    text.append("\n")
    text.append_text(plain_line(entry.uri, 80, style="dim"))
    return text


def _haystack(entry: SkillEntry) -> str:
    return f"{entry.name}\n{entry.uri}\n{entry.description}"


def file_row(entry: SkillEntry, uri: str, fetched: FetchedFile | None) -> Text:
    """A file of the skill: whether it was read and what its check found, its URI, its size."""
    text = Text(no_wrap=True, overflow="ellipsis")
    if fetched is None:
        text.append("· ", style="dim")
    elif fetched.verified and isinstance(entry.resources, str):
        text.append("? ", style=looks.WARNING_STRONG)  # read, but a dynamic skill has nothing to verify against
    elif fetched.verified:
        text.append("✔ ", style=looks.OK_STRONG)
    else:
        text.append("✖ ", style=looks.ERROR_STRONG)
    text.append_text(plain_line(uri, 100))
    listed = entry.listed(uri)
    if listed is not None:
        text.append_text(plain_line(f"  {listed.size} bytes", 30, style="dim"))
    return text


def problem_text(problem: Problem) -> Text:
    """A rule broken: the rule, where and what, then the spec's words and its link."""
    text = Text()
    text.append(f"✖ [{problem.rule}] ", style=looks.ERROR_STRONG)
    text.append_text(plain(f"{problem.path + ': ' if problem.path else ''}{problem.message}", style=looks.ERROR))
    if problem.spec:
        text.append("\n  ")
        text.append_text(plain(problem.spec, style="italic"))
    if problem.url:
        text.append(f"\n  {problem.url}", style="dim")
    return text


def verification_text(fetched: FetchedFile, dynamic: bool, skill_md: bool = False) -> Text:
    """What reading a skill file came to: not read, verified, not verifiable (a dynamic skill) or failed, then its
    errors."""
    # A SKILL.md's frontmatter is compared with the entry's too.
    frontmatter = " and its frontmatter" if skill_md else ""
    if not fetched.sent:
        text = Text("not read: ", style=looks.ERROR_STRONG)
    elif fetched.verified and dynamic:
        said = f"read {len(fetched.data or b'')} bytes; not verifiable (the skill is dynamic)"
        text = Text(said + ("; its frontmatter matches the entry" if skill_md else ""), style=looks.WARNING)
    elif fetched.verified:
        text = Text(
            f"✔ verified: {len(fetched.data or b'')} bytes, size and digest{frontmatter} match the entry",
            style=looks.OK,
        )
    else:
        text = Text("✖ verification failed: do not use this content", style=looks.ERROR_STRONG)
    for problem in fetched.problems:
        if problem.severity == "error":
            text.append("\n")
            text.append_text(problem_text(problem))
    return text


def _file_set(entry: SkillEntry) -> object:
    """What an approval binds to: every listed file's URI and digest ("dynamic" as such)."""
    if isinstance(entry.resources, list):
        return frozenset((f.uri, f.digest) for f in entry.resources)
    return entry.resources


class SkillsPane(Horizontal):
    """The Skills tab: the server's skill entries, their files, and each file's content and verification once read."""

    BINDINGS = [
        Binding("escape", "to_skills", "Back to the skills", id="skills_to_list", show=False),
        Binding("g", "get_skill", "skills/get", id="get_skill"),
    ]

    def __init__(self, server: ServerContext) -> None:
        super().__init__()
        self.server = server
        self.entries: list[SkillEntry] = []
        self.current: SkillEntry | None = None
        self.fetched: dict[tuple[str, str], FetchedFile] = {}
        # SKILL.md URI -> what the last skills/get of it said of the entry shown.
        self.got: dict[str, str] = {}
        # What the pane says while it shows no skill: why there is none.
        self.empty_note = Text()

    def compose(self) -> ComposeResult:
        yield FilterList(
            "Skills", skill_row, haystack=_haystack, lines=2, placeholder="filter (name, URI)", id="skill-list"
        )
        with Vertical(id="skill-detail"):
            yield VerticalScroll(Static(id="skill-entry-text"), id="skill-entry")
            yield FilterList(
                "Files (enter reads and verifies)",
                self._file_row,
                haystack=lambda pair: pair[1],
                lines=1,
                placeholder="filter files",
                id="skill-files",
            )
            yield VerticalScroll(Static(id="skill-read-text"), id="skill-read")

    def _file_row(self, entry_and_uri: tuple[SkillEntry, str]) -> Text:
        entry, uri = entry_and_uri
        return file_row(entry, uri, self.fetched.get((entry.uri, uri)))

    @property
    def skill_list(self) -> FilterList[SkillEntry]:
        """The list of skill entries."""
        return self.query_one("#skill-list", FilterList)

    @property
    def file_list(self) -> FilterList[tuple[SkillEntry, str]]:
        """The list of the chosen skill's files."""
        return self.query_one("#skill-files", FilterList)

    @work(group="skills-list", exclusive=True)
    async def refresh_skills(self) -> None:
        """After a connection: the tab for a server that declares skills, and its entries (no files)."""
        client = self.server.client
        if not declares_skills(client):
            # Shown only when asked for (F11): it says why it is empty.
            self.entries = []
            self.empty_note = Text(
                f"This server does not declare the {EXTENSION} extension: skills/list is not sent.", style="dim"
            )
            self.skill_list.set_items([])
            self.query_one("#skill-entry-text", Static).update(self.empty_note)
            return
        try:
            listing = await list_skills(client)
        except InspectorError as exc:
            self.query_one("#skill-entry-text", Static).update(plain(f"✖ skills/list: {exc}", style=looks.ERROR_STRONG))
            return
        self.entries = listing.entries
        self.fetched.clear()
        self.got.clear()
        self.skill_list.set_items(listing.entries)
        # The extension: an empty listing is no proof that the server has no skills.
        self.empty_note = Text("skills/list listed no skill (the server may still serve skills by URI).", style="dim")
        if not listing.entries:
            self.query_one("#skill-entry-text", Static).update(self.empty_note)
        if listing.problems:
            self.post_message(Notice("; ".join(listing.problems), title="skills/list", severity="warning"))

    @on(FilterList.Highlighted, "#skill-list")
    def _show(self, event: FilterList.Highlighted) -> None:
        entry = event.item
        self.current = entry
        self.query_one("#skill-read-text", Static).update("")
        if entry is None:
            self.query_one("#skill-entry-text", Static).update(self.empty_note if not self.entries else "")
            self.file_list.set_items([])
            return
        self.query_one("#skill-entry-text", Static).update(self._entry_text(entry))
        self.file_list.set_items([(entry, uri) for uri in entry.files()])

    def _entry_text(self, entry: SkillEntry) -> Text:
        text = Text()
        text.append_text(plain_line(entry.name, 80, style="bold"))
        text.append("  ")
        text.append_text(plain_line(entry.uri, 200, style="dim"))
        got = self.got.get(entry.uri)
        text.append(
            f"\n{got}" if got else "\nfrom skills/list (g: skills/get, the entry as it is now)", style=looks.INFO
        )
        text.append("\nfrontmatter\n", style="bold")
        text.append_text(plain(json.dumps(entry.frontmatter, indent=2, ensure_ascii=False)))
        if isinstance(entry.resources, str):
            text.append("\nresources: dynamic (no digests: nothing can be verified)", style=looks.WARNING)
        elif isinstance(entry.resources, list):
            text.append("\nfiles\n", style="bold")
            for listed in entry.resources:
                text.append_text(plain_line(f"  {listed.uri}  {listed.size} bytes  {listed.digest}", 240))
                text.append("\n")
        for problem in entry.problems:
            text.append("\n")
            if problem.severity == "error":
                text.append_text(problem_text(problem))
            else:
                text.append_text(plain(f"{problem.severity}: [{problem.rule}] {problem.message}", style=looks.WARNING))
        return text

    @on(FilterList.Activated, "#skill-list")
    def _into_files(self, event: FilterList.Activated) -> None:
        self.file_list.focus_list()

    @on(FilterList.Activated, "#skill-files")
    def _read(self, event: FilterList.Activated) -> None:
        if event.item is not None:
            entry, uri = event.item
            self.read_file(entry, uri)

    @work(group="skill-read", exclusive=True)
    async def read_file(self, entry: SkillEntry, uri: str) -> None:
        """Read one file of the skill because the person asked, and verify it."""
        area = self.query_one("#skill-read-text", Static)
        area.update(plain_line(f"reading {uri} …", 200, style="dim"))
        client = self.server.client
        try:
            if uri == entry.uri:
                fetched = await load_skill(client, entry)
            else:
                fetched = await read_skill_file(client, entry, uri)
        except InspectorError as exc:
            area.update(plain(f"✖ {exc}", style=looks.ERROR_STRONG))
            return
        self.fetched[(entry.uri, uri)] = fetched
        if self.current is entry:
            self.file_list.refresh_rows()
        text = verification_text(fetched, isinstance(entry.resources, str), skill_md=uri == entry.uri)
        if fetched.data is not None:
            text.append("\n\n")
            try:
                body = fetched.data.decode("utf-8")
            except UnicodeDecodeError:
                text.append(f"({len(fetched.data)} bytes of binary content)", style="dim")
            else:
                text.append_text(plain(body[:MAX_SHOWN_CHARS]))
                if len(body) > MAX_SHOWN_CHARS:
                    text.append(f"\n… {len(body) - MAX_SHOWN_CHARS} more characters", style="dim")
        area.update(text)

    @work(group="skill-get", exclusive=True)
    async def action_get_skill(self) -> None:
        """`skills/get` for the highlighted skill (its entry as the server has it
        now), or for the SKILL.md URI typed in the filter (a listing may leave
        skills out; any skill is reachable by its URI)."""
        highlighted = self.skill_list.highlighted_item
        typed = self.skill_list.filter_text.strip()
        uri = highlighted.uri if highlighted is not None else typed
        if not uri or (highlighted is None and "://" not in typed):
            self.post_message(
                Notice("highlight a skill, or type the URI of a SKILL.md in the filter (/), then g", severity="warning")
            )
            return
        try:
            entry = await get_skill(self.server.client, uri)
        except InspectorError as exc:
            self.query_one("#skill-entry-text", Static).update(
                plain(f"✖ skills/get {uri}: {exc}", style=looks.ERROR_STRONG)
            )
            return
        known = next((i for i, e in enumerate(self.entries) if e.uri == entry.uri), None)
        if known is None:
            self.got[entry.uri] = "from skills/get: not in skills/list"
            self.entries.append(entry)
        else:
            before = self.entries[known]
            if _file_set(before) == _file_set(entry):
                self.got[entry.uri] = "skills/get: the same files as listed"
            else:
                # The extension: a changed set is a changed skill; what was verified against the old entry is not.
                self.got[entry.uri] = "skills/get: the files changed since the listing; read them again"
                for key in [k for k in self.fetched if k[0] == entry.uri]:
                    del self.fetched[key]
            self.entries[known] = entry
        if highlighted is None:
            self.skill_list.reset_filter()
        self.skill_list.set_items(self.entries)
        self.skill_list.highlight_index(self.entries.index(entry))
        self.current = entry
        self.query_one("#skill-entry-text", Static).update(self._entry_text(entry))
        self.file_list.set_items([(entry, file) for file in entry.files()])
        self.skill_list.focus_list()

    def action_to_skills(self) -> None:
        self.skill_list.focus_list()
