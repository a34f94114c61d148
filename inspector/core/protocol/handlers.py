"""The interface through which a face answers the server's own requests.

A face (TUI, CLI, conformance client, tests) subclasses `ClientHandlers` and
overrides what it can answer.  The client declares exactly those
capabilities, so a server never asks for something nobody will answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inspector.core.protocol.errors import METHOD_NOT_FOUND, JsonRpcError
from inspector.core.protocol.server_requests import ServerRequest
from inspector.core.protocol.versions import at_least

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["ClientHandlers", "capabilities_for"]


class ClientHandlers:
    """Override any of the async methods; the base versions refuse."""

    # URL-mode elicitation (2025-11-25) is a separate promise from form mode.
    supports_url_elicitation: bool = False
    # Sampling with tools (2025-11-25, SEP-1577).
    supports_sampling_tools: bool = False

    async def list_roots(self, request: ServerRequest) -> list[JSONObject]:
        """The roots to answer ``roots/list`` with (the base refuses)."""
        raise JsonRpcError(METHOD_NOT_FOUND, "roots are not supported by this client")

    async def create_message(self, request: ServerRequest) -> JSONObject:
        """The result of a sampling request (the base refuses)."""
        raise JsonRpcError(METHOD_NOT_FOUND, "sampling is not supported by this client")

    async def elicit(self, request: ServerRequest) -> JSONObject:
        """The person's answer to an elicitation (the base refuses)."""
        raise JsonRpcError(METHOD_NOT_FOUND, "elicitation is not supported by this client")

    def elicitation_complete(self, elicitation_id: str) -> None:
        """`notifications/elicitation/complete` for a URL-mode elicitation."""

    def _overrides(self, name: str) -> bool:
        return getattr(type(self), name) is not getattr(ClientHandlers, name)

    @property
    def supports_roots(self) -> bool:
        """Whether the face answers ``roots/list`` (it overrides `list_roots`)."""
        return self._overrides("list_roots")

    @property
    def supports_sampling(self) -> bool:
        """Whether the face answers sampling requests (it overrides `create_message`)."""
        return self._overrides("create_message")

    @property
    def supports_elicitation(self) -> bool:
        """Whether the face answers elicitations (it overrides `elicit`)."""
        return self._overrides("elicit")


def capabilities_for(handlers: ClientHandlers, protocol_version: str) -> JSONObject:
    """ClientCapabilities to declare for this revision."""
    capabilities: JSONObject = {}
    if handlers.supports_roots:
        capabilities["roots"] = {"listChanged": True}
    if handlers.supports_sampling:
        sampling: JSONObject = {}
        if handlers.supports_sampling_tools and at_least(protocol_version, "2025-11-25"):
            sampling["tools"] = {}
        capabilities["sampling"] = sampling
    if handlers.supports_elicitation and at_least(protocol_version, "2025-06-18"):
        if at_least(protocol_version, "2025-11-25"):
            elicitation: JSONObject = {"form": {}}
            if handlers.supports_url_elicitation:
                elicitation["url"] = {}
            capabilities["elicitation"] = elicitation
        else:
            capabilities["elicitation"] = {}
    return capabilities
