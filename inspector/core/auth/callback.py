"""The redirect's way back in the authorization-code grant: the loopback listener
it comes to, or a redirect URL the person pastes instead (handoff), and the
parameters it carries (flow_checks.checked_redirect checks them)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from pydantic import AnyUrl

from inspector.core.auth.errors import AuthError
from inspector.core.auth.handoff import PasteRefused, pasted_params
from inspector.core.auth.loopback import LoopbackListener
from inspector.core.background import stop_task

if TYPE_CHECKING:
    from mcp.client.auth.oauth2 import OAuthContext

    from inspector.core.auth.flow_state import FlowState
    from inspector.core.auth.session import OAuthSession
    from inspector.core.auth.token_storage import RecordStorage

__all__ = ["RedirectCallback"]


class RedirectCallback:
    """The listener one provider keeps for the redirect, from the challenge to the end of the flow."""

    def __init__(self, session: OAuthSession, context: OAuthContext, storage: RecordStorage) -> None:
        self.session = session
        self.context = context
        self.storage = storage
        self.listener: LoopbackListener | None = None

    async def close(self) -> None:
        """Close the listener, if one is open."""
        listener, self.listener = self.listener, None
        if listener is not None:
            await listener.close()

    def cancel(self, reason: str) -> bool:
        """Give up waiting for the redirect, for `reason`; True when a login was waiting."""
        return self.listener.cancel(reason) if self.listener is not None else False

    async def prepare(self, flow: FlowState | None) -> None:
        """A listener ready for the redirect (the one already open, reset), and the redirect URI it sets."""
        listener = self.listener
        if listener is not None and listener.listening:
            listener.reset()
        else:
            listener = self.listener = await self._listen(flow)
        redirect = listener.redirect_uri
        self.context.client_metadata.redirect_uris = [AnyUrl(redirect)]
        info = self.context.client_info
        if info is not None and self.storage.client_kind == "dynamic":
            registered = [str(uri) for uri in info.redirect_uris or []]
            if registered and redirect not in registered:
                self.session.log.emit(
                    "registration",
                    "info",
                    f"the stored registration is for {registered[0]}; registering again for {redirect}",
                )
                self.context.client_info = None

    async def _listen(self, flow: FlowState | None) -> LoopbackListener:
        """Listen on the port the client was registered with (or asked for); any free port when it is taken."""
        port = self.session.preferred_port(self.context.client_info, self.storage.client_kind)
        listener = LoopbackListener(port)
        try:
            await listener.start()
        except OSError as exc:
            if port == 0 or self.session.config.callback_port:
                why = exc.strerror or str(exc)
                if flow is not None:
                    flow.step = "callback"
                hint = "; choose another --oauth-port (0: any free port)" if port else ""
                raise AuthError(
                    f"cannot listen for the redirect on 127.0.0.1:{port} ({why}){hint}", step="callback"
                ) from exc
            listener = LoopbackListener(0)
            await listener.start()
        return listener

    async def wait(self, remaining: float) -> dict[str, str]:
        """The redirect's parameters (or a pasted redirect URL's); at most `remaining` seconds."""
        listener = self.listener
        if listener is None:
            raise AuthError("no loopback listener is waiting for the redirect", step="callback")
        config = self.session.config
        notify = config.notify
        paste = config.paste if config.browser == "handoff" else None
        if notify is not None and config.browser != "headless":
            pasting = " or a pasted URL" if paste is not None else ""
            notify(
                f"Waiting up to {config.timeout:g} s for the redirect to {listener.redirect_uri}{pasting} "
                "(Ctrl-C cancels)"
            )
        reading = None
        if paste is not None:
            reading = asyncio.get_running_loop().create_task(self._take_pasted(paste, listener))
        try:
            params = await listener.wait(remaining)
        finally:
            if reading is not None:
                await stop_task(reading)
        return params

    async def _take_pasted(self, paste: Callable[[], Awaitable[str | None]], listener: LoopbackListener) -> None:
        """Lines the person pastes, until one is this login's redirect (or no more come: the listener still waits)."""
        notify = self.session.config.notify or (lambda _text: None)
        while (line := await paste()) is not None:
            try:
                params = pasted_params(line, listener.redirect_uri)
            except PasteRefused as exc:
                if line.strip():
                    notify(f"{exc}; paste again, or wait for the redirect")
                continue
            self.session.log.emit("callback", "info", "the redirect URL was pasted by the person")
            listener.deliver(params)
            return
