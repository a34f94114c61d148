"""Colours come from the theme: every role reads on every built-in theme,
on the rows that have a background of their own too, JSON sits on the pane's
surface, and a theme change redraws what was drawn (the traffic table, the
lists, the forms)."""

from __future__ import annotations

import pytest
from pygments.token import Keyword, Name, Number, Punctuation, String  # type: ignore[import-untyped]
from rich.color import Color as RichColor
from rich.segment import Segment
from rich.syntax import Syntax
from textual.color import Color
from textual.geometry import Region
from textual.theme import BUILTIN_THEMES
from textual.widget import Widget
from textual.widgets import Static

from inspector.core.servers.spec import demo_spec
from inspector.tui import looks
from inspector.tui.app import InspectorApp
from inspector.tui.legible import contrast
from inspector.tui.panes.traffic import TrafficPane
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.widgets.arguments import ArgumentsEditor
from inspector.tui.widgets.item_list import ItemList
from inspector.tui.widgets.json_tree import JsonTree
from inspector.tui.widgets.row_list import RowList
from inspector.tui.widgets.traffic_table import TrafficTable

from .tui_helpers import burst, field_row, fill, focus, on_tool, select, settle, wait_connected, wait_for

# WCAG 2's contrast ratio for large text and for the parts of an interface
# that must be seen (1.4.3 large text, 1.4.11): 3:1.  Textual's own
# $text-success and $text-warning sit at 3.2-3.8 on its light themes, so the
# 4.5:1 of body text would reject the theme's own design; below 3 a colour
# reads as faint on a terminal (the old "yellow" on textual-light: 1.6).
MIN_CONTRAST = 3.0

# The ANSI themes leave every colour to the terminal: there is no background to measure.
MEASURED = {name: theme for name, theme in BUILTIN_THEMES.items() if not theme.ansi}


def test_the_contrast_ratio_is_wcags() -> None:
    # The end points and one published pair (#767676 on white is the lightest grey that reads at 4.5:1).
    assert contrast(Color(0, 0, 0), Color(255, 255, 255)) == pytest.approx(21.0)
    assert contrast(Color(40, 90, 200), Color(40, 90, 200)) == pytest.approx(1.0)
    assert contrast(Color(0x76, 0x76, 0x76), Color(255, 255, 255)) == pytest.approx(4.54, abs=0.01)


def _rgb(color: RichColor | None) -> Color:
    assert color is not None and color.triplet is not None, color
    return Color(*color.triplet)


@pytest.mark.parametrize("name", sorted(MEASURED))
def test_every_role_reads_on_every_builtin_theme(name: str) -> None:
    shown = looks.looks_for(MEASURED[name])
    assert set(shown.styles) == set(looks.ROLES)
    low = {
        role: round(contrast(_rgb(style.color), shown.grounds[role]), 2)
        for role, style in shown.styles.items()
        if contrast(_rgb(style.color), shown.grounds[role]) < MIN_CONTRAST
    }
    assert not low, f"{name}: roles under {MIN_CONTRAST}:1 against their background: {low}"
    # The lists are drawn on $surface (darker than the background on a light theme).
    on_surface = {
        role: round(contrast(_rgb(style.color), shown.surface), 2)
        for role, style in shown.styles.items()
        if looks.ROLES[role].on is None and contrast(_rgb(style.color), shown.surface) < MIN_CONTRAST
    }
    assert not on_surface, f"{name}: roles under {MIN_CONTRAST}:1 on the surface: {on_surface}"


@pytest.mark.parametrize("name", sorted(MEASURED))
def test_json_highlighting_reads_on_every_builtin_theme(name: str) -> None:
    theme = MEASURED[name]
    background = looks.looks_for(theme).background
    syntax = Syntax.get_theme(looks.json_syntax_theme(theme.dark))
    for token in (Name.Tag, String.Double, Number.Integer, Number.Float, Keyword.Constant, Punctuation):
        color = syntax.get_style_for_token(token).color
        if color is None:
            continue  # drawn in the theme's own text colour
        ratio = contrast(_rgb(color), background)
        assert ratio >= MIN_CONTRAST, (name, token, ratio)


