"""Colours come from the theme: every role reads on every built-in theme,
and a theme change redraws what was drawn (the traffic table, the lists)."""

from __future__ import annotations

import pytest
from pygments.token import Keyword, Name, Number, Punctuation, String  # type: ignore[import-untyped]
from rich.color import Color as RichColor
from rich.segment import Segment
from rich.syntax import Syntax
from textual.color import Color
from textual.theme import BUILTIN_THEMES

from inspector.core.servers.spec import demo_spec
from inspector.tui import looks
from inspector.tui.app import InspectorApp
from inspector.tui.panes.traffic import TrafficPane
from inspector.tui.widgets.item_list import ItemList
from inspector.tui.widgets.row_list import RowList
from inspector.tui.widgets.traffic_table import TrafficTable

from .tui_helpers import settle, wait_connected, wait_for

# WCAG 2's contrast ratio for large text and for the parts of an interface
# that must be seen (1.4.3 large text, 1.4.11): 3:1.  Textual's own
# $text-success and $text-warning sit at 3.2-3.8 on its light themes, so the
# 4.5:1 of body text would reject the theme's own design; below 3 a colour
# reads as faint on a terminal (the old "yellow" on textual-light: 1.6).
MIN_CONTRAST = 3.0

# The ANSI themes leave every colour to the terminal: there is no background to measure.
MEASURED = {name: theme for name, theme in BUILTIN_THEMES.items() if not theme.ansi}


def _luminance(color: Color) -> float:
    def channel(value: int) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(one: Color, other: Color) -> float:
    """WCAG 2 contrast ratio, 1 to 21."""
    high, low = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


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
    return [segment for y in range(widget.scrollable_content_region.height) for segment in widget.render_line(y)]


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
