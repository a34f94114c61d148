"""Caching hints are written one way everywhere (traffic notes, the TUI's list
and resource notes): a TTL of 30000 ms reads "30 s", an age "1.5 s"."""

from __future__ import annotations

import pytest

from inspector.core.protocol.cache import duration_text
from inspector.core.protocol.client import Client
from inspector.core.servers.spec import demo_spec


@pytest.mark.parametrize(
    ("ms", "text"),
    [(0, "0 ms"), (850, "850 ms"), (1000, "1 s"), (1500, "1.5 s"), (30_000, "30 s"), (300_000, "300 s"), (None, "?")],
)
def test_duration_text(ms: float | None, text: str) -> None:
    assert duration_text(ms) == text


async def test_a_list_served_from_cache_says_its_ttl_in_seconds() -> None:
    client = Client(demo_spec())
    await client.connect()
    try:
        await client.list_all("tools")
        again = await client.list_all("tools")
        assert again.from_cache
        notes = [frame.note for frame in client.traffic if frame.note and "served from cache" in frame.note]
        assert notes and "ttl 30 s, scope public" in notes[-1], notes
    finally:
        await client.close()
