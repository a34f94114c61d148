"""The client core: transports, the JSON-RPC session, the traffic record.

No Textual and no Rich here (a test enforces it): every face builds on this.
"""

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
