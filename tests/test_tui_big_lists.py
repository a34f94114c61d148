"""The lists with 10,000 items (bench/servers/raw_server.py): the filter's
count and rows, the highlight's keys and the detail that follows it, and a
burst of arrow keys ending on the detail (and form) of the last item moved
to; for the tools, then the resources, templates and prompts."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static, TabbedContent, TextArea

from inspector.core.servers.spec import ServerSpec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.prompts import PromptsPane
from inspector.tui.panes.resources import ResourcesPane
from inspector.tui.panes.templates import TemplatesPane
from inspector.tui.panes.tools import ToolsPane
from inspector.tui.server_view import ServerView
from inspector.tui.widgets import filter_list
from inspector.tui.widgets.arguments import ArgumentsEditor
from inspector.tui.widgets.completing_field import form_fields
from inspector.tui.widgets.form_row import FieldRow
from inspector.tui.widgets.item_list import ItemList

from .tui_helpers import burst, field_row, focus, settle, wait_for

RAW_SERVER = Path(__file__).resolve().parent.parent / "bench" / "servers" / "raw_server.py"
TOOLS = 10_000
SIZE = (140, 40)


def raw_spec(tools: int = TOOLS, *more: str) -> ServerSpec:
    return ServerSpec(
        transport="stdio",
        command=sys.executable,
        args=[str(RAW_SERVER), "--tools", str(tools), "--pages", "4", *more],
        timeout=60,
    )


def form_of(app: InspectorApp, key: str) -> bool:
    """The tool `key` is shown and its form drawn."""
    tool = app.query_one(ToolsPane).tool
    editor = app.query_one(ArgumentsEditor)
    return tool is not None and tool.key == key and editor.key == key and not editor.form._rebuild_pending


def form_rows(app: InspectorApp) -> set[tuple[object, ...]]:
    return {row.node.path for row in app.screen.query(FieldRow) if not row.vacant}


def in_form(app: InspectorApp) -> bool:
    focused = app.focused
    return focused is not None and app.query_one(ArgumentsEditor) in focused.ancestors


def query_text(app: InspectorApp) -> str:
    """What the `query` field of the form holds (a line or a text area)."""
    row = field_row(app, ("query",))
    areas = row.query(TextArea)
    return areas.first().text if areas else row.query_one(Input).value


def header(app: InspectorApp) -> str:
    return str(app.query_one("#tool-header-text", Static).render())


async def first_form(pilot: Pilot[int], app: InspectorApp, count: int = TOOLS) -> ItemList:
    """Until `count` tools are listed and the first one's form is drawn; the tool list."""
    tools = app.query_one("#tool-list", ItemList)
    await wait_for(pilot, lambda: len(tools.items) == count, f"{count:,} tools listed")
    await wait_for(pilot, lambda: form_of(app, "tool_00000"), "the first tool's form")
    return tools


async def listed(pilot: Pilot[int], app: InspectorApp) -> ItemList:
    tools = await first_form(pilot, app)
    await focus(pilot, tools.options)
    return tools


async def test_the_filter_counts_and_shows_the_matches() -> None:
    app = InspectorApp(raw_spec())
    async with app.run_test(size=SIZE) as pilot:
        tools = await listed(pilot, app)
        assert tools.border_title == f"Tools ({TOOLS})"
        await pilot.press("slash", *"tool_012")
        await wait_for(pilot, lambda: len(tools.shown) == 100, "tool_01200 … tool_01299")
        assert tools.border_title == f"Tools (100/{TOOLS})"
        assert [item.key for item in tools.shown] == [f"tool_{n:05d}" for n in range(1200, 1300)]
        # The first match is highlighted and shown, and its row is on screen.
        await wait_for(pilot, lambda: form_of(app, "tool_01200"), "the first match's detail")
        assert "tool_01200" in header(app)
        # A longer query narrows the previous matches; backspace widens again.
        await pilot.press("3")
        await wait_for(pilot, lambda: len(tools.shown) == 10, "tool_01230 … tool_01239")
        assert tools.border_title == f"Tools (10/{TOOLS})"
        await pilot.press("backspace", "backspace")
        await wait_for(pilot, lambda: len(tools.shown) == 1000, "tool_01000 … tool_01999")
        # The description is searched too, case aside.
        await pilot.press(*["backspace"] * 7, *"SHIPMENT")
        await wait_for(pilot, lambda: tools.filter_text == "SHIPMENT", "the new query")
        assert len(tools.shown) == len(range(3, TOOLS, 6))  # the subjects take turns; "shipment" is the fourth
        assert all("shipment" in item.description for item in tools.shown)
        # Nothing matches: no tool, and the pane says so.
        await pilot.press(*"zz")
        await wait_for(pilot, lambda: tools.highlighted_item is None, "no tool")
        assert tools.border_title == f"Tools (0/{TOOLS})"
        await wait_for(pilot, lambda: "No tool selected" in header(app), "the empty detail")
        # Escape: every tool again, back on the tool last shown.
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(tools.shown) == TOOLS, "every tool")
        assert tools.border_title == f"Tools ({TOOLS})"
        assert app.focused is tools.options
        last = tools.highlighted_item
        assert last is not None and "shipment" in last.description


