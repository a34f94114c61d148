"""The client core: transports, the JSON-RPC session, the traffic record.

No Textual and no Rich here (a test enforces it): every face builds on this.
Names are loaded on first use, so `import inspector.core.spec` stays cheap
for the scripting path, which starts the server before importing the rest.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "CLIENT_INFO",
    "CancelledError",
    "Client",
    "ClientHandlers",
    "ConnectError",
    "ConnectionClosed",
    "Frame",
    "Hint",
    "HttpError",
    "InspectorError",
    "Item",
    "JsonRpcError",
    "JsonlRecorder",
    "ListResult",
    "PendingRequest",
    "ProtocolError",
    "RequestTimeout",
    "ServerRequest",
    "ServerSpec",
    "Session",
    "TrafficLog",
    "capabilities_for",
    "demo_spec",
    "make_transport",
    "tool_hints",
]

_HOMES = {
    "CLIENT_INFO": "client",
    "Client": "client",
    "make_transport": "client",
    "CancelledError": "errors",
    "ConnectError": "errors",
    "ConnectionClosed": "errors",
    "HttpError": "errors",
    "InspectorError": "errors",
    "JsonRpcError": "errors",
    "ProtocolError": "errors",
    "RequestTimeout": "errors",
    "ClientHandlers": "handlers",
    "capabilities_for": "handlers",
    "Hint": "items",
    "Item": "items",
    "ListResult": "items",
    "tool_hints": "items",
    "PendingRequest": "session",
    "ServerRequest": "session",
    "Session": "session",
    "ServerSpec": "spec",
    "demo_spec": "spec",
    "Frame": "traffic",
    "JsonlRecorder": "traffic",
    "TrafficLog": "traffic",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


if TYPE_CHECKING:
    from .client import CLIENT_INFO, Client, make_transport
    from .errors import (
        CancelledError,
        ConnectError,
        ConnectionClosed,
        HttpError,
        InspectorError,
        JsonRpcError,
        ProtocolError,
        RequestTimeout,
    )
    from .handlers import ClientHandlers, capabilities_for
    from .items import Hint, Item, ListResult, tool_hints
    from .session import PendingRequest, ServerRequest, Session
    from .spec import ServerSpec, demo_spec
    from .traffic import Frame, JsonlRecorder, TrafficLog
