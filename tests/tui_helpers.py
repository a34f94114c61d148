"""Driving the TUI from tests: wait for conditions, find widgets, type."""

from __future__ import annotations

import asyncio
import time
import unicodedata
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from rich.console import Console
from textual import events
from textual.app import App, ScreenStackError
from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key
from textual.message_pump import MessagePump
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input

from inspector.core.servers.spec import ServerSpec
from inspector.tui.app import InspectorApp
from inspector.tui.looks import looks_for
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.widgets.form_row import FieldRow

# Only a hang reaches it, even on a machine oversubscribed several times over.
TIMEOUT = 60.0
POLL = 0.02


async def wait_for(pilot: Pilot[Any], condition: Callable[[], object], what: str, timeout: float = TIMEOUT) -> None:
    """Until *condition* holds; AssertionError naming *what* after *timeout*.
    Each round is one `pilot.pause()`: the pending messages handled and a
    repaint (it sleeps at least a frame, so this does not spin)."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await pilot.pause()


def _pump_busy(pump: MessagePump) -> str | None:
    # Textual takes the next message out of the queue to merge repeats:
    # that one is waiting too.
    if pump.message_queue_size or pump._pending_message is not None:
        return f"messages for {pump!r}"
    if pump._next_callbacks:
        return f"callbacks of {pump!r}"
    return None


def busy_with(app: App[Any]) -> str | None:
    """What the app still has to do by itself, or None when it is quiet: no
    key held or in flight, no view sync pending, no message queued or being
    handled by the app or any widget of its screen, no callback waiting for
    the next repaint, no layout or repaint pending.  What a quiet app does
    next waits for something from outside (a key, a frame, a timer).
    The key order is asked last: it walks every widget too, and while the
    app is busy one of the cheaper checks says so first."""
    if getattr(app, "_sync_scheduled", False):
        return "a view sync"
    reason = _pump_busy(app)
    if reason:
        return reason
    try:
        screen = app.screen
    except ScreenStackError:
        screen = None
    if screen is not None:
        if screen._callbacks:
            return "callbacks after the next repaint"
        if screen._layout_required or screen._scroll_required or screen._repaint_required or screen._dirty_widgets:
            return "a layout or repaint"
        for node in screen.walk_children(with_self=True):
            reason = _pump_busy(node)
            if reason:
                return reason
    key_order = getattr(app, "key_order", None)
    if key_order is not None and not key_order.idle:
        return "keys held or in flight"
    return None


def quiet(app: App[Any]) -> bool:
    return busy_with(app) is None


async def settle(pilot: Pilot[Any], what: str = "the app to settle", timeout: float = TIMEOUT) -> None:
    """Until the app is `quiet`: what a key, a value set or a selection set
    off has run to its end, layout and scrolling included."""
    app = pilot.app
    deadline = time.monotonic() + timeout
    while True:
        await pilot.pause()
        reason = busy_with(app)
        if reason is None:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}; still busy with {reason}")


async def wait_connected(pilot: Pilot[int], app: InspectorApp) -> None:
    await wait_for(pilot, lambda: app.client.state == "connected" and "tools" in app.lists, "connection and tools")
    await wait_for(pilot, lambda: all(k in app.lists for k in ("resources", "templates", "prompts")), "all lists")
    # The panes draw the lists from messages: until they have all been handled.
    await settle(pilot, "the panes to draw the lists")


@asynccontextmanager
async def on_tool(spec: ServerSpec, tool: str, size: tuple[int, int]) -> AsyncIterator[tuple[InspectorApp, Pilot[int]]]:
    """The TUI on *spec* in a terminal of *size*, connected, with *tool*
    selected and its form drawn."""
    app = InspectorApp(spec)
    async with app.run_test(size=size) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", tool)
        yield app, pilot


def field_row(app: InspectorApp, path: tuple[object, ...]) -> FieldRow:
    for row in app.screen.query(FieldRow):
        if row.node.path == path:
            return row
    raise AssertionError(f"no form row for {path}; rows: {[r.node.path for r in app.screen.query(FieldRow)]}")


async def confirmation(pilot: Pilot[int], app: InspectorApp) -> ConfirmCallScreen:
    """Until the call's confirmation is on screen; that screen (what it will send: `.arguments`)."""
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "the confirmation")
    screen = app.screen
    assert isinstance(screen, ConfirmCallScreen)
    return screen


async def focus(pilot: Pilot[int], widget: Widget) -> None:
    """Focus a widget and wait until it has focus: focus() only schedules it,
    and a key pressed before it lands goes to the previous widget."""
    widget.focus()
    await wait_for(pilot, lambda: widget.app.focused is widget, f"focus on {widget!r}")


async def focus_in(pilot: Pilot[Any], widget: Widget, what: str) -> None:
    """Until the focus is on *widget* or inside it (after a `focus()` or a
    method that focuses one of its parts: both only schedule the move)."""
    app = pilot.app
    await wait_for(pilot, lambda: app.focused is not None and widget in app.focused.ancestors_with_self, what)


async def type_into(pilot: Pilot[int], widget: Input, text: str) -> None:
    await focus(pilot, widget)
    widget.value = ""
    await pilot.press(*list(text))
    await settle(pilot, f"{text!r} typed into {widget!r}")


async def fill(pilot: Pilot[int], row: FieldRow, text: str) -> None:
    """Type into a field row, whichever editor it has (line or multi-line)."""
    from textual.widgets import TextArea

    areas = row.query(TextArea)
    if areas:
        area = areas.first()
        await focus(pilot, area)
        area.text = text
        await settle(pilot, f"{text!r} put into {area!r}")
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
    await settle(pilot, f"the panes to follow the selection of {key}")


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
    # Polled with plain sleeps: pilot.pause() forces a repaint, which can
    # catch a form half-way through mounting its new rows (a repaint the app
    # itself would not make then).  The keys are in the app's queue already,
    # so the app is not quiet until it has taken and handled every one.
    # Generous: on a loaded machine each key may wait for the app to settle.
    deadline = time.monotonic() + 3 * TIMEOUT + len(keys)
    while not quiet(app):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for the keys {keys} to be handled")
        await asyncio.sleep(POLL)  # why: the polling interval of this wait (see above)


def console_for(app: App[Any], width: int = 200, **options: Any) -> Console:
    """A plain console that knows the app theme's colour roles, to render what a widget holds as text."""
    console = Console(width=width, color_system=None, **options)
    console.push_theme(looks_for(app.current_theme).rich_theme())
    return console
