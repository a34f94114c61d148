"""Making untrusted server text safe to put on a terminal.

Control characters are what let text act on a terminal (ANSI CSI, OSC title
and clipboard writes, OSC 8 links, cursor moves).  Every one of them is
replaced by a visible stand-in, so what the server sent stays readable and
inert.  Markup safety (Rich's `[bold]`) is the UI's business: it must render
server text as plain `Text`, never as markup.
"""

from __future__ import annotations

import re

__all__ = ["CONTROL_CHARS", "copy_safe", "escape_json", "has_controls", "one_line", "safe_json", "visible"]

# C0 controls except \n and \t, DEL, C1 controls, and the Unicode bidi
# controls that can reorder what a line appears to say (embeddings and
# overrides, isolates, the left-to-right/right-to-left and Arabic marks), and
# lone surrogates (a server's `"\\ud800"` decodes to one), which no terminal
# or UTF-8 stream can carry: writing one raises.
CONTROL_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")

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
    """Whether `text` holds a character that `visible` would replace (newline and tab are not among them)."""
    return CONTROL_CHARS.search(text) is not None


# What `escape_json` writes as a `\\u` escape: the controls, and lone
# surrogates (a server's `"\\ud800"` decodes to one), which no UTF-8 output
# can carry.
_JSON_ESCAPED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _u_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def escape_json(text: str) -> str:
    """JSON text (as a JSON encoder writes it) with every control character inside its strings written as
    a `\\u` escape (json.dumps leaves DEL, C1 and bidi controls raw).
    Outside strings JSON has no such characters, so the text stays valid
    and parses back to the same value."""
    # A JSON encoder escapes C0 controls itself, so in ASCII text only DEL
    # is left to look for: a huge ASCII result costs two quick scans, no copy.
    if text.isascii() and "\x7f" not in text:
        return text
    return _JSON_ESCAPED.sub(_u_escape, text)


def safe_json(value: object, indent: int | None = None) -> str:
    """JSON text for an editor or a terminal: readable Unicode, every control
    character escaped, and it parses back to exactly `value`."""
    import json

    return escape_json(json.dumps(value, indent=indent, ensure_ascii=False))


def copy_safe(text: str) -> str:
    """Text for the clipboard: every control character but newline and tab
    written as a `\\u` escape, so a paste cannot carry ESC sequences (a
    planted `ESC[201~` ends a shell's bracketed paste), BEL or C1 controls.
    JSON text stays valid JSON with the same value."""
    return CONTROL_CHARS.sub(_u_escape, text)
