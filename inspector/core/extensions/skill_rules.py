"""The rules a skill breaks when what the server sends does not verify
(SEP-2640, extension `io.modelcontextprotocol/skills`).

Each finding is a `Problem` naming one of these rules, linked to the
extension's page rather than to a base-protocol page.
"""

from __future__ import annotations

from functools import partial

from inspector.core.checks.problems import Problem, Rule

__all__ = ["SKILL_RULES", "SPEC_PAGE", "skill_problem"]

SPEC_PAGE = "https://modelcontextprotocol.io/extensions/skills"


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


def skill_problem(rule: str, message: str, subject: str = "", path: str = "") -> Problem:
    """A finding of the skills rule `rule`."""
    return SKILL_RULES[rule].problem(message, subject=subject, path=path)
