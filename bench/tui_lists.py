"""The TUI's lists (tools, resources, templates, prompts) with 3, 10,000 and
100,000 items: a key typed in the `/` filter, backspace, escape, and the
down arrow, each from the key to the screen settled.  Baseline in the same
run: an empty Textual app answering a key under the same driver.

    .venv/bin/python bench/tui_lists.py                       # every list, 3 / 10,000 / 100,000
    .venv/bin/python bench/tui_lists.py 10000 --kinds tools   # some sizes, some lists

Two drivers, both printed:

- Pilot (`pilot.press`, then its wait for the screen): the figures the
  issue's targets were first measured with.  Pilot waits until the app has
  been idle for a while and visits every widget after each key, so the same
  key costs more in the inspector (hundreds of widgets) than in the empty
  app; a key bound to nothing in the inspector is printed as a second
  baseline, and the down arrow's figure includes the detail the pane builds
  with the move, in the same frame (a lone key; keys closer than
  `ANNOUNCE_AFTER` make a burst, whose detail waits for the keys to stop).
- Key to frame (no Pilot): the key handed to the app as the terminal's
  driver hands it, to the frame that shows its effect: what a person sees.
  The down arrow is timed to the highlight drawn and, separately, to the
  item's detail drawn.

The CPU time of this process per key is printed beside each Pilot figure:
on a machine other work keeps busy, wall figures include waiting for a
core, the CPU a key costs much less so.  Each list is measured in an app
of its own (the server lists only that kind), after its wire validation
has finished (it runs in a thread that steps aside while keys come).

The server is bench/servers/raw_server.py over stdio, pages of 5,000.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widgets import Static

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.core.protocol.items import Item  # noqa: E402
from inspector.core.servers.spec import ServerSpec  # noqa: E402
from inspector.tui.app import InspectorApp  # noqa: E402
from inspector.tui.panes.prompts import PromptsPane  # noqa: E402
from inspector.tui.panes.resources import ResourcesPane  # noqa: E402
from inspector.tui.panes.templates import TemplatesPane, template_variables  # noqa: E402
from inspector.tui.panes.tools import ToolsPane  # noqa: E402
from inspector.tui.server_view import ServerView  # noqa: E402
from inspector.tui.widgets import filter_list  # noqa: E402
from inspector.tui.widgets.arguments import ArgumentsEditor  # noqa: E402
from inspector.tui.widgets.completing_field import form_fields  # noqa: E402
from inspector.tui.widgets.item_list import ItemList  # noqa: E402

RAW_SERVER = ROOT / "bench" / "servers" / "raw_server.py"
SIZE = (160, 50)
DOWNS = 30
# Targets of issue 14, over the empty app's keypress.
FILTER_TARGET = {10_000: 0.030, 100_000: 0.100}
HIGHLIGHT_TARGET = 0.020
# The CPU a key costs in the floor app: past Pilot's idle test (1 ms of CPU
# in a 20 ms sleep), as any key that draws a list row and a detail is.
FLOOR_WORK = 0.002


def report(name: str, value: float, unit: str, baseline: float | None = None, baseline_name: str = "") -> None:
    line = f"  {name:<58} {value:>10.3f} {unit}"
    if baseline:
        line += f"   ratio vs {baseline_name}: {value / baseline:.2f}x"
    print(line, flush=True)


# -- the lists -------------------------------------------------------------------------


def form_of(app: InspectorApp, key: str) -> bool:
    editor = app.query_one(ArgumentsEditor)
    tool = app.query_one(ToolsPane).tool
    return tool is not None and tool.key == key and editor.key == key and not editor.form._rebuild_pending


def _fields(pane: TemplatesPane | PromptsPane) -> list[str]:
    return [field.argument for field in form_fields(pane)]


def _template_shown(app: InspectorApp, item: Item) -> bool:
    pane = app.query_one(TemplatesPane)
    return pane.current is not None and pane.current.key == item.key and _fields(pane) == template_variables(item.key)


def _prompt_shown(app: InspectorApp, item: Item) -> bool:
    pane = app.query_one(PromptsPane)
    names = [a["name"] for a in item.data.get("arguments") or [] if isinstance(a, dict)]
    return pane.current is not None and pane.current.key == item.key and _fields(pane) == names


def _resource_shown(app: InspectorApp, item: Item) -> bool:
    pane = app.query_one(ResourcesPane)
    return pane.current is not None and pane.current.key == item.key


@dataclass(frozen=True)
class Kind:
    name: str  # the main tab's id, and the raw server's option
    key: str  # the key that shows its pane
    list_id: str
    query: str  # a filter query matching 1 item in 1,000
    shown: Callable[[InspectorApp, Item], bool]  # the item's detail is drawn


KINDS = {
    "tools": Kind("tools", "f2", "#tool-list", "tool_0123", lambda app, item: form_of(app, item.key)),
    "resources": Kind("resources", "f3", "#resource-list", "resource_0123", _resource_shown),
    "templates": Kind("templates", "f4", "#template-list", "template_0123", _template_shown),
    "prompts": Kind("prompts", "f5", "#prompt-list", "prompt_0123", _prompt_shown),
}


# -- drivers ----------------------------------------------------------------------------


class EmptyApp(App[None]):
    """A label the down arrow counts on; *widgets* more (hidden) in the tree,
    and *work* seconds of CPU spent per key, for the floor (`floor_keypress`)."""

    BINDINGS = [Binding("down", "count", "Count")]

    def __init__(self, widgets: int = 0, work: float = 0.0) -> None:
        super().__init__()
        self.count = 0
        self.widgets = widgets
        self.work = work

    def compose(self) -> ComposeResult:
        yield Static("nothing to redraw", id="label")
        for _ in range(self.widgets):
            yield Static(classes="-spare")

    def on_mount(self) -> None:
        for spare in self.query(".-spare"):
            spare.display = False

    def action_count(self) -> None:
        self.count += 1
        until = time.process_time() + self.work
        while time.process_time() < until:
            pass
        self.query_one("#label", Static).update(f"{self.count} keys")


def painted(app: App[None] | App[int]) -> bool:
    """The screen has drawn every change asked for (nothing dirty, no layout to do)."""
    screen = app.screen
    if screen._layout_required or screen._scroll_required or screen._repaint_required or screen._dirty_widgets:
        return False
    focused = app.focused
    return focused is None or not (focused._repaint_required or focused._layout_required)


def send(app: App[None] | App[int], key: str) -> None:
    """The key as the terminal's driver sends it."""
    event = events.Key(key, None)
    event.set_sender(app)
    assert app._driver is not None
    app._driver.send_message(event)


