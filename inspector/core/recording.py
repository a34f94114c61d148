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
    return sorted({v for v in values if len(v) >= _MIN_SECRET_LENGTH}, key=len, reverse=True)


def masker_for_values(values: list[str]) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
    if not values:
        return None
    pattern = re.compile("|".join(re.escape(v) for v in values))

    def scrub(value: Any) -> Any:
        if isinstance(value, str):
            return pattern.sub(MASK, value)
        if isinstance(value, dict):
            return {k: scrub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [scrub(v) for v in value]
        return value

    def mask(record: dict[str, Any]) -> dict[str, Any]:
        masked: dict[str, Any] = scrub(record)
        return masked

    return mask


def secret_masker(spec: ServerSpec) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
    return masker_for_values(secret_values(spec))