async def test_the_detail_follows_the_highlight_keys() -> None:
    app = InspectorApp(raw_spec())
    async with app.run_test(size=SIZE) as pilot:
        tools = await listed(pilot, app)
        for key, expected in (
            ("down", "tool_00001"),
            ("down", "tool_00002"),
            ("end", "tool_09999"),
            ("down", "tool_00000"),  # wraps round, as Textual's lists do
            ("up", "tool_09999"),
            ("home", "tool_00000"),
        ):
            await pilot.press(key)
            await wait_for(pilot, partial(form_of, app, expected), f"{key}: the detail of {expected}")
            assert tools.highlighted_item is not None and tools.highlighted_item.key == expected
            assert expected in header(app)
        # A page down moves by the rows in view (two lines each) and keeps the row in view.
        await pilot.press("pagedown")
        rows_in_view = tools.options.scrollable_content_region.height // 2
        await wait_for(pilot, lambda: tools.highlighted_index == rows_in_view, "a page down")
        row_top = 2 * rows_in_view
        scroll = int(tools.options.scroll_y)
        assert scroll <= row_top < scroll + tools.options.scrollable_content_region.height
        # A click on a row shows it and opens its form (as enter does).
        await pilot.click(tools.options, offset=(3, 1))
        clicked = tools.shown[(scroll + 1) // 2].key
        await wait_for(pilot, lambda: form_of(app, clicked), "the clicked tool's form")
        await wait_for(
            pilot, lambda: isinstance(app.focused, Input) or "TextArea" in type(app.focused).__name__, "form"
        )


async def test_a_burst_of_arrows_ends_on_the_last_tools_form() -> None:
    app = InspectorApp(raw_spec())
    async with app.run_test(size=SIZE) as pilot:
        tools = await listed(pilot, app)
        # All queued at once, no pause: tool_00025 (odd: no `exact` property).
        await burst(pilot, *["down"] * 25)
        assert tools.highlighted_item is not None and tools.highlighted_item.key == "tool_00025"
        await wait_for(pilot, lambda: form_of(app, "tool_00025"), "the form of tool_00025")
        assert form_rows(app) >= {("query",), ("limit",)} and ("exact",) not in form_rows(app)
        assert "tool_00025" in header(app)
        # Arrows then enter in one burst: enter opens the form of the row moved to.
        await burst(pilot, *["down"] * 5, "enter", *"abc")
        await wait_for(pilot, lambda: form_of(app, "tool_00030"), "the form of tool_00030")
        assert ("exact",) in form_rows(app)
        focused = app.focused
        assert focused is not None and app.query_one(ToolsPane) in focused.ancestors
        await wait_for(
            pilot, lambda: "abc" in str(getattr(app.focused, "text", getattr(app.focused, "value", ""))), "typed"
        )


async def test_a_lone_arrow_shows_its_tool_at_once_and_a_burst_waits_for_the_keys_to_stop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The burst's quiet time made longer than any test: what shows a tool is
    # the lone key's own announcement, or a key that flushes the burst.
    monkeypatch.setattr(filter_list, "ANNOUNCE_AFTER", 3600.0)
    app = InspectorApp(raw_spec(20, "--pages", "1"))
    async with app.run_test(size=SIZE) as pilot:
        tools = app.query_one("#tool-list", ItemList)
        await wait_for(pilot, lambda: len(tools.items) == 20, "20 tools listed")
        await wait_for(pilot, lambda: form_of(app, "tool_00000"), "the first tool's form")
        await focus(pilot, tools.options)
        # The first move in a while: its tool's form follows without a wait.
        await pilot.press("down")
        await wait_for(pilot, lambda: form_of(app, "tool_00001"), "the form of tool_00001 after one key")
        # Another move at once: it joins a burst, whose tool waits for the keys to stop...
        await pilot.press("down")
        assert tools.highlighted_item is not None and tools.highlighted_item.key == "tool_00002"
        await pilot.pause()
        assert form_of(app, "tool_00001")
        # ... or for a key that acts on the pane: enter shows it first, then opens its form.
        await pilot.press("enter")
        await wait_for(pilot, lambda: form_of(app, "tool_00002"), "the form of tool_00002 after enter")
        assert in_form(app)


# -- resources, templates and prompts ------------------------------------------------------


def detail_text(app: InspectorApp, kind: str) -> str:
    """What the pane of *kind* shows of its selected item (its header, its info, or its form's header)."""
    if kind == "tools":
        return str(app.query_one("#tool-header-text", Static).render())
    if kind == "resources":
        return str(app.query_one("#resource-info", Static).render())
    form = app.query_one("#template-form" if kind == "templates" else "#prompt-form")
    return str(form.query_one(".form-header", Static).render())


def fields(app: InspectorApp, kind: str) -> list[str]:
    pane = app.query_one(TemplatesPane if kind == "templates" else PromptsPane)
    return [field.argument for field in form_fields(pane)]


def shows(app: InspectorApp, kind: str, index: int) -> bool:
    """The pane of *kind* shows item number *index*: its name, and for a
    template or a prompt its fields (every other one has two)."""
    name = f"{kind[:-1]}_{index:05d}"
    panes: dict[str, type[ResourcesPane | TemplatesPane | PromptsPane]] = {
        "resources": ResourcesPane,
        "templates": TemplatesPane,
        "prompts": PromptsPane,
    }
    pane = app.query_one(panes[kind])
    current = pane.current
    if current is None or current.name != name or name not in detail_text(app, kind):
        return False
    if kind == "templates":
        return fields(app, kind) == (["id", "fields"] if index % 2 == 0 else ["id"])
    if kind == "prompts":
        return fields(app, kind) == (["topic", "tone"] if index % 2 == 0 else ["topic"])
    return True


@pytest.mark.parametrize("kind", ["resources", "templates", "prompts"])
async def test_a_list_of_10000_filters_shows_the_highlight_and_ends_a_burst_on_its_last_item(kind: str) -> None:
    app = InspectorApp(raw_spec(0, f"--{kind}", str(TOOLS)))
    label = kind.capitalize()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press({"resources": "f3", "templates": "f4", "prompts": "f5"}[kind])
        items = app.query_one(f"#{kind[:-1]}-list", ItemList)
        await wait_for(pilot, lambda: len(items.items) == TOOLS, f"{TOOLS:,} {kind} listed")
        await wait_for(pilot, lambda: shows(app, kind, 0), "the first item's detail")
        assert app.query_one("#main", TabbedContent).active == kind
        await focus(pilot, items.options)
        assert items.border_title == f"{label} ({TOOLS})"
        # The filter: the count in the title, the matches in order, the first one shown.
        await pilot.press("slash", *f"{kind[:-1]}_012")
        await wait_for(pilot, lambda: len(items.shown) == 100, f"{kind[:-1]}_01200 … {kind[:-1]}_01299")
        assert items.border_title == f"{label} (100/{TOOLS})"
        assert [item.name for item in items.shown] == [f"{kind[:-1]}_{n:05d}" for n in range(1200, 1300)]
        await wait_for(pilot, lambda: shows(app, kind, 1200), "the first match's detail")
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(items.shown) == TOOLS, "every item again")
        assert items.border_title == f"{label} ({TOOLS})"
        # Back on the item last shown; the arrow keys move from there.
        await wait_for(pilot, lambda: app.focused is items.options, "focus back on the list")
        await pilot.press("down")
        await wait_for(pilot, lambda: shows(app, kind, 1201), "the next item's detail")
        # A burst of arrows: the detail (and form) of the last item moved to, with nothing of the others.
        await burst(pilot, *["down"] * 24)
        assert items.highlighted_item is not None and items.highlighted_item.name == f"{kind[:-1]}_01225"
        await wait_for(pilot, lambda: shows(app, kind, 1225), "the detail of the last item moved to")
        if kind != "resources":
            # Arrows, enter and typing in one burst: the text lands in the first field of the item moved to.
            await burst(pilot, *["down"] * 5, "enter", *"abc")
            await wait_for(pilot, lambda: shows(app, kind, 1230), "the form of the item moved to")
            first = form_fields(app.query_one(TemplatesPane if kind == "templates" else PromptsPane))[0]
            await wait_for(pilot, lambda: first.value == "abc", "the typing in its first field")


