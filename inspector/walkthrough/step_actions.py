"""What a walkthrough step does on the screen, as a person would do it.

Items are selected in their lists, values are typed into the form fields
key by key (the keys go through the app's own key path, so the fields fill
on screen), a call is asked for with the pane's call key and answered in the
confirmation like any other, and the traffic panel shows the call's frame.
A step played again (`again`) shows its item and the values it sent, and
sends nothing; a traffic step shows the frame it showed the first time.
"""

from __future__ import annotations

import asyncio
import json
import unicodedata
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from textual import events
from textual.widget import Widget
from textual.widgets import Input, TextArea

from inspector.walkthrough.model import SELECTS, WalkStep

if TYPE_CHECKING:
    from inspector.core.record.traffic import Frame
    from inspector.tui.app import InspectorApp

__all__ = ["StepActions", "key_for", "until"]

# Seconds between two typed characters, and how long the confirmation stays
# in view before the walkthrough answers it (both divided by the pace).
TYPING_DELAY = 0.06
CONFIRM_LOOK = 1.5
# How often the player looks again at a state it waits for.
POLL = 0.02
# How long a field may refuse the focus before its value is put in without typing.
FOCUS_PATIENCE = 10.0


def key_for(character: str) -> str:
    """The key name a terminal driver gives a typed character (Textual's naming)."""
    if character.isalnum() and character.isascii():
        return character
    if character == " ":
        return "space"
    if character == "\n":
        return "enter"
    try:
        return unicodedata.name(character).lower().replace(" ", "_").replace("-", "_")
    except ValueError:
        return character


async def until(condition: Callable[[], object]) -> None:
    """Until `condition` holds (looked at every POLL seconds)."""
    # Polled, as a person watching the screen would: the states waited for
    # (a form rebuilt, a worker done, a frame recorded, a screen gone) are
    # set by widgets and workers that announce none of them, and Textual
    # has no app-wide signal for "something was handled" to wait on.
    while not condition():  # noqa: ASYNC110 - no event to wait on (see above)
        await asyncio.sleep(POLL)


