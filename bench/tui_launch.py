"""The TUI on big servers: launch to the tool list painted, and building a
100-property form, each against a baseline measured in the same run.

    .venv/bin/python bench/tui_launch.py                 # everything
    .venv/bin/python bench/tui_launch.py launch form     # sections: launch, official, form

launch   our TUI (Pilot, headless, in a fresh process per run) against
         bench/servers/raw_server.py with 3, 10,000 and 100,000 tools (pages
         of 500): spawn to the first page painted and to the whole list
         painted; 3 tools is the baseline.
official the official Inspector TUI (Ink) on a pseudo-terminal, same server:
         spawn to "Tools (N)" on its screen.  It connects only when asked, so
         the driver presses `t` (Tools tab) and `c` (connect) as soon as it
         has drawn, again every 0.25 s until it reacts: its figure includes
         those two keypresses, as a person's would.
form     SchemaForm of 100 properties against 3: load to the first screenful
         painted, to the last row mounted (rows below the first screenful
         as sketches, one widget each), and the form's end scrolled to
         until its rows are built.

Wall times on a busy machine include waiting for a core; the CPU time of
the same run is printed beside each figure.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import json
import os
import pty
import re
import resource
import select
import signal
import statistics
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.run import NODE22, PEERS, PY, RAW_SERVER, report  # noqa: E402

OFFICIAL_LAUNCHER = PEERS / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"
PER_PAGE = 500
SIZES = (3, 10_000, 100_000)
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


def pages_for(tools: int) -> int:
    return max(1, tools // PER_PAGE)


def server_argv(tools: int) -> list[str]:
    return [PY, str(RAW_SERVER), "--tools", str(tools), "--pages", str(pages_for(tools))]


# -- our TUI: one launch per process ------------------------------------------------------------


async def _launch_child(tools: int) -> dict[str, float]:
    """Runs in the child: start the app, report when the first page and the whole list are painted."""
    from inspector.core.servers.spec import ServerSpec
    from inspector.tui.app import InspectorApp
    from inspector.tui.panes.tools import ToolsPane
    from inspector.tui.widgets.item_list import ItemList

    argv = server_argv(tools)
    app = InspectorApp(ServerSpec(transport="stdio", command=argv[0], args=argv[1:]))
    figures: dict[str, float] = {}
    async with app.run_test(size=(160, 50)) as pilot:
        listed = app.query_one(ToolsPane).query_one(ItemList)
        while "tools" not in app.lists or len(listed.items) < tools:
            if listed.items and "first" not in figures:
                await pilot._wait_for_screen()
                figures["first"] = time.time()
                figures["first_cpu"] = time.process_time()
            await asyncio.sleep(0.005)
        await pilot._wait_for_screen()
        figures["full"] = time.time()
        figures["full_cpu"] = time.process_time()
        figures.setdefault("first", figures["full"])
        figures.setdefault("first_cpu", figures["full_cpu"])
    return figures


def launch_once(tools: int) -> dict[str, float]:
    started = time.time()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [PY, __file__, "--child", str(tools)], capture_output=True, text=True, env=env, timeout=600, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return {
        "first": figures["first"] - started,
        "full": figures["full"] - started,
        "first_cpu": figures["first_cpu"],
        "full_cpu": figures["full_cpu"],
    }


def bench_launch(repeats: int = 3) -> dict[int, float]:
    print(f"our TUI: spawn to the tool list painted (pages of {PER_PAGE}; median of {repeats})", flush=True)
    results: dict[int, dict[str, float]] = {}
    for tools in SIZES:
        runs = [launch_once(tools) for _ in range(repeats if tools < 100_000 else max(1, repeats - 1))]
        results[tools] = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    base = results[3]["full"]
    for tools, figures in results.items():
        report(f"{tools} tools: first page painted", figures["first"], "s", base, "3 tools")
        report(f"{tools} tools: whole list painted", figures["full"], "s", base, "3 tools")
        report(f"{tools} tools: CPU of the app process to the whole list", figures["full_cpu"], "s")
    if 10_000 in results and 100_000 in results:
        ratio = results[100_000]["full"] / results[10_000]["full"]
        print(f"  100,000 vs 10,000 tools, whole list: {ratio:.2f}x (target < 2x)", flush=True)
    return {tools: figures["full"] for tools, figures in results.items()}


# -- the official Inspector TUI on a pseudo-terminal ------------------------------------------------


def official_once(tools: int, cap: float = 120.0) -> float | None:
    """Spawn to `Tools (N)` on the official TUI's screen; None past `cap` seconds."""
    argv = [str(NODE22), str(OFFICIAL_LAUNCHER), "--tui", "--", *server_argv(tools)]
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
    started = time.perf_counter()
    process = subprocess.Popen(
        argv,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={**os.environ, "TERM": "xterm-256color"},
        start_new_session=True,
    )
    os.close(slave)
    wanted = f"Tools ({tools})".encode()
    seen = b""
    pressed = 0.0
    presses = 0
    keys = (b"t", b"c")
    try:
        while time.perf_counter() - started < cap:
            ready, _w, _x = select.select([master], [], [], 0.02)
            if ready:
                try:
                    chunk = os.read(master, 1 << 16)
                except OSError:
                    return None
                # Only the tail matters: the screen is redrawn as a whole.
                seen = (seen + ANSI.sub(b"", chunk))[-(1 << 20) :]
            now = time.perf_counter()
            if wanted in seen:
                return now - started
            if b"MCP Servers" in seen and now - pressed > 0.25:
                # One key per write and per turn: Ink reads a chunk "tc" as one input, neither key.
                os.write(master, keys[presses % 2])
                presses += 1
                pressed = now
        return None
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        os.close(master)


