"""Colours by meaning, taken from the running app's Textual theme.

Code that draws Rich `Text` names a role (`looks.ERROR`, `looks.REQUEST`, ...)
instead of a colour: each role is a named style in a Rich theme computed from
the app's current Textual theme (its `$text-error`, `$text-success`, ... CSS
variables) and pushed onto the app's console, so the same code reads well on
a dark theme and on a light one.  `install` recomputes the styles when the
theme changes and asks what was already drawn to draw again: a `Static`
keeps its `Text` with the role names, so updating it with the same `Text`
resolves them against the new theme.

JSON is highlighted with a Pygments theme picked by the theme's `dark` flag,
on the surface it is drawn on (the Pygments theme's background is left out).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from weakref import WeakKeyDictionary

from rich.color import Color as RichColor
from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from rich.theme import Theme as RichTheme
from textual.app import App
from textual.color import Color
from textual.theme import Theme
from textual.widgets import Static

from inspector.tui.legible import MIN_CONTRAST, contrast

__all__ = [
    "ACCENT",
    "ACCENT_STRONG",
    "ALARM",
    "APP",
    "DIRECTION_IN",
    "DIRECTION_LOCAL",
    "DIRECTION_OUT",
    "ERROR",
    "ERROR_STRONG",
    "HINT_ABSENT",
    "HINT_ABSENT_RISKY",
    "HINT_CAUTION",
    "HINT_DESTRUCTIVE",
    "HINT_SAFE",
    "INFO",
    "INFO_STRONG",
    "JSON_KEY",
    "JSON_LITERAL",
    "JSON_NUMBER",
    "JSON_STRING",
    "LATENCY",
    "MUTED",
    "NOTIFICATION",
    "OK",
    "OK_STRONG",
    "REQUEST",
    "RESPONSE",
    "ROLES",
    "TRANSPORT",
    "WARNING",
    "WARNING_STRONG",
    "Looks",
    "RoleLook",
    "ThemedSyntax",
    "follow",
    "install",
    "is_role",
    "json_syntax_theme",
    "looks_for",
    "role_paints",
]

_PREFIX = "looks."


@dataclass(frozen=True)
class RoleLook:
    """How a role is drawn: the theme variable for its colour and the text attributes.

    `on` names a variable for a background; the text then takes the colour
    that reads best on it (white or black), like Textual's `auto`.
    """

    color: str
    bold: bool = False
    italic: bool = False
    on: str | None = None


# The roles, by name: what a piece of text means, not how it looks.
ROLES: dict[str, RoleLook] = {
    "ok": RoleLook("text-success"),
    "ok-strong": RoleLook("text-success", bold=True),
    "error": RoleLook("text-error"),
    "error-strong": RoleLook("text-error", bold=True),
    "warning": RoleLook("text-warning"),
    "warning-strong": RoleLook("text-warning", bold=True),
    "info": RoleLook("text-primary"),
    "info-strong": RoleLook("text-primary", bold=True),
    "accent": RoleLook("text-accent"),
    "accent-strong": RoleLook("text-accent", bold=True),
    "muted": RoleLook("text-muted"),
    # Something that must stop the eye: a frame that is not JSON-RPC, an alert log.
    "alarm": RoleLook("error", bold=True, on="error"),
    # The traffic table.
    "request": RoleLook("text-primary"),
    "response": RoleLook("text-success"),
    "notification": RoleLook("text-accent"),
    "transport": RoleLook("text-secondary"),
    "app": RoleLook("text-accent", bold=True),
    "direction-out": RoleLook("text-primary", bold=True),
    "direction-in": RoleLook("text-success", bold=True),
    "direction-local": RoleLook("text-warning", bold=True),
    "latency": RoleLook("text-warning"),
    # The tool annotation badges (inspector/tui/badges.py).
    "hint-destructive": RoleLook("error", bold=True, on="error"),
    "hint-caution": RoleLook("text-warning", bold=True),
    "hint-safe": RoleLook("text-success"),
    "hint-absent": RoleLook("text-muted", italic=True),
    "hint-absent-risky": RoleLook("text-error", italic=True),
    # JSON drawn without Pygments (big values, the JSON tree).
    "json-key": RoleLook("text-primary", bold=True),
    "json-string": RoleLook("text-success"),
    "json-number": RoleLook("text-secondary"),
    "json-literal": RoleLook("text-accent", italic=True),
}

OK = _PREFIX + "ok"
OK_STRONG = _PREFIX + "ok-strong"
ERROR = _PREFIX + "error"
ERROR_STRONG = _PREFIX + "error-strong"
WARNING = _PREFIX + "warning"
WARNING_STRONG = _PREFIX + "warning-strong"
INFO = _PREFIX + "info"
INFO_STRONG = _PREFIX + "info-strong"
ACCENT = _PREFIX + "accent"
ACCENT_STRONG = _PREFIX + "accent-strong"
MUTED = _PREFIX + "muted"
ALARM = _PREFIX + "alarm"
REQUEST = _PREFIX + "request"
RESPONSE = _PREFIX + "response"
NOTIFICATION = _PREFIX + "notification"
TRANSPORT = _PREFIX + "transport"
APP = _PREFIX + "app"
DIRECTION_OUT = _PREFIX + "direction-out"
DIRECTION_IN = _PREFIX + "direction-in"
DIRECTION_LOCAL = _PREFIX + "direction-local"
LATENCY = _PREFIX + "latency"
HINT_DESTRUCTIVE = _PREFIX + "hint-destructive"
HINT_CAUTION = _PREFIX + "hint-caution"
HINT_SAFE = _PREFIX + "hint-safe"
HINT_ABSENT = _PREFIX + "hint-absent"
HINT_ABSENT_RISKY = _PREFIX + "hint-absent-risky"
JSON_KEY = _PREFIX + "json-key"
JSON_STRING = _PREFIX + "json-string"
JSON_NUMBER = _PREFIX + "json-number"
JSON_LITERAL = _PREFIX + "json-literal"


def is_role(style: str) -> bool:
    """Whether `style` names a role rather than a Rich style definition."""
    return style.startswith(_PREFIX)


def role_paints(style: str) -> bool:
    """Whether the role named `style` shows on a space (it has its own background)."""
    return ROLES[style.removeprefix(_PREFIX)].on is not None


def _variables(theme: Theme) -> dict[str, str]:
    # What App.get_css_variables builds from a theme (less the app's own defaults).
    return {**theme.to_color_system().generate(), **theme.variables}


def _solid(value: str, under: Color) -> Color:
    """A CSS colour value as an opaque colour over `under` ("auto 60%": contrast text at 60%)."""
    words = value.split()
    alpha = float(words[1].rstrip("%")) / 100 if len(words) > 1 and words[1].endswith("%") else 1.0
    if words[0] == "auto":
        color = under.get_contrast_text(alpha)
    else:
        color = Color.parse(words[0])
        if color.ansi is not None:
            return color  # the terminal blends nothing: its own colour, whole
        if alpha < 1:
            color = color.with_alpha(color.a * alpha)
    return color if color.a >= 1 or under.ansi is not None else under + color


def _rich(color: Color) -> RichColor:
    # An ANSI theme's colours stay the terminal's own (its palette, not a guess at it).
    if color.ansi is None:
        return color.rich_color
    return RichColor.default() if color.ansi < 0 else RichColor.from_ansi(color.ansi)


@dataclass(frozen=True)
class Looks:
    """Every role's Rich style for one Textual theme, and the JSON highlighting that goes with it."""

    theme: str
    dark: bool
    background: Color
    surface: Color
    styles: dict[str, Style]
    # The colour each role's text is drawn on (the theme's background unless the role has its own).
    grounds: dict[str, Color]

    def __getitem__(self, role: str) -> Style:
        return self.styles[role.removeprefix(_PREFIX)]

    def rich_theme(self) -> RichTheme:
        """The roles as a Rich theme, for a console that draws role names."""
        return RichTheme({_PREFIX + name: style for name, style in self.styles.items()}, inherit=True)


