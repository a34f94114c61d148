"""Driving the TUI from tests: wait for conditions, find widgets, type."""

from __future__ import annotations

import asyncio
import time
import unicodedata
from collections.abc import Callable

from textual import events
from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input

from inspector.tui.app import InspectorApp
from inspector.tui.widgets.schema_form import FieldRow

# Only a hang reaches it, even on a machine oversubscribed several times over.
TIMEOUT = 60.0


async def wait_for(pilot: Pilot[int], condition: Callable[[], object], what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        await pilot.pause(0.05)  # the polling interval of this wait, not a wait of its own
    raise AssertionError(f"timed out waiting for {what}")


async def wait_connected(pilot: Pilot[int], app: InspectorApp) -> None:
    await wait_for(pilot, lambda: app.client.state == "connected" and "tools" in app.lists, "connection and tools")
    await wait_for(pilot, lambda: all(k in app.lists for k in ("resources", "templates", "prompts")), "all lists")
    # The panes draw the lists from messages: until the screen has handled them all.
    await pilot.pause()


def field_row(app: InspectorApp, path: tuple[object, ...]) -> FieldRow:
    for row in app.screen.query(FieldRow):
        if row.node.path == path:
            return row
    raise AssertionError(f"no form row for {path}; rows: {[r.node.path for r in app.screen.query(FieldRow)]}")


async def focus(pilot: Pilot[int], widget: Widget) -> None:
    """Focus a widget and wait until it has focus: focus() only schedules it,
    and a key pressed before it lands goes to the previous widget."""
    widget.focus()
    await wait_for(pilot, lambda: widget.app.focused is widget, f"focus on {widget!r}")


async def type_into(pilot: Pilot[int], widget: Input, text: str) -> None:
    await focus(pilot, widget)
    widget.value = ""
    await pilot.press(*list(text))
    await pilot.pause()


async def fill(pilot: Pilot[int], row: FieldRow, text: str) -> None:
    """Type into a field row, whichever editor it has (line or multi-line)."""
    from textual.widgets import TextArea

    areas = row.query(TextArea)
    if areas:
        area = areas.first()
        area.focus()
        area.text = text
        await pilot.pause()
        return
    await type_into(pilot, row.query_one(Input), text)


async def select(pilot: Pilot[int], app: InspectorApp, kind: str, key: str) -> None:
    """Select an item as a person would and wait until its pane shows it (for a
    tool: its form drawn), however long a loaded machine takes."""
    from inspector.tui.widgets.arguments import ArgumentsEditor

    app.select_item(kind, key)
    if kind == "tools":

        def drawn() -> bool:
            editor = app.query_one(ArgumentsEditor)
            return editor.key == key and not editor.form._rebuild_pending

        await wait_for(pilot, drawn, f"the form of {key}")
    # The pane's other widgets follow the selection by messages: until handled.
    await pilot.pause()


def _key_event(key: str) -> events.Key:
    """The Key event a terminal's driver makes for *key* (a name or a character)."""
    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    original = REPLACED_KEYS.get(key, key)
    try:
        char: str | None = unicodedata.lookup(_get_unicode_name_from_key(original))
    except KeyError:
        try:
            # "pound_sign" is the key of "£" (what a terminal's ESC 3 becomes too).
            if "_" not in original:
                raise KeyError(original)
            char = unicodedata.lookup(original.replace("_", " "))
        except KeyError:
            char = key if len(key) == 1 else None
    return events.Key(key, char)


async def burst(pilot: Pilot[int], *keys: str) -> None:
    """Type *keys* as a fast typist or a paste-happy terminal does: every key
    is queued at once, none waits for the previous one to be handled
    (`pilot.press` waits for the app to be idle after each key, which hides
    races between a key and the focus move the previous key asked for)."""
    app = pilot.app
    for key in keys:
        event = _key_event(key)
        event.set_sender(app)
        app.post_message(event)
    # Plain sleeps: pilot.pause() forces a repaint, which can catch a form
    # half-way through mounting its new rows (a repaint the app itself
    # would not make then).
    # Generous: on a loaded machine each key may wait for the app to settle.
    deadline = time.monotonic() + 3 * TIMEOUT + len(keys)
    await asyncio.sleep(0.02)
    while not app.key_order.idle:
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for the keys {keys} to be handled")
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.02)
