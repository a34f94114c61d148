"""Results the stateless era lets the client serve again within their `ttlMs`
(cache.py holds them): a list, a resource read; the log says when one is."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from inspector.core.protocol.cache import CacheEntry, ResultCache, cache_hint, duration_text
from inspector.core.protocol.items import LIST_METHODS, ListResult

if TYPE_CHECKING:
    from inspector.core.record.traffic import TrafficLog

__all__ = ["cached_listing", "cached_read", "keep_listing", "keep_read"]


def cached_listing(cache: ResultCache, traffic: TrafficLog, kind: str) -> ListResult | None:
    """A list fetched within its `ttlMs` (the stateless era), marked `from_cache`; the log says so."""
    cached = cache.get(kind)
    # The cache holds read results too; a list kind's entry is a ListResult.
    if cached is None or not isinstance(cached.value, ListResult):
        return None
    traffic.event(
        "local",
        "transport",
        note=f"{LIST_METHODS[kind]} served from cache (age {duration_text(cached.age * 1000)}, "
        f"ttl {duration_text(cached.ttl_ms)}, scope {cached.scope})",
    )
    return replace(cached.value, from_cache=True, age=cached.age)


def keep_listing(cache: ResultCache, kind: str, listing: ListResult) -> None:
    """Note the first page's caching hint on the listing, and keep it when the hint allows."""
    if listing.pages:
        listing.ttl_ms, listing.cache_scope = cache_hint(listing.pages[0])
        if listing.ttl_ms:
            cache.put(kind, "", listing, listing.ttl_ms, listing.cache_scope)


def cached_read(cache: ResultCache, traffic: TrafficLog, uri: str) -> CacheEntry | None:
    """A resource read within its `ttlMs`; the log says it was served from cache."""
    cached = cache.get("read", uri)
    if cached is not None:
        traffic.event(
            "local",
            "transport",
            note=f"resources/read {uri} served from cache (age {cached.age:.1f} s, ttl {cached.ttl_ms} ms)",
        )
    return cached


def keep_read(cache: ResultCache, uri: str, result: Any) -> None:
    """Keep a read result when its caching hint allows."""
    ttl, scope = cache_hint(result)
    if ttl:
        cache.put("read", uri, result, ttl, scope)
