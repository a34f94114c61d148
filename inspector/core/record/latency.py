"""Per-method latency figures from the traffic log: count, p50, p95, max."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from inspector.core.record.traffic import Frame

__all__ = ["MethodLatency", "latency_table"]


@dataclass(frozen=True)
class MethodLatency:
    """One method's answered requests: how many, how many were errors, and p50, p95 and max in seconds."""

    method: str
    count: int
    errors: int
    p50: float
    p95: float
    max: float


def _percentile(ordered: list[float], fraction: float) -> float:
    if not ordered:
        return 0.0
    # Nearest rank: a figure that was actually observed.
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def latency_table(frames: Iterable[Frame]) -> list[MethodLatency]:
    """Answered requests we sent, grouped by method, slowest p95 first."""
    samples: dict[str, list[float]] = {}
    errors: dict[str, int] = {}
    for frame in frames:
        if frame.direction != "in" or frame.latency is None or frame.method is None:
            continue
        samples.setdefault(frame.method, []).append(frame.latency)
        if frame.kind == "error":
            errors[frame.method] = errors.get(frame.method, 0) + 1
    table = []
    for method, values in samples.items():
        ordered = sorted(values)
        table.append(
            MethodLatency(
                method,
                len(ordered),
                errors.get(method, 0),
                _percentile(ordered, 0.5),
                _percentile(ordered, 0.95),
                ordered[-1],
            )
        )
    return sorted(table, key=lambda row: row.p95, reverse=True)
