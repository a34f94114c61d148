"""One server in the app: its connection, traffic, stderr, lists, forms and
results, and the panes that show them.

The app holds one `ServerView` per server it was given.  The view hands its
panes what they read (a `ServerContext`, and reactives it binds) and handles
the messages they post (a notice, a call to confirm, a resource to read), so
a call, a list load or a crash of one server never touches another's panes,
and no pane reaches up for its view.  Only the active view is displayed.
What the view sends goes through `view_calls`, its lists load in
`list_loading`, its wire validation runs in `wire_validation`, its traffic is
recorded by `session_recorder` and its OAuth steps are in `view_auth`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Select, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from inspector.core.protocol.client import Client
from inspector.core.protocol.items import ListResult
from inspector.core.record.secret_mask import mask_traffic
from inspector.core.record.traffic import Frame, TrafficLog
from inspector.core.safetext import visible
from inspector.core.servers.spec import ServerSpec
from inspector.tui import view_connection
from inspector.tui.clipboard import copy_text
from inspector.tui.handlers import TuiHandlers
from inspector.tui.list_loading import LIST_CHANGED, load_list
from inspector.tui.pane_focus import focus_active_pane, focus_pane
from inspector.tui.panes.auth import AuthPane
from inspector.tui.panes.bottom import BottomPanel
from inspector.tui.panes.collections import CollectionsPane
from inspector.tui.panes.context import ServerContext
from inspector.tui.panes.messages import Notice, ResourceRequested
from inspector.tui.panes.prompts import PromptsPane
from inspector.tui.panes.resources import ResourcesPane
from inspector.tui.panes.roots import RootsPane
from inspector.tui.panes.server import ServerPane
from inspector.tui.panes.skills import SkillsPane
from inspector.tui.panes.tasks import TasksPane
from inspector.tui.panes.templates import TemplatesPane
from inspector.tui.panes.tools import ToolsPane
from inspector.tui.panes.traffic import TrafficPane
from inspector.tui.session_recorder import SessionRecorder
from inspector.tui.timers import call_later
from inspector.tui.view_auth import auth_session_for, log_in, log_out, paste_redirect
from inspector.tui.view_calls import ServerCalls
from inspector.tui.widgets.item_list import ItemList
from inspector.tui.widgets.status_bar import ConnectionFacts
from inspector.tui.wire_validation import WireValidation
from inspector.tui.worker_failures import worker_failure

if TYPE_CHECKING:
    from inspector.tui.app import InspectorApp

__all__ = ["TALL", "ServerView"]

SYNC_INTERVAL = 0.05
# While a list arrives page by page the views catch up this often: each
# catch-up redraws the traffic table and the status bar, and at 100,000
# items those redraws, not the items, would take most of the loop.
LOADING_SYNC_INTERVAL = 0.25
# Rows from which a terminal counts as tall (see InspectorApp.VERTICAL_BREAKPOINTS).
TALL = 36


class ServerView(Vertical):
    """One server's panes, connection, traffic and lists (one per server the app was given)."""

    # Priority: it works from inside a text field too. The app ignores it with one server.
    BINDINGS = [
        Binding("ctrl+n", "app.next_server", "Next server", id="next_server", show=False, priority=True),
    ]

    # What the connection attempt has reached: the Tools pane's "run as a task" follows it (bound at compose).
    negotiated: var[bool] = var(False)
    # Lists being fetched now (their pages arriving): views sync less often (the Traffic pane's detail waits).
    lists_loading: var[int] = var(0)

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
        self.calls = ServerCalls(self)
        self.lists: dict[str, ListResult] = {}
        self.trusted_tools: set[str] = set()
        self.recorder = SessionRecorder(self.traffic)
        if record:
            self.recorder.start(record)
        self._sync_scheduled = False
        self.wire_validation = WireValidation(self)
        self._facts = ConnectionFacts()
        self.traffic.subscribe(self._on_frame)
        self.client.on_state(self._on_state)
        self.client.on_notification(self._on_notification)
        self.client.tasks.observers.append(self._on_task)
        # A hand-off login's redirect URLs, pasted into the Auth pane (None: not that mode).
        self._handoff_paste: asyncio.Queue[str] | None = None
        self.auth_session: Any = None
        if recording is None and spec.url:
            # The server's OAuth session (remote servers only): its steps go to the Auth pane.
            self.auth_session, self._handoff_paste = auth_session_for(spec, self.traffic, self.inspector)
        self._tasks_dirty = False
        # What the header must not take from the client alone: whether this
        # connection attempt got as far as a negotiated revision (`negotiated`),
        # and a failure that happened before the client was asked (auth preflight).
        self.preflight = False
        self.connect_failure: str | None = None
        # Whether a connection was ever opened: a later loss is an exit, not a failure to start.
        self.was_connected = False

    @property
    def inspector(self) -> InspectorApp:
        """The app this view is in (known before the view is mounted)."""
        return self._owner or self.app  # type: ignore[return-value]

    @property
    def recording_path(self) -> str | None:
        """The file this server's traffic is being recorded to (None: not recording)."""
        return self.recorder.path

    # -- what the app shows of this server ------------------------------------------------

    @property
    def facts(self) -> ConnectionFacts:
        """What the header says of this server; setting it tells the app."""
        return self._facts

    @facts.setter
    def facts(self, value: ConnectionFacts) -> None:
        self._facts = value
        # The app's header and server list are not there until it is composed.
        with contextlib.suppress(NoMatches):
            self.inspector.view_changed(self)

    @property
    def active(self) -> bool:
        """Whether this is the view the app shows."""
        return not self.has_class("-inactive")

    def list_state(self) -> tuple[str, str]:
        """The server list's word for this server (see `view_connection.list_state`)."""
        return view_connection.list_state(self)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # Not bubbled by Textual: the view's workers (lists, calls, reads) are reported here.
        if event.state == WorkerState.ERROR:
            message = worker_failure(event.worker.error)
            self.notify_plain(message, title=event.worker.name or "request failed", severity="error")

    def push_screen(self, screen: Screen[Any], callback: Callable[[Any], Any] | None = None) -> Any:
        """Push *screen* on the app (a view has no screens of its own; its `TuiHandlers` push theirs here)."""
        return self.app.push_screen(screen, callback=callback)

    def notify_plain(self, message: str, *, title: str = "", severity: str = "information") -> None:
        """A toast whose text may come from the server: never markup; named
        with the server's label when several servers share the window."""
        if len(self.inspector.views) > 1:
            title = f"{self.label}: {title}" if title else self.label
        self.app.notify(visible(message), title=visible(title), severity=severity, markup=False)  # type: ignore[arg-type]

    # -- layout ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # What the panes read of this server, handed down (the roots as given by now: --root is set before the run).
        server = ServerContext(
            spec=self.spec,
            client=self.client,
            traffic=self.traffic,
            roots=self.handlers.roots,
            lists=self.lists,
            recording=self.recording is not None,
        )
        with TabbedContent(id="main", initial="tools"):
            with TabPane("Tools", id="tools"):
                yield ToolsPane(server).data_bind(ServerView.negotiated)
            with TabPane("Resources", id="resources"):
                yield ResourcesPane(server)
            with TabPane("Templates", id="templates"):
                yield TemplatesPane(server)
            with TabPane("Prompts", id="prompts"):
                yield PromptsPane(server)
            with TabPane("Skills", id="skills"):
                yield SkillsPane(server)
            with TabPane("Server", id="server"):
                yield ServerPane()
            with TabPane("Roots", id="roots"):
                yield RootsPane(server)
            with TabPane("Tasks", id="tasks"):
                yield TasksPane(server)
            with TabPane("Auth", id="auth"):
                yield AuthPane(server=self.spec.url, handoff=self._handoff_paste is not None)
            with TabPane("Collections", id="collections"):
                yield CollectionsPane(server)
        yield BottomPanel(server).data_bind(ServerView.lists_loading)

    def on_mount(self) -> None:
        # The validation thread reads the time of the last key from the app.
        self.wire_validation.start(self.inspector)
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
            from inspector.tui.reopened_recording import show_recording

            show_recording(self, *self.recording)
            return
        self.update_facts()
        self.connect()
        if self.watch_paths:
            self.run_worker(view_connection.restart_on_changes(self), group="watch", exit_on_error=False)

    # -- connection --------------------------------------------------------------------

    @work(exclusive=True, group="connection")
    async def connect(self, reconnect: bool = False) -> None:
        """Connect (logging in first where the server asks), then fill the panes; *reconnect*: anew."""
        await view_connection.open_connection(self, reconnect)

    def refresh_list(self, kind: str, *, refresh: bool = True) -> None:
        """Fetch the list of *kind* into its pane in a worker (*refresh*: past the cache)."""
        self.run_worker(
            partial(load_list, self, kind, refresh),  # type: ignore[arg-type]
            group=f"list-{kind}",
            exclusive=True,
            exit_on_error=False,
        )

    def _on_state(self, state: str, detail: str | None) -> None:
        if state == "connecting":
            # Negotiated again only once connect() says so.
            self.negotiated = False
        if not self.is_running:
            return
        self.update_facts()
        with contextlib.suppress(NoMatches):
            view_connection.show_tasks_tab(self)

    def update_facts(self) -> None:
        """Tell the header what the client knows now (a recording's header stays as read)."""
        if self.recording is not None:
            # A recording's header was set from the recording; no client speaks.
            self._enable_connected_controls(False)
            return
        self.facts = view_connection.connection_facts(self)
        self._enable_connected_controls(self.facts.state == "connected")

    def _enable_connected_controls(self, connected: bool) -> None:
        """Controls that only mean something on a live connection are
        disabled without one (the log level would claim to be set)."""
        with contextlib.suppress(NoMatches):
            self.query_one("#log-level", Select).disabled = not connected

    def server_requests_changed(self) -> None:
        """The server's requests waiting for the person changed: the header counts them."""
        self.update_facts()

    # -- core events -------------------------------------------------------------------

    def _on_frame(self, frame: Frame) -> None:
        self.wire_validation.frame_arrived()
        self.schedule_sync()

    def schedule_sync(self) -> None:
        """Have the views catch up with the traffic, the tasks and the wire validation soon."""
        # Frames can arrive by the thousand: views catch up on a short timer
        # instead of redrawing per frame.
        if not self._sync_scheduled:
            self._sync_scheduled = True
            call_later(self, LOADING_SYNC_INTERVAL if self.lists_loading else SYNC_INTERVAL, self._sync_views)

    def _on_task(self, info: object) -> None:
        self._tasks_dirty = True
        self.schedule_sync()

    def _sync_views(self) -> None:
        self._sync_scheduled = False
        self.wire_validation.check_new_frames()
        if self._tasks_dirty:
            self._tasks_dirty = False
            self.query_one(TasksPane).refresh_tasks()
            self.query_one("#main", TabbedContent).show_tab("tasks")
        # Not composed yet, or unmounted as the app quits: nothing to show the frames in.
        with contextlib.suppress(NoMatches):
            self.query_one(BottomPanel).sync()
        self.update_facts()

    def _on_notification(self, method: str, params: Any, frame: Frame) -> None:
        for kind in LIST_CHANGED.get(method, ()):
            self.refresh_list(kind)
        if method == "notifications/resources/updated" and isinstance(params, dict):
            uri = params.get("uri")
            if isinstance(uri, str):
                self.query_one(ResourcesPane).mark_updated(uri)

    def select_item(self, kind: str, key: str) -> None:
        """Show the pane of `kind` with `key` selected and its form focused."""
        self.action_show_tab(kind)
        pane = self.query_one(f"TabPane#{kind}")
        item_list = pane.query_one(ItemList)
        if item_list.select_key(key):
            item_list.focus_list()

    def open_resource(self, uri: str) -> None:
        """Read *uri* in the Resources pane (from the palette or a resource
        link); a listed resource is selected too, so the detail and its keys
        (subscribe, read again) are about the resource on screen."""
        self.action_show_tab("resources")
        pane = self.query_one(ResourcesPane)
        pane.query_one(ItemList).select_key(uri)
        pane.read(uri)

    # -- actions -----------------------------------------------------------------------

    def action_reconnect(self) -> None:
        """Close the connection and open a new one (not for a recording)."""
        if self.recording is not None:
            self.notify("this is a recording: there is no server to reconnect to", severity="warning")
            return
        self.notify("reconnecting…")
        self.connect(reconnect=True)

    def action_toggle_bottom(self) -> None:
        """Collapse or open the bottom panel."""
        self.query_one(BottomPanel).toggle()

    def action_resize_bottom(self, delta: int) -> None:
        """Make the bottom panel *delta* rows taller (shorter when negative)."""
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
        """Save the call in the Tools pane's form to a collection."""
        from inspector.tui.collection_save import save_current_call

        save_current_call(self.inspector)

    def action_toggle_record(self) -> None:
        """Record on: the session so far and every frame from now on go to a
        new JSON Lines file; record off: the file is closed."""
        message, severity = self.recorder.toggle()
        self.notify_plain(message, severity=severity)

    @on(AuthPane.LoginRequested)
    def _login(self) -> None:
        self.action_show_tab("auth")
        self.run_worker(log_in(self), group="auth", exclusive=True, exit_on_error=False)

    @on(AuthPane.LogoutRequested)
    def _logout(self) -> None:
        if self.auth_session is not None:
            # Revocation talks to the authorization server: a worker, like the login.
            self.run_worker(log_out(self), group="auth-logout", exit_on_error=False)

    @on(AuthPane.CancelRequested)
    def _cancel_login(self) -> None:
        if self.auth_session is not None and not self.auth_session.cancel():
            self.notify("no login is waiting", severity="warning")

    @on(AuthPane.RedirectPasted)
    def _redirect_pasted(self, event: AuthPane.RedirectPasted) -> None:
        if self._handoff_paste is not None:
            paste_redirect(self._handoff_paste, event.url)

    @on(AuthPane.CopyUrlRequested)
    def _copy_url(self, event: AuthPane.CopyUrlRequested) -> None:
        how = copy_text(self.app, event.url)
        self.notify(f"authorization URL copied ({how})")

    @on(AuthPane.StepFailed)
    def _auth_failed(self, event: AuthPane.StepFailed) -> None:
        self.notify_plain(f"authorization step failed: {event.event}", severity="error")

    # -- what the panes ask for ------------------------------------------------------

    @on(Notice)
    def _notice(self, event: Notice) -> None:
        event.stop()
        self.notify_plain(event.text, title=event.title, severity=event.severity)

    @on(ResourceRequested)
    def _resource_requested(self, event: ResourceRequested) -> None:
        event.stop()
        self.open_resource(event.uri)

    @on(ToolsPane.CallRequested)
    def _call_requested(self, event: ToolsPane.CallRequested) -> None:
        event.stop()
        self.calls.confirm_and_call(event.tool, event.arguments)

    @on(ToolsPane.AppCallAsked)
    def _app_call_asked(self, event: ToolsPane.AppCallAsked) -> None:
        event.stop()
        self.calls.ask_to_call(event.tool, event.arguments, event.origin, event.answered)

    @on(ToolsPane.SteppingToggled)
    def _stepping_toggled(self, event: ToolsPane.SteppingToggled) -> None:
        event.stop()
        self.calls.toggle_round_stepping()

    @on(TrafficPane.ComposerRequested)
    def _composer_requested(self, event: TrafficPane.ComposerRequested) -> None:
        event.stop()
        self.calls.open_composer(event.text, event.title)

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
        self.call_after_refresh(focus_active_pane, self.query_one("#main", TabbedContent))

    async def close(self) -> None:
        """Stop the wire validation, close the connection and the recording file, for good."""
        self.wire_validation.stop()
        # Quitting goes on whatever ending the server's work raises (its tasks'
        # and subscriptions' goodbyes go to a server that may misbehave or be
        # gone; the client drops its connection either way), and the
        # recording file below is closed all the same.
        with contextlib.suppress(Exception):
            await self.client.close()
        self.recorder.stop()
