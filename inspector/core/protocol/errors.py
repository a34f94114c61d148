"""Exceptions raised by the client core, one per way a request can end badly."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inspector.core.safetext import visible

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "URL_ELICITATION_REQUIRED",
    "CancelledError",
    "ConnectError",
    "ConnectTimeout",
    "ConnectionClosed",
    "EraFallback",
    "HttpError",
    "InspectorError",
    "JsonRpcError",
    "MessageTooLarge",
    "ProtocolError",
    "RedirectRefused",
    "RequestTimeout",
    "SessionExpired",
    "TransportFallback",
    "UnusableAnswer",
    "body_excerpt",
]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
URL_ELICITATION_REQUIRED = -32042

# How much of a server's body an error message quotes.
EXCERPT_CHARS = 500


def body_excerpt(body: bytes | str, limit: int = EXCERPT_CHARS) -> str:
    """A server's body as one quotable line: control characters made visible
    (the text is untrusted), cut at `limit` characters with the size said."""
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else body
    line = visible(text.strip(), keep_newlines=False)
    if len(line) > limit:
        size = len(body) if isinstance(body, bytes) else len(body.encode("utf-8", errors="replace"))
        line = f"{line[:limit]}… ({size} bytes in all)"
    return line


class InspectorError(Exception):
    """Base of every error the core raises on purpose."""

    label = "error"


class ConnectError(InspectorError):
    """The server could not be reached or started, or it went away during set-up."""

    label = "cannot connect"

    def __init__(self, message: str, *, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail


class ConnectionClosed(InspectorError):
    """The connection ended while a request was waiting (process exit, stream end)."""

    label = "connection closed"


class HttpError(InspectorError):
    """An HTTP status the transport cannot turn into a JSON-RPC answer."""

    label = "HTTP error"

    def __init__(self, status: int, reason: str, body: str = "") -> None:
        text = f"HTTP {status} {reason}".rstrip()
        if body.strip():
            text += f": {body_excerpt(body)}"
        super().__init__(text)
        self.status = status
        self.body = body


class RedirectRefused(ConnectError):
    """The server redirected the MCP endpoint to another origin; not followed,
    so that the person's headers and credentials stay with the origin they
    were given for."""

    def __init__(self, message: str, *, source: str, target: str) -> None:
        super().__init__(message)
        self.source = source
        self.target = target


class EraFallback(InspectorError):
    """The era probe (`server/discover`) says: this is a legacy server."""


class SessionExpired(InspectorError):
    """Streamable HTTP answered 404 for our session id: the session is gone."""

    def __init__(self, message: str, session_id: str | None = None) -> None:
        super().__init__(message)
        # The session that expired: a request that learns of it after the
        # session was already renewed resends without starting another one.
        self.session_id = session_id


class ProtocolError(InspectorError):
    """The server answered something the protocol does not allow (bad version, bad shape)."""

    label = "protocol error"


class UnusableAnswer(ProtocolError):
    """A successful HTTP answer that cannot carry JSON-RPC: a content type that
    is neither JSON nor an event stream, or a body that is not what its
    content type says."""


class MessageTooLarge(ProtocolError):
    """One message (an HTTP body, an SSE event) is larger than the message size limit."""

    def __init__(self, message: str, limit: int) -> None:
        super().__init__(message)
        self.limit = limit


class RequestTimeout(InspectorError):
    """No answer within the request's timeout."""

    label = "timed out"

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(f"{method}: no response within {timeout:g} s")
        self.method = method
        self.timeout = timeout


class ConnectTimeout(RequestTimeout):
    """The server never answered the request that opens the connection.

    A timeout (exit code 6 in the scripting commands), not a refusal: the
    server was started or reached and then stayed silent.  `detail` holds
    the last lines of its stderr, like `ConnectError.detail`.
    """

    def __init__(self, method: str, timeout: float, *, detail: str | None = None) -> None:
        super().__init__(method, timeout)
        self.args = (f"the server did not answer {method} within {timeout:g} s",)
        self.detail = detail


class CancelledError(InspectorError):
    """The request was cancelled by the client."""

    label = "cancelled"


class TransportFallback(InspectorError):
    """Streamable HTTP was refused in a way that means: try legacy HTTP+SSE."""


class JsonRpcError(InspectorError):
    """A JSON-RPC error response from the server (or one we send back)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{message} (code {code})")
        self.code = code
        self.message = message
        self.data = data

    def to_dict(self) -> JSONObject:
        """The JSON-RPC error object: code, message and data when there is any."""
        error: JSONObject = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    @classmethod
    def from_dict(cls, error: Any) -> JsonRpcError:
        """The error an answer's error object describes (a malformed one becomes an internal error that quotes it)."""
        if not isinstance(error, dict):
            return cls(INTERNAL_ERROR, f"malformed error object: {error!r}")
        code = error.get("code")
        message = error.get("message")
        return cls(
            code if isinstance(code, int) else INTERNAL_ERROR,
            message if isinstance(message, str) else repr(message),
            error.get("data"),
        )
