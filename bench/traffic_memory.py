"""What the traffic log costs per frame: 1,000,000 small notifications.

    python bench/traffic_memory.py [--frames N] [--via session|log]

Run as a process of its own (so its RSS is the log's, nothing else's); prints
one JSON line.  `--via session` (the default) floods a real session: the
bench server sends N `notifications/message` over stdio and the client records
them as the TUI does (every frame kept, masked).  `--via log` adds the same
raw lines to a `TrafficLog` directly, as the session does, without the server.

Figures:
- `rss_per_frame`: growth of this process's RSS over the flood, per frame
  (what a person pays, allocator overhead included);
- `raw_rss_per_frame`, the baseline measured in the same run: the RSS growth
  of a plain list holding the same raw lines as bytes objects, per line;
- `structure_per_frame`: `sys.getsizeof` of everything a sampled frame holds
  that no neighbouring frame shares (frame, raw bytes, numbers, message...);
- `peak_rss`: the process's peak RSS (VmHWM) once the log holds every frame
  (before the baseline is built).

It imports `inspector` from the path as given (PYTHONPATH), so the same
script measures any checkout.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
import time
from pathlib import Path
from typing import Any

RAW_SERVER = Path(__file__).resolve().parent / "servers" / "raw_server.py"
HEAD = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"bench","data":"event '


def status(field: str) -> int:
    """A VmRSS/VmHWM figure of this process, in bytes."""
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def raw_line(index: int) -> bytes:
    # The same bytes the bench server writes (without the newline the stdio
    # transport strips).
    return HEAD + b"%08d" % index + b'"}}'


async def flood_session(frames: int) -> Any:
    from inspector.core.protocol.client import Client
    from inspector.core.record.secret_mask import mask_traffic
    from inspector.core.record.traffic import TrafficLog
    from inspector.core.servers.spec import ServerSpec

    spec = ServerSpec(transport="stdio", command=sys.executable, args=[str(RAW_SERVER), "--notify", str(frames)])
    traffic = mask_traffic(TrafficLog(), spec)
    client = Client(spec, traffic=traffic)
    await client.connect()
    try:
        await client.call_tool("flood", {}, timeout=3600)
    finally:
        await client.close()
    return traffic


def flood_log(frames: int) -> Any:
    from inspector.core.record.traffic import TrafficLog

    traffic = TrafficLog()
    loads = json.loads
    for index in range(frames):
        raw = raw_line(index)
        message = loads(raw)
        traffic.add("in", "notification", raw=raw, message=message, method=message["method"])
    return traffic


def _own_objects(frame: Any, shared: set[int]) -> tuple[int, set[int]]:
    """Bytes of every object reachable from `frame` (types excluded) and their ids."""
    total = 0
    seen: set[int] = set()
    stack = [frame]
    while stack:
        obj = stack.pop()
        key = id(obj)
        if key in seen or isinstance(obj, type):
            continue
        seen.add(key)
        if key not in shared:
            total += sys.getsizeof(obj)
        stack.extend(gc.get_referents(obj))
    return total, seen


def structure_per_frame(frames: list[Any], samples: int = 200) -> float:
    """Mean bytes a frame holds on its own (objects a neighbour also holds,
    such as interned method names, are not its cost)."""
    if len(frames) < 3:
        return 0.0
    step = max(1, (len(frames) - 2) // samples)
    sizes = []
    for index in range(1, len(frames) - 1, step):
        _n, before = _own_objects(frames[index - 1], set())
        _n, after = _own_objects(frames[index + 1], set())
        size, _ids = _own_objects(frames[index], before | after)
        sizes.append(size)
    return sum(sizes) / len(sizes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=1_000_000)
    parser.add_argument("--via", choices=("session", "log"), default="session")
    options = parser.parse_args()
    frames = options.frames

    import inspector.core  # noqa: F401  (its import is not the log's cost)

    gc.collect()
    start = status("VmRSS")
    started = time.perf_counter()
    traffic = asyncio.run(flood_session(frames)) if options.via == "session" else flood_log(frames)
    elapsed = time.perf_counter() - started
    gc.collect()
    grown = status("VmRSS") - start
    peak = status("VmHWM")

    # The baseline, in the same process, while the log is still held (so
    # its memory is fresh too): the raw lines alone, as bytes objects.
    start = status("VmRSS")
    lines = [raw_line(index) for index in range(frames)]
    raw_rss = status("VmRSS") - start
    raw_bytes = sum(len(line) for line in lines)
    del lines
    kept = [frame for frame in traffic.frames if frame.kind == "notification" and frame.direction == "in"]
    assert len(kept) == frames, f"{len(kept)} notifications recorded, {frames} sent"
    assert kept[-1].message["params"]["data"] == f"event {frames - 1:08d}", "a frame's message must still be there"
    result = {
        "via": options.via,
        "frames": frames,
        "seconds": round(elapsed, 2),
        "raw_text_per_frame": raw_bytes / frames,
        "raw_rss_per_frame": raw_rss / frames,
        "rss_per_frame": grown / frames,
        "structure_per_frame": structure_per_frame(kept),
        "peak_rss": peak,
    }
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
