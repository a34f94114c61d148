"""The traffic view with 100,000 frames: append time, keypress-to-repaint
latency, memory.  Baseline in the same run: a Textual `Log` widget (one line
of text per frame, no structure) fed the same frames."""

from __future__ import annotations

import gc
import json
import resource
import statistics
import time

from textual.app import App, ComposeResult
from textual.widgets import Log, Static

from inspector.core.record.traffic import TrafficLog
from inspector.tui import looks
from inspector.tui.widgets.traffic_table import TrafficTable, row_text


def _frames(traffic: TrafficLog, count: int) -> None:
    for i in range(count):
        if i % 2 == 0:
            message = {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": f"tool_{i % 50}", "arguments": {"query": "x" * 40, "limit": i % 10}},
            }
            traffic.add("out", "request", raw=json.dumps(message).encode(), message=message, method="tools/call", id=i)
        else:
            message = {"jsonrpc": "2.0", "id": i - 1, "result": {"content": [{"type": "text", "text": "ok " * 20}]}}
            traffic.add(
                "in",
                "response",
                raw=json.dumps(message).encode(),
                message=message,
                method="tools/call",
                id=i - 1,
                latency=0.0004,
                partner=i,
            )


class TableApp(App[None]):
    def __init__(self, traffic: TrafficLog) -> None:
        super().__init__()
        looks.install(self)  # the table draws in the inspector app's colour roles
        self.traffic = traffic

    def compose(self) -> ComposeResult:
        yield TrafficTable(self.traffic.frames, id="table")


class EmptyApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("nothing to redraw")


async def _measure_empty() -> float:
    """Pilot's own cost of a keypress and a repaint: subtract it from the others."""
    app = EmptyApp()
    async with app.run_test(size=(160, 50)) as pilot:
        latencies = []
        for _ in range(40):
            started = time.perf_counter()
            await pilot.press("down")
            await pilot._wait_for_screen()
            latencies.append(time.perf_counter() - started)
    return statistics.median(latencies)


class LogApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Log(id="log")


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def _measure_table(count: int) -> dict[str, float]:
    traffic = TrafficLog()
    app = TableApp(traffic)
    results: dict[str, float] = {}
    async with app.run_test(size=(160, 50)) as pilot:
        table = app.query_one(TrafficTable)
        gc.collect()
        before = _rss_mib()
        started = time.perf_counter()
        _frames(traffic, count)
        table.sync()
        await pilot.pause()
        results["append"] = time.perf_counter() - started
        results["rss_growth"] = _rss_mib() - before
        table.focus()
        await pilot.pause()
        # The append leaves ~600k young objects; the full collection they
        # cause lands in whichever keypress comes next.  Collect first, so
        # the figures measure the view rather than the collector's timing.
        gc.collect()
        latencies = []
        for key in ["pageup"] * 10 + ["up"] * 20 + ["home", "end"] * 5:
            started = time.perf_counter()
            await pilot.press(key)
            await pilot._wait_for_screen()
            latencies.append(time.perf_counter() - started)
        results["key_p50"] = statistics.median(latencies)
        results["key_max"] = max(latencies)
        assert len(table.rows) == count
    return results


async def _measure_log(count: int) -> dict[str, float]:
    traffic = TrafficLog()
    app = LogApp()
    results: dict[str, float] = {}
    async with app.run_test(size=(160, 50)) as pilot:
        log = app.query_one(Log)
        started = time.perf_counter()
        _frames(traffic, count)
        log.write_lines(row_text(frame).plain for frame in traffic.frames)
        await pilot.pause()
        results["append"] = time.perf_counter() - started
        log.focus()
        gc.collect()
        latencies = []
        for key in ["pageup"] * 10 + ["up"] * 20 + ["home", "end"] * 5:
            started = time.perf_counter()
            await pilot.press(key)
            await pilot._wait_for_screen()
            latencies.append(time.perf_counter() - started)
        results["key_p50"] = statistics.median(latencies)
        results["key_max"] = max(latencies)
    return results


def measure_traffic_view(count: int = 100_000) -> None:
    import asyncio

    print(f"traffic view with {count} frames", flush=True)
    ours = asyncio.run(_measure_table(count))
    base = asyncio.run(_measure_log(count))
    empty = asyncio.run(_measure_empty())
    print(
        f"  TrafficTable append+sync                            {ours['append']:>8.3f} s   "
        f"(Textual Log of plain lines: {base['append']:.3f} s, ratio {ours['append'] / base['append']:.2f}x)"
    )
    print(
        f"  keypress-to-repaint p50 / max                       {ours['key_p50'] * 1000:>8.2f} / "
        f"{ours['key_max'] * 1000:.2f} ms   (Log: {base['key_p50'] * 1000:.2f} / {base['key_max'] * 1000:.2f} ms)"
    )
    print(f"  (the same keypress in an empty app, the test driver's own cost: {empty * 1000:.2f} ms)")
    print(f"  peak RSS growth while appending (frames + view)     {ours['rss_growth']:>8.1f} MiB", flush=True)


if __name__ == "__main__":
    measure_traffic_view()