def _reads_on(color: Color, grounds: tuple[Color, ...], dark: bool) -> Color:
    """*color*, lightened on a dark theme or darkened on a light one, a step at a time,
    until it reads at `MIN_CONTRAST`:1 on each of *grounds* (most theme colours already do;
    textual-light's $text-warning on its surface, 2.7:1, does not)."""
    if color.ansi is not None or any(ground.ansi is not None for ground in grounds):
        return color  # the terminal's own palette: nothing to measure
    for _ in range(_STEPS):
        if all(contrast(color, ground) >= MIN_CONTRAST for ground in grounds):
            break
        color = color.lighten(_STEP) if dark else color.darken(_STEP)
    return color


_STEP = 0.02
_STEPS = 25


def looks_for(theme: Theme) -> Looks:
    """The roles' styles for `theme`."""
    variables = _variables(theme)
    background = Color.parse(variables["background"])
    styles: dict[str, Style] = {}
    grounds: dict[str, Color] = {}
    # Lists are drawn on $surface, tinted 5% towards the text while focused
    # (RowList's CSS): a role must read there too.
    surface = _solid(variables["surface"], background)
    focused_list = surface.blend(_solid(variables["foreground"], surface), 0.05)
    under = (background, surface, focused_list)
    for name, look in ROLES.items():
        ground = background if look.on is None else _solid(variables[look.on], background)
        if look.on is None:
            color = _reads_on(_solid(variables[look.color], ground), under, theme.dark)
        else:
            color = ground.get_contrast_text(1.0) if ground.ansi is None else Color.parse("ansi_bright_white")
        styles[name] = Style(
            color=_rich(color),
            bgcolor=None if look.on is None else _rich(ground),
            bold=look.bold or None,
            italic=look.italic or None,
        )
        grounds[name] = ground
    return Looks(theme.name, theme.dark, background, surface, styles, grounds)


