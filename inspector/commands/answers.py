"""How the scripting commands answer the server's own requests.

A one-shot command has nobody to write a sampling reply or fill an
elicitation form, so it declares no such capability (and the server must not
ask).  Roots are declared when the person passes `--root`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from inspector.core.protocol.errors import JsonRpcError
from inspector.core.protocol.handlers import ClientHandlers
from inspector.core.protocol.server_requests import ServerRequest

__all__ = ["CliHandlers", "DeclareAllHandlers", "RootsHandlers"]


class CliHandlers(ClientHandlers):
    """The scripting commands' answers to the server: nothing declared (no sampling, elicitation or roots)."""

    def __init__(self, interactive: bool = False) -> None:
        self.interactive = interactive


class RootsHandlers(CliHandlers):
    """`--root` given: roots declared, and listed as the folders named (made absolute)."""

    def __init__(self, roots: list[str], interactive: bool = False) -> None:
        super().__init__(interactive)
        self.roots = [Path(os.path.abspath(r)) for r in roots]

    async def list_roots(self, request: ServerRequest) -> list[dict[str, Any]]:
        """The `--root` folders as `file://` roots, each named after its folder."""
        return [{"uri": root.as_uri(), "name": root.name or str(root)} for root in self.roots]


class DeclareAllHandlers(RootsHandlers):
    """`lint --all-capabilities`: declare roots, sampling and elicitation, so a
    server shows every tool it keeps for such clients.  Nobody is there to
    answer: sampling is refused, elicitation declined."""

    supports_url_elicitation = True

    async def create_message(self, request: ServerRequest) -> dict[str, Any]:
        """Refuse the sampling request (-32603): nobody is there to answer it."""
        raise JsonRpcError(-32603, "inspector lint declares sampling to see every tool; it does not sample")

    async def elicit(self, request: ServerRequest) -> dict[str, Any]:
        """Decline the elicitation: nobody is there to fill it in."""
        return {"action": "decline"}
