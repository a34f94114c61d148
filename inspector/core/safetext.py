"""Making untrusted server text safe to put on a terminal.

Control characters are what let text act on a terminal (ANSI CSI, OSC title
and clipboard writes, OSC 8 links, cursor moves).  Every one of them is
replaced by a visible stand-in, so what the server sent stays readable and
inert.  Markup safety (Rich's `[bold]`) is the UI's business: it must render
server text as plain `Text`, never as markup.
"""

from __future__ import annotations

import re

__all__ = ["CONTROL_CHARS", "has_controls", "one_line", "safe_json", "visible"]

# C0 controls except \n and \t, DEL, C1 controls, and the Unicode bidi
# overrides that can reorder what a line appears to say.
CONTROL_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

_NAMES = {
    "\x1b": "␛",
    "\r": "␍",
    "\x07": "␇",
    "\x08": "␈",
    "\x00": "␀",
    "\x7f": "␡",
}


def _stand_in(match: re.Match[str]) -> str:
    ch = match.group(0)
    name = _NAMES.get(ch)
    if name is not None:
        return name
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␁ ␂ ...
    return f"\\u{code:04x}"


def visible(text: str, *, keep_newlines: bool = True) -> str:
    """`text` with every control character made visible and harmless."""
    if not keep_newlines:
        text = text.replace("\n", "⏎").replace("\t", " ")
    if CONTROL_CHARS.search(text) is None:
        return text
    return CONTROL_CHARS.sub(_stand_in, text)


def one_line(text: str, limit: int | None = None) -> str:
    """A safe single line (for lists and tables), cut at `limit` characters."""
    line = visible(text.strip("\r\n").split("\n", 1)[0], keep_newlines=False)
    if limit is not None and len(line) > limit:
        return line[: max(limit - 1, 0)] + "…"
    return line


def has_controls(text: str) -> bool:
    return CONTROL_CHARS.search(text) is not None


def safe_json(value: object, indent: int | None = None) -> str:
    """JSON text for an editor: readable Unicode, but every control character
    escaped (json.dumps leaves DEL, C1 and bidi controls raw).  Outside
    strings JSON has no such characters, so the text stays valid and parses
    back to exactly `value`."""
    import json

    text = json.dumps(value, indent=indent, ensure_ascii=False)
    return CONTROL_CHARS.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
