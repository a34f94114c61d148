"""What changed between two versions of a server: items added, removed and
changed in each list, with the JSON paths that differ (schemas included)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.core.protocol.items import ListResult

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["Change", "KindDiff", "diff_lists", "json_changes"]

KINDS = ("tools", "resources", "templates", "prompts")


@dataclass
class Change:
    """Where two JSON values differ: the path, the value before and after, and "added", "removed" or "changed"."""

    path: str
    before: Any
    after: Any
    # "added", "removed" or "changed"
    what: str


@dataclass
class KindDiff:
    """What changed in one list (tools, resources, templates, prompts): the keys added and removed, the
    JSON changes of the items in both, or why the list was not compared."""

    kind: str
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: dict[str, list[Change]] = field(default_factory=dict)
    # Why this list was not compared (one side does not have it).
    skipped: str | None = None

    @property
    def empty(self) -> bool:
        """Whether nothing was added, removed or changed."""
        return not (self.added or self.removed or self.changed)

    def to_json(self) -> JSONObject:
        """The list's changes for the JSON report, or only why it was skipped."""
        if self.skipped:
            return {"skipped": self.skipped}
        return {
            "added": self.added,
            "removed": self.removed,
            "changed": {
                key: [{"path": c.path, "what": c.what, "before": c.before, "after": c.after} for c in changes]
                for key, changes in self.changed.items()
            },
        }


_MISSING = object()


def json_changes(before: Any, after: Any, path: str = "", ignore: frozenset[str] = frozenset()) -> list[Change]:
    """Every place two JSON values differ (objects key by key, arrays by
    index); members named in `ignore` are not compared, at any depth."""
    if isinstance(before, dict) and isinstance(after, dict):
        return _object_changes(before, after, path, ignore)
    if isinstance(before, list) and isinstance(after, list):
        return _array_changes(before, after, path, ignore)
    if before == after and type(before) is type(after):
        return []
    return [Change(path or "(value)", before, after, "changed")]


def _object_changes(before: JSONObject, after: JSONObject, path: str, ignore: frozenset[str]) -> list[Change]:
    changes: list[Change] = []
    for key in [*before, *(k for k in after if k not in before)]:
        if key in ignore:
            continue
        sub = f"{path}.{key}" if path else str(key)
        old, new = before.get(key, _MISSING), after.get(key, _MISSING)
        if old is _MISSING:
            changes.append(Change(sub, None, new, "added"))
        elif new is _MISSING:
            changes.append(Change(sub, old, None, "removed"))
        else:
            changes.extend(json_changes(old, new, sub, ignore))
    return changes


def _array_changes(before: list[Any], after: list[Any], path: str, ignore: frozenset[str]) -> list[Change]:
    changes: list[Change] = []
    for index in range(max(len(before), len(after))):
        sub = f"{path}[{index}]"
        if index >= len(before):
            changes.append(Change(sub, None, after[index], "added"))
        elif index >= len(after):
            changes.append(Change(sub, before[index], None, "removed"))
        else:
            changes.extend(json_changes(before[index], after[index], sub, ignore))
    return changes


def _by_key(listing: ListResult | None) -> JSONObject:
    return {item.key: item.raw for item in listing.items} if listing is not None else {}


def diff_lists(
    before: dict[str, ListResult], after: dict[str, ListResult], ignore: frozenset[str] = frozenset()
) -> list[KindDiff]:
    """The changes of each of the four lists from *before* to *after*, items matched by key (members in
    *ignore* not compared); a list one side lacks is skipped."""
    report = []
    for kind in KINDS:
        result = KindDiff(kind)
        missing = [side for side, lists in (("the first", before), ("the second", after)) if kind not in lists]
        if missing:
            result.skipped = f"{' and '.join(missing)} side has no {kind} listing"
            report.append(result)
            continue
        old, new = _by_key(before.get(kind)), _by_key(after.get(kind))
        result.added = [key for key in new if key not in old]
        result.removed = [key for key in old if key not in new]
        for key in old:
            if key in new:
                changes = json_changes(old[key], new[key], ignore=ignore)
                if changes:
                    result.changed[key] = changes
        report.append(result)
    return report
