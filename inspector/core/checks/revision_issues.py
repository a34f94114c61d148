"""Values an older revision's own schema rejects, which a later revision allows.

The 2025-11-25 models check every handshake revision's messages; for the
revisions before it (`wire_models.OLD_REVISIONS`) the revision's own
schema.json then says what it did not have yet: a content type, a union
member, an enum value, a field it still required.  Each finding names the
first revision that allows the value.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from inspector.core.checks.old_revision_schemas import member_name, member_tags, old_validator
from inspector.core.checks.wire_models import OLD_REVISIONS
from inspector.forms.paths import format_path
from inspector.forms.values import json_type_name, short_json

__all__ = ["RevisionIssue", "revision_issues"]

# (data path, message template with "{added_in}", spec) of one explained error.
_Explained = tuple[tuple[str | int, ...], str, str]


@dataclass(frozen=True, slots=True)
class RevisionIssue:
    """A value valid in a later revision that the negotiated (older) revision's schema rejects:
    a content type, a union member, an enum value, a field it requires."""

    path: tuple[str | int, ...]
    message: str
    # The first revision that allows it (2025-11-25 at the latest: its models accepted it).
    added_in: str
    spec: str = ""

    @property
    def display_path(self) -> str:
        """The path as shown: ``result.content[0].type``."""
        return format_path(self.path)


def revision_issues(instance: Any, raw: Any, revision: str) -> list[RevisionIssue]:
    """What `revision`'s own schema rejects in `raw`, which the 2025-11-25 models accepted as `instance`.

    Empty for 2025-11-25 and later (their models are the schema).
    """
    if revision not in OLD_REVISIONS:
        return []
    root = type(instance).__name__
    validator = old_validator(revision, root)
    if validator is None:
        return []
    try:
        errors = list(validator.iter_errors(raw))
    except (RecursionError, ValueError, TypeError):
        return []
    found: list[_Explained] = []
    for error in errors:
        found.extend(_explain(revision, error))
    out = []
    for path, message, spec in dict.fromkeys(found):
        added_in = _accepted_from(revision, root, raw, path)
        out.append(RevisionIssue(path, message.format(added_in=added_in), added_in, spec))
    return out[:64]


def _accepted_from(revision: str, root: str, raw: Any, path: tuple[str | int, ...]) -> str:
    """The first revision after `revision` whose schema has nothing against `raw` at `path`."""
    for rev in OLD_REVISIONS[OLD_REVISIONS.index(revision) + 1 :]:
        validator = old_validator(rev, root)
        if validator is None:
            continue
        blocked = False
        for error in validator.iter_errors(raw):
            where = tuple(error.absolute_path)
            if where == path[: len(where)] or path == where[: len(path)]:
                blocked = True
                break
        if not blocked:
            return rev
    return "2025-11-25"


def _explain(revision: str, error: Any, depth: int = 0) -> Iterator[_Explained]:
    """(path, message, spec) for one jsonschema error, unions narrowed to the member that was meant.

    The message is a `str.format` template with ``{added_in}`` for the revision that allows it.
    """
    path: tuple[str | int, ...] = tuple(error.absolute_path)
    keyword = error.validator
    if keyword in ("anyOf", "oneOf") and isinstance(error.validator_value, list) and depth < 16:
        yield from _explain_union(revision, error, path, depth)
        return
    if keyword == "required" and isinstance(error.instance, dict):
        yield from _explain_required(revision, error, path)
        return
    explain = _EXPLAIN_KEYWORD.get(keyword)
    explained = explain(revision, error, path) if explain is not None else None
    if explained is None:
        text = _braces(f"{keyword}: not valid in {revision}") + "; allowed from {added_in}"
        explained = path, text, f"{keyword} in {revision}"
    yield explained


def _explain_union(revision: str, error: Any, path: tuple[str | int, ...], depth: int) -> Iterator[_Explained]:
    """A value no member of a union fits: its "type" unknown to the revision, or the member it names."""
    instance = error.instance
    branches = error.validator_value
    members = " | ".join(member_name(revision, b) for b in branches)
    spec = f"in {revision}: {members}"
    tags = [member_tags(revision, b) for b in branches]
    if isinstance(instance, dict) and isinstance(instance.get("type"), str) and all(t is not None for t in tags):
        matching = [i for i, t in enumerate(tags) if instance["type"] in (t or ())]
        if not matching:
            allowed = ", ".join(json.dumps(v) for v in dict.fromkeys(v for t in tags for v in t or ()))
            yield (
                (*path, "type"),
                _braces(f"type {short_json(instance['type'], 40)} is not defined in {revision}, which allows ")
                + _braces(allowed)
                + " here; added in {added_in}",
                spec,
            )
            return
        for sub in _member_errors(error, matching):
            yield from _explain(revision, sub, depth + 1)
        return
    got = _braces(f"expected {members} here in {revision}, got {json_type_name(instance)}")
    yield path, got + "; allowed from {added_in}", spec


def _member_errors(error: Any, matching: list[int]) -> list[Any]:
    """The errors of the member, among those the value's "type" names, it comes closest to."""
    by_member: dict[int, list[Any]] = {}
    for sub in error.context or ():
        if sub.relative_schema_path:
            by_member.setdefault(int(sub.relative_schema_path[0]), []).append(sub)
    best = min(matching, key=lambda i: len(by_member.get(i, [])))
    return by_member.get(best, [])


def _explain_required(revision: str, error: Any, path: tuple[str | int, ...]) -> Iterator[_Explained]:
    for name in error.validator_value or ():
        if isinstance(name, str) and name not in error.instance:
            yield (
                (*path, name),
                f"required field is missing ({revision} requires it; optional from {{added_in}})",
                f"required in {revision}",
            )


def _explain_enum(revision: str, error: Any, path: tuple[str | int, ...]) -> _Explained | None:
    if not isinstance(error.validator_value, list):
        return None
    allowed = ", ".join(json.dumps(v) for v in error.validator_value)
    text = _braces(f"{short_json(error.instance, 40)} is not one of {allowed} in {revision}")
    return path, text + "; added in {added_in}", f"enum in {revision}"


def _explain_const(revision: str, error: Any, path: tuple[str | int, ...]) -> _Explained:
    expected = json.dumps(error.validator_value)
    text = _braces(f"must be {expected} in {revision}, got {short_json(error.instance, 40)}")
    return path, text + "; allowed from {added_in}", f"const in {revision}"


def _explain_type(revision: str, error: Any, path: tuple[str | int, ...]) -> _Explained:
    instance = error.instance
    wanted = error.validator_value
    shown = " or ".join(wanted) if isinstance(wanted, list) else str(wanted)
    text = _braces(f"expected {shown} in {revision}, got {json_type_name(instance)} {short_json(instance, 40)}")
    return path, text + "; allowed from {added_in}", f"type in {revision}"


_EXPLAIN_KEYWORD: dict[str, Callable[[str, Any, tuple[str | int, ...]], _Explained | None]] = {
    "enum": _explain_enum,
    "const": _explain_const,
    "type": _explain_type,
}


def _braces(text: str) -> str:
    """Server text made safe for `str.format` (the message is formatted once the revision is known)."""
    return text.replace("{", "{{").replace("}", "}}")
