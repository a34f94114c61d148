"""Tools: the list with hint badges, the detail, the arguments form, the result."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import Checkbox, Static, TabbedContent, TabPane

from inspector import __version__
from inspector.core.extensions.apps import app_document, tool_ui
from inspector.core.protocol.errors import CancelledError, InspectorError, JsonRpcError
from inspector.core.protocol.items import Item, ListResult
from inspector.core.protocol.operation import Operation
from inspector.core.protocol.tasks import TaskInfo
from inspector.core.record.recording_files import last_call
from inspector.tui.badges import tool_row
from inspector.tui.clipboard import copy_text
from inspector.tui.panes.context import ServerContext
from inspector.tui.panes.messages import Notice, ResourceRequested
from inspector.tui.panes.tool_header import tool_header
from inspector.tui.safe import json_syntax
from inspector.tui.widgets.arguments import ArgumentsEditor
from inspector.tui.widgets.big_text import LazyBody, json_over_limit, json_widget
from inspector.tui.widgets.content_view import BlockView
from inspector.tui.widgets.item_list import ItemList
from inspector.tui.widgets.result_view import ResultView
from inspector.tui.widgets.steady import set_text

if TYPE_CHECKING:
    from inspector.core.extensions.app_bridge import AppBridge
    from inspector.core.extensions.app_host import AppHost

__all__ = ["ToolsPane"]

TASK_TTL_MS = 10 * 60 * 1000


class ToolsPane(Horizontal):
    """The Tools tab: the list, the chosen tool's detail and argument form, the call and its result, and its MCP App
    preview."""

    BINDINGS = [
        # Many terminals send ctrl+enter as a plain enter; ctrl+j always arrives.
        Binding("ctrl+enter,ctrl+j", "call", "Call", id="call_tool", priority=True, key_display="^⏎/^j"),
        # Priority so it works while a form field has focus; only active
        # while a call is in flight, so ctrl+x still cuts text otherwise.
        Binding("ctrl+x", "cancel", "Cancel", id="cancel_call", priority=True),
        Binding("ctrl+y", "copy_command", "Copy as command", id="copy_command", show=False),
        Binding("ctrl+e", "toggle_stepping", "Step MRTR rounds", id="toggle_mrtr_steps", show=False),
        Binding("escape", "to_list", "Back to the list", id="tool_form_to_list", show=False),
        # Priority: a terminal's alt+a is ESC a, read as alt+a carrying "a",
        # which a text field would type.
        Binding("alt+a", "preview_app", "Preview the tool's MCP App", id="preview_app", show=False, priority=True),
    ]

    # Whether this connection attempt got as far as a negotiated revision (bound by the view).
    negotiated: var[bool] = var(False)

    class CallRequested(Message):
        """The person asked to call *tool* with *arguments* (the view confirms, then calls `run_call`)."""

        def __init__(self, tool: Item, arguments: dict[str, Any]) -> None:
            super().__init__()
            self.tool = tool
            self.arguments = arguments

    class AppCallAsked(Message):
        """An MCP App asks to call *tool*: the view's confirmation sets *answer* (True: send it)."""

        def __init__(self, tool: Item, arguments: dict[str, Any], origin: str, answer: asyncio.Future[bool]) -> None:
            super().__init__()
            self.tool = tool
            self.arguments = arguments
            self.origin = origin
            self.answer = answer

        def answered(self, send: bool) -> None:
            """Give the app its answer (once)."""
            if not self.answer.done():
                self.answer.set_result(send)

    class SteppingToggled(Message):
        """The person turned manual multi round-trip stepping on or off."""

    def __init__(self, server: ServerContext) -> None:
        super().__init__()
        self.server = server
        self.tool: Item | None = None
        self.pending: Operation | None = None
        self.running_task: TaskInfo | None = None
        self.started = 0.0
        self._task_option: tuple[str | None, str] | None = None
        # The result view was hidden while no tool was selected.
        self._result_hidden = False
        # The MCP App preview the person started (one at a time): its web
        # server, the host side of the app's protocol, the tool and the URL.
        self.app_host: AppHost | None = None
        self.app_bridge: AppBridge | None = None
        self.app_tool: str | None = None
        self.app_url: str | None = None
        # Per tool, the person's last call: (arguments, result, why there is none), for a preview started later.
        self.last_calls: dict[str, tuple[dict[str, Any], Any, str | None]] = {}
        # The tool each schema tab was drawn for: a tab is drawn when it is
        # shown, not for every tool the highlight passes.
        self._tab_drawn: dict[str, Item | None] = {}

    def compose(self) -> ComposeResult:
        yield ItemList("Tools", tool_row, kind="tools", lines=2, on_highlight=self._show, id="tool-list")
        with Vertical(id="tool-detail"):
            yield VerticalScroll(Static("No tool selected", id="tool-header-text"), id="tool-header")
            yield Checkbox("run as a task (tasks/get, tasks/result)", id="as-task")
            with TabbedContent(id="tool-tabs"):
                with TabPane("Arguments", id="tool-args-tab"):
                    yield ArgumentsEditor(id="tool-args")
                with TabPane("Input schema", id="tool-schema-tab"):
                    yield VerticalScroll(Static(id="tool-schema"))
                with TabPane("Output schema", id="tool-output-tab"):
                    yield VerticalScroll(Static(id="tool-output"))
                with TabPane("Raw", id="tool-raw-tab"):
                    yield VerticalScroll(Static(id="tool-raw"))
            yield ResultView(id="tool-result")

    def set_listing(self, listing: ListResult) -> None:
        """Show a fresh tools listing."""
        self.query_one(ItemList).set_listing(listing)

    def _show(self, item: Item | None) -> None:
        if item is not None and self.tool is not None and item.key == self.tool.key and item.raw == self.tool.raw:
            return
        self.tool = item
        header = self.query_one("#tool-header-text", Static)
        view = self.query_one(ResultView)
        view.show_selected(item.key if item is not None else None)
        self.refresh_task_option()
        if item is None:
            # No tool (a filter that matches none): none of the previous
            # tool's form, schemas or result stays on screen.
            header.update("No tool selected")
            self.query_one(ArgumentsEditor).clear()
            self._draw_tabs(every=True)
            self._result_hidden = self._result_hidden or not view.empty
            view.empty = True
            return
        if self._result_hidden:
            self._result_hidden = False
            view.empty = False
        set_text(header, tool_header(item, self.app_url if self.app_tool == item.key else None))
        # Another tool's header is read from its name: not at the place the
        # last one was scrolled to (its description, on a short screen).
        self.query_one("#tool-header", VerticalScroll).scroll_home(animate=False, immediate=True)
        self._draw_tabs()
        self.query_one(ArgumentsEditor).load_schema(item.input_schema, key=item.key)
        if self.server.recording:
            self._show_recorded_call(item)

    def _draw_tabs(self, every: bool = False) -> None:
        """The schema tabs of the selected tool: the one shown (or *every*
        one), each only if it shows another tool."""
        tool = self.tool
        active = self.query_one("#tool-tabs", TabbedContent).active
        for tab, part in (
            ("tool-schema-tab", "#tool-schema"),
            ("tool-output-tab", "#tool-output"),
            ("tool-raw-tab", "#tool-raw"),
        ):
            if not (every or tab == active) or (tab in self._tab_drawn and self._tab_drawn[tab] is tool):
                continue
            self._tab_drawn[tab] = tool
            static = self.query_one(part, Static)
            if tool is None:
                self._show_json(static, None, "")
            elif tab == "tool-schema-tab":
                self._show_json(static, tool.data.get("inputSchema"))
            elif tab == "tool-output-tab":
                output = tool.output_schema
                self._show_json(static, output, Text("no outputSchema", style="dim"))
            else:
                self._show_json(static, tool.raw)

    @staticmethod
    def _show_json(static: Static, value: Any, instead: Text | str = "") -> None:
        """*value* highlighted in *static*; a big one (a schema of hundreds
        of kilobytes) in a LazyBody beside it, prepared in a thread and
        coloured a screen at a time; *instead* when the value is None."""
        holder = static.parent
        if isinstance(holder, Widget):
            holder.remove_children(LazyBody)
            # Another tool's schema starts at its top, not where the last one was read to.
            holder.scroll_home(animate=False, immediate=True)
        if value is None or not json_over_limit(value):
            static.display = True
            static.update(instead if value is None else json_syntax(value))
            return
        static.update("")
        static.display = False
        if isinstance(holder, Widget):
            holder.mount(json_widget(value))

    @on(TabbedContent.TabActivated, "#tool-tabs")
    def _tab_shown(self, event: TabbedContent.TabActivated) -> None:
        self._draw_tabs()

    @work(group="recorded-call", exclusive=True)
    async def _show_recorded_call(self, item: Item) -> None:
        """A recording: the last call of this tool it holds, its arguments in
        the form and its answer in the result view, as they were."""
        found = last_call(self.server.traffic, item.key)
        if found is None:
            return
        request, response = found
        params = request.message.get("params") if isinstance(request.message, dict) else None
        arguments = params.get("arguments") if isinstance(params, dict) else None
        if isinstance(arguments, dict):
            self.query_one(ArgumentsEditor).form.load_value(arguments)
        view = self.query_one(ResultView)
        view.set_owner(item.key)
        elapsed = response.latency if response is not None and response.latency is not None else 0.0
        message = response.message if response is not None and isinstance(response.message, dict) else None
        if message is None:
            await view.show_error(RuntimeError(f"the recording holds no answer to frame #{request.seq}"), 0.0)
        elif "error" in message:
            await view.show_error(JsonRpcError.from_dict(message["error"]), elapsed)
        else:
            await view.show_result(message.get("result"), elapsed, item.output_schema)
        view.border_subtitle = f"recorded: frames #{request.seq}" + (f"/#{response.seq}" if response else "")

    def refresh_task_option(self) -> None:
        """ "Run as a task" only where the connected server lets this tool be one."""
        checkbox = self.query_one("#as-task", Checkbox)
        client = self.server.client
        connected = client.state == "connected" and self.negotiated
        support = client.task_support(self.tool.data) if self.tool is not None and connected else "forbidden"
        shown_for = (self.tool.key if self.tool is not None else None, support)
        if shown_for == self._task_option:
            return  # keep what the person ticked
        self._task_option = shown_for
        checkbox.display = support != "forbidden"
        checkbox.value = support == "required"
        checkbox.disabled = support == "required"

    @on(ItemList.Activated, "#tool-list")
    def _activate(self, event: ItemList.Activated) -> None:
        self.query_one(ArgumentsEditor).focus_first()

    def action_to_list(self) -> None:
        self.query_one(ItemList).focus_list()

    @work(group="call-check", exclusive=True)
    async def action_call(self) -> None:
        tool = self.tool
        if tool is None:
            return
        excluded = [p for p in tool.problems if p.startswith("excluded:")]
        if excluded:
            self._notice(f"{tool.key} cannot be called: {excluded[0]}", severity="error")
            return
        editor = self.query_one(ArgumentsEditor)
        arguments, errors = await editor.checked_arguments()
        if tool is not self.tool:
            return  # the person moved to another tool while the check ran
        if arguments is None:
            self._notice("; ".join(errors) or "the arguments are not valid", severity="error")
            return
        if errors:
            self._notice("arguments do not match the input schema: " + "; ".join(errors[:3]), severity="warning")
        self.post_message(self.CallRequested(tool, arguments))

    def _as_task(self, tool: Item) -> bool:
        support = self.server.client.task_support(tool.data)
        return support == "required" or (support == "optional" and self.query_one("#as-task", Checkbox).value)

    async def run_call(self, tool: Item, arguments: dict[str, Any]) -> None:
        """Called by the app after confirmation, inside a worker."""
        client = self.server.client
        result_view = self.query_one(ResultView)
        await result_view.running(f"calling {tool.key}", owner=tool.key)
        self.started = time.perf_counter()
        self.last_calls[tool.key] = (dict(arguments), None, None)
        bridge = self.app_bridge if self.app_tool == tool.key else None
        if bridge is not None:
            # The open preview renders this call: its input now, its result when it comes.
            await bridge.new_call(arguments)
        try:
            operation = await client.start_call_tool(
                tool.key,
                arguments,
                on_progress=result_view.progress,
                task_ttl=TASK_TTL_MS if self._as_task(tool) else None,
            )
            self.pending = operation
            self.refresh_bindings()
            result = await operation.result()
            task = client.tasks.adopt(result, tool.key)
            if task is not None:
                self.running_task = task
                result_view.task_status(task)
                result = await client.tasks.wait(task, on_status=result_view.task_status)
        except (CancelledError, InspectorError) as exc:
            await self._app_call_ended(tool, arguments, None, str(exc))
            await result_view.show_error(exc, time.perf_counter() - self.started)
            return
        finally:
            self.pending = None
            self.running_task = None
            if self.is_attached:
                self.refresh_bindings()
        await self._app_call_ended(tool, arguments, result, None)
        await result_view.show_result(result, time.perf_counter() - self.started, tool.output_schema)

    async def _app_call_ended(self, tool: Item, arguments: dict[str, Any], result: Any, failed: str | None) -> None:
        self.last_calls[tool.key] = (dict(arguments), result, failed)
        bridge = self.app_bridge if self.app_tool == tool.key else None
        if bridge is None:
            return
        if failed is None:
            await bridge.set_result(result)
        else:
            await bridge.set_cancelled(failed)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.pending is not None
        return True

    @work(group="cancel")
    async def action_cancel(self) -> None:
        if self.running_task is not None and not self.running_task.terminal:
            # A task is cancelled by asking the server (tasks/cancel).
            await self.server.client.tasks.cancel(self.running_task.task_id)
        elif self.pending is not None:
            await self.pending.cancel("cancelled by the user")

    @work(group="app-preview", exclusive=True)
    async def action_preview_app(self) -> None:
        """Serve the tool's app on 127.0.0.1 (never in the terminal) and show
        its URL.  The app gets the tool's last call from this pane (input,
        then result) and each later one; its own tools/call requests get the
        confirmation every call gets.  Its messages go to the traffic log."""
        from inspector.core.extensions.app_bridge import AppBridge
        from inspector.core.extensions.app_host import AppHost

        tool = self.tool
        ui = tool_ui(tool.data) if tool is not None else None
        if tool is None or ui is None or ui.resource_uri is None:
            self._notice("this tool declares no MCP App (_meta.ui.resourceUri)", severity="warning")
            return
        if self.app_tool == tool.key and self.app_url is not None:
            # Its preview runs already: now, and only now, the browser is opened on it.
            await self._open_preview(self.app_url)
            return
        try:
            result = await self.server.client.read_resource(ui.resource_uri)
            document = app_document(ui.resource_uri, result)
        except (InspectorError, ValueError) as exc:
            self._notice(f"{ui.resource_uri}: {exc}", severity="error")
            return
        await self.stop_app_preview()
        server = self.server
        origin = f"the MCP App of {tool.key}"

        def find_tool(name: str) -> Item | None:
            listing = server.lists.get("tools")
            return listing.find(name) if listing is not None else None

        async def confirm(asked: Item, arguments: dict[str, Any]) -> bool:
            # The app's request waits for the person: the message carries the future the view's confirmation sets.
            answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            self.post_message(self.AppCallAsked(asked, arguments, origin, answer))
            return await answer

        bridge = AppBridge(
            server.client,
            tool.data,
            host_version=__version__,
            find_tool=find_tool,
            confirm=confirm,
            ui_meta=document.ui_meta,
            notify=lambda text: self._notice(f"{origin}: {text}"),
        )
        host = AppHost(document, bridge)
        self.app_url = await host.start()
        self.app_host, self.app_bridge, self.app_tool = host, bridge, tool.key
        last = self.last_calls.get(tool.key)
        if last is not None:
            arguments, answer, failed = last
            await bridge.new_call(arguments)
            if answer is not None:
                await bridge.set_result(answer)
            elif failed is not None:
                await bridge.set_cancelled(failed)
        self._notice(f"MCP App preview of {document.uri}: {self.app_url} (alt+a again opens it in your browser)")
        self._redraw_header()

    async def _open_preview(self, url: str) -> None:
        from inspector.core.extensions.app_browser import open_in_browser

        why_not = await open_in_browser(url)
        if why_not is None:
            self._notice(f"opening {url} in your browser")
        else:
            self._notice(why_not, severity="warning")

    def _redraw_header(self) -> None:
        tool = self.tool
        if tool is not None and self.is_attached:
            url = self.app_url if self.app_tool == tool.key else None
            set_text(self.query_one("#tool-header-text", Static), tool_header(tool, url))

    async def stop_app_preview(self, redraw: bool = True) -> None:
        """Close the MCP App preview's bridge and host, if one runs; *redraw*: redraw the header when one was shown."""
        host, bridge = self.app_host, self.app_bridge
        had = self.app_tool
        self.app_host, self.app_bridge, self.app_tool, self.app_url = None, None, None, None
        if bridge is not None:
            await bridge.close()
        if host is not None:
            await host.close()
        if had is not None and redraw:
            self._redraw_header()

    async def on_unmount(self) -> None:
        await self.stop_app_preview(redraw=False)

    def action_copy_command(self) -> None:
        """The `inspector call …` line that repeats this call, secrets as $VARIABLES."""
        if self.tool is None:
            return
        from inspector.core.servers.copy_command import call_command

        arguments, _errors = self.query_one(ArgumentsEditor).arguments()
        roots = [root["uri"] for root in self.server.roots if isinstance(root.get("uri"), str)]
        line = call_command(self.server.spec, self.tool.key, arguments or {}, self.tool.input_schema, roots)
        how = copy_text(self.app, line)
        self._notice(f"copied ({how}): {line}")

    def action_toggle_stepping(self) -> None:
        self.post_message(self.SteppingToggled())

    @on(BlockView.ReadLink)
    def _read_link(self, event: BlockView.ReadLink) -> None:
        event.stop()
        self.post_message(ResourceRequested(event.uri))

    def _notice(self, text: str, *, severity: str = "information") -> None:
        self.post_message(Notice(text, severity=severity))