def bench_official(repeats: int = 3) -> dict[int, float | None]:
    print(f"official Inspector TUI: spawn to `Tools (N)` on screen, two keys included (median of {repeats})")
    results: dict[int, float | None] = {}
    for tools in SIZES:
        runs = [official_once(tools) for _ in range(repeats if tools < 100_000 else 1)]
        finished = [run for run in runs if run is not None]
        results[tools] = statistics.median(finished) if finished else None
        if results[tools] is None:
            print(f"  {tools} tools: not listed within 120 s", flush=True)
        else:
            note = f" ({len(runs) - len(finished)} of {len(runs)} runs past 120 s)" if len(finished) < len(runs) else ""
            report(f"{tools} tools: official TUI list on screen{note}", results[tools] or 0.0, "s")
    return results


# -- building a form ---------------------------------------------------------------------------------


def wide_schema(count: int) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for index in range(count):
        kind = index % 5
        if kind == 0:
            properties[f"text_{index:03d}"] = {"type": "string", "description": f"free text {index}"}
        elif kind == 1:
            properties[f"count_{index:03d}"] = {"type": "integer", "minimum": 0, "default": index}
        elif kind == 2:
            properties[f"flag_{index:03d}"] = {"type": "boolean"}
        elif kind == 3:
            properties[f"mode_{index:03d}"] = {"type": "string", "enum": ["fast", "slow", "auto"]}
        else:
            properties[f"ratio_{index:03d}"] = {"type": "number", "description": "a ratio"}
    return {"type": "object", "properties": properties, "required": list(properties)[:3]}


