"""A remote server's OAuth in its view: the session whose steps the Auth
pane shows, login and logout (both talk to the authorization server), and
the redirect URLs a hand-off login's person pastes."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from inspector.core.record.traffic import TrafficLog
from inspector.core.servers.spec import ServerSpec

if TYPE_CHECKING:
    from inspector.tui.app import InspectorApp
    from inspector.tui.server_view import ServerView

__all__ = ["auth_session_for", "log_in", "log_out", "paste_redirect"]


def auth_session_for(spec: ServerSpec, traffic: TrafficLog, app: InspectorApp) -> tuple[Any, asyncio.Queue[str] | None]:
    """The server's OAuth session (remote servers only), its steps logged
    to *traffic*; and the queue a hand-off login's redirect URLs are pasted
    into (None: not that mode)."""
    if not spec.url:
        return None, None
    from inspector.core.auth.session import session_for

    session = session_for(spec)
    pasted: asyncio.Queue[str] | None = None
    if session is not None:
        session.attach(traffic)
        if session.config.confirm is None:
            from inspector.tui.panes.auth import confirm_in

            session.config.confirm = confirm_in(app)
        if session.config.browser == "handoff" and session.config.paste is None:
            # The TUI owns the terminal: the redirect URL is pasted into the Auth pane instead.
            pasted = asyncio.Queue()
            session.config.paste = pasted.get
    return session, pasted


async def log_in(view: ServerView) -> None:
    """Log in, then reconnect with the new token."""
    if view.auth_session is None:
        return
    await view.auth_session.login()
    view.notify("logged in; reconnecting")
    view.connect(reconnect=True)


async def log_out(view: ServerView) -> None:
    """Forget the tokens and revoke them; a toast says which could not be revoked."""
    if view.auth_session is None:
        return
    _removed, revoked = await view.auth_session.logout_revoking()
    failed = [item for item in revoked if item.outcome == "failed"]
    if failed:
        view.notify_plain(f"logged out; {len(failed)} token(s) not revoked (see the Auth pane)", severity="warning")


def paste_redirect(pasted: asyncio.Queue[str], url: str) -> None:
    """Hand a pasted redirect URL to the waiting login: only the latest paste counts."""
    while not pasted.empty():
        pasted.get_nowait()
    pasted.put_nowait(url)