async def within(condition: Callable[[], object], seconds: float) -> bool:
    """Until `condition` holds; False if it has not after `seconds`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        if loop.time() > deadline:
            return False
        await asyncio.sleep(POLL)
    return True


class StepActions:
    """Plays one step's action in the app: keys, selecting, filling, sending, showing traffic.

    `sleep` is the player's pause inside a step (scaled by its pace, held
    while the presenter has paused)."""

    def __init__(self, app: InspectorApp, sleep: Callable[[float], Awaitable[None]]) -> None:
        self.app = app
        self._sleep = sleep
        # Step index -> the frame (seq) its traffic step showed: shown again, it shows that one.
        self._traffic_shown: dict[int, int] = {}

    async def play(self, step: WalkStep, again: bool) -> None:
        """Do what `step` does; `again`: it was played before, so it sends nothing."""
        action = step.action
        # The panel a traffic step grew goes back to its size for any other step.
        self.present_traffic(action == "traffic")
        if action is None:
            return
        if action in SELECTS:
            await self._select(SELECTS[action], step.target)
        elif action == "fill":
            await self._fill(step.target, exact=False)
        elif action == "call":
            await self._call(step, again)
        elif action == "read":
            await self._read(step.target, again)
        elif action == "get":
            await self._get(step, again)
        elif action == "traffic":
            await self._show_traffic(step)

    # -- keys, as the terminal would send them -----------------------------------------

    async def press(self, key: str, character: str | None = None) -> None:
        """One key through the app's key path, and until it has been handled."""
        event = events.Key(key, character)
        event.set_sender(self.app)
        self.app.post_message(event)
        await asyncio.sleep(0)
        await until(lambda: self.app.key_order.idle and not self.app.message_queue_size)

    async def _focus(self, widget: Widget) -> bool:
        """Focus `widget`; False if it never takes the focus (hidden, disabled)."""

        def focused() -> bool:
            # Asked again until it holds: a pane just shown moves the focus to its list once.
            if self.app.focused is widget:
                return True
            widget.focus()
            return False

        return await within(focused, FOCUS_PATIENCE)

    async def type_into(self, widget: Input | TextArea, text: str) -> None:
        """Type `text` into `widget` key by key (nothing is typed where it cannot have the focus:
        the keys would land in another widget)."""
        if not await self._focus(widget):
            return
        if isinstance(widget, TextArea):
            widget.load_text("")
        else:
            widget.value = ""
        for character in text:
            await self._sleep(TYPING_DELAY)
            await self.press(key_for(character), character)

    # -- selecting ---------------------------------------------------------------------

    async def _select(self, kind: str, key: str, *, quiet: bool = False) -> bool:
        """Select `key` in the list of `kind` (its pane shown); False when the list
        has no such item (said in a warning unless `quiet`)."""
        from inspector.tui.widgets.item_list import ItemList

        self.app.action_show_tab(kind)
        pane = self.app.query_one(f"TabPane#{kind}")
        item_list = pane.query_one(ItemList)
        if not item_list.select_key(key):
            if quiet:
                return False
            self.app.notify_plain(f"walkthrough: no {kind[:-1]} {key!r} in the list", severity="warning")
            return False
        item_list.focus_list()
        if kind == "tools":
            await until(lambda: self._tool_form_ready(key))
        elif kind == "prompts":
            await until(lambda: self._prompt_ready(key))
        else:
            await until(lambda: getattr(item_list.highlighted_item, "key", None) == key)
        return True

    def _tool_form_ready(self, key: str) -> bool:
        from inspector.tui.panes.tools import ToolsPane
        from inspector.tui.widgets.arguments import ArgumentsEditor

        pane = self.app.query_one(ToolsPane)
        editor = pane.query_one(ArgumentsEditor)
        return pane.tool is not None and pane.tool.key == key and editor.key == key and not editor.form._rebuild_pending

    def _prompt_ready(self, key: str) -> bool:
        from inspector.tui.panes.prompts import PromptsPane
        from inspector.tui.widgets.completing_field import form_fields

        pane = self.app.query_one(PromptsPane)
        if pane.current is None or pane.current.key != key:
            return False
        wanted = [a for a in pane.current.data.get("arguments") or [] if isinstance(a, dict)]
        return len(form_fields(pane)) == len(wanted)

    def _active_kind(self) -> str:
        from textual.widgets import TabbedContent

        return str(self.app.query_one("#main", TabbedContent).active)

    # -- filling -----------------------------------------------------------------------

    async def _fill(self, values: dict[str, Any], *, exact: bool) -> None:
        """Type `values` into the form of the selected tool or prompt.  `exact`: the
        form then holds these values and nothing else (a call's arguments)."""
        if self._active_kind() == "prompts":
            await self._fill_prompt(values)
        else:
            await self._fill_tool(values, exact=exact)

    async def _fill_tool(self, values: dict[str, Any], *, exact: bool) -> None:
        from inspector.tui.panes.tools import ToolsPane
        from inspector.tui.widgets.arguments import ArgumentsEditor
        from inspector.tui.widgets.form_row import FieldRow

        pane = self.app.query_one(ToolsPane)
        if pane.tool is None:
            self.app.notify_plain("walkthrough: `fill:` needs a tool (or prompt) selected first", severity="warning")
            return
        editor = pane.query_one(ArgumentsEditor)
        if editor.mode == "json":
            # No form for this schema: the JSON goes into the raw editor as written.
            current, _ = editor.arguments()
            wanted = dict(values) if exact else {**(current or {}), **values}
            editor.json_area.load_text(json.dumps(wanted, indent=2, ensure_ascii=False))
            return
        form = editor.form
        if exact:
            form.load_value({})
            await until(lambda: not form._rebuild_pending)
        current, _ = editor.arguments()
        wanted = dict(values) if exact else {**(current or {}), **values}
        for name, value in values.items():
            rows = [row for row in form.query(FieldRow) if row.node.path == (name,)]
            editors = [w for w in rows[0].query("*") if isinstance(w, (Input, TextArea))] if rows else []
            if editors and isinstance(value, (str, int, float)) and not isinstance(value, bool):
                await self.type_into(editors[0], value if isinstance(value, str) else json.dumps(value))
                await until(lambda: not form._rebuild_pending)
        got, _ = editor.arguments()
        if got != wanted:
            # What cannot be typed (a switch, a list, an object), or typed text the
            # schema reads otherwise: the form is given the file's values as they are.
            form.load_value(wanted)
            await until(lambda: not form._rebuild_pending)

    async def _fill_prompt(self, values: dict[str, Any]) -> None:
        from inspector.tui.panes.prompts import PromptsPane
        from inspector.tui.widgets.completing_field import form_fields

        pane = self.app.query_one(PromptsPane)
        for field in form_fields(pane):
            text = values.get(field.argument)
            field_input = field.query_one(Input)
            if text is None:
                continue
            await self.type_into(field_input, str(text))
            if field_input.value != str(text):
                field_input.value = str(text)
        # A completion dropdown left open would take the next key.
        for field in form_fields(pane):
            field.dropdown.display = False

    # -- sending -----------------------------------------------------------------------

    def _out(self, method: str) -> list[Frame]:
        return [f for f in self.app.traffic.frames if f.direction == "out" and f.method == method]

    def _busy(self, group: str) -> bool:
        return any(w.group == group and not w.is_finished for w in self.app.workers)

    async def _call(self, step: WalkStep, again: bool) -> None:
        from inspector.tui.screens.confirm_call import ConfirmCallScreen

        tool = str(step.target)
        if not await self._select("tools", tool):
            return
        if step.arguments is not None:
            if again:
                await self._load_tool_arguments(step.arguments)
            else:
                await self._fill(step.arguments, exact=True)
        if again:
            return
        before = len(self._out("tools/call"))
        await self._sleep(0.3)
        await self.press("ctrl+j")
        # The pane checks the arguments first (a worker); then the confirmation
        # shows, or a trusted tool is called at once, or a warning says why not.
        await until(
            lambda: (
                isinstance(self.app.screen, ConfirmCallScreen)
                or len(self._out("tools/call")) > before
                or not self._busy("call-check")
            )
        )
        screen = self.app.screen
        if isinstance(screen, ConfirmCallScreen):
            if step.confirm is not None:
                await self._sleep(CONFIRM_LOOK)
                await self.press({"yes": "y", "no": "n", "trust": "a"}[step.confirm])
            # Else the person answers (y, n, a): the walkthrough waits for it.
            await until(lambda: screen not in self.app.screen_stack)
            if not screen.answer:
                return
        elif not self._busy("call") and len(self._out("tools/call")) == before:
            return  # the arguments were refused (the pane said why)
        # The call runs in a worker the confirmation's answer starts: until it is done.
        await until(lambda: self._busy("call") or len(self._out("tools/call")) > before)
        await until(lambda: not self._busy("call"))

    async def _load_tool_arguments(self, arguments: dict[str, Any]) -> None:
        from inspector.tui.panes.tools import ToolsPane
        from inspector.tui.widgets.arguments import ArgumentsEditor

        editor = self.app.query_one(ToolsPane).query_one(ArgumentsEditor)
        if editor.mode == "json":
            editor.json_area.load_text(json.dumps(arguments, indent=2, ensure_ascii=False))
        else:
            editor.form.load_value(arguments)
            await until(lambda: not editor.form._rebuild_pending)

    async def _read(self, uri: str, again: bool) -> None:
        from inspector.tui.panes.resources import ResourcesPane

        # A URI no list holds (a template's expansion) is read all the same.
        listed = await self._select("resources", uri, quiet=True)
        if again:
            return
        before = len(self._out("resources/read"))
        await self._sleep(0.3)
        if listed:
            await self.press("enter")
        else:
            self.app.query_one(ResourcesPane).read(uri)
        await self._done("read-resource", "resources/read", before)

    async def _get(self, step: WalkStep, again: bool) -> None:
        if not await self._select("prompts", str(step.target)):
            return
        await self._fill_prompt(step.arguments or {})
        if again:
            return
        before = len(self._out("prompts/get"))
        await self._sleep(0.3)
        await self.press("ctrl+j")
        await self._done("get-prompt", "prompts/get", before)

    async def _done(self, group: str, method: str, before: int) -> None:
        """Until the pane's worker for the request has started and ended (a
        read served from the cache sends nothing)."""
        await until(lambda: self._busy(group) or len(self._out(method)) > before)
        await until(lambda: not self._busy(group))

    # -- the traffic -------------------------------------------------------------------

    def present_traffic(self, on: bool) -> None:
        """While a traffic step shows, the bottom panel takes most of the rows
        (app.tcss, `-presenting`): on a short terminal its usual few rows would
        hold no more than the frame's first lines."""
        from inspector.tui.panes.bottom import BottomPanel

        for panel in self.app.view.query(BottomPanel):
            panel.set_class(on, "-presenting")

    async def _show_traffic(self, step: WalkStep) -> None:
        from inspector.tui.panes.bottom import BottomPanel
        from inspector.tui.panes.traffic import TrafficPane
        from inspector.tui.widgets.traffic_table import TrafficTable

        method = str(step.target)
        requests = [
            f
            for f in self.app.traffic.frames
            if f.direction == "out" and f.method and f.kind == "request" and (method == "last" or f.method == method)
        ]
        self.app.action_show_bottom("traffic")
        # Shown again after going back: the frame it showed then, not a later call's.
        shown_before = self._traffic_shown.get(step.index)
        chosen = next((f for f in requests if f.seq == shown_before), requests[-1] if requests else None)
        if chosen is None:
            self.app.notify_plain(f"walkthrough: no {method} request in the traffic yet", severity="warning")
            return
        self._traffic_shown[step.index] = chosen.seq
        table = self.app.query_one(TrafficPane).query_one(TrafficTable)
        self.app.query_one(BottomPanel).sync()
        # The table draws new frames on a short timer; a filter the person typed may hide the frame.
        if not await within(lambda: table.select_seq(chosen.seq), FOCUS_PATIENCE):
            self.app.notify_plain("walkthrough: the traffic filter hides the request", severity="warning")
        await self._focus(table)