def test_the_ansi_themes_give_terminal_colours() -> None:
    """On an ANSI theme the roles are the terminal's own colours, which it keeps readable."""
    for name, theme in BUILTIN_THEMES.items():
        if theme.ansi:
            shown = looks.looks_for(theme)
            for role, style in shown.styles.items():
                assert style.color is not None and style.color.triplet is None, (name, role, style)


def test_the_light_roles_differ_from_the_dark_ones() -> None:
    dark = looks.looks_for(BUILTIN_THEMES["textual-dark"])
    light = looks.looks_for(BUILTIN_THEMES["textual-light"])
    assert dark[looks.REQUEST].color != light[looks.REQUEST].color
    assert dark[looks.LATENCY].color != light[looks.LATENCY].color


def _colours(segments: list[Segment], role_colours: dict[str, str]) -> dict[str, str]:
    """The role's theme variable by segment text, for the segments drawn in a role's colour."""
    found: dict[str, str] = {}
    for segment in segments:
        style = segment.style
        if style is None or style.color is None or style.color.triplet is None or not segment.text.strip():
            continue
        role = role_colours.get(style.color.triplet.hex)
        if role is not None:
            found[segment.text] = role
    return found


def _role_colours(theme: str) -> dict[str, str]:
    """The theme variable behind each role colour, by the colour's hex (roles share variables)."""
    shown = looks.looks_for(BUILTIN_THEMES[theme])
    return {
        style.color.triplet.hex: looks.ROLES[role].color
        for role, style in shown.styles.items()
        if style.color and style.color.triplet and looks.ROLES[role].on is None
    }


def _drawn(widget: TrafficTable | RowList) -> list[Segment]:
    """What *widget* draws, less its cursor's row (whose text may take the row's
    own colour: see test_the_highlighted_rows_read_on_every_builtin_theme)."""
    if isinstance(widget, TrafficTable):
        skip = {widget.cursor - int(widget.scroll_y) + (1 if widget.header else 0)}
    elif widget.highlighted is not None:
        top = widget._start(widget.highlighted) - int(widget.scroll_y)
        skip = set(range(top, top + widget._height(widget.highlighted)))
    else:
        skip = set()
    height = widget.scrollable_content_region.height
    return [segment for y in range(height) if y not in skip for segment in widget.render_line(y)]


async def test_a_theme_change_redraws_the_traffic_table_and_the_lists() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        table = app.query_one(TrafficPane).table
        tools = app.query_one("#tool-list", ItemList).query_one(RowList)
        dark = _role_colours("textual-dark")
        await wait_for(pilot, lambda: "text-primary" in _colours(_drawn(table), dark).values(), "requests drawn")
        before_table = _colours(_drawn(table), _role_colours("textual-dark"))
        before_list = _colours(_drawn(tools), _role_colours("textual-dark"))
        # Requests (text-primary), responses (text-success), latency (text-warning, which
        # textual-dark shares with text-accent).
        assert {"text-primary", "text-success"} <= set(before_table.values()), before_table
        assert any(text.strip().endswith("ms") for text in before_table), before_table
        assert before_list, "the tool list draws no text in a role's colour"

        app.theme = "textual-light"
        light = _role_colours("textual-light")
        await wait_for(
            pilot, lambda: _colours(_drawn(table), light) == before_table, "the table in the light theme's colours"
        )
        await settle(pilot)
        # The same text, each piece in its role's colour on the new theme.
        assert _colours(_drawn(table), light) == before_table
        assert _colours(_drawn(tools), light) == before_list
        assert not _colours(_drawn(table), _role_colours("textual-dark"))


def _reads(segment: Segment) -> float | None:
    """The contrast of a segment's text on its own background (dim text half way
    to it, as a terminal draws it); None for blank text or a terminal's own colours."""
    style = segment.style
    if style is None or not segment.text.strip() or style.color is None or style.bgcolor is None:
        return None
    if style.color.triplet is None or style.bgcolor.triplet is None:
        return None
    ground = Color(*style.bgcolor.triplet)
    text = Color(*style.color.triplet)
    return contrast(ground.blend(text, 0.5) if style.dim else text, ground)


