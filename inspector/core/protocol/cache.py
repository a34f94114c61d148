"""Caching hints (2026-07-28, SEP-2549): `ttlMs` and `cacheScope` on
`server/discover`, the four lists and `resources/read`.  A refresh within
the TTL is served from here and says so; list_changed and resources/updated
invalidate what they concern."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

__all__ = ["CacheEntry", "ResultCache", "cache_hint", "duration_text"]


def duration_text(ms: float | None) -> str:
    """One way to write a TTL or an age everywhere: "850 ms", "5 s", "1.5 s"."""
    if ms is None:
        return "?"
    if ms < 1000:
        return f"{ms:.0f} ms"
    return f"{ms / 1000:.3g} s" if ms < 100_000 else f"{ms / 1000:.0f} s"


def cache_hint(result: Any) -> tuple[int | None, str | None]:
    """A result's ``ttlMs`` and ``cacheScope``, each None when absent or malformed."""
    if not isinstance(result, dict):
        return None, None
    ttl = result.get("ttlMs")
    scope = result.get("cacheScope")
    return (
        ttl if isinstance(ttl, int) and not isinstance(ttl, bool) and ttl >= 0 else None,
        scope if isinstance(scope, str) else None,
    )


@dataclass
class CacheEntry:
    """One cached result, when it was stored, and its caching hints."""

    value: Any
    stored: float
    ttl_ms: int | None
    scope: str | None

    @property
    def age(self) -> float:
        """Seconds since it was stored."""
        return time.monotonic() - self.stored

    @property
    def fresh(self) -> bool:
        """Whether it is still within its ``ttlMs`` (never without one)."""
        return self.ttl_ms is not None and self.age * 1000 < self.ttl_ms


class ResultCache:
    """The results kept for their ``ttlMs``, by kind (a list, a read) and key (a URI)."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], CacheEntry] = {}

    def get(self, kind: str, key: str = "") -> CacheEntry | None:
        """The fresh entry of `kind` and `key` (None when absent or expired)."""
        entry = self._entries.get((kind, key))
        return entry if entry is not None and entry.fresh else None

    def put(self, kind: str, key: str, value: Any, ttl_ms: int | None, scope: str | None) -> CacheEntry:
        """Keep `value` with its hints, replacing the entry of `kind` and `key`."""
        entry = CacheEntry(value, time.monotonic(), ttl_ms, scope)
        self._entries[(kind, key)] = entry
        return entry

    def invalidate(self, kind: str, key: str | None = None) -> None:
        """Drop the entries of `kind` (only `key`'s when given)."""
        for entry_kind, entry_key in list(self._entries):
            if entry_kind == kind and (key is None or entry_key == key):
                del self._entries[(entry_kind, entry_key)]

    def clear(self) -> None:
        """Drop every entry."""
        self._entries.clear()
