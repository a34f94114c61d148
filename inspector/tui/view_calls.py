"""What a person sends through one server's view: every tools/call behind
its confirmation (the person's, an MCP App's, the palette's), the rounds of
a multi round-trip request when stepped by hand, and raw messages typed in
the composer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from inspector.core.protocol.errors import InspectorError
from inspector.core.protocol.items import Item
from inspector.core.protocol.mrtr import Round
from inspector.core.protocol.pending import PendingRequest
from inspector.tui.panes.tools import ToolsPane

if TYPE_CHECKING:
    from inspector.tui.server_view import ServerView

__all__ = ["ServerCalls"]


class ServerCalls:
    """The sending side of a server's view: calls, rounds and raw messages pass here."""

    def __init__(self, view: ServerView) -> None:
        self._view = view

    def confirm_and_call(self, tool: Item, arguments: dict[str, Any]) -> None:
        """Every tools/call the person makes passes here (see `confirm_call`)."""
        view = self._view
        if view.recording is not None:
            view.notify("this is a recording: nothing can be sent", severity="warning")
            return

        def answered(send: bool) -> None:
            if send:
                self._call(tool, arguments)
            else:
                view.notify("call not sent")

        self.confirm_call(tool, arguments, answered)

    def confirm_call(
        self, tool: Item, arguments: dict[str, Any], answered: Callable[[bool], None], origin: str | None = None
    ) -> None:
        """The confirmation every tools/call gets, the person's and an MCP
        App's alike (`origin` names who asks); `answered(True)` sends it.  A
        read-only tool the person trusted for the session goes without
        asking (the header lists such tools)."""
        from inspector.tui.screens.confirm_call import TRUST, ConfirmCallScreen

        view = self._view
        if tool.key in view.trusted_tools:
            view.notify_plain(f"calling {tool.key} without asking (trusted read-only tool, this session)")
            answered(True)
            return

        def decided(answer: bool | str | None) -> None:
            if answer == TRUST:
                view.trusted_tools.add(tool.key)
                view.update_facts()
            answered(bool(answer))

        views = view.inspector.views
        # With several servers, the confirmation says whose tool it calls.
        server = f"{views.index(view) + 1} {view.label}" if len(views) > 1 else None
        view.app.push_screen(ConfirmCallScreen(tool, arguments, origin, server), callback=decided)

    def ask_to_call(self, tool: Item, arguments: dict[str, Any], origin: str, answered: Callable[[bool], None]) -> None:
        """`confirm_call` for a call someone else asks for (an MCP App): never sent from a recording."""
        if self._view.recording is not None:
            answered(False)
            return
        self.confirm_call(tool, arguments, answered, origin)

    def _call(self, tool: Item, arguments: dict[str, Any]) -> None:
        view = self._view
        pane = view.query_one(ToolsPane)
        view.run_worker(pane.run_call(tool, arguments), group="call", name=f"call {tool.key}")

    def toggle_round_stepping(self) -> None:
        """Manual multi round-trip mode: confirm every retry round."""
        view = self._view
        if view.client.mrtr_stepper is None:
            view.client.mrtr_stepper = self._confirm_round
            view.notify("multi round-trip requests: each round waits for your y")
        else:
            view.client.mrtr_stepper = None
            view.notify("multi round-trip requests: rounds are answered automatically")

    async def _confirm_round(self, step: Round) -> bool:
        from inspector.tui.screens.mrtr_round import RoundScreen

        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def decided(send: bool | None) -> None:
            if not answer.done():
                answer.set_result(bool(send))

        self._view.push_screen(RoundScreen(step), callback=decided)
        return await answer

    def open_composer(self, text: str | None = None, title: str | None = None) -> None:
        """The raw composer: a template, or a message to edit and send again."""
        view = self._view
        if view.recording is not None:
            view.notify_plain(
                "this is a recording: nothing can be sent (inspector replay FILE re-sends it)", severity="warning"
            )
            return
        from inspector.tui.screens.composer import ComposerScreen

        screen = ComposerScreen() if text is None else ComposerScreen(text, title or "Edit and resend")

        def send(typed: str | None) -> None:
            if typed is not None:
                view.run_worker(self._send_raw(typed), group="raw", exit_on_error=False)

        view.push_screen(screen, callback=send)

    async def _send_raw(self, text: str) -> None:
        view = self._view
        session, _transport = view.client.require()
        sent = await session.send_raw(text, note="typed in the composer")
        view.notify("sent; the answer appears in the traffic pane")
        if isinstance(sent, PendingRequest):
            try:
                await sent.future
            except InspectorError as exc:
                view.notify_plain(f"answer: {exc}", severity="warning")

    def call_from_palette(self, key: str) -> None:
        """`call: TOOL` in the palette: select the tool and open the
        confirmation with the arguments its form holds (nothing is sent
        without the confirmation's y)."""
        view = self._view
        view.select_item("tools", key)
        view.run_worker(self._confirm_when_selected(key), group="palette-call", exclusive=True, exit_on_error=False)

    async def _confirm_when_selected(self, key: str) -> None:
        view = self._view
        pane = view.query_one(ToolsPane)
        for _ in range(200):
            # The pane loads the tool's form when the list's highlight message arrives.
            if pane.tool is not None and pane.tool.key == key:
                pane.action_call()
                return
            await asyncio.sleep(0.02)
        view.notify_plain(f"no tool named {key} in the list", severity="warning")
