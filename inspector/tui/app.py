"""The Textual app: the keys, the header, the key bar and one `ServerView`
per server (its connection, panes and state); with several servers, a
server list beside them says which one the panes show."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import TabbedContent
from textual.worker import Worker, WorkerState

from inspector.core.protocol.errors import InspectorError
from inspector.core.protocol.items import Item, ListResult
from inspector.core.record.traffic import TrafficLog
from inspector.core.safetext import visible
from inspector.core.servers.spec import ServerSpec
from inspector.tui import looks
from inspector.tui.collector import tune_collector
from inspector.tui.key_order import KeyOrder, Routed
from inspector.tui.keymap import KeymapSettings, apply_keymap
from inspector.tui.palette import ActionCommands, ServerCommands
from inspector.tui.pane_focus import focus_pane
from inspector.tui.quitting import let_cancelled_workers_end
from inspector.tui.screens.jump import JumpScreen, jump_targets
from inspector.tui.server_labels import numbered, server_labels
from inspector.tui.server_list import ServerList
from inspector.tui.server_view import TALL, ServerView
from inspector.tui.view_connection import show_connect_error
from inspector.tui.widgets.status_bar import ConnectionFacts, KeyBar, StatusBar
from inspector.tui.worker_failures import worker_failure

if TYPE_CHECKING:
    from inspector.core.checks.frame_validator import FrameValidator
    from inspector.core.protocol.client import Client
    from inspector.tui.handlers import TuiHandlers

__all__ = ["InspectorApp"]

# Columns from which a terminal counts as wide (see HORIZONTAL_BREAKPOINTS).
WIDE = 140
# What the help says of a key Textual reads from a terminal's ESC + digit.
ESC_ALT = "alt+{0} where the terminal sends it as ESC {0}"

# The looks of the app's own panes, screens and layout (widgets under
# widgets/ keep theirs in DEFAULT_CSS, so they also look right on their own).
STYLE_SHEETS: list[str | PurePath] = [
    Path(__file__).with_name(name) for name in ("panes.tcss", "screens.tcss", "app.tcss")
]


class InspectorApp(App[int]):
    """The inspector's window: the header, the key bar, one server view per server (with a list of them when there
    are several), the keys and the palette."""

    # Absolute, so that subclasses elsewhere (the demo, the screenshot app) load
    # the same sheets; app.tcss comes last and so wins a tie of specificity.
    CSS_PATH = STYLE_SHEETS
    TITLE = "MCP inspector"
    COMMANDS = App.COMMANDS | {ActionCommands, ServerCommands}
    # A short terminal gets a smaller bottom panel and tool header (app.tcss),
    # so a call's result still has rows to show in.
    VERTICAL_BREAKPOINTS = [(0, "-short"), (TALL, "-tall")]
    # A narrow terminal gets a narrower server list (several servers in the window).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE, "-wide")]

    # The key bar shows these first, so they must stay short.
    BINDINGS = [
        Binding("f1,question_mark", "help", "Help", id="help", key_display="?"),
        Binding("ctrl+r", "reconnect", "Reconnect", id="reconnect", tooltip="restart / reconnect the server"),
        Binding("ctrl+t", "toggle_bottom", "Panel", id="toggle_bottom", tooltip="show or hide the bottom panel"),
        Binding("ctrl+up", "resize_bottom(2)", "Grow panel", id="grow_bottom", show=False),
        Binding("ctrl+down", "resize_bottom(-2)", "Shrink panel", id="shrink_bottom", show=False),
        # The panes' keys. Priority: a multi-line text field (TextArea) has
        # f6 and f7 of its own (select line, select all).
        Binding("f2", "show_tab('tools')", "Tools", id="tab_tools", show=False, priority=True),
        Binding("f3", "show_tab('resources')", "Resources", id="tab_resources", show=False, priority=True),
        Binding("f4", "show_tab('templates')", "Templates", id="tab_templates", show=False, priority=True),
        Binding("f5", "show_tab('prompts')", "Prompts", id="tab_prompts", show=False, priority=True),
        Binding("f6", "show_tab('server')", "Server", id="tab_server", show=False, priority=True),
        Binding("f7", "show_tab('roots')", "Roots", id="tab_roots", show=False, priority=True),
        Binding("f8", "show_tab('tasks')", "Tasks", id="tab_tasks", show=False, priority=True),
        Binding("f9", "show_tab('auth')", "Auth", id="tab_auth", show=False, priority=True),
        Binding("f10", "show_tab('collections')", "Collections", id="tab_collections", show=False, priority=True),
        Binding("f11,alt+s", "show_tab('skills')", "Skills", id="tab_skills", show=False, priority=True),
        Binding("ctrl+b", "save_call", "Save call as a step", id="save_call", show=False, priority=True),
        # The bottom panel's tabs. Priority: a text field would take the digit.
        Binding("alt+1", "show_bottom('traffic')", "Traffic", id="bottom_traffic", show=False, priority=True),
        Binding("alt+2", "show_bottom('stderr')", "Stderr", id="bottom_stderr", show=False, priority=True),
        Binding("alt+3", "show_bottom('logs')", "Logs", id="bottom_logs", show=False, priority=True),
        Binding("alt+4", "show_bottom('problems')", "Problems", id="bottom_problems", show=False, priority=True),
        Binding("alt+5", "show_bottom('latency')", "Latency", id="bottom_latency", show=False, priority=True),
        # Most terminals (xterm, tmux, GNOME's) send alt+digit as ESC then the
        # digit, which Textual's own parser reads as the character macOS's
        # option+digit types (ESC 1 arrives as "¡"); ours reads alt+1
        # (terminal_keys.py), so these serve other drivers. Not priority: a
        # text field keeps them.
        Binding(
            "inverted_exclamation_mark",
            "show_bottom('traffic')",
            "Traffic",
            id="bottom_traffic_esc",
            show=False,
            tooltip=ESC_ALT.format(1),
        ),
        Binding(
            "trade_mark_sign",
            "show_bottom('stderr')",
            "Stderr",
            id="bottom_stderr_esc",
            show=False,
            tooltip=ESC_ALT.format(2),
        ),
        Binding(
            "pound_sign", "show_bottom('logs')", "Logs", id="bottom_logs_esc", show=False, tooltip=ESC_ALT.format(3)
        ),
        Binding(
            "cent_sign",
            "show_bottom('problems')",
            "Problems",
            id="bottom_problems_esc",
            show=False,
            tooltip=ESC_ALT.format(4),
        ),
        Binding(
            "infinity",
            "show_bottom('latency')",
            "Latency",
            id="bottom_latency_esc",
            show=False,
            tooltip=ESC_ALT.format(5),
        ),
        Binding("ctrl+q", "quit", "Quit", id="quit"),
        # Priority: it works from inside a text field too.
        Binding("ctrl+l", "jump", "Jump", id="jump", priority=True, tooltip="a letter per field in view"),
    ]

    facts: reactive[ConnectionFacts] = reactive(ConnectionFacts())

    def __init__(
        self,
        spec: ServerSpec | Sequence[ServerSpec],
        *,
        record: str | None = None,
        watch: list[str] | None = None,
        recording: tuple[str, TrafficLog] | None = None,
        keymap: KeymapSettings | None = None,
        theme: str | None = None,
    ) -> None:
        super().__init__()
        if theme is not None:
            # Textual checks the name (InvalidThemeError names the unknown one).
            self.theme = theme
        looks.install(self)
        tune_collector()
        # When a key, a paste or the mouse last came (time.monotonic()).
        self.last_input = 0.0
        self.keymap_settings = keymap or KeymapSettings()
        self._clashes_told: set[str] = set()
        specs = [spec] if isinstance(spec, ServerSpec) else list(spec)
        if not specs:
            raise ValueError("the inspector needs a server")
        labels = server_labels(specs)
        several = len(specs) > 1
        # One view per server. With several, --record FILE records each to FILE-N.jsonl.
        self.views = [
            ServerView(
                one,
                record=numbered(record, number) if several else record,
                watch=watch,
                recording=recording,
                label=label,
                owner=self,
            )
            for number, (one, label) in enumerate(zip(specs, labels, strict=True), start=1)
        ]
        self.view = self.views[0]
        # Binding id -> keys, from the config file (see keymap.py).
        self.keymap: dict[str, str] = {}
        self.key_order = KeyOrder(self, self._route_input)

    # -- the server the panes show -------------------------------------------------------
    # Everything below is the shown server's; each view keeps its own.

    @property
    def spec(self) -> ServerSpec:
        """The spec of the server the panes show."""
        return self.view.spec

    @property
    def client(self) -> Client:
        """The shown server's client."""
        return self.view.client

    @property
    def traffic(self) -> TrafficLog:
        """The shown server's traffic log (secrets masked)."""
        return self.view.traffic

    @property
    def handlers(self) -> TuiHandlers:
        """What answers the shown server's requests."""
        return self.view.handlers

    @property
    def lists(self) -> dict[str, ListResult]:
        """The shown server's last listings, by kind."""
        return self.view.lists

    @property
    def recording(self) -> tuple[str, TrafficLog] | None:
        """The recording the shown view replays (its path and traffic), if it shows one."""
        return self.view.recording

    @property
    def recording_path(self) -> str | None:
        """The file the shown server's session is being recorded to, if any."""
        return self.view.recording_path

    @property
    def trusted_tools(self) -> set[str]:
        """The shown server's tools that are called without the confirmation."""
        return self.view.trusted_tools

    @property
    def auth_session(self) -> Any:
        """The shown server's OAuth session (None but for a remote server)."""
        return self.view.auth_session

    @property
    def validator(self) -> FrameValidator | None:
        """The shown server's wire validator, once it has started."""
        return self.view.wire_validation.validator

    @property
    def negotiated(self) -> bool:
        """Whether the shown server's connection attempt got as far as a negotiated revision."""
        return self.view.negotiated

    @property
    def connect_failure(self) -> str | None:
        """Why the shown server's last connection attempt failed, if it did."""
        return self.view.connect_failure

    @property
    def lists_loading(self) -> int:
        """How many of the shown server's lists are being fetched now."""
        return self.view.lists_loading

    @property
    def _sync_scheduled(self) -> bool:
        # Whether any server's views still have frames to take in (what tests wait out).
        return any(view._sync_scheduled for view in self.views)

    def show_server(self, view: ServerView) -> None:
        """Show `view`'s panes (the others keep running, out of sight)."""
        if view not in self.views:
            return
        self.view = view
        for other in self.views:
            other.set_class(other is not view, "-inactive")
        self.view_changed(view)
        with contextlib.suppress(NoMatches):
            tabs = view.query_one("#main", TabbedContent)
            focus_pane(tabs.get_pane(tabs.active))

    def action_next_server(self, step: int = 1) -> None:
        """Show the server *step* places on in the list, going round (nothing with one server)."""
        if len(self.views) > 1:
            index = self.views.index(self.view)
            self.show_server(self.views[(index + step) % len(self.views)])

    def action_show_server(self, number: int) -> None:
        """Show server *number* (from 1), if there is one."""
        if 1 <= number <= len(self.views):
            self.show_server(self.views[number - 1])

    def view_changed(self, view: ServerView) -> None:
        """A view's facts or state changed: the header follows the shown one,
        the server list every one."""
        if view is self.view:
            facts = view.facts
            if len(self.views) > 1:
                number = self.views.index(view) + 1
                facts = replace(facts, showing=f"{number}/{len(self.views)} {view.label}")
            self.facts = facts
        if len(self.views) > 1:
            with contextlib.suppress(NoMatches):
                self.query_one(ServerList).update_view(view)

    def action_jump(self) -> None:
        if isinstance(self.screen, JumpScreen):
            return
        targets = jump_targets(self.screen)
        if targets:
            self.push_screen(JumpScreen(targets), self._jumped)

    def _jumped(self, widget: Widget | None) -> None:
        if widget is not None and widget.is_attached:
            widget.focus()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.InputEvent, events.Paste)):
            # Background threads step aside while the person is at the keys.
            self.last_input = time.monotonic()
        if isinstance(event, (events.Key, events.Paste)):
            if not event.is_forwarded:
                await self.key_order.take(event)
                return
            # Back from the focused widget: App's handler runs the bindings
            # (tab's focus move); the key's trip ends once it is done.
            await super().on_event(event)
            self.key_order.came_back(event)
            return
        await super().on_event(event)

    def post_message(self, message: Message) -> bool:
        """Post *message* as Textual does, first telling the key order, whose key in flight it may be."""
        # A key bubbling back from the screen arrives here already stopped
        # (Textual stops it because the app sent it): still in flight.
        order = getattr(self, "key_order", None)  # none yet while App.__init__ runs
        if order is not None:
            order.reached_app(message)
        return super().post_message(message)

    async def _route_input(self, event: Routed) -> None:
        await super().on_event(event)

    # -- layout ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield StatusBar().data_bind(facts=InspectorApp.facts)
        with Horizontal(id="servers"):
            list_ = ServerList(self.views)
            list_.display = len(self.views) > 1
            yield list_
            for view in self.views:
                view.set_class(view is not self.view, "-inactive")
                yield view
        yield KeyBar()

    def on_mount(self) -> None:
        looks.follow(self)
        apply_keymap(self, self.keymap_settings)
        for problem in self.keymap_settings.problems:
            self.notify_plain(problem, title="keymap", severity="warning")
        self.query_one(ServerList).show_keys()
        self.view_changed(self.view)

    # -- what the views and panes ask of the app (the shown server's) --------------------

    def connect(self, reconnect: bool = False) -> None:
        """Connect the shown server (logging in first where it asks) and fetch its lists; *reconnect*: anew."""
        self.view.connect(reconnect)

    def update_facts(self) -> None:
        """Bring the header's facts about the shown server up to date."""
        self.view.update_facts()

    def server_requests_changed(self) -> None:
        """The shown server's requests waiting for the person changed: the header counts them again."""
        self.view.update_facts()

    def refresh_list(self, kind: str, *, refresh: bool = True) -> None:
        """Fetch the shown server's list of *kind* into its pane; *refresh*: past the cache."""
        self.view.refresh_list(kind, refresh=refresh)

    def confirm_and_call(self, tool: Item, arguments: dict[str, Any]) -> None:
        """Call *tool* with *arguments* on the shown server, once the confirmation says yes."""
        self.view.calls.confirm_and_call(tool, arguments)

    def toggle_round_stepping(self) -> None:
        """Turn the shown server's manual multi round-trip mode on or off."""
        self.view.calls.toggle_round_stepping()

    def open_composer(self, text: str | None = None, title: str | None = None) -> None:
        """Open the raw composer for the shown server, with *text* (else a template) under *title*."""
        self.view.calls.open_composer(text, title)

    def select_item(self, kind: str, key: str) -> None:
        """Show the pane of *kind* with item *key* selected and its form focused."""
        self.view.select_item(kind, key)

    def call_from_palette(self, key: str) -> None:
        """Select tool *key* and open the confirmation with the arguments its form holds."""
        self.view.calls.call_from_palette(key)

    def open_resource(self, uri: str) -> None:
        """Read the resource at *uri* in the Resources pane."""
        self.view.open_resource(uri)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The panes' keys have priority (see BINDINGS), which would reach past
        # a modal screen to the panes under it: there they do nothing, as before.
        return not (action == "show_tab" and self.screen.is_modal)

    def show_connect_error(self, exc: InspectorError) -> None:
        """Say why the shown server could not connect: a modal with one server, a notice with several."""
        show_connect_error(self.view, exc)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # The app's own workers; a server's run on its view, which says the same.
        if event.state == WorkerState.ERROR:
            message = worker_failure(event.worker.error)
            self.notify_plain(message, title=event.worker.name or "request failed", severity="error")

    def notify_plain(self, message: str, *, title: str = "", severity: str = "information") -> None:
        """A toast whose text may come from the server: never markup."""
        self.notify(visible(message), title=visible(title), severity=severity, markup=False)  # type: ignore[arg-type]

    # -- actions -----------------------------------------------------------------------

    def action_reconnect(self) -> None:
        self.view.action_reconnect()

    def action_toggle_bottom(self) -> None:
        self.view.action_toggle_bottom()

    def action_resize_bottom(self, delta: int) -> None:
        self.view.action_resize_bottom(delta)

    def action_show_tab(self, tab: str) -> None:
        self.view.action_show_tab(tab)

    def action_show_bottom(self, tab: str) -> None:
        self.view.action_show_bottom(tab)

    def action_save_call(self) -> None:
        self.view.action_save_call()

    def action_toggle_record(self) -> None:
        """Start recording the shown server's session to a new JSON Lines file, or stop."""
        self.view.action_toggle_record()

    def action_help(self) -> None:
        from inspector.tui.screens.help import HelpScreen

        self.push_screen(HelpScreen())

    def handle_bindings_clash(self, clashed_bindings: set[Binding], node: Any) -> None:
        """A keymap gave a key that another binding has: said once per binding,
        which then loses the key (Textual's rule)."""
        fresh = sorted(b.id or b.action for b in clashed_bindings if (b.id or b.action) not in self._clashes_told)
        if fresh:
            self._clashes_told.update(fresh)
            self.notify_plain(
                f"the keymap took the key of {', '.join(fresh)} ({type(node).__name__}); give it another key",
                title="keymap",
                severity="warning",
            )

    def export_screenshot(self, *, title: str | None = None, simplify: bool = False) -> str:
        """Textual's SVG screenshot, its text keeping the blank cells between runs (see `svg_text`)."""
        # Every screenshot (README, snapshots, the palette's) reads with its gaps.
        from inspector.tui.svg_text import keep_gaps

        return keep_gaps(super().export_screenshot(title=title, simplify=simplify))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's system commands less Keys and Quit, which the palette offers with the keys in force."""
        # Textual's "Keys" panel and "Quit" duplicate our help and quit bindings,
        # which the palette offers with the keys in force.
        for command in super().get_system_commands(screen):
            if command.title not in ("Keys", "Quit"):
                yield command

    # -- recording -----------------------------------------------------------------------

    async def on_unmount(self) -> None:
        """Close every server's connection, then let the work already cancelled end."""
        for view in self.views:
            await view.close()
        await let_cancelled_workers_end(self.workers)