def _faint(segments: list[Segment]) -> dict[str, float]:
    return {
        segment.text: round(ratio, 2)
        for segment in segments
        if (ratio := _reads(segment)) is not None and ratio < MIN_CONTRAST
    }


def _highlighted(rows: RowList) -> list[Segment]:
    assert rows.highlighted is not None
    top = rows._start(rows.highlighted) - int(rows.scroll_y)
    return [s for y in range(top, top + rows._height(rows.highlighted)) for s in rows.render_line(y)]


def _cursor_row(table: TrafficTable) -> list[Segment]:
    assert table.cursor >= 0
    return list(table.render_line(table.cursor - int(table.scroll_y) + (1 if table.header else 0)))


def _box_titles(app: InspectorApp, box: Widget) -> list[Segment]:
    """The segments of a box's title and subtitle (the words on its top and bottom border lines)."""
    strips = app.screen._compositor.render_strips()
    region = box.region
    return [
        segment
        for y in (region.y, region.bottom - 1)
        for segment in strips[y].crop(region.x, region.right)
        if any(char.isalnum() for char in segment.text)
    ]


async def test_rows_json_the_traffic_header_and_box_titles_read_on_every_builtin_theme() -> None:
    """On every theme (one switch each, the costly part):

    - every tool's badges on the list's highlighted row, and the traffic
      cursor's row, focused or not, read at 3:1 on the row's own background
      (textual-light's cursor is dark blue: its dark green and dark red roles
      all but vanish there), and so does every other row (the traffic
      table's times and sizes were dim: 2.0:1 on solarized-light);
    - pretty JSON takes the pane's surface, not the Pygments theme's white or
      grey; the traffic header takes the theme's panel colour, not the
      terminal's;
    - a box's title and subtitle ("Tools (16)", "ttl 30 s public") read at
      3:1, focused or not (in the border's $primary-muted they did not)."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        table = app.query_one(TrafficPane).table
        detail = app.query_one("#traffic-detail")
        tool_list = app.query_one("#tool-list", ItemList)
        tools = tool_list.query_one(RowList)
        faint: dict[str, dict[str, float]] = {}
        for name in sorted(MEASURED):
            app.theme = name
            await settle(pilot)
            blocks = [s for s in detail.query(Static) if isinstance(s.content, looks.ThemedSyntax)]
            assert blocks, "the frame's JSON is shown"
            for block in blocks:
                surface = block.rich_style.bgcolor
                grounds = {s.style.bgcolor for y in range(block.size.height) for s in block.render_line(y) if s.style}
                assert grounds == {surface}, (name, surface, grounds)
            panel = Color.parse(app.theme_variables["panel"]).rich_color
            header = [s for s in table.render_line(0) if s.text.strip()]
            assert header and all(s.style and s.style.bgcolor == panel and s.style.bold for s in header), (name, header)
            assert not _faint(header), (name, _faint(header))
            for focused in (tools, table):
                focused.focus()
                await settle(pilot)
                state = "focused" if focused is tools else "blurred"
                titles = _box_titles(app, tool_list)
                assert titles, (name, focused)
                assert not _faint(titles), (name, focused, _faint(titles))
                # Each row in turn (RO/RW, a destructive hint on its own colour, assumed hints).
                for row in range(len(tools.rows)):
                    tools.highlighted = row
                    low = _faint(_highlighted(tools))
                    if low:
                        faint[f"{name} tool row {row} ({state})"] = low
                low = _faint(_cursor_row(table))
                if low:
                    faint[f"{name} traffic cursor ({'blurred' if state == 'focused' else 'focused'})"] = low
                # And every other row, on the list's surface (tinted while focused) and the table's background.
                for what, rows in (("tool list", tools), ("traffic", table)):
                    low = _faint(_drawn(rows))
                    if low:
                        faint[f"{name} {what}, other rows ({state})"] = low
        assert not faint, f"text under {MIN_CONTRAST}:1 on its row: {faint}"


Cell = tuple[str, str | None, str | None]


def _hex(color: RichColor | None) -> str | None:
    return color.triplet.hex if color is not None and color.triplet is not None else None


def _drawn_region(app: InspectorApp, widget: Widget) -> list[list[Cell]]:
    """Each cell of *widget*'s region on screen: its character, colour and background."""
    region = widget.region
    lines = []
    for strip in app.screen._compositor.render_strips()[region.y : region.bottom]:
        styled = [(s.text, s.style) for s in strip.crop(region.x, region.right) if s.style is not None]
        lines.append([(char, _hex(style.color), _hex(style.bgcolor)) for text, style in styled for char in text])
    return lines


