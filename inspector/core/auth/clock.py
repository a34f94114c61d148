"""The clock a token's lifetime is read from: wall time, as stored expiries
are Unix times.

Every expiry decision (is the token still good, when does it expire, is a
stored one expired) reads `now()` through this module, so a test can move
time past an expiry instead of sleeping until it comes.
"""

from __future__ import annotations

import time

__all__ = ["now"]


def now() -> float:
    """The current Unix time, in seconds."""
    return time.time()


def seconds_text(seconds: float) -> str:
    """A duration as a person reads it: whole seconds from ten up, two figures below."""
    return f"{seconds:.0f}" if seconds >= 10 else f"{seconds:.2g}"


def expiry_text(expires_at: float) -> str:
    """How long until a Unix time, or how long since it passed, in whole seconds."""
    left = expires_at - now()
    if left <= 0:
        return f"expired {int(-left)} s ago"
    return f"expires in {int(left)} s"
