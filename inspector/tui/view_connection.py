"""Connecting a server's view: the login first where the server asks for
one, the connection, then its panes filled; what the header says of the
connection, the Tasks tab that follows the server's capabilities, and the
error shown when the connection fails."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual.widgets import TabbedContent

from inspector.core.extensions.skills import declares_skills
from inspector.core.protocol.errors import ConnectError, InspectorError
from inspector.tui.pane_focus import focus_pane
from inspector.tui.panes.server import ServerPane
from inspector.tui.panes.skills import SkillsPane
from inspector.tui.panes.tools import ToolsPane
from inspector.tui.widgets.status_bar import ConnectionFacts

if TYPE_CHECKING:
    from inspector.tui.server_view import ServerView

__all__ = [
    "connection_facts",
    "connection_state",
    "list_state",
    "open_connection",
    "restart_on_changes",
    "show_connect_error",
    "show_tasks_tab",
]


async def open_connection(view: ServerView, reconnect: bool) -> None:
    """Connect *view*'s client (logging in first where it asks; *reconnect*:
    anew), then fetch its lists and show what the server said."""
    view.negotiated = False
    view.connect_failure = None
    try:
        if view.auth_session is not None:
            # Log in before connecting, so a person's login does not race a request's timeout.
            view.preflight = True
            view.update_facts()
            try:
                await view.auth_session.preflight(headers=dict(view.spec.headers))
            finally:
                view.preflight = False
        if reconnect:
            await view.client.reconnect()
        else:
            await view.client.connect()
    except InspectorError as exc:
        view.connect_failure = str(exc)
        view.update_facts()
        show_tasks_tab(view)
        show_connect_error(view, exc)
        return
    view.negotiated = True
    view.was_connected = True
    view.update_facts()
    _fill_panes(view)


def _fill_panes(view: ServerView) -> None:
    """What a new connection shows: the server pane, the lists, the skills."""
    view.query_one(ServerPane).show(view.client)
    show_tasks_tab(view)
    for kind in ("tools", "resources", "templates", "prompts"):
        view.refresh_list(kind)
    tabs = view.query_one("#main", TabbedContent)
    # The Skills tab is for a server that declares the extension (F11 shows it anyway: the pane says why it is empty).
    if declares_skills(view.client):
        tabs.show_tab("skills")
    else:
        tabs.hide_tab("skills")
    view.query_one(SkillsPane).refresh_skills()
    if view.client.modern is not None:
        # The stateless era has no push channel until we ask for one.
        view.run_worker(_listen_for_changes(view), group="listen", exclusive=True, exit_on_error=False)
    # Focus goes to the list of the pane on screen: a person who opened
    # another pane (F3, say) while the server started stays there.
    focus_pane(tabs.get_pane(tabs.active))


async def _listen_for_changes(view: ServerView) -> None:
    subscription = await view.client.listen_changes()
    if subscription is None:
        return
    for _ in range(100):
        if subscription.acknowledged is not None or subscription.ended:
            break
        await asyncio.sleep(0.05)
    view.query_one(ServerPane).show(view.client)


def show_tasks_tab(view: ServerView) -> None:
    """The Tasks tab appears where the server has tasks (either era), or
    where tasks were seen; and the "run as a task" option follows."""
    client = view.client
    caps = client.server_capabilities if view.negotiated else {}
    extensions = caps.get("extensions")
    has = "tasks" in caps or (isinstance(extensions, dict) and "io.modelcontextprotocol/tasks" in extensions)
    tabs = view.query_one("#main", TabbedContent)
    if has or client.tasks.tasks:
        tabs.show_tab("tasks")
    else:
        tabs.hide_tab("tasks")
    view.query_one(ToolsPane).refresh_task_option()


def show_connect_error(view: ServerView, exc: InspectorError) -> None:
    """Say why *view*'s server could not connect: a modal offering a retry
    with one server, a toast with several."""
    from inspector.tui.screens.connect_error import ConnectErrorScreen

    if len(view.inspector.views) > 1:
        # A modal (whose q quits) would stop the work on the other servers:
        # the list says "failed", the traffic and stderr tabs keep the why.
        view.notify_plain(f"could not connect: {exc} (ctrl+r retries)", severity="error")
        return

    client = view.client
    detail = exc.detail if isinstance(exc, ConnectError) else None
    tail = detail.splitlines() if detail else client.stderr_tail()[-20:]

    def retry(again: bool | None) -> None:
        if again:
            view.connect(reconnect=True)

    screen = ConnectErrorScreen(str(exc), tail, view.spec.label(), tail_source=client.stderr_tail)
    view.push_screen(screen, callback=retry)


def connection_state(view: ServerView) -> tuple[str, str]:
    """The state the person sees of *view*'s server: the client's, unless the
    attempt failed (or is logging in) before the client was asked to connect."""
    state, reason = view.client.state, view.client.state_detail or ""
    if view.connect_failure is not None and state != "connected":
        return "disconnected", view.connect_failure
    if view.preflight and state != "connecting":
        return "connecting", "authorization"
    return state, reason


def list_state(view: ServerView) -> tuple[str, str]:
    """The server list's word for *view*'s server: connecting, connected,
    failed (never got connected) or exited (lost after connecting)."""
    if view.recording is not None:
        return "recording", view.recording[0]
    state, reason = connection_state(view)
    if state in ("connecting", "connected"):
        return state, reason
    if state == "idle":
        return "connecting", reason
    return ("exited" if view.was_connected else "failed"), reason


def connection_facts(view: ServerView) -> ConnectionFacts:
    """What the header says of *view*'s live server now (the client's word,
    the state the person sees, the trusted tools)."""
    client = view.client
    # Nothing the server said counts until the connection was opened.
    info = client.server_info if view.negotiated else {}
    state, reason = connection_state(view)
    return ConnectionFacts(
        server=str(info.get("title") or info.get("name") or view.spec.label()),
        version=str(info.get("version") or ""),
        transport=client.transport_kind,
        revision=(client.protocol_version or "") if view.negotiated else "",
        state=state,
        reason=reason,
        in_flight=client.in_flight,
        server_requests=len(view.handlers.waiting),
        trusted_tools=tuple(sorted(view.trusted_tools)),
    )


async def restart_on_changes(view: ServerView) -> None:
    """Hot restart: a change under one of *view*'s watched paths restarts
    its server; form inputs survive (they are kept per tool)."""
    from watchfiles import awatch

    async for changes in awatch(*view.watch_paths, debounce=300):
        names = sorted({path for _change, path in changes})
        view.notify_plain(f"changed: {', '.join(names[:3])}{' …' if len(names) > 3 else ''}; restarting")
        view.traffic.event("local", "process", note=f"hot restart after changes in {len(names)} file(s)")
        view.connect(reconnect=True)
