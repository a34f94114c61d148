"""Alt+key from a terminal, read at once.

Most terminals send alt+n as ESC followed by n.  Textual's terminal parser
waits after ESC n for more (up to its escape delay), and when the next ESC
arrives inside that wait (a held alt+n repeating, alt+n then alt+x or an
arrow key, keys sent at full speed) it gives up on the whole run and types
it as text with ESC shown as `^`: `^n` lands in the focused field instead of
a new array item.  No longer sequence starts with ESC and a printable
character other than the introducers below, so this parser reads such a
pair as the alt key there and then, as Textual itself already does for the
pairs it maps (ESC b is ctrl+left, kept).  ESC and a digit is alt and the
digit too: Textual reads it as the character macOS's option+digit types
(ESC 1 as `¡`), which a text field then took in place of alt+1…5 (a Mac's
option+1 sends `¡` itself, never ESC 1).

Textual builds its parser inside the driver's input thread from the driver
module's own name `XTermParser`, with no hook to choose another; `install`
rebinds that name in the app's driver module.  tests/test_terminal_keys.py pins every private name used
here, so a Textual upgrade that moves one fails there, naming it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from textual import events
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual._xterm_parser import XTermParser

__all__ = ["AltKeyParser", "install"]

ESC = "\x1b"
# What follows ESC at the start of a longer sequence: CSI, SS3, DCS, OSC, APC,
# PM, SOS and ST (terminal replies such as the graphics query's come as these).
INTRODUCERS = frozenset("[OP]_^X\\")


class AltKeyParser(XTermParser):
    """Textual's terminal parser, reading ESC and a printable character (not an introducer) as alt+key at once."""

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        if (
            len(sequence) == 2
            and sequence[0] == ESC
            and (sequence not in ANSI_SEQUENCES_KEYS or sequence[1].isdigit())
            and sequence[1] not in INTRODUCERS
            and sequence[1].isprintable()
        ):
            return super()._sequence_to_key_events(sequence[1], alt=True)
        return super()._sequence_to_key_events(sequence, alt)


def install(driver_class: type) -> None:
    """Make *driver_class* (and the drivers it is built on) read keys with
    `AltKeyParser`: its module's `XTermParser` is the one its input thread builds."""
    for cls in driver_class.__mro__:
        module = sys.modules.get(cls.__module__)
        if module is not None and getattr(module, "XTermParser", None) is XTermParser:
            module.XTermParser = AltKeyParser  # type: ignore[attr-defined]
