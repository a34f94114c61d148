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
