"""What a toast says of a worker (a list load, a call, a read) that failed."""

from __future__ import annotations

from inspector.core.protocol.errors import InspectorError, JsonRpcError

__all__ = ["worker_failure"]


def worker_failure(error: BaseException | None) -> str:
    """What a toast says of a worker that failed."""
    if isinstance(error, JsonRpcError):
        return f"server error {error.code}: {error.message}"
    if isinstance(error, InspectorError):
        return str(error)
    return f"{error.__class__.__name__}: {error}"
