"""Plays a walkthrough in the running TUI, as a person would use it.

Items are selected in their lists, values are typed into the form fields
key by key (the keys go through the app's own key path, so the fields fill
on screen), a call is asked for with the pane's call key and answered in the
confirmation like any other, and the traffic panel shows the call's frame.

Moving: "next" ends the current step's pause; "back" goes to the previous
step and plays it again, except that a step which sent something (call,
read, get) is never sent twice: on a later visit it shows its item and the
values it sent, and sends nothing; a traffic step shows the frame it showed
the first time.  Pause stops the clock (and the typing) until resumed.
After the last step the walkthrough stays at its end, where "back" still
goes to the last step (unless it was asked to end there: `stay_at_end`).
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

from inspector.walkthrough.model import SELECTS, WAIT_FOR_KEY, WalkStep, Walkthrough

if TYPE_CHECKING:
    from inspector.core.record.traffic import Frame
    from inspector.tui.app import InspectorApp
    from inspector.tui.walkthrough_overlay import CaptionOverlay

__all__ = ["Player", "key_for"]

# Seconds between two typed characters, and how long the confirmation stays
# in view before the walkthrough answers it (both divided by the pace).
TYPING_DELAY = 0.06
CONFIRM_LOOK = 1.5
# How often the player looks again at a state it waits for.
POLL = 0.02
# How long a field may refuse the focus before its value is put in without typing.
FOCUS_PATIENCE = 10.0

StepHook = Callable[[int, WalkStep], Awaitable[None]]


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


class Player:
    def __init__(
        self,
        app: InspectorApp,
        walkthrough: Walkthrough,
        overlay: CaptionOverlay,
        *,
        pace: float = 1.0,
        manual: bool = False,
        on_step: StepHook | None = None,
        stay_at_end: bool = True,
    ) -> None:
        self.app = app
        self.walkthrough = walkthrough
        self.overlay = overlay
        self.pace = pace
        self.manual = manual
        self.on_step = on_step
        self.stay_at_end = stay_at_end
        self.index = 0
        self.paused = False
        self.finished = False
        # True while a step's pause runs (its action is done): what a presenter's key ends.
        self.waiting = False
        # Steps already played once: a step that sends is not sent again.
        self.visited: set[int] = set()
        # (step index, caption) in the order they were shown: what the audience saw.
        self.history: list[tuple[int, str]] = []
        self._moves: list[str] = []
        self._signal = asyncio.Event()
        # Step index -> the frame (seq) its traffic step showed: shown again, it shows that one.
        self._traffic_shown: dict[int, int] = {}

    # -- the presenter's keys ----------------------------------------------------------

    def request(self, move: str) -> None:
        """ "next" or "back", from the presenter."""
        self._moves.append(move)
        self._signal.set()

    def toggle_pause(self) -> None:
        self.paused = not self.paused
        self.overlay.set_paused(self.paused)
        self._signal.set()

    # -- playing -----------------------------------------------------------------------

    async def run(self) -> None:
        await self._until(self._connected)
        steps = self.walkthrough.steps
        while True:
            while 0 <= self.index < len(steps):
                step = steps[self.index]
                again = self.index in self.visited
                self._show_caption(step)
                await self._play(step, again)
                self.visited.add(self.index)
                await self._repainted()
                if self.on_step is not None and not again:
                    await self.on_step(self.index, step)
                self.waiting = True
                try:
                    move = await self._wait_after(step)
                finally:
                    self.waiting = False
                if move == "back":
                    self.index = max(0, self.index - 1)
                else:
                    self.index += 1
            self._present_traffic(False)
            self.finished = True
            self.overlay.show_step(
                "End of the walkthrough.", f"{self.walkthrough.name}: {len(steps)} of {len(steps)} steps", end=True
            )
            if not self.stay_at_end or not steps:
                return
            # The presenter may still go back to the last step (and on from there).
            while await self._next_move() != "back":
                pass
            self.finished = False
            self.index = len(steps) - 1

    async def _next_move(self) -> str:
        while not self._moves:
            self._signal.clear()
            await self._signal.wait()
        return self._moves.pop(0)

    def _show_caption(self, step: WalkStep) -> None:
        total = len(self.walkthrough.steps)
        self.history.append((step.index, step.caption))
        position = f"{self.walkthrough.name}: step {step.index + 1} of {total}"
        if self.index in self.visited and step.sends:
            position += " (shown again: not sent again)"
        self.overlay.show_step(step.caption, position, at_top=step.action == "traffic")

    async def _play(self, step: WalkStep, again: bool) -> None:
        action = step.action
        # The panel a traffic step grew goes back to its size for any other step.
        self._present_traffic(action == "traffic")
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

    # -- waiting -----------------------------------------------------------------------

    def _seconds(self, seconds: float) -> float:
        return seconds / self.pace

    async def _wait_after(self, step: WalkStep) -> str:
        """Until the presenter moves, or the step's pause has run out (paused time not counted)."""
        pause = step.pause if step.pause is not None else self.walkthrough.pause
        remaining: float | None = None if self.manual or pause == WAIT_FOR_KEY else self._seconds(float(pause))
        loop = asyncio.get_running_loop()
        while True:
            if self._moves:
                return self._moves.pop(0)
            if remaining is not None and remaining <= 0 and not self.paused:
                return "next"
            self._signal.clear()
            running = remaining is not None and not self.paused
            started = loop.time()
            try:
                await asyncio.wait_for(self._signal.wait(), remaining if running else None)
            except TimeoutError:
                return "next"
            if running and remaining is not None:
                remaining -= loop.time() - started

    async def _sleep(self, seconds: float) -> None:
        """A pace-scaled pause inside a step; presenter's pause holds it."""
        await self._unpaused()
        await asyncio.sleep(self._seconds(seconds))
        await self._unpaused()

    async def _unpaused(self) -> None:
        while self.paused:
            self._signal.clear()
            await self._signal.wait()

    async def _until(self, condition: Callable[[], object]) -> None:
        while not condition():
            await asyncio.sleep(POLL)

    async def _within(self, condition: Callable[[], object], seconds: float) -> bool:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while not condition():
            if loop.time() > deadline:
                return False
            await asyncio.sleep(POLL)
        return True

    async def _repainted(self) -> None:
        """Until the screen has been laid out and drawn with what was just changed."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def mark() -> None:
            if not done.done():
                done.set_result(None)

        self.app.screen.call_after_refresh(mark)
        self.app.screen.refresh(layout=True)
        await done

    def _connected(self) -> bool:
        app = self.app
        return app.client.state == "connected" and all(
            kind in app.lists for kind in ("tools", "resources", "templates", "prompts")
        )

    # -- keys, as the terminal would send them -----------------------------------------

    async def press(self, key: str, character: str | None = None) -> None:
        """One key through the app's key path, and until it has been handled."""
        event = events.Key(key, character)
        event.set_sender(self.app)
        self.app.post_message(event)
        await asyncio.sleep(0)
        await self._until(lambda: self.app.key_order.idle and not self.app.message_queue_size)

    async def _focus(self, widget: Widget) -> bool:
        """Focus `widget`; False if it never takes the focus (hidden, disabled)."""

        def focused() -> bool:
            # Asked again until it holds: a pane just shown moves the focus to its list once.
            if self.app.focused is widget:
                return True
            widget.focus()
            return False

        return await self._within(focused, FOCUS_PATIENCE)

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
            await self._until(lambda: self._tool_form_ready(key))
        elif kind == "prompts":
            await self._until(lambda: self._prompt_ready(key))
        else:
            await self._until(lambda: getattr(item_list.highlighted_item, "key", None) == key)
        return True

    def _tool_form_ready(self, key: str) -> bool:
        from inspector.tui.panes.tools import ToolsPane
        from inspector.tui.widgets.arguments import ArgumentsEditor

        pane = self.app.query_one(ToolsPane)
        editor = pane.query_one(ArgumentsEditor)
        return pane.tool is not None and pane.tool.key == key and editor.key == key and not editor.form._rebuild_pending

    def _prompt_ready(self, key: str) -> bool:
        from inspector.tui.panes.prompts import PromptsPane
        from inspector.tui.widgets.completing_field import CompletingField

        pane = self.app.query_one(PromptsPane)
        if pane.current is None or pane.current.key != key:
            return False
        wanted = [a for a in pane.current.data.get("arguments") or [] if isinstance(a, dict)]
        return len(pane.query(CompletingField)) == len(wanted)

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
        from inspector.tui.widgets.schema_form import FieldRow

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
            await self._until(lambda: not form._rebuild_pending)
        current, _ = editor.arguments()
        wanted = dict(values) if exact else {**(current or {}), **values}
        for name, value in values.items():
            rows = [row for row in form.query(FieldRow) if row.node.path == (name,)]
            editors = [w for w in rows[0].query("*") if isinstance(w, (Input, TextArea))] if rows else []
            if editors and isinstance(value, (str, int, float)) and not isinstance(value, bool):
                await self.type_into(editors[0], value if isinstance(value, str) else json.dumps(value))
                await self._until(lambda: not form._rebuild_pending)
        got, _ = editor.arguments()
        if got != wanted:
            # What cannot be typed (a switch, a list, an object), or typed text the
            # schema reads otherwise: the form is given the file's values as they are.
            form.load_value(wanted)
            await self._until(lambda: not form._rebuild_pending)

    async def _fill_prompt(self, values: dict[str, Any]) -> None:
        from inspector.tui.panes.prompts import PromptsPane
        from inspector.tui.widgets.completing_field import CompletingField

        pane = self.app.query_one(PromptsPane)
        for field in pane.query(CompletingField):
            text = values.get(field.argument)
            field_input = field.query_one(Input)
            if text is None:
                continue
            await self.type_into(field_input, str(text))
            if field_input.value != str(text):
                field_input.value = str(text)
        # A completion dropdown left open would take the next key.
        for field in pane.query(CompletingField):
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
        await self._until(
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
            await self._until(lambda: screen not in self.app.screen_stack)
            if not screen.answer:
                return
        elif not self._busy("call") and len(self._out("tools/call")) == before:
            return  # the arguments were refused (the pane said why)
        # The call runs in a worker the confirmation's answer starts: until it is done.
        await self._until(lambda: self._busy("call") or len(self._out("tools/call")) > before)
        await self._until(lambda: not self._busy("call"))

    async def _load_tool_arguments(self, arguments: dict[str, Any]) -> None:
        from inspector.tui.panes.tools import ToolsPane
        from inspector.tui.widgets.arguments import ArgumentsEditor

        editor = self.app.query_one(ToolsPane).query_one(ArgumentsEditor)
        if editor.mode == "json":
            editor.json_area.load_text(json.dumps(arguments, indent=2, ensure_ascii=False))
        else:
            editor.form.load_value(arguments)
            await self._until(lambda: not editor.form._rebuild_pending)

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
        await self._until(lambda: self._busy(group) or len(self._out(method)) > before)
        await self._until(lambda: not self._busy(group))

    # -- the traffic -------------------------------------------------------------------

    def _present_traffic(self, on: bool) -> None:
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
        if not await self._within(lambda: table.select_seq(chosen.seq), FOCUS_PATIENCE):
            self.app.notify_plain("walkthrough: the traffic filter hides the request", severity="warning")
        await self._focus(table)