@pytest.mark.parametrize("kind", ["tools", "resources", "templates", "prompts"])
async def test_a_lone_arrow_draws_the_item_and_its_detail_in_one_frame_without_a_layout(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each frame drawn after a lone arrow key shows the highlighted item's
    detail, never the last item's (the detail used to follow a frame or two
    later), and moving between items of two fields and of one (three and two
    for tools; for resources, info of five lines and of four) lays nothing
    out once the pane has shown both."""
    # Every key a lone one, however fast the machine sends them.
    monkeypatch.setattr(filter_list, "ANNOUNCE_AFTER", 0.0)
    app = InspectorApp(raw_spec(20) if kind == "tools" else raw_spec(0, f"--{kind}", "20"))

    def shown(index: int) -> bool:
        """Item number *index* is in its pane (for a tool: its form)."""
        return form_of(app, f"tool_{index:05d}") if kind == "tools" else shows(app, kind, index)

    async with app.run_test(size=SIZE) as pilot:
        await pilot.press({"tools": "f2", "resources": "f3", "templates": "f4", "prompts": "f5"}[kind])
        items = app.query_one(f"#{kind[:-1]}-list", ItemList)
        await wait_for(pilot, lambda: len(items.items) == 20, f"20 {kind} listed")
        await wait_for(pilot, lambda: shown(0), "the first item's detail")
        await focus(pilot, items.options)
        # Once down and back: the form has had the fields of both shapes.
        await pilot.press("down", "up")
        await wait_for(pilot, lambda: items.highlighted_index == 0, "back on the first item")
        # The listing's last frame drawn in the traffic pane (after a quiet
        # time), and the rest, done before the keys.
        await wait_for(
            pilot,
            lambda: all(worker.is_finished for worker in app.workers if worker.group == "traffic-detail"),
            "the traffic pane's detail of the last frame",
        )
        view = app.query_one(ServerView)
        check = view.wire_validation
        await wait_for(
            pilot,
            lambda: not check.busy and check.validated >= len(view.traffic.frames),
            "the wire validation of every frame (its findings reach the Problems tab)",
        )
        await settle(pilot)
        frames: list[tuple[str, str]] = []
        layouts: list[int] = []
        screen = app.screen
        display, refresh_layout = app._display, screen._refresh_layout

        def record(shown: object, update: object) -> None:
            item = items.highlighted_item
            frames.append(("" if item is None else item.name, detail_text(app, kind)))
            display(shown, update)  # type: ignore[arg-type]

        def count_layout(size: object = None, scroll: bool = False) -> None:
            # (A scroll of the list places what it exposes: not a layout.)
            if not scroll:
                layouts.append(1)
            refresh_layout(size, scroll)  # type: ignore[arg-type]

        monkeypatch.setattr(app, "_display", record)
        monkeypatch.setattr(screen, "_refresh_layout", count_layout)
        # (tool_00004's first field is a multi-line one: its form is laid out anew.)
        for index in range(1, 4):
            await pilot.press("down")
            await wait_for(pilot, lambda: shown(index), f"the detail of {kind[:-1]}_{index:05d}")  # noqa: B023
        assert {name for name, _ in frames} >= {f"{kind[:-1]}_{index:05d}" for index in range(1, 4)}
        for name, detail in frames:
            assert name in detail, f"a frame drew {name} highlighted beside the detail {detail!r}"
        assert not layouts, f"{len(layouts)} layouts of the screen over three arrow keys"