async def _form_drawn(theme: str | None, switch_to: str | None) -> list[list[Cell]]:
    app = InspectorApp(demo_spec(), theme=theme)
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "register_user")
        if switch_to is not None:
            app.theme = switch_to
        await settle(pilot)
        return _drawn_region(app, app.query_one(ArgumentsEditor))


async def test_a_theme_change_redraws_the_form_as_a_start_in_that_theme_does() -> None:
    """The argument editor and its form (labels, required marks, notes,
    selects) after a live switch are drawn cell for cell as an app started
    in the new theme draws them, and not as they were."""
    before = await _form_drawn(None, None)
    switched = await _form_drawn(None, "catppuccin-latte")
    started = await _form_drawn("catppuccin-latte", None)
    assert switched == started
    assert switched != before
    # The required mark, in the new theme's error colour.
    error = looks.looks_for(BUILTIN_THEMES["catppuccin-latte"])[looks.ERROR_STRONG].color
    assert error is not None and error.triplet is not None
    assert any(char == "*" and colour == error.triplet.hex for line in switched for char, colour, _ in line)


async def test_the_json_trees_cursor_reads_on_every_builtin_theme() -> None:
    """The structured content's tree: its cursor's line (the key, and the
    muted "{…} 5 keys") reads at 3:1 on the cursor's background, focused or not."""
    async with on_tool(demo_spec(), "weather_report", (150, 50)) as (app, pilot):
        await fill(pilot, field_row(app, ("city",)), "Kyoto")
        await burst(pilot, "ctrl+j")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "the confirmation")
        await burst(pilot, "y")
        await wait_for(pilot, lambda: bool(app.query("#structured-tree")), "the structured content's tree")
        tree = app.query_one("#structured-tree", JsonTree)
        faint: dict[str, dict[str, float]] = {}
        elsewhere = app.query_one("#tool-list", ItemList).options
        # One theme switch each (the costly part), the tree blurred then focused.
        for name in sorted(MEASURED):
            app.theme = name
            for focused in (False, True):
                await focus(pilot, tree if focused else elsewhere)
                await settle(pilot)
                line = tree.cursor_line - int(tree.scroll_y)
                low = _faint(list(tree.render_lines(Region(0, line, tree.size.width, 1))[0]))
                if low:
                    faint[f"{name} ({'focused' if focused else 'blurred'})"] = low
        assert not faint, f"text under {MIN_CONTRAST}:1 on the tree's cursor: {faint}"


async def test_the_lists_second_lines_read_on_their_surface() -> None:
    """A tool's name under its title and a resource's URI under its name read
    at 3:1 on the list's surface on every theme (drawn dim, half way to the
    background, they fell to 1.9:1 on solarized-light)."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(150, 50)) as pilot:
        await wait_connected(pilot, app)
        tools = app.query_one("#tool-list", ItemList).query_one(RowList)
        resources = app.query_one("#resource-list", ItemList).query_one(RowList)
        keys = ("plan_trip", "weather_report", "demo://notes", "demo://config.json")
        faint: dict[str, dict[str, float]] = {}
        for tab, rows in (("tools", tools), ("resources", resources)):
            app.action_show_tab(tab)
            for name in sorted(MEASURED):
                app.theme = name
                await settle(pilot)
                drawn = [s for s in _drawn(rows) if s.text.strip() in keys]
                assert len({s.text.strip() for s in drawn}) == 2, (name, tab, drawn)
                low = _faint(drawn)
                if low:
                    faint[name] = {**faint.get(name, {}), **low}
        assert not faint, f"list text under {MIN_CONTRAST}:1 on the list's surface: {faint}"