async def _measure_form(count: int, repeats: int) -> dict[str, float]:
    from textual.app import App, ComposeResult

    from inspector.tui import looks
    from inspector.tui.collector import tune_collector
    from inspector.tui.widgets.form_row import FieldRow
    from inspector.tui.widgets.schema_form import SchemaForm

    # The collector as the inspector's app sets it.
    tune_collector()

    class FormApp(App[None]):
        # About the form's share of a 50-row terminal in the Tools pane.
        CSS = "SchemaForm { height: 22; }"

        def __init__(self) -> None:
            super().__init__()
            # The form's colours are roles, resolved as the inspector's app resolves them.
            looks.install(self)

        def compose(self) -> ComposeResult:
            yield SchemaForm()

    app = FormApp()
    runs: list[dict[str, float]] = []
    async with app.run_test(size=(160, 50)) as pilot:
        form = app.query_one(SchemaForm)
        for _ in range(repeats):
            for schema in (wide_schema(count), {"type": "object", "properties": {}}):
                wall, cpu = time.perf_counter(), time.process_time()
                form.load_schema(schema)
                figures: dict[str, float] = {}
                while form._rebuild_pending:
                    if "first" not in figures and schema["properties"] and form.query(FieldRow):
                        await pilot._wait_for_screen()
                        figures["first"] = time.perf_counter() - wall
                        figures["first_cpu"] = time.process_time() - cpu
                    await asyncio.sleep(0.001)
                await pilot._wait_for_screen()
                if schema["properties"]:
                    figures["full"] = time.perf_counter() - wall
                    figures["full_cpu"] = time.process_time() - cpu
                    figures.setdefault("first", figures["full"])
                    figures.setdefault("first_cpu", figures["full_cpu"])
                    rows = list(form.query(FieldRow))
                    assert len(rows) == count
                    # Rows below the first screenful are sketches, built once shown:
                    # the end of the form scrolled to, its rows built and painted.
                    wall, cpu = time.perf_counter(), time.process_time()
                    form.scroll_end(animate=False)
                    while rows[-1].sketched:  # noqa: ASYNC110 - the row signals nothing when built
                        await asyncio.sleep(0.001)
                    await pilot._wait_for_screen()
                    figures["end"] = time.perf_counter() - wall
                    figures["end_cpu"] = time.process_time() - cpu
                    form.scroll_home(animate=False)
                    runs.append(figures)
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def bench_form(repeats: int = 5) -> None:
    print(f"building a tool's form (SchemaForm, 22 rows high; median of {repeats})", flush=True)
    small = asyncio.run(_measure_form(3, repeats))
    wide = asyncio.run(_measure_form(100, repeats))
    report("3 properties: built and painted", small["full"], "s")
    report("3 properties: CPU", small["full_cpu"], "s")
    report("100 properties: first screenful painted", wide["first"], "s", small["full"], "3 properties")
    report("100 properties: first screenful CPU", wide["first_cpu"], "s", small["full_cpu"], "3 properties")
    report("100 properties: last row mounted", wide["full"], "s", small["full"], "3 properties")
    report("100 properties: CPU to the last row", wide["full_cpu"], "s", small["full_cpu"], "3 properties")
    report("100 properties: its end scrolled to, those rows built", wide["end"], "s", small["full"], "3 properties")
    report("100 properties: CPU of the end's rows", wide["end_cpu"], "s", small["full_cpu"], "3 properties")
    print("  target: the form built (on screen) in under 0.150 s", flush=True)


SECTIONS = {"launch": bench_launch, "official": bench_official, "form": bench_form}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sections", nargs="*", metavar="SECTION", help=", ".join(SECTIONS))
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(asyncio.run(_launch_child(args.child))), flush=True)
        return
    unknown = [name for name in args.sections if name not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s): {', '.join(unknown)}")
    load = os.getloadavg()[0]
    print(f"(load average {load:.1f} on {os.cpu_count()} cores; children's CPU so far {_children_cpu():.1f} s)")
    ours: dict[int, float] = {}
    theirs: dict[int, float | None] = {}
    for name in args.sections or list(SECTIONS):
        result = SECTIONS[name]()
        if name == "launch":
            ours = result  # type: ignore[assignment]
        elif name == "official":
            theirs = result  # type: ignore[assignment]
    for tools in SIZES:
        if ours.get(tools) and theirs.get(tools):
            report(f"{tools} tools: ours vs the official TUI", ours[tools], "s", theirs[tools], "official TUI")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