async def until(done: Callable[[], bool], app: App[None] | App[int], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not (done() and painted(app)):
        if time.monotonic() > deadline:
            raise TimeoutError("the key's effect never reached the screen")
        await asyncio.sleep(0.002)


async def drawn(app: App[None] | App[int], key: str, done: Callable[[], bool]) -> tuple[float, float]:
    """Key to frame: the key sent as the terminal's driver sends it, then the
    (wall, CPU) time until `done()` holds and the screen has drawn it.  No
    wait for the whole app to go idle (Pilot's press waits for that)."""
    started, cpu = time.perf_counter(), time.process_time()
    send(app, key)
    await until(done, app)
    return time.perf_counter() - started, time.process_time() - cpu


# CPU time of this process for each key, by series name.
CPU: dict[str, list[float]] = {}


async def timed(pilot: Pilot[None] | Pilot[int], key: str, series: str = "") -> float:
    started, cpu = time.perf_counter(), time.process_time()
    await pilot.press(key)
    if series:
        CPU.setdefault(series, []).append(time.process_time() - cpu)
    return time.perf_counter() - started


@dataclass
class Baseline:
    pilot: float
    pilot_cpu: float
    frame: float


async def empty_keypress(count: int = 40, widgets: int = 0, work: float = 0.0) -> Baseline:
    """The empty app's key: under Pilot, and to the frame drawn."""
    app = EmptyApp(widgets, work)
    async with app.run_test(size=SIZE) as pilot:
        CPU.pop("empty", None)
        under_pilot = statistics.median([await timed(pilot, "down", "empty") for _ in range(count)])
        frames = []
        for _ in range(count):
            expected = app.count + 1

            def counted(expected: int = expected) -> bool:
                return app.count == expected

            frames.append((await drawn(app, "down", counted))[0])
            await pilot._wait_for_screen()
        return Baseline(under_pilot, statistics.median(CPU.pop("empty")), statistics.median(frames))


async def wait_until(pilot: Pilot[int], condition: Callable[[], object], what: str, timeout: float = 900) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        await pilot.pause(0.01)


def validated(app: InspectorApp) -> bool:
    view = app.query_one(ServerView)
    check = view.wire_validation
    return check.validator is not None and not check.busy and check.validated >= len(view.traffic.frames)


# -- one list at one size -----------------------------------------------------------------


async def measure(kind: Kind, count: int) -> tuple[dict[str, list[float]], dict[str, list[float]], int]:
    """(Pilot and key-to-frame wall figures, CPU figures, widgets on the screen) of one list of `count` items."""
    CPU.clear()
    pages = max(1, count // 5000)
    args = [str(RAW_SERVER), f"--{kind.name}", str(count), "--pages", str(pages)]
    if kind.name != "tools":
        args += ["--tools", "0"]
    app = InspectorApp(ServerSpec(transport="stdio", command=sys.executable, args=args))
    figures: dict[str, list[float]] = {}
    async with app.run_test(size=SIZE) as pilot:
        # The pane's key, as a person opens it (it also puts focus on the list).
        await pilot.press(kind.key)
        item_list = app.query_one(kind.list_id, ItemList)
        await wait_until(pilot, lambda: len(item_list.items) == count, f"the {kind.name} listed")
        await wait_until(pilot, lambda: kind.shown(app, item_list.items[0]), "the first item's detail")
        await wait_until(pilot, lambda: validated(app), "the wire validation")
        item_list.focus_list()
        await pilot._wait_for_screen()
        rows = item_list.options
        widgets = len(list(app.screen.walk_children()))

        def shown_now() -> bool:
            item = item_list.highlighted_item
            return item is not None and kind.shown(app, item)

        async def series(name: str, keys: list[str], after: Callable[[], Awaitable[None]] | None = None) -> None:
            for key in keys:
                figures.setdefault(name, []).append(await timed(pilot, key, name))
                if after is not None:
                    await after()

        # The driver's cost in this app (hundreds of widgets to wait for, not
        # the empty app's one): a key that nothing is bound to.
        await series("a key bound to nothing, this app's driver cost (Pilot)", ["f20"] * DOWNS)
        # Down arrow under Pilot: its wait includes the detail (Pilot's keys are
        # further apart than ANNOUNCE_AFTER: each is a lone key).
        await series("down arrow (Pilot)", ["down"] * DOWNS)
        await wait_until(pilot, shown_now, "the detail after the arrows")
        # Key to frame: to the highlight drawn, and to the detail drawn.  The
        # keys are as far apart as a person's single presses (ANNOUNCE_AFTER):
        # closer ones make a burst, whose detail waits for the keys to stop.
        for _ in range(DOWNS):
            await asyncio.sleep(filter_list.ANNOUNCE_AFTER)
            expected = ((rows.highlighted or 0) + 1) % len(rows.rows)
            item = item_list.shown[expected]
            started, cpu = time.perf_counter(), time.process_time()

            def highlighted(expected: int = expected) -> bool:
                return rows.highlighted == expected

            wall, _cpu = await drawn(app, "down", highlighted)
            figures.setdefault("down arrow, key to the highlight drawn", []).append(wall)
            await until(partial(kind.shown, app, item), app)
            figures.setdefault("down arrow, key to the detail drawn", []).append(time.perf_counter() - started)
            CPU.setdefault("down arrow, key to the detail drawn", []).append(time.process_time() - cpu)
            await pilot._wait_for_screen()
        await pilot.press("slash")
        await pilot._wait_for_screen()
        await series("filter: a key typed (Pilot)", list(kind.query))
        title = f"{item_list.label} ({len(item_list.shown)}/{count})"
        assert item_list.border_title == title, (item_list.border_title, title)
        await series("filter: backspace (Pilot)", ["backspace"] * len(kind.query))
        # Key to frame: the query typed again, then taken back.
        for key in [*kind.query, *["backspace"] * len(kind.query)]:
            query = item_list.filter_text[:-1] if key == "backspace" else item_list.filter_text + key
            name = (
                "filter: backspace, key to the frame drawn"
                if key == "backspace"
                else "filter: a key typed, key to the frame drawn"
            )

            def filtered(query: str = query) -> bool:
                return item_list.filter_text == query

            wall, cpu = await drawn(app, key, filtered)
            figures.setdefault(name, []).append(wall)
            CPU.setdefault(name, []).append(cpu)
            await pilot._wait_for_screen()
        await series("filter: a key typed (Pilot)", list(kind.query))
        await series("filter: escape, clears it (Pilot)", ["escape"])
        assert len(item_list.shown) == count
    return figures, dict(CPU), widgets


def summary(
    kind: Kind,
    count: int,
    figures: dict[str, list[float]],
    cpu: dict[str, list[float]],
    base: Baseline,
    floor: Baseline,
    widgets: int,
) -> None:
    print(f"{kind.name}: {count} (p50 of each key; max below)", flush=True)
    for name, values in cpu.items():
        report(f"CPU {name} p50", statistics.median(values) * 1000, "ms", base.pilot_cpu * 1000, "empty app CPU")
    for name, values in figures.items():
        median = statistics.median(values)
        base_value, base_name = (base.pilot, "empty app") if "Pilot" in name else (base.frame, "empty app, to frame")
        report(f"{name} p50", median * 1000, "ms", base_value * 1000, base_name)
        print(
            f"      max {max(values) * 1000:.1f} ms over {len(values)} keys;"
            f" over the {base_name}: {(median - base_value) * 1000:+.1f} ms",
            flush=True,
        )

    def p50(name: str) -> float:
        return statistics.median(figures[name])

    nothing = p50("a key bound to nothing, this app's driver cost (Pilot)")
    typed, down = p50("filter: a key typed (Pilot)"), p50("down arrow (Pilot)")
    typed_frame = p50("filter: a key typed, key to the frame drawn")
    down_frame, detail_frame = p50("down arrow, key to the highlight drawn"), p50("down arrow, key to the detail drawn")
    print(
        f"  Pilot, over this app's key bound to nothing: filter key {(typed - nothing) * 1000:+.1f} ms,"
        f" down arrow {(down - nothing) * 1000:+.1f} ms"
        " (with the detail, drawn with the move)",
        flush=True,
    )
    print(
        f"  Pilot's floor for an app of {widgets} widgets whose key works {FLOOR_WORK * 1000:.0f} ms:"
        f" {floor.pilot * 1000:.1f} ms ({(floor.pilot - base.pilot) * 1000:+.1f} over the empty app);"
        f" over that floor: filter key {(typed - floor.pilot) * 1000:+.1f} ms,"
        f" down arrow {(down - floor.pilot) * 1000:+.1f} ms",
        flush=True,
    )
    if count in FILTER_TARGET:
        target = FILTER_TARGET[count]
        over = typed_frame - base.frame
        print(
            f"  TARGET filter key within {target * 1000:.0f} ms of the empty app: key to frame {over * 1000:+.1f} ms"
            f" [{'met' if over <= target else 'MISSED'}]; Pilot {(typed - base.pilot) * 1000:+.1f} ms",
            flush=True,
        )
    over = down_frame - base.frame
    print(
        f"  TARGET highlight within {HIGHLIGHT_TARGET * 1000:.0f} ms of the empty app: key to frame"
        f" {over * 1000:+.1f} ms [{'met' if over <= HIGHLIGHT_TARGET else 'MISSED'}];"
        f" Pilot {(down - base.pilot) * 1000:+.1f} ms;"
        f" the detail drawn {detail_frame * 1000:.0f} ms after the key"
        f" (CPU {statistics.median(cpu['down arrow, key to the detail drawn']) * 1000:.0f} ms)",
        flush=True,
    )


async def main(sizes: list[int], kinds: list[str]) -> None:
    print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)", flush=True)
    base = await empty_keypress()
    report("empty Textual app, a keypress p50 (Pilot)", base.pilot * 1000, "ms")
    report("empty Textual app, a keypress CPU p50 (Pilot)", base.pilot_cpu * 1000, "ms")
    report("empty Textual app, key to the frame drawn p50", base.frame * 1000, "ms")
    for name in kinds:
        for count in sizes:
            figures, cpu, widgets = await measure(KINDS[name], count)
            floor = await empty_keypress(widgets=widgets - 1, work=FLOOR_WORK)
            summary(KINDS[name], count, figures, cpu, base, floor, widgets)
    again = await empty_keypress()
    report("empty Textual app again (the machine's drift)", again.pilot * 1000, "ms", base.pilot * 1000, "first")
    report("empty app, key to frame, again", again.frame * 1000, "ms", base.frame * 1000, "first")
    print(f"(load average {os.getloadavg()[0]:.1f} at the end)", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sizes", nargs="*", type=int, default=[3, 10_000, 100_000])
    parser.add_argument("--kinds", default=",".join(KINDS), help="lists to measure (default: all four)")
    options = parser.parse_args()
    chosen = [name.strip() for name in options.kinds.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in KINDS]
    if unknown:
        parser.error(f"unknown list(s): {', '.join(unknown)}")
    asyncio.run(main(options.sizes, chosen))
