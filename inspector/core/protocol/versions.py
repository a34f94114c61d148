"""Protocol revisions the client knows, and which era each belongs to.

Kept here rather than imported from `mcp_types.version` because importing
any part of `mcp_types` loads every wire model (a quarter of a second),
which the scripting path must not pay.  A test keeps the two lists equal.
"""

from __future__ import annotations

__all__ = [
    "HANDSHAKE_VERSIONS",
    "KNOWN_VERSIONS",
    "LATEST_HANDSHAKE",
    "LATEST_MODERN",
    "MODERN_VERSIONS",
    "at_least",
    "era_of",
]

HANDSHAKE_VERSIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS: tuple[str, ...] = ("2026-07-28",)
KNOWN_VERSIONS: tuple[str, ...] = HANDSHAKE_VERSIONS + MODERN_VERSIONS
LATEST_HANDSHAKE = HANDSHAKE_VERSIONS[-1]
LATEST_MODERN = MODERN_VERSIONS[-1]


def at_least(version: str | None, minimum: str) -> bool:
    """True when `version` is a known revision no older than `minimum`.

    An unknown version compares as older than everything, so features are
    never switched on by a string the client does not understand.
    """
    if version not in KNOWN_VERSIONS:
        return False
    return KNOWN_VERSIONS.index(version) >= KNOWN_VERSIONS.index(minimum)


def era_of(version: str) -> str:
    """The era of a revision: ``modern``, ``legacy`` or ``unknown``."""
    if version in MODERN_VERSIONS:
        return "modern"
    if version in HANDSHAKE_VERSIONS:
        return "legacy"
    return "unknown"
