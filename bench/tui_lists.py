"""The TUI's lists with 3, 10,000 and 100,000 tools: a key typed in the `/`
filter, backspace, escape, and the down arrow, each from the key to the
screen settled.  Baseline in the same run: an empty Textual app answering
a key under the same Pilot driver (its figure is the driver's own cost).

    .venv/bin/python bench/tui_lists.py            # 3, 10,000 and 100,000 tools
    .venv/bin/python bench/tui_lists.py 10000      # some sizes only

Pilot's wait for the screen visits every widget, so the same key costs
more in the inspector (hundreds of widgets) than in the empty app: a key
bound to nothing in the inspector is printed as a second baseline.

The server is bench/servers/raw_server.py over stdio, its tools in pages of
5,000.  The down arrow is measured twice: to the list's highlight drawn
(what the person sees move at once) and to the tool's detail and form
drawn (the pane waits for the arrow keys to stop: `ANNOUNCE_AFTER`).

The CPU time of this process for each key under Pilot is printed too: on
a machine other work keeps busy, the wall figures include waiting for a
core, the CPU a key costs much less so.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widgets import Static

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.core.servers.spec import ServerSpec  # noqa: E402
from inspector.tui.app import InspectorApp  # noqa: E402
from inspector.tui.panes.tools import ToolsPane  # noqa: E402
from inspector.tui.widgets.arguments import ArgumentsEditor  # noqa: E402
from inspector.tui.widgets.item_list import ANNOUNCE_AFTER, ItemList  # noqa: E402

RAW_SERVER = ROOT / "bench" / "servers" / "raw_server.py"
SIZE = (160, 50)
QUERY = "tool_0123"
DOWNS = 30
# Targets of issue 14, over the empty app's keypress.
FILTER_TARGET = {10_000: 0.030, 100_000: 0.100}
HIGHLIGHT_TARGET = 0.020


def report(name: str, value: float, unit: str, baseline: float | None = None, baseline_name: str = "") -> None:
    line = f"  {name:<52} {value:>10.3f} {unit}"
    if baseline:
        line += f"   ratio vs {baseline_name}: {value / baseline:.2f}x"
    print(line, flush=True)


class EmptyApp(App[None]):
    BINDINGS = [Binding("down", "count", "Count")]

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def compose(self) -> ComposeResult:
        yield Static("nothing to redraw", id="label")

    def action_count(self) -> None:
        self.count += 1
        self.query_one("#label", Static).update(f"{self.count} keys")


def painted(app: App[None] | App[int]) -> bool:
    """The screen has drawn every change asked for (nothing dirty, no layout to do)."""
    screen = app.screen
    if screen._layout_required or screen._scroll_required or screen._repaint_required or screen._dirty_widgets:
        return False
    focused = app.focused
    return focused is None or not (focused._repaint_required or focused._layout_required)


async def drawn(app: App[None] | App[int], key: str, done: Callable[[], bool]) -> float:
    """Key to frame: the key sent as the terminal's driver sends it, then the
    time until `done()` holds and the screen has drawn it.  No wait for the
    whole app to go idle (Pilot's press waits for that, so a timer due in
    40 ms, like the detail's, lands inside its figure)."""
    event = events.Key(key, None)
    event.set_sender(app)
    started = time.perf_counter()
    assert app._driver is not None
    app._driver.send_message(event)
    while not (done() and painted(app)):
        await asyncio.sleep(0.001)
    return time.perf_counter() - started


# CPU time of this process for each key, by series name (on a busy machine
# the wall figures wait for a core; the CPU a key costs does not).
CPU: dict[str, list[float]] = {}


async def timed(pilot: Pilot[None] | Pilot[int], key: str, series: str = "") -> float:
    started, cpu = time.perf_counter(), time.process_time()
    await pilot.press(key)
    await pilot._wait_for_screen()
    if series:
        CPU.setdefault(series, []).append(time.process_time() - cpu)
    return time.perf_counter() - started


async def empty_keypress(count: int = 40) -> tuple[float, float]:
    """The empty app's key: under Pilot, and to the frame drawn."""
    app = EmptyApp()
    async with app.run_test(size=SIZE) as pilot:
        CPU.pop("empty", None)
        under_pilot = statistics.median([await timed(pilot, "down", "empty") for _ in range(count)])
        frames = []
        for _ in range(count):
            expected = app.count + 1

            def counted(expected: int = expected) -> bool:
                return app.count == expected

            frames.append(await drawn(app, "down", counted))
            await pilot._wait_for_screen()
        return under_pilot, statistics.median(frames)


async def wait_until(pilot: Pilot[int], condition: Callable[[], object], what: str, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        await pilot.pause(0.01)


def form_of(app: InspectorApp, key: str) -> bool:
    editor = app.query_one(ArgumentsEditor)
    tool = app.query_one(ToolsPane).tool
    return tool is not None and tool.key == key and editor.key == key and not editor.form._rebuild_pending


async def measure(tools: int) -> dict[str, list[float]]:
    for name in [name for name in CPU if name != "empty"]:
        del CPU[name]
    pages = max(1, tools // 5000)
    spec = ServerSpec(
        transport="stdio", command=sys.executable, args=[str(RAW_SERVER), "--tools", str(tools), "--pages", str(pages)]
    )
    app = InspectorApp(spec)
    figures: dict[str, list[float]] = {}
    async with app.run_test(size=SIZE) as pilot:
        tool_list = app.query_one("#tool-list", ItemList)
        await wait_until(pilot, lambda: len(tool_list.items) == tools, "the tools listed")
        await wait_until(pilot, lambda: form_of(app, "tool_00000"), "the first tool's form")
        tool_list.focus_list()
        await pilot._wait_for_screen()

        async def series(name: str, keys: list[str], after: Callable[[], Awaitable[None]] | None = None) -> None:
            for key in keys:
                figures.setdefault(name, []).append(await timed(pilot, key, name))
                if after is not None:
                    await after()

        # The driver's cost in this app (hundreds of widgets to wait for, not
        # the empty app's one): a key that nothing is bound to.
        await series("a key bound to nothing (this app's driver cost)", ["f20"] * DOWNS)
        # Down arrow to the highlight drawn; the detail follows once the keys stop.
        await series("down arrow, to the highlight drawn", ["down"] * DOWNS)
        rows = tool_list.options
        for _ in range(DOWNS):
            expected = ((rows.highlighted or 0) + 1) % len(rows.rows)

            def highlighted(expected: int = expected) -> bool:
                return rows.highlighted == expected

            figures.setdefault("down arrow, key to the frame drawn (no Pilot)", []).append(
                await drawn(app, "down", highlighted)
            )
            # The detail is built after the key (ANNOUNCE_AFTER): let it finish before the next.
            key = tool_list.shown[expected].key
            await wait_until(pilot, partial(form_of, app, key), "the detail")
            await pilot._wait_for_screen()
        await wait_until(pilot, lambda: form_of(app, tool_list.highlighted_item.key), "the detail after the arrows")  # type: ignore[union-attr]
        # Down arrow to the detail and form of the new tool drawn.
        for _ in range(10):
            started, cpu = time.perf_counter(), time.process_time()
            await pilot.press("down")
            key = tool_list.highlighted_item.key  # type: ignore[union-attr]
            await wait_until(pilot, partial(form_of, app, key), "the detail")
            await pilot._wait_for_screen()
            figures.setdefault("down arrow, to the detail and form drawn", []).append(time.perf_counter() - started)
            CPU.setdefault("down arrow, to the detail and form drawn", []).append(time.process_time() - cpu)
        await pilot.press("slash")
        await pilot._wait_for_screen()
        await series("filter: a key typed", list(QUERY))
        await series("filter: backspace", ["backspace"] * 2)
        for key in QUERY[-2:]:
            query = tool_list.filter_text + key

            def filtered(query: str = query) -> bool:
                return tool_list.filter_text == query

            figures.setdefault("filter: a key typed, key to the frame drawn (no Pilot)", []).append(
                await drawn(app, key, filtered)
            )
            await pilot._wait_for_screen()
        assert tool_list.border_title == f"Tools ({len(tool_list.shown)}/{tools})", tool_list.border_title
        await series("filter: backspace", ["backspace"] * len(QUERY))
        await series("filter: a key typed (again)", list(QUERY))
        await series("filter: escape (clears it)", ["escape"])
        assert len(tool_list.shown) == tools
    return figures


def summary(tools: int, figures: dict[str, list[float]], empty: float, empty_frame: float) -> None:
    print(f"{tools} tools (p50 of each key; max below)", flush=True)
    empty_cpu = statistics.median(CPU["empty"])
    for name, values in CPU.items():
        if name != "empty":
            report(f"CPU {name} p50", statistics.median(values) * 1000, "ms", empty_cpu * 1000, "empty app CPU")
    for name, values in figures.items():
        median = statistics.median(values)
        base, base_name = (empty_frame, "empty app, key to frame") if "no Pilot" in name else (empty, "empty app")
        report(f"{name} p50", median * 1000, "ms", base * 1000, base_name)
        print(
            f"      max {max(values) * 1000:.1f} ms over {len(values)} keys;"
            f" over the {base_name}: {(median - base) * 1000:+.1f} ms",
            flush=True,
        )

    def p50(name: str) -> float:
        return statistics.median(figures[name])

    typed = statistics.median(figures["filter: a key typed"] + figures["filter: a key typed (again)"])
    nothing = p50("a key bound to nothing (this app's driver cost)")
    down = p50("down arrow, to the highlight drawn")
    print(
        f"  over the key bound to nothing (Pilot): filter key {(typed - nothing) * 1000:+.1f} ms,"
        f" down arrow {(down - nothing) * 1000:+.1f} ms",
        flush=True,
    )
    typed_frame = p50("filter: a key typed, key to the frame drawn (no Pilot)")
    down_frame = p50("down arrow, key to the frame drawn (no Pilot)")
    if tools in FILTER_TARGET:
        print(
            f"  filter key target: within {FILTER_TARGET[tools] * 1000:.0f} ms of the empty app;"
            f" Pilot {(typed - empty) * 1000:+.1f} ms, key to frame {(typed_frame - empty_frame) * 1000:+.1f} ms",
            flush=True,
        )
    print(
        f"  highlight target: within {HIGHLIGHT_TARGET * 1000:.0f} ms of the empty app;"
        f" Pilot {(down - empty) * 1000:+.1f} ms (its idle wait includes the detail, {ANNOUNCE_AFTER * 1000:.0f} ms"
        f" after the key), key to frame {(down_frame - empty_frame) * 1000:+.1f} ms",
        flush=True,
    )


async def main(sizes: list[int]) -> None:
    empty, empty_frame = await empty_keypress()
    report("empty Textual app, a keypress p50 (Pilot)", empty * 1000, "ms")
    report("empty Textual app, key to the frame drawn p50", empty_frame * 1000, "ms")
    report("empty Textual app, a keypress CPU p50 (Pilot)", statistics.median(CPU["empty"]) * 1000, "ms")
    for tools in sizes:
        figures = await measure(tools)
        summary(tools, figures, empty, empty_frame)
    empty_after, frame_after = await empty_keypress()
    report("empty Textual app again (the machine's drift)", empty_after * 1000, "ms", empty * 1000, "first")
    report("empty app, key to frame, again", frame_after * 1000, "ms", empty_frame * 1000, "first")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sizes", nargs="*", type=int, default=[3, 10_000, 100_000])
    asyncio.run(main(parser.parse_args().sizes))
