"""What a load run measured: counts, errors, and latencies in an HDR histogram."""

from __future__ import annotations

import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

from hdrh.histogram import HdrHistogram

__all__ = ["LoadStats", "Sample"]

# Latencies are kept in microseconds from 1 µs to 10 minutes, 3 significant digits.
_LOWEST_US = 1
_HIGHEST_US = 600_000_000
_DIGITS = 3
# How many error messages are kept verbatim (the rest are only counted).
_ERROR_KINDS = 20
# An error message is kept to this many characters (a server chooses its length).
_ERROR_TEXT = 300
# Seconds of per-second throughput kept for the live plot.
_SERIES = 120


@dataclass
class Sample:
    """One answered step: its name, the time it took in ms, and the error when it failed."""

    name: str
    ms: float
    error: str | None = None


@dataclass
class LoadStats:
    """What a run measured: requests and errors (per step, per message), latencies, throughput each second, CPU."""

    histogram: HdrHistogram = field(default_factory=lambda: HdrHistogram(_LOWEST_US, _HIGHEST_US, _DIGITS))
    requests: int = 0
    errors: int = 0
    by_step: Counter[str] = field(default_factory=Counter)
    errors_by_step: Counter[str] = field(default_factory=Counter)
    # Error message -> how often (the first _ERROR_KINDS distinct messages).
    error_kinds: Counter[str] = field(default_factory=Counter)
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None
    # This process's CPU time (every thread) over the measured part of the run.
    cpu_started: float = field(default_factory=time.process_time)
    cpu_seconds: float | None = None
    # Completions per whole second since the start, for the live plot.
    series: deque[int] = field(default_factory=lambda: deque(maxlen=_SERIES))
    _second: int = 0

    def add(self, sample: Sample) -> None:
        """Count one answered step: its latency, and its error when it failed."""
        self._tick()
        self.requests += 1
        self.by_step[sample.name] += 1
        if self.series:
            self.series[-1] += 1
        micros = max(_LOWEST_US, min(_HIGHEST_US, round(sample.ms * 1000)))
        self.histogram.record_value(micros)
        if sample.error is not None:
            self.errors += 1
            self.errors_by_step[sample.name] += 1
            text = sample.error if len(sample.error) <= _ERROR_TEXT else sample.error[:_ERROR_TEXT] + "…"
            if text in self.error_kinds or len(self.error_kinds) < _ERROR_KINDS:
                self.error_kinds[text] += 1

    def _tick(self) -> None:
        second = int(time.monotonic() - self.started)
        if not self.series:
            self.series.append(0)
            self._second = second
        while self._second < second:
            self.series.append(0)
            self._second += 1

    def restart(self) -> None:
        """Measure from now (connecting is not part of the measurement)."""
        self.started = time.monotonic()
        self.cpu_started = time.process_time()

    def finish(self) -> None:
        """End the measurement: the elapsed time and CPU time stop here."""
        self._tick()
        self.ended = time.monotonic()
        self.cpu_seconds = time.process_time() - self.cpu_started

    @property
    def elapsed(self) -> float:
        """Seconds measured (until now while running)."""
        end = self.ended if self.ended is not None else time.monotonic()
        return max(end - self.started, 1e-9)

    @property
    def throughput(self) -> float:
        """Requests per second."""
        return self.requests / self.elapsed

    @property
    def error_rate(self) -> float:
        """The share of requests that failed (0 before any)."""
        return self.errors / self.requests if self.requests else 0.0

    def percentile_ms(self, percentile: float) -> float:
        """The latency at *percentile*, in ms (0 before any request)."""
        if not self.requests:
            return 0.0
        return float(self.histogram.get_value_at_percentile(percentile)) / 1000

    @property
    def max_ms(self) -> float:
        """The slowest latency, in ms."""
        return float(self.histogram.get_max_value()) / 1000 if self.requests else 0.0

    @property
    def cpu_ms_per_request(self) -> float | None:
        """This process's CPU ms per request over the run (None before it finished or without requests)."""
        if self.cpu_seconds is None or not self.requests:
            return None
        return round(self.cpu_seconds * 1000 / self.requests, 4)

    def latency(self) -> dict[str, float]:
        """p50, p95, p99, max and mean latency in ms."""
        return {
            "p50": round(self.percentile_ms(50), 3),
            "p95": round(self.percentile_ms(95), 3),
            "p99": round(self.percentile_ms(99), 3),
            "max": round(self.max_ms, 3),
            "mean": round(float(self.histogram.get_mean_value()) / 1000, 3) if self.requests else 0.0,
        }

    def to_json(self) -> dict[str, Any]:
        """The figures for the JSON report, with per-step counts and the kinds of error."""
        return {
            "requests": self.requests,
            "errors": self.errors,
            "errorRate": round(self.error_rate, 6),
            "seconds": round(self.elapsed, 3),
            "throughput": round(self.throughput, 2),
            "latencyMs": self.latency(),
            "clientCpuSeconds": round(self.cpu_seconds, 4) if self.cpu_seconds is not None else None,
            "clientCpuMsPerRequest": (
                round(self.cpu_seconds * 1000 / self.requests, 4)
                if self.cpu_seconds is not None and self.requests
                else None
            ),
            "steps": {
                name: {"requests": count, "errors": self.errors_by_step.get(name, 0)}
                for name, count in self.by_step.items()
            },
            "errorKinds": dict(self.error_kinds.most_common()),
        }