def json_syntax_theme(dark: bool, ansi: bool = False) -> str:
    """The Pygments theme for JSON on a dark or light background."""
    if ansi:
        return "ansi_dark" if dark else "ansi_light"
    return "github-dark" if dark else "vs"


# The looks each app's console resolves role names with (by console, so two
# apps in one process each keep their own).
_BY_CONSOLE: WeakKeyDictionary[Console, Looks] = WeakKeyDictionary()


def _current(console: Console) -> Looks | None:
    return _BY_CONSOLE.get(console)


class ThemedSyntax(Syntax):
    """Syntax highlighting whose Pygments theme follows the app's theme, chosen when it is drawn."""

    def __init__(self, code: str, lexer: str, **options: Any) -> None:
        super().__init__(code, lexer, **options)
        self._made = (code, lexer, options)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        looks = _current(console)
        dark = True if looks is None else looks.dark
        ansi = looks is not None and looks.background.ansi is not None
        code, lexer, made = self._made
        syntax = Syntax(code, lexer, theme=json_syntax_theme(dark, ansi), **made)
        # The Pygments theme's own background (white for "vs") would show as a
        # slab over a cream or grey pane: the text goes on the pane's surface.
        for segment in console.render(syntax, options):
            style = segment.style
            if style is not None and style.bgcolor is not None:
                segment = Segment(segment.text, _without_background(style), segment.control)
            yield segment


@lru_cache(maxsize=256)
def _without_background(style: Style) -> Style:
    return Style(
        color=style.color,
        bold=style.bold,
        dim=style.dim,
        italic=style.italic,
        underline=style.underline,
        strike=style.strike,
        reverse=style.reverse,
    )


def _apply(app: App[Any]) -> Looks:
    looks = looks_for(app.current_theme)
    console = app.console
    if console in _BY_CONSOLE:
        console.pop_theme()
    console.push_theme(looks.rich_theme())
    _BY_CONSOLE[console] = looks
    return looks


def install(app: App[Any]) -> None:
    """Resolve role names against `app`'s theme from now on (call before anything is drawn)."""
    _apply(app)


def follow(app: App[Any], redraw: Callable[[], None] | None = None) -> None:
    """Keep the roles on `app`'s theme: call once the app runs.

    On a change, every `Static` showing `Text` is updated with the same `Text`
    (its role names resolve anew); `redraw` then clears whatever else keeps
    rendered lines (the traffic table's and the lists' caches).
    """
    _apply(app)

    def changed(theme: Theme) -> None:
        _apply(app)
        for screen in app.screen_stack:
            for static in screen.query(Static):
                content = static.content
                if isinstance(content, Text):
                    static.update(content, layout=False)
                elif isinstance(content, ThemedSyntax):
                    static.refresh()
        if redraw is not None:
            redraw()

    app.theme_changed_signal.subscribe(app, changed, immediate=True)
