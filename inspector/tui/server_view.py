"""One server in the app: its connection, traffic, stderr, lists, forms and
results, and the panes that show them.

The app holds one `ServerView` per server it was given; the panes inside a
view talk to that view (`owner_of`), so a call, a list load or a crash of one
server never touches another's panes.  Only the active view is displayed.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Select, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from inspector.core.protocol.client import Client
from inspector.core.protocol.errors import ConnectError, InspectorError, JsonRpcError
from inspector.core.protocol.items import Item, ListResult
from inspector.core.protocol.mrtr import Round
from inspector.core.protocol.pending import PendingRequest
from inspector.core.record.frame_lines import JsonlRecorder
from inspector.core.record.secret_mask import mask_traffic
from inspector.core.record.traffic import Frame, TrafficLog
from inspector.core.safetext import visible
from inspector.core.servers.spec import ServerSpec
from inspector.tui.clipboard import copy_text
from inspector.tui.handlers import TuiHandlers
from inspector.tui.panes.auth import AuthPane
from inspector.tui.panes.bottom import BottomPanel
from inspector.tui.panes.collections import CollectionsPane
from inspector.tui.panes.prompts import PromptsPane
from inspector.tui.panes.resources import ResourcesPane
from inspector.tui.panes.roots import RootsPane
from inspector.tui.panes.server import ServerPane
from inspector.tui.panes.skills import SkillsPane
from inspector.tui.panes.tasks import TasksPane
from inspector.tui.panes.templates import TemplatesPane
from inspector.tui.panes.tools import ToolsPane
from inspector.tui.widgets.filter_list import FilterList
from inspector.tui.widgets.item_list import ItemList
from inspector.tui.widgets.status_bar import ConnectionFacts
from inspector.tui.widgets.traffic_table import TrafficTable

if TYPE_CHECKING:
    from inspector.core.checks.frame_validator import FrameValidator
    from inspector.tui.app import InspectorApp

__all__ = ["LIST_PANES", "ServerView", "focus_pane", "new_recording_path", "owner_of", "worker_failure"]

LIST_CHANGED = {
    "notifications/tools/list_changed": ("tools",),
    "notifications/resources/list_changed": ("resources", "templates"),
    "notifications/prompts/list_changed": ("prompts",),
}
SYNC_INTERVAL = 0.05
# While a list arrives page by page the views catch up this often: each
# catch-up redraws the traffic table and the status bar, and at 100,000
# items those redraws, not the items, would take most of the loop.
LOADING_SYNC_INTERVAL = 0.25
# The wire validation holds off while a list's pages arrive less than this
# far apart (a server that stops sending is checked all the same).
VALIDATION_HOLD = 1.0
# The wire validation's thread shares the interpreter with the loop: it
# waits while the person is at the keys (and this long after the last key),
# and otherwise hands the interpreter over at least this often, so a key that
# comes is not kept waiting for the thread's turn to end (5 ms by default).
VALIDATION_QUIET_AFTER_INPUT = 0.3
VALIDATION_HAND_OVER = 0.001
# While a long list arrives page by page, it is redrawn at most this often.
PAGE_PAINT_INTERVAL = 0.5
LIST_PANES: dict[str, type[Widget]] = {
    "tools": ToolsPane,
    "resources": ResourcesPane,
    "templates": TemplatesPane,
    "prompts": PromptsPane,
}
# Rows from which a terminal counts as tall (see InspectorApp.VERTICAL_BREAKPOINTS).
TALL = 36


def new_recording_path() -> str:
    """A file name nobody has yet, in the working directory (else the temporary one)."""
    import os
    import tempfile

    stem = time.strftime("inspector-%Y%m%d-%H%M%S")
    for folder in (os.getcwd(), tempfile.gettempdir()):
        if not os.access(folder, os.W_OK):
            continue
        for counter in range(1000):
            path = os.path.join(folder, f"{stem}{'-' + str(counter) if counter else ''}.jsonl")
            if not os.path.exists(path):
                return path
    raise OSError("no writable folder for a recording")


def focus_pane(pane: Widget) -> None:
    """Focus what a pane is for: its list (a traffic-like table in the
    bottom panel), else the first thing in it that takes focus."""
    lists = pane.query(FilterList)
    if lists:
        lists.first().focus_list()
        return
    targets = [*pane.query(TrafficTable), *(w for w in pane.query("*") if w.focusable)]
    if targets:
        targets[0].focus()
    elif pane.focusable:
        pane.focus()


def worker_failure(error: BaseException | None) -> str:
    """What a toast says of a worker that failed."""
    if isinstance(error, JsonRpcError):
        return f"server error {error.code}: {error.message}"
    if isinstance(error, InspectorError):
        return str(error)
    return f"{error.__class__.__name__}: {error}"


def owner_of(widget: Widget) -> ServerView:
    """The server a pane belongs to: its view, else (a pane outside any
    view, as in a screen) the view the app shows."""
    for node in widget.ancestors:
        if isinstance(node, ServerView):
            return node
    # Every pane runs inside the inspector's app (the app module imports this one).
    return cast("InspectorApp", widget.app).view


class ServerView(Vertical):
    # Priority: it works from inside a text field too. The app ignores it with one server.
    BINDINGS = [
        Binding("ctrl+n", "app.next_server", "Next server", id="next_server", show=False, priority=True),
    ]

    DEFAULT_CSS = """
    ServerView { height: 1fr; }
    ServerView.-inactive { display: none; }
    """

    def __init__(
        self,
        spec: ServerSpec,
        *,
        record: str | None = None,
        watch: list[str] | None = None,
        recording: tuple[str, TrafficLog] | None = None,
        label: str | None = None,
        owner: InspectorApp | None = None,
    ) -> None:
        super().__init__()
        # The app, before this view is mounted in it (the auth session needs it at once).
        self._owner = owner
        self.spec = spec
        # What the server list and the header call this server.
        self.label = label or spec.label()
        self.watch_paths = list(watch or [])
        # A reopened recording: everything is shown, nothing is sent.
        self.recording = recording
        # Masked as frames arrive, so the pane, copies and --record never hold a secret.
        self.traffic = recording[1] if recording is not None else mask_traffic(TrafficLog(), spec)
        self.handlers = TuiHandlers(self)  # type: ignore[arg-type]
        self.client = Client(spec, handlers=self.handlers, traffic=self.traffic)
        self.lists: dict[str, ListResult] = {}
        self.trusted_tools: set[str] = set()
        self._recorder: JsonlRecorder | None = None
        self._stop_recording: Callable[[], None] | None = None
        self.recording_path: str | None = None
        if record:
            self._start_recording(record)
        self._sync_scheduled = False
        # Lists being fetched now (their pages arriving): views sync less often.
        self.lists_loading = 0
        self._last_frame_at = 0.0
        self._validation_retry = False
        self.validator: FrameValidator | None = None
        self._validated = 0
        self._validating = False
        self._stop_validation = threading.Event()
        self._handed_over = 0.0
        self._facts = ConnectionFacts()
        self.traffic.subscribe(self._on_frame)
        self.client.on_state(self._on_state)
        self.client.on_notification(self._on_notification)
        self.client.tasks.observers.append(self._on_task)
        # A hand-off login's redirect URLs, pasted into the Auth pane (None: not that mode).
        self._handoff_paste: asyncio.Queue[str] | None = None
        self.auth_session = self._auth_session()
        self._tasks_dirty = False
        # What the header must not take from the client alone: whether this
        # connection attempt got as far as a negotiated revision, and a
        # failure that happened before the client was asked (auth preflight).
        self.negotiated = False
        self.preflight = False
        self.connect_failure: str | None = None
        # Whether a connection was ever opened: a later loss is an exit, not a failure to start.
        self.was_connected = False

    @property
    def inspector(self) -> InspectorApp:
        return self._owner or self.app  # type: ignore[return-value]

    # -- what the app shows of this server ------------------------------------------------

    @property
    def facts(self) -> ConnectionFacts:
        return self._facts

    @facts.setter
    def facts(self, value: ConnectionFacts) -> None:
        self._facts = value
        with contextlib.suppress(Exception):
            self.inspector.view_changed(self)

    @property
    def active(self) -> bool:
        return not self.has_class("-inactive")

    def list_state(self) -> tuple[str, str]:
        """The server list's word for this server: connecting, connected,
        failed (never got connected) or exited (lost after connecting)."""
        if self.recording is not None:
            return "recording", self.recording[0]
        state, reason = self.connection_state()
        if state in ("connecting", "connected"):
            return state, reason
        if state == "idle":
            return "connecting", reason
        return ("exited" if self.was_connected else "failed"), reason

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # Not bubbled by Textual: the view's workers (lists, calls, reads) are reported here.
        if event.state == WorkerState.ERROR:
            message = worker_failure(event.worker.error)
            self.notify_plain(message, title=event.worker.name or "request failed", severity="error")

    def push_screen(self, screen: Screen[Any], callback: Callable[[Any], Any] | None = None) -> Any:
        return self.app.push_screen(screen, callback=callback)

    def notify_plain(self, message: str, *, title: str = "", severity: str = "information") -> None:
        """A toast whose text may come from the server: never markup; named
        with the server's label when several servers share the window."""
        if len(self.inspector.views) > 1:
            title = f"{self.label}: {title}" if title else self.label
        self.app.notify(visible(message), title=visible(title), severity=severity, markup=False)  # type: ignore[arg-type]

    # -- layout ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with TabbedContent(id="main", initial="tools"):
            with TabPane("Tools", id="tools"):
                yield ToolsPane()
            with TabPane("Resources", id="resources"):
                yield ResourcesPane()
            with TabPane("Templates", id="templates"):
                yield TemplatesPane()
            with TabPane("Prompts", id="prompts"):
                yield PromptsPane()
            with TabPane("Skills", id="skills"):
                yield SkillsPane()
            with TabPane("Server", id="server"):
                yield ServerPane()
            with TabPane("Roots", id="roots"):
                yield RootsPane()
            with TabPane("Tasks", id="tasks"):
                yield TasksPane()
            with TabPane("Auth", id="auth"):
                yield AuthPane(server=self.spec.url, handoff=self._handoff_paste is not None)
            with TabPane("Collections", id="collections"):
                yield CollectionsPane()
        yield BottomPanel(self.traffic)

    def on_mount(self) -> None:
        # The validation thread reads the time of the last key from the app.
        self._app_for_threads: InspectorApp = self.inspector
        self.run_worker(self._start_validation(), group="validation", exit_on_error=False)
        auth = self.query_one(AuthPane)
        tabs = self.query_one("#main", TabbedContent)
        # Tasks appear once a server offers them (or a task shows up).
        tabs.hide_tab("tasks")
        # Collections appear once asked for (F10) or once a call is saved (ctrl+b).
        tabs.hide_tab("collections")
        # Skills appear for a server that declares the extension.
        tabs.hide_tab("skills")
        if self.auth_session is None:
            tabs.hide_tab("auth")
        else:
            auth.set_events(self.auth_session.log.events)
            self.auth_session.log.subscribe(auth.add_event)
        if self.app.size.height < TALL:
            # The result and the form need the rows more than the traffic does, at first.
            self.query_one(BottomPanel).add_class("collapsed")
        if self.recording is not None:
            self._show_recording(*self.recording)
            return
        self.update_facts()
        self.connect()
        if self.watch_paths:
            self.run_worker(self._watch(), group="watch", exit_on_error=False)

    def _auth_session(self) -> Any:
        """The server's OAuth session (remote servers only): its steps go to the Auth pane."""
        if not self.spec.url or self.recording is not None:
            return None
        from inspector.core.auth.session import session_for

        session = session_for(self.spec)
        if session is not None:
            session.attach(self.traffic)
            if session.config.confirm is None:
                from inspector.tui.panes.auth import confirm_in

                session.config.confirm = confirm_in(self.inspector)
            if session.config.browser == "handoff" and session.config.paste is None:
                # The TUI owns the terminal: the redirect URL is pasted into the Auth pane instead.
                pasted: asyncio.Queue[str] = asyncio.Queue()
                self._handoff_paste = pasted
                session.config.paste = pasted.get
        return session

    async def _watch(self) -> None:
        """Hot restart: a change under a watched path restarts the server;
        form inputs survive (they are kept per tool)."""
        from watchfiles import awatch

        async for changes in awatch(*self.watch_paths, debounce=300):
            names = sorted({path for _change, path in changes})
            self.notify_plain(f"changed: {', '.join(names[:3])}{' …' if len(names) > 3 else ''}; restarting")
            self.traffic.event("local", "process", note=f"hot restart after changes in {len(names)} file(s)")
            self.connect(reconnect=True)

    # -- connection --------------------------------------------------------------------

    @work(exclusive=True, group="connection")
    async def connect(self, reconnect: bool = False) -> None:
        self.negotiated = False
        self.connect_failure = None
        try:
            if self.auth_session is not None:
                # Log in before connecting, so a person's login does not race a request's timeout.
                self.preflight = True
                self.update_facts()
                try:
                    await self.auth_session.preflight(headers=dict(self.spec.headers))
                finally:
                    self.preflight = False
            if reconnect:
                await self.client.reconnect()
            else:
                await self.client.connect()
        except InspectorError as exc:
            self.connect_failure = str(exc)
            self.update_facts()
            self._show_tasks_tab()
            self.show_connect_error(exc)
            return
        self.negotiated = True
        self.was_connected = True
        self.update_facts()
        self.query_one(ServerPane).show(self.client)
        self._show_tasks_tab()
        for kind in ("tools", "resources", "templates", "prompts"):
            self.refresh_list(kind)
        self.query_one(SkillsPane).refresh_skills()
        if self.client.modern is not None:
            # The stateless era has no push channel until we ask for one.
            self.run_worker(self._listen(), group="listen", exclusive=True, exit_on_error=False)
        # Focus goes to the list of the pane on screen: a person who opened
        # another pane (F3, say) while the server started stays there.
        tabs = self.query_one("#main", TabbedContent)
        focus_pane(tabs.get_pane(tabs.active))

    def _show_recording(self, path: str, traffic: TrafficLog) -> None:
        from inspector.core.record.recording_files import lists_from_traffic, opening

        era, result = opening(traffic)
        info = result.get("serverInfo") or (result.get("_meta") or {}).get("io.modelcontextprotocol/serverInfo") or {}
        self.facts = ConnectionFacts(
            server=str(info.get("title") or info.get("name") or path),
            version=str(info.get("version") or ""),
            transport="recording",
            revision=str(result.get("protocolVersion") or ", ".join(result.get("supportedVersions") or [])),
            state="offline",
            reason=f"read-only: {path}",
        )
        self.query_one(ServerPane).show_recording(path, era, result)
        self.lists = lists_from_traffic(traffic)
        for kind, pane in (
            ("tools", ToolsPane),
            ("resources", ResourcesPane),
            ("templates", TemplatesPane),
            ("prompts", PromptsPane),
        ):
            self.query_one(pane).set_listing(self.lists.get(kind) or ListResult(kind))  # type: ignore[attr-defined]
        self.query_one("#main", TabbedContent).hide_tab("tasks")
        self.query_one(BottomPanel).sync()
        self.notify(f"{len(traffic.frames)} frames from {path}; read-only, nothing is sent")

    def _show_tasks_tab(self) -> None:
        """The Tasks tab appears where the server has tasks (either era), or
        where tasks were seen; and the "run as a task" option follows."""
        caps = self.client.server_capabilities if self.negotiated else {}
        extensions = caps.get("extensions")
        has = "tasks" in caps or (isinstance(extensions, dict) and "io.modelcontextprotocol/tasks" in extensions)
        tabs = self.query_one("#main", TabbedContent)
        if has or self.client.tasks.tasks:
            tabs.show_tab("tasks")
        else:
            tabs.hide_tab("tasks")
        self.query_one(ToolsPane).refresh_task_option()

    def show_connect_error(self, exc: InspectorError) -> None:
        from inspector.tui.screens.connect_error import ConnectErrorScreen

        if len(self.inspector.views) > 1:
            # A modal (whose q quits) would stop the work on the other servers:
            # the list says "failed", the traffic and stderr tabs keep the why.
            self.notify_plain(f"could not connect: {exc} (ctrl+r retries)", severity="error")
            return

        detail = exc.detail if isinstance(exc, ConnectError) else None
        tail = detail.splitlines() if detail else self.client.stderr_tail()[-20:]

        def retry(again: bool | None) -> None:
            if again:
                self.connect(reconnect=True)

        screen = ConnectErrorScreen(str(exc), tail, self.spec.label(), tail_source=self.client.stderr_tail)
        self.push_screen(screen, callback=retry)

    def refresh_list(self, kind: str, *, refresh: bool = True) -> None:
        self.run_worker(
            partial(self._load_list, kind, refresh),  # type: ignore[arg-type]
            group=f"list-{kind}",
            exclusive=True,
            exit_on_error=False,
        )

    async def _listen(self) -> None:
        subscription = await self.client.listen_changes()
        if subscription is None:
            return
        for _ in range(100):
            if subscription.acknowledged is not None or subscription.ended:
                break
            await asyncio.sleep(0.05)
        self.query_one(ServerPane).show(self.client)

    async def _load_list(self, kind: str, refresh: bool = True) -> None:
        """Fetch a list; its first page is shown as soon as it arrives, and
        the list grows every PAGE_PAINT_INTERVAL while later pages come."""
        pane = self.query_one(LIST_PANES[kind])
        arrived = ListResult(kind, complete=False)
        timer: Timer | None = None
        interval = PAGE_PAINT_INTERVAL

        def show_so_far() -> None:
            nonlocal timer, interval
            timer = None
            started = time.perf_counter()
            try:
                item_list = pane.query_one(ItemList)
            except NoMatches:
                return  # the pane is not composed yet: the whole listing will do
            pane.set_listing(replace(arrived, items=list(arrived.items)))  # type: ignore[attr-defined]
            item_list.border_subtitle = Text(f"loading… {len(arrived.items)} so far")
            # However costly a redraw of the list is, the redraws while
            # pages arrive take at most a fifth of the loop's time.
            interval = max(PAGE_PAINT_INTERVAL, 4 * (time.perf_counter() - started))

        def on_page(items: list[Item]) -> None:
            nonlocal timer
            first = not arrived.items
            arrived.items.extend(items)
            if first:
                show_so_far()
            elif timer is None:
                timer = self.set_timer(interval, show_so_far)

        self.lists_loading += 1
        try:
            listing = await self.client.list_all(kind, refresh=refresh, on_page=on_page)
        finally:
            self.lists_loading -= 1
            if timer is not None:
                timer.stop()
            if not self.lists_loading:
                self._schedule_sync()  # the wire validation waited for the list
        self.lists[kind] = listing
        pane.set_listing(listing)  # type: ignore[attr-defined]

    def _on_state(self, state: str, detail: str | None) -> None:
        if state == "connecting":
            # Negotiated again only once connect() says so.
            self.negotiated = False
        if not self.is_running:
            return
        self.update_facts()
        with contextlib.suppress(NoMatches):
            self._show_tasks_tab()

    def connection_state(self) -> tuple[str, str]:
        """The state the person sees: the client's, unless the attempt failed
        (or is logging in) before the client was asked to connect."""
        state, reason = self.client.state, self.client.state_detail or ""
        if self.connect_failure is not None and state != "connected":
            return "disconnected", self.connect_failure
        if self.preflight and state != "connecting":
            return "connecting", "authorization"
        return state, reason

    def update_facts(self) -> None:
        if self.recording is not None:
            # A recording's header was set from the recording; no client speaks.
            self._enable_connected_controls(False)
            return
        client = self.client
        # Nothing the server said counts until the connection was opened.
        info = client.server_info if self.negotiated else {}
        state, reason = self.connection_state()
        self.facts = ConnectionFacts(
            server=str(info.get("title") or info.get("name") or self.spec.label()),
            version=str(info.get("version") or ""),
            transport=client.transport_kind,
            revision=(client.protocol_version or "") if self.negotiated else "",
            state=state,
            reason=reason,
            in_flight=client.in_flight,
            server_requests=len(self.handlers.waiting),
            trusted_tools=tuple(sorted(self.trusted_tools)),
        )
        self._enable_connected_controls(state == "connected")

    def _enable_connected_controls(self, connected: bool) -> None:
        """Controls that only mean something on a live connection are
        disabled without one (the log level would claim to be set)."""
        with contextlib.suppress(NoMatches):
            self.query_one("#log-level", Select).disabled = not connected

    def server_requests_changed(self) -> None:
        self.update_facts()

    # -- core events -------------------------------------------------------------------

    def _on_frame(self, frame: Frame) -> None:
        self._last_frame_at = time.monotonic()
        self._schedule_sync()

    def _schedule_sync(self) -> None:
        # Frames can arrive by the thousand: views catch up on a short timer
        # instead of redrawing per frame.
        if not self._sync_scheduled:
            self._sync_scheduled = True
            self.set_timer(LOADING_SYNC_INTERVAL if self.lists_loading else SYNC_INTERVAL, self._sync_views)

    def _on_task(self, info: object) -> None:
        self._tasks_dirty = True
        self._schedule_sync()

    def _validate_new_frames(self) -> None:
        """Wire validation of every frame, a batch at a time in a thread (the
        table shows a frame at once; its findings follow on a later redraw).
        One batch runs at a time: the validator learns from frames in order."""
        validator = self.validator
        if validator is None or self._validating:
            return
        if self.lists_loading and time.monotonic() - self._last_frame_at < VALIDATION_HOLD:
            # Checking a listing's pages (every tool against its schema)
            # shares the interpreter with the loop: it waits while the pages
            # stream in, and catches up once the list is on screen
            # (`_load_list` syncs again) or the frames stop coming.
            if not self._validation_retry:
                self._validation_retry = True
                self.set_timer(VALIDATION_HOLD, self._retry_validation)
            return
        frames = self.traffic.frames
        start, end = self._validated, len(frames)
        if start >= end:
            return
        self._validating = True
        self.run_worker(
            partial(self._validate_batch, validator, frames[start:end], end),  # type: ignore[arg-type]
            group="validation-batch",
            exit_on_error=False,
        )

    def _retry_validation(self) -> None:
        self._validation_retry = False
        self._schedule_sync()

    async def _validate_batch(self, validator: FrameValidator, batch: list[Frame], end: int) -> None:
        stop = self._stop_validation

        def annotate_all() -> bool:
            changed = False
            for frame in batch:
                if stop.is_set():
                    break
                self._validation_pause()
                if validator.annotate(frame):
                    changed = True
            return changed

        try:
            changed = await asyncio.to_thread(annotate_all)
        finally:
            self._validating = False
            self._validated = end
        with contextlib.suppress(NoMatches):
            self.query_one(BottomPanel).checked = end
        if changed:
            for table in self.query(TrafficTable):
                table.invalidate()
        self._schedule_sync()

    async def _start_validation(self) -> None:
        from inspector.core.checks.frame_validator import FrameValidator

        await asyncio.to_thread(FrameValidator.warm)
        self.validator = FrameValidator(
            lambda: self.client.protocol_version if self.recording is None else None,
            tools=self._tool_definition,
            frames=self.traffic.by_seq,
            pause=self._validation_pause,
        )
        self._schedule_sync()

    def _validation_pause(self) -> None:
        """Called in the validation thread between frames and list items:
        it steps aside while keys (or the mouse) come, and hands the
        interpreter to the loop every millisecond or so otherwise."""
        app = self._app_for_threads
        stop = self._stop_validation
        now = time.monotonic()
        quiet = app.last_input + VALIDATION_QUIET_AFTER_INPUT
        if now < quiet:
            while now < quiet and not stop.is_set():
                time.sleep(quiet - now)
                now = time.monotonic()
                quiet = app.last_input + VALIDATION_QUIET_AFTER_INPUT
        elif now - self._handed_over > VALIDATION_HAND_OVER:
            time.sleep(0)
        else:
            return
        self._handed_over = time.monotonic()

    def _tool_definition(self, name: str) -> dict[str, Any] | None:
        listing = self.lists.get("tools")
        item = listing.find(name) if listing is not None else None
        return item.data if item is not None else None

    def _sync_views(self) -> None:
        self._sync_scheduled = False
        self._validate_new_frames()
        if self._tasks_dirty:
            self._tasks_dirty = False
            self.query_one(TasksPane).refresh_tasks()
            self.query_one("#main", TabbedContent).show_tab("tasks")
        with contextlib.suppress(Exception):
            self.query_one(BottomPanel).sync()
        self.update_facts()

    def _on_notification(self, method: str, params: Any, frame: Frame) -> None:
        for kind in LIST_CHANGED.get(method, ()):
            self.refresh_list(kind)
        if method == "notifications/resources/updated" and isinstance(params, dict):
            uri = params.get("uri")
            if isinstance(uri, str):
                self.query_one(ResourcesPane).mark_updated(uri)

    # -- calls -------------------------------------------------------------------------

    def confirm_and_call(self, tool: Item, arguments: dict[str, Any]) -> None:
        """Every tools/call the person makes passes here (see `confirm_call`)."""
        if self.recording is not None:
            self.notify("this is a recording: nothing can be sent", severity="warning")
            return

        def answered(send: bool) -> None:
            if send:
                self._call(tool, arguments)
            else:
                self.notify("call not sent")

        self.confirm_call(tool, arguments, answered)

    def confirm_call(
        self, tool: Item, arguments: dict[str, Any], answered: Callable[[bool], None], origin: str | None = None
    ) -> None:
        """The confirmation every tools/call gets, the person's and an MCP
        App's alike (`origin` names who asks); `answered(True)` sends it.  A
        read-only tool the person trusted for the session goes without
        asking (the header lists such tools)."""
        from inspector.tui.screens.confirm_call import TRUST, ConfirmCallScreen

        if tool.key in self.trusted_tools:
            self.notify_plain(f"calling {tool.key} without asking (trusted read-only tool, this session)")
            answered(True)
            return

        def decided(answer: bool | str | None) -> None:
            if answer == TRUST:
                self.trusted_tools.add(tool.key)
                self.update_facts()
            answered(bool(answer))

        views = self.inspector.views
        # With several servers, the confirmation says whose tool it calls.
        server = f"{views.index(self) + 1} {self.label}" if len(views) > 1 else None
        self.app.push_screen(ConfirmCallScreen(tool, arguments, origin, server), callback=decided)

    async def ask_to_call(self, tool: Item, arguments: dict[str, Any], origin: str) -> bool:
        """`confirm_call` awaited: for a call someone else asks for (an MCP App)."""
        if self.recording is not None:
            return False
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def answered(send: bool) -> None:
            if not answer.done():
                answer.set_result(send)

        self.confirm_call(tool, arguments, answered, origin)
        return await answer

    def _call(self, tool: Item, arguments: dict[str, Any]) -> None:
        pane = self.query_one(ToolsPane)
        self.run_worker(pane.run_call(tool, arguments), group="call", name=f"call {tool.key}")

    def toggle_round_stepping(self) -> None:
        """Manual multi round-trip mode: confirm every retry round."""
        if self.client.mrtr_stepper is None:
            self.client.mrtr_stepper = self._confirm_round
            self.notify("multi round-trip requests: each round waits for your y")
        else:
            self.client.mrtr_stepper = None
            self.notify("multi round-trip requests: rounds are answered automatically")

    async def _confirm_round(self, step: Round) -> bool:
        from inspector.tui.screens.mrtr_round import RoundScreen

        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def decided(send: bool | None) -> None:
            if not answer.done():
                answer.set_result(bool(send))

        self.push_screen(RoundScreen(step), callback=decided)
        return await answer

    def open_composer(self, text: str | None = None, title: str | None = None) -> None:
        """The raw composer: a template, or a message to edit and send again."""
        if self.recording is not None:
            self.notify_plain(
                "this is a recording: nothing can be sent (inspector replay FILE re-sends it)", severity="warning"
            )
            return
        from inspector.tui.screens.composer import ComposerScreen

        screen = ComposerScreen() if text is None else ComposerScreen(text, title or "Edit and resend")

        def send(typed: str | None) -> None:
            if typed is not None:
                self.run_worker(self._send_raw(typed), group="raw", exit_on_error=False)

        self.push_screen(screen, callback=send)

    async def _send_raw(self, text: str) -> None:
        session, _transport = self.client.require()
        sent = await session.send_raw(text, note="typed in the composer")
        self.notify("sent; the answer appears in the traffic pane")
        if isinstance(sent, PendingRequest):
            try:
                await sent.future
            except InspectorError as exc:
                self.notify_plain(f"answer: {exc}", severity="warning")

    def select_item(self, kind: str, key: str) -> None:
        """Show the pane of `kind` with `key` selected and its form focused."""
        self.action_show_tab(kind)
        pane = self.query_one(f"TabPane#{kind}")
        item_list = pane.query_one(ItemList)
        if item_list.select_key(key):
            item_list.focus_list()

    def call_from_palette(self, key: str) -> None:
        """`call: TOOL` in the palette: select the tool and open the
        confirmation with the arguments its form holds (nothing is sent
        without the confirmation's y)."""
        self.select_item("tools", key)
        self.run_worker(self._confirm_when_selected(key), group="palette-call", exclusive=True, exit_on_error=False)

    async def _confirm_when_selected(self, key: str) -> None:
        pane = self.query_one(ToolsPane)
        for _ in range(200):
            # The pane loads the tool's form when the list's highlight message arrives.
            if pane.tool is not None and pane.tool.key == key:
                pane.action_call()
                return
            await asyncio.sleep(0.02)
        self.notify_plain(f"no tool named {key} in the list", severity="warning")

    def open_resource(self, uri: str) -> None:
        """Read *uri* in the Resources pane (from the palette or a resource
        link); a listed resource is selected too, so the detail and its keys
        (subscribe, read again) are about the resource on screen."""
        self.action_show_tab("resources")
        pane = self.query_one(ResourcesPane)
        pane.query_one(ItemList).select_key(uri)
        pane.read(uri)

    # -- one place for worker failures ---------------------------------------------------

    def action_reconnect(self) -> None:
        if self.recording is not None:
            self.notify("this is a recording: there is no server to reconnect to", severity="warning")
            return
        self.notify("reconnecting…")
        self.connect(reconnect=True)

    def action_toggle_bottom(self) -> None:
        self.query_one(BottomPanel).toggle()

    def action_resize_bottom(self, delta: int) -> None:
        self.query_one(BottomPanel).resize_by(delta)

    def action_show_tab(self, tab: str) -> None:
        """Show a main pane and put focus on its list (a pane hidden until
        now, as Tasks or Auth, shows its tab first)."""
        tabs = self.query_one("#main", TabbedContent)
        tabs.show_tab(tab)
        tabs.active = tab
        focus_pane(tabs.get_pane(tab))

    def action_show_bottom(self, tab: str) -> None:
        """Show a tab of the bottom panel, opening the panel, with focus in it."""
        panel = self.query_one(BottomPanel)
        panel.open()
        tabs = panel.query_one("#bottom-tabs", TabbedContent)
        tabs.active = tab
        focus_pane(tabs.get_pane(tab))

    def action_save_call(self) -> None:
        from inspector.tui.collection_save import save_current_call

        save_current_call(self.inspector)

    def _start_recording(self, path: str) -> None:
        self._recorder = JsonlRecorder.open(path)
        self._stop_recording = self.traffic.subscribe(self._recorder)
        self.recording_path = path

    def action_toggle_record(self) -> None:
        """Record on: the session so far and every frame from now on go to a
        new JSON Lines file; record off: the file is closed."""
        if self._recorder is not None:
            if self._stop_recording is not None:
                self._stop_recording()
            self._recorder.close()
            self.notify_plain(f"recording stopped: {self.recording_path}")
            self._recorder = self._stop_recording = self.recording_path = None
            return
        try:
            path = new_recording_path()
            recorder = JsonlRecorder.open(path)
            for frame in list(self.traffic.frames):
                recorder(frame)
        except OSError as exc:
            self.notify_plain(f"cannot record: {exc}", severity="error")
            return
        # Nothing arrives between the copy above and this (one thread).
        self._recorder = recorder
        self._stop_recording = self.traffic.subscribe(recorder)
        self.recording_path = path
        self.notify_plain(f"recording to {path}")

    @on(AuthPane.LoginRequested)
    def _login(self) -> None:
        self.action_show_tab("auth")
        self.run_worker(self._do_login(), group="auth", exclusive=True, exit_on_error=False)

    async def _do_login(self) -> None:
        if self.auth_session is None:
            return
        await self.auth_session.login()
        self.notify("logged in; reconnecting")
        self.connect(reconnect=True)

    @on(AuthPane.LogoutRequested)
    def _logout(self) -> None:
        if self.auth_session is not None:
            # Revocation talks to the authorization server: a worker, like the login.
            self.run_worker(self._do_logout(), group="auth-logout", exit_on_error=False)

    async def _do_logout(self) -> None:
        if self.auth_session is None:
            return
        _removed, revoked = await self.auth_session.logout_revoking()
        failed = [item for item in revoked if item.outcome == "failed"]
        if failed:
            self.notify_plain(f"logged out; {len(failed)} token(s) not revoked (see the Auth pane)", severity="warning")

    @on(AuthPane.CancelRequested)
    def _cancel_login(self) -> None:
        if self.auth_session is not None and not self.auth_session.cancel():
            self.notify("no login is waiting", severity="warning")

    @on(AuthPane.RedirectPasted)
    def _redirect_pasted(self, event: AuthPane.RedirectPasted) -> None:
        pasted = self._handoff_paste
        if pasted is None:
            return
        while not pasted.empty():  # only the latest paste counts
            pasted.get_nowait()
        pasted.put_nowait(event.url)

    @on(AuthPane.CopyUrlRequested)
    def _copy_url(self, event: AuthPane.CopyUrlRequested) -> None:
        how = copy_text(self.app, event.url)
        self.notify(f"authorization URL copied ({how})")

    @on(AuthPane.StepFailed)
    def _auth_failed(self, event: AuthPane.StepFailed) -> None:
        self.notify_plain(f"authorization step failed: {event.event}", severity="error")

    @on(ItemList.RefreshRequested)
    def _refresh_requested(self, event: ItemList.RefreshRequested) -> None:
        if event.item_list.kind:
            self.refresh_list(event.item_list.kind, refresh=event.force)

    @on(TabbedContent.TabActivated, "#main")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        # Focus moving into a pane makes its tab active too: a focus still on
        # its way to another pane (the Tools list focused as F3 is pressed)
        # would make that one active, which focused its own list again, and
        # the two panes took turns for ever.  Once the focus changes under
        # way are in, the active pane gets the focus if it has not got it.
        self.call_after_refresh(self._focus_active_pane)

    def _focus_active_pane(self) -> None:
        tabs = self.query_one("#main", TabbedContent)
        if not tabs.active:
            return
        pane = tabs.get_pane(tabs.active)
        focused = self.app.focused
        if focused is None or pane not in focused.ancestors_with_self:
            focus_pane(pane)

    async def close(self) -> None:
        self._stop_validation.set()
        with contextlib.suppress(Exception):
            await self.client.close()
        if self._recorder is not None:
            self._recorder.close()
            self._recorder = None
