"""Screenshots (SVG) whose text reads as the terminal shows it.

Rich writes one `<text>` element per styled run of a line and none for a
run of blank cells, placing each element at its column.  The picture is
right, but whoever reads the text (a browser's copy and paste, search, a
screen reader, the README's screenshots, our tests) gets the runs one after
the other with nothing between them: a label and the field beside it
("username *" then "string") read "username *string", two tabs read
"ToolsResources".  `hold_gaps` fixes this inside one widget's text; the
blank cells between two widgets belong to neither.

`keep_gaps` gives each element the blank cells that follow it on its line,
and the spaces the next element starts with, as trailing no-break spaces
(`textLength` and `x` follow), so the picture is unchanged and every
reading keeps the gap.  An underlined or struck-through run neither takes
nor gives spaces (its line would be drawn on them, or no longer).
"""

from __future__ import annotations

import html
import itertools
import re
from dataclasses import dataclass

from rich.cells import cell_len

__all__ = ["keep_gaps"]

_TEXT = re.compile(
    r'<text class="(?P<cls>[^"]*)" x="(?P<x>[\d.]+)" y="(?P<y>[\d.]+)" '
    r'textLength="(?P<length>[\d.]+)"(?P<rest>[^>]*)>(?P<body>[^<]*)</text>'
)
_RULE = re.compile(r"\.(?P<cls>[\w-]+)\s*\{(?P<rules>[^}]*)\}")


def _decorated(svg: str) -> set[str]:
    """Classes whose text has a line drawn along it."""
    return {m.group("cls") for m in _RULE.finditer(svg) if "text-decoration" in m.group("rules")}


def _number(value: float) -> str:
    return f"{value:.10g}"


_LEADING = re.compile(r"^(?:&#160;| )+")


@dataclass
class _Run:
    cls: str
    x: float
    y: str
    length: float
    rest: str
    body: str


def keep_gaps(svg: str) -> str:
    """*svg* with each text element carrying the blank cells that follow it as no-break spaces, so its text reads as
    the terminal shows it."""
    matches = list(_TEXT.finditer(svg))
    sample = next((m for m in matches if html.unescape(m.group("body"))), None)
    if sample is None:
        return svg
    # Rich's cell width: an element is len(text) cells wide.
    cell = float(sample.group("length")) / len(html.unescape(sample.group("body")))
    decorated = _decorated(svg)
    runs = [
        _Run(
            m.group("cls"),
            float(m.group("x")),
            m.group("y"),
            float(m.group("length")),
            m.group("rest"),
            m.group("body"),
        )
        for m in matches
    ]
    lines: dict[str, list[_Run]] = {}
    for run in runs:
        lines.setdefault(run.y, []).append(run)
    for line in lines.values():
        line.sort(key=lambda run: run.x)
        for before, after in itertools.pairwise(line):
            if before.cls in decorated:
                continue
            # Blank cells between the two, then the spaces `after` starts with.
            gap = round(after.x / cell) - round(before.x / cell) - cell_len(html.unescape(before.body))
            leading = _LEADING.match(after.body)
            moved = 0
            if leading and after.cls not in decorated and after.body[leading.end() :]:
                moved = len(html.unescape(leading.group()))
                after.body = after.body[leading.end() :]
                after.x += moved * cell
                after.length -= moved * cell
            if gap + moved > 0:
                before.body += "&#160;" * (gap + moved)
                before.length += (gap + moved) * cell
    parts: list[str] = []
    last = 0
    for match, run in zip(matches, runs, strict=True):
        parts.append(svg[last : match.start()])
        parts.append(
            f'<text class="{run.cls}" x="{_number(run.x)}" y="{run.y}" '
            f'textLength="{_number(run.length)}"{run.rest}>{run.body}</text>'
        )
        last = match.end()
    parts.append(svg[last:])
    return "".join(parts)
