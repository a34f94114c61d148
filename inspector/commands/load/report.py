"""The final report of a load run (text and JSON) and its CI thresholds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.commands.load.plan import LoadPlan, step_method
from inspector.commands.load.stats import LoadStats
from inspector.core.safetext import visible

__all__ = ["Thresholds", "broken_thresholds", "json_report", "sparkline", "text_report"]

_BARS = "▁▂▃▄▅▆▇█"


@dataclass
class Thresholds:
    """The CI limits of a run: --max-error-rate and --max-p99 (None: no limit)."""

    max_error_rate: float | None = None
    max_p99_ms: float | None = None


def broken_thresholds(stats: LoadStats, thresholds: Thresholds) -> list[str]:
    """Each threshold the run broke, in words (empty when it passed)."""
    broken = []
    if thresholds.max_error_rate is not None and stats.error_rate > thresholds.max_error_rate:
        broken.append(f"error rate {stats.error_rate:.2%} > --max-error-rate {thresholds.max_error_rate:.2%}")
    if thresholds.max_p99_ms is not None and stats.percentile_ms(99) > thresholds.max_p99_ms:
        broken.append(f"p99 {stats.percentile_ms(99):.1f} ms > --max-p99 {thresholds.max_p99_ms:g} ms")
    return broken


def sparkline(values: list[int], width: int = 40) -> str:
    """Per-second throughput as block characters, scaled to the highest value shown."""
    shown = values[-width:]
    top = max(shown, default=0)
    if top <= 0:
        return _BARS[0] * len(shown)
    return "".join(_BARS[min(len(_BARS) - 1, value * (len(_BARS) - 1) // top)] for value in shown)


def _settings(plan: LoadPlan) -> dict[str, Any]:
    return {
        "sessions": plan.sessions,
        "rate": plan.rate,
        "duration": plan.duration,
        "count": plan.count,
        "mix": [{"name": step.name, "method": step_method(step), "step": step.label} for step in plan.steps],
    }


def json_report(
    plan: LoadPlan, stats: LoadStats, server: str, broken: list[str], failure: str | None = None
) -> dict[str, Any]:
    """The JSON report: server, plan, figures, thresholds, and why the run failed when it did."""
    out: dict[str, Any] = {"server": server, "plan": _settings(plan), **stats.to_json()}
    out["thresholds"] = {"passed": not broken, "broken": broken}
    if failure is not None:
        out["failure"] = failure
    return out


def text_report(plan: LoadPlan, stats: LoadStats, server: str, broken: list[str]) -> list[str]:
    """The report for a terminal: requests, throughput, errors, latencies, per-step counts, error kinds, thresholds."""
    mode = f"{plan.rate:g} req/s target" if plan.rate is not None else "closed loop"
    latency = stats.latency()
    lines = [
        f"load against {server}: {plan.sessions} session(s), {mode}",
        f"  requests   {stats.requests} in {stats.elapsed:.2f} s = {stats.throughput:.1f} req/s",
        f"  errors     {stats.errors} ({stats.error_rate:.2%})",
        "  latency ms p50 {p50:.2f}  p95 {p95:.2f}  p99 {p99:.2f}  max {max:.2f}  mean {mean:.2f}".format(**latency),
        f"  req/s      {sparkline(list(stats.series))}",
    ]
    if stats.cpu_seconds is not None and stats.requests:
        lines.append(
            f"  client CPU {stats.cpu_seconds:.2f} s = {stats.cpu_seconds * 1000 / stats.requests:.3f} ms/request"
        )
    for step in plan.steps:
        sent = stats.by_step.get(step.name, 0)
        failed = stats.errors_by_step.get(step.name, 0)
        lines.append(f"  {step.name}: {sent} sent, {failed} error(s)")
    for message, times in stats.error_kinds.most_common():
        lines.append(f"  error ×{times}: {message}")
    for line in broken:
        lines.append(f"  THRESHOLD BROKEN: {line}")
    return [visible(line, keep_newlines=False) for line in lines]
