"""Pins the private Textual name tests/pilot_patience.py relies on."""

from __future__ import annotations

import inspect

from textual.pilot import Pilot

from .pilot_patience import HANG


def test_the_pilots_screen_wait_takes_a_timeout_and_is_raised() -> None:
    wait = Pilot._wait_for_screen
    assert getattr(wait, "patient", False), "conftest did not raise the Pilot's bound"
    original = inspect.unwrap(wait)
    parameter = inspect.signature(original).parameters.get("timeout")
    assert parameter is not None, "Textual's Pilot._wait_for_screen lost its timeout parameter"
    assert parameter.default < HANG
    assert inspect.signature(wait, follow_wrapped=False).parameters["timeout"].default == HANG
