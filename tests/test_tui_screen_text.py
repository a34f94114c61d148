"""What the screens read as text, the way a reader of the SVG screenshot
takes it: one text element per styled run, each run's leading spaces
dropped. Separators between runs must survive that reading."""

from __future__ import annotations

import html
import re

import pytest
from textual.widgets import Input, Static

from inspector.core.servers.spec import demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.bottom import BottomPanel
from inspector.tui.panes.traffic import TrafficPane
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.widgets.result_view import ResultView

from .tui_helpers import burst, field_row, fill, select, settle, wait_connected, wait_for

_RUN = re.compile(r'<text class="[^"]*" x="[\d.]+" y="([\d.]+)"[^>]*>([^<]*)</text>')


def svg_lines(app: InspectorApp) -> list[str]:
    """The screenshot's text, line by line, each run read without its leading spaces."""
    lines: dict[float, list[str]] = {}
    for match in _RUN.finditer(app.export_screenshot()):
        run = html.unescape(match.group(2)).replace("\xa0", " ")
        lines.setdefault(float(match.group(1)), []).append(run.lstrip(" "))
    return ["".join(lines[y]) for y in sorted(lines)]


def status_text(app: InspectorApp) -> str:
    return str(app.query_one(ResultView).query_one("#status", Static).render())


@pytest.mark.parametrize("size", [(100, 30), (200, 50)])
async def test_separators_survive_a_reading_of_the_screenshot(size: tuple[int, int]) -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=size) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "echo")
        await fill(pilot, field_row(app, ("message",)), "hello, inspector")
        await burst(pilot, "ctrl+j")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "the confirmation")
        await burst(pilot, "y")
        await wait_for(pilot, lambda: "OK" in status_text(app), "the result")
        await settle(pilot, "the result drawn")
        text = "\n".join(svg_lines(app))
        assert re.search(r"Inspector Demo Server 0\.1\.0", text), text
        assert re.search(r"✔ OK +[\d.]+ ms", text), text
        assert re.search(r"\[1\] text +16 chars", text), text
        # The key bar: a key and what it does.
        assert re.search(r"\^q Quit", text), text
        # The tool list (raw name, then badges) and the tool's header.
        assert re.search(r"plan_trip +RO CLOSED", text), text
        panel = app.query_one(BottomPanel)
        panel.open()
        panel.styles.height = 20
        pane = app.query_one(TrafficPane)
        pane.query_one("#traffic-filter", Input).value = "method:tools/call"
        pane.table.focus()
        await burst(pilot, "end")
        detail = pane.query_one("#traffic-detail")

        def detail_shown() -> bool:
            # The detail of the frame selected now, not the one before `end`.
            frame, heads = pane.table.selected_frame, detail.query(Static)
            return frame is not None and bool(heads) and f"frame #{frame.seq} " in str(heads.first().render())

        await wait_for(pilot, detail_shown, "the selected frame's detail")
        await settle(pilot, "the detail drawn")
        text = "\n".join(svg_lines(app))
        assert re.search(r"frame #\d+ in response +tools/call", text), text
        # The detail's clock and latency, and the table's columns.
        assert re.search(r"\d\d:\d\d:\d\d\.\d{3} +[\d.]+ ms", text), text
        # A narrow table gives up its clock column first (the latency keeps its unit).
        clock = r"\d\d:\d\d:\d\d\.\d{3} +" if size[0] >= 200 else ""
        assert re.search(rf"#\d+ +{clock}← +response +tools/c\S* +\d+ +[\d.]+ms", text), text
        assert not re.search(r"[a-z]Partner", text), text


async def test_latency_columns_read_apart() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_connected(pilot, app)
        await burst(pilot, "alt+5")
        await wait_for(pilot, lambda: any("tools/list" in line for line in svg_lines(app)), "the latency table")
        line = next(line for line in svg_lines(app) if "tools/list" in line)
        assert re.search(r"tools/list +\d+ +[\d.]+ +[\d.]+ +[\d.]+", line), line


@pytest.mark.parametrize("size", [(100, 30), (200, 50)])
async def test_widgets_side_by_side_read_apart(size: tuple[int, int]) -> None:
    """Blank cells between two widgets (tabs, a label and its input) and
    spaces that start a differently styled run keep the gap in the reading."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=size) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "register_user")
        await settle(pilot, "the form of register_user drawn")
        text = "\n".join(svg_lines(app))
        assert re.search(r"Tools +Resources +Templates +Prompts +Server +Roots", text), text
        assert re.search(r"Arguments +Input schema +Output schema +Raw", text), text
        assert re.search(r"Traffic +Stderr +Logs +Problems +Latency", text), text
        assert re.search(r"form +\(ctrl\+o switches", text), text
        assert re.search(r"username \* +string", text), text
        await burst(pilot, "f4")
        await wait_for(pilot, lambda: any("URI:" in line for line in svg_lines(app)), "the template's URI")
        text = "\n".join(svg_lines(app))
        assert re.search(r"URI: demo://users/\S* +ctrl\+enter or ctrl\+j reads it", text), text


def test_the_picture_stays_as_drawn() -> None:
    """Gaps become trailing no-break spaces of the run before, whose length
    grows by as many cells; a run that starts with spaces moves right by as
    many; an underlined run neither takes nor gives spaces."""
    from inspector.tui.svg_text import keep_gaps

    style = "<style>.t-r1 { fill: #fff; }\n.t-r2 { fill: #0ff;text-decoration: underline; }</style>"

    def run(cls: str, col: int, body: str) -> str:
        cells = len(html.unescape(body))
        return f'<text class="{cls}" x="{col * 10}" y="20" textLength="{cells * 10}" clip-path="u">{body}</text>'

    svg = style + run("t-r1", 0, "form") + run("t-r1", 4, "&#160;&#160;(ctrl+o)") + run("t-r1", 16, "next")
    fixed = keep_gaps(svg)
    assert run("t-r1", 0, "form&#160;&#160;") in fixed
    assert run("t-r1", 6, "(ctrl+o)&#160;&#160;") in fixed
    assert run("t-r1", 16, "next") in fixed
    underlined = style + run("t-r2", 0, "link") + run("t-r1", 6, "after")
    assert keep_gaps(underlined) == underlined
