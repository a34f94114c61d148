"""A new session on the same connection after the server forgot ours (HTTP 404
on a Streamable HTTP session): one re-initialisation shared by every request
that learns of the expiry, the person's resource subscriptions renewed in it."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from inspector.core.background import BackgroundTasks
from inspector.core.protocol.eras import LegacyEra
from inspector.core.protocol.errors import ConnectionClosed, InspectorError

if TYPE_CHECKING:
    from inspector.core.protocol.client import Client

__all__ = ["SessionRenewal"]


class SessionRenewal:
    """The client's re-initialisations: at most one at a time, ended when the connection is dropped."""

    def __init__(self, client: Client) -> None:
        self.client = client
        # The one re-initialisation in progress.
        self._task: asyncio.Task[None] | None = None
        self._tasks = BackgroundTasks()

    async def renew(self, expired: str | None = None) -> None:
        """A fresh handshake on the same transport; see `Client.reinitialize`."""
        task = self._task
        if task is not None and not task.done():
            await _join(task)
            return
        _session, transport = self.client.require()
        if expired is not None and getattr(transport, "session_id", None) != expired:
            return
        task = self._tasks.start(self._renew(expired))
        self._task = task
        await _join(task)

    async def _renew(self, expired: str | None) -> None:
        client = self.client
        session, transport = client.require()
        what = f"session {expired}" if expired else "the session"
        client.traffic.event("local", "transport", note=f"{what} expired (HTTP 404); initializing a new session")
        reset = getattr(transport, "reset_session", None)
        if reset is not None:
            reset()
        client.era_impl = LegacyEra(client)
        await client.era_impl.open()
        # A new session has no subscriptions: renew the ones the person made.
        for uri in sorted(client.resource_subscriptions):
            with contextlib.suppress(InspectorError):
                await session.request("resources/subscribe", {"uri": uri}, note="renewed in the new session")

    async def wait(self) -> None:
        """Until a re-initialisation in progress has finished (its failure is the caller's too)."""
        task = self._task
        if task is not None and not task.done() and task is not asyncio.current_task():
            await _join(task)

    def expired_in_background(self, expired: str | None) -> None:
        """The transport saw HTTP 404 outside any request (the GET stream)."""
        task = self._task
        if task is not None and not task.done():
            return
        background = self._tasks.start(self.client.reinitialize(expired))
        background.add_done_callback(self._note_background)

    def _note_background(self, task: asyncio.Task[None]) -> None:
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            self.client.traffic.event("local", "transport", note=f"opening a new session failed: {error}")

    async def cancel_all(self) -> None:
        """The connection is dropped: no re-initialisation runs on."""
        await self._tasks.cancel_all()


async def _join(task: asyncio.Task[None]) -> None:
    """Wait for the shared re-initialisation; its failure is the caller's too.

    Shielded: a caller that stops waiting does not stop it for the others.
    Cancelled with the connection (a close, a reconnect), it is the
    connection that closed, for a caller not cancelled itself.
    """
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if task.cancelled() and current is not None and not current.cancelling():
            raise ConnectionClosed("the connection was closed while a new session was being opened") from None
        raise
