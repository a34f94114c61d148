"""The person at the keys answers the server's requests, through modals."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.screen import ModalScreen

from ..core.errors import JsonRpcError
from ..core.handlers import ClientHandlers
from ..core.session import ServerRequest

if TYPE_CHECKING:
    from .app import InspectorApp

__all__ = ["TuiHandlers", "default_roots"]

USER_DECLINED = -1  # JSON-RPC error code the spec uses for a user rejecting sampling
ANSWER_TIMEOUT = 600.0


def default_roots() -> list[dict[str, Any]]:
    cwd = Path(os.getcwd())
    return [{"uri": cwd.as_uri(), "name": cwd.name or str(cwd)}]


class TuiHandlers(ClientHandlers):
    supports_url_elicitation = True
    supports_sampling_tools = True

    def __init__(self, app: InspectorApp) -> None:
        self.app = app
        self.roots: list[dict[str, Any]] = default_roots()
        self.waiting: list[ServerRequest] = []
        self.completed_elicitations: set[str] = set()

    async def _ask(self, request: ServerRequest, screen: ModalScreen[Any]) -> Any:
        """Show a modal and wait for the person; withdrawn if the server cancels."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Any] = loop.create_future()

        def done(result: Any) -> None:
            if not answer.done():
                answer.set_result(result)

        self.waiting.append(request)
        self.app.server_requests_changed()
        self.app.push_screen(screen, callback=done)
        try:
            return await asyncio.wait_for(answer, ANSWER_TIMEOUT)
        except TimeoutError:
            self.app.notify(
                f"{request.method}: no answer within {ANSWER_TIMEOUT:g} s; told the server", severity="error"
            )
            raise JsonRpcError(USER_DECLINED, "the user did not answer in time") from None
        except asyncio.CancelledError:
            reason = request.cancel_reason or "the request was withdrawn"
            self.app.notify_plain(f"{request.method}: {reason}", severity="warning")
            raise
        finally:
            self.waiting.remove(request)
            self.app.server_requests_changed()
            if screen.is_attached and not answer.done():
                screen.dismiss(None)

    async def list_roots(self, request: ServerRequest) -> list[dict[str, Any]]:
        return list(self.roots)

    async def create_message(self, request: ServerRequest) -> dict[str, Any]:
        from .screens.sampling import SamplingScreen

        result = await self._ask(request, SamplingScreen(request.params if isinstance(request.params, dict) else {}))
        if result is None:
            raise JsonRpcError(USER_DECLINED, "the user rejected the sampling request")
        return dict(result)

    async def elicit(self, request: ServerRequest) -> dict[str, Any]:
        from .screens.elicitation import ElicitationScreen

        params = request.params if isinstance(request.params, dict) else {}
        result = await self._ask(request, ElicitationScreen(params, self))
        if result is None:
            return {"action": "cancel"}
        return dict(result)

    def elicitation_complete(self, elicitation_id: str) -> None:
        self.completed_elicitations.add(elicitation_id)
        self.app.notify_plain(f"the server reports URL elicitation {elicitation_id} complete")
