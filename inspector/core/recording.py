"""Masking secrets out of recorded traffic.

HTTP transports already mask secret headers when they record them; what is
left is a secret value turning up elsewhere (a token passed as a command
argument, an env value echoed by the server).  Every known secret value is
replaced wherever it appears in a record.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .spec import ServerSpec

__all__ = ["MASK", "masker_for_values", "secret_masker", "secret_values"]

MASK = "***"
_SECRET_NAME = re.compile(r"(?i)(token|secret|key|password|passwd|auth|credential|cookie)")
_MIN_SECRET_LENGTH = 4


def secret_values(spec: ServerSpec) -> list[str]:
    values: list[str] = []
    for name, value in {**spec.env, **spec.headers}.items():
        if name in spec.secret_names or _SECRET_NAME.search(name):
            # "Bearer abc" is a secret as a whole and as its credential part.
            values.append(value)
            scheme, _, credential = value.partition(" ")
            if credential and scheme.lower() in ("bearer", "basic", "token"):
                values.append(credential)
    if spec.auth is not None:
        values.extend(spec.auth.secrets())
    return sorted({v for v in values if len(v) >= _MIN_SECRET_LENGTH}, key=len, reverse=True)


def masker_for_values(
    values: list[str], learned: Callable[[], list[str]] | None = None
) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
    """A record masker for `values`, and for whatever `learned()` adds later
    (secrets an OAuth flow meets while the recording runs)."""
    if not values and learned is None:
        return None
    cache: dict[str, Any] = {"key": None, "pattern": None}

    def current() -> re.Pattern[str] | None:
        every = sorted({*values, *(learned() if learned is not None else ())}, key=len, reverse=True)
        key = tuple(every)
        if cache["key"] != key:
            cache["key"] = key
            cache["pattern"] = re.compile("|".join(re.escape(v) for v in every)) if every else None
        found: re.Pattern[str] | None = cache["pattern"]
        return found

    def scrub(value: Any, pattern: re.Pattern[str]) -> Any:
        if isinstance(value, str):
            return pattern.sub(MASK, value)
        if isinstance(value, dict):
            return {k: scrub(v, pattern) for k, v in value.items()}
        if isinstance(value, list):
            return [scrub(v, pattern) for v in value]
        return value

    def mask(record: dict[str, Any]) -> dict[str, Any]:
        pattern = current()
        if pattern is None:
            return record
        masked: dict[str, Any] = scrub(record, pattern)
        return masked

    return mask


def secret_masker(spec: ServerSpec) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
    learned = None
    if spec.auth is not None and spec.url:
        from .auth.session import session_for

        session = session_for(spec)
        if session is not None:
            learned = session.secrets.values
    return masker_for_values(secret_values(spec), learned)
