"""`subscriptions/listen` (2026-07-28): a long-lived request whose stream
carries the change notifications the client asked for, each tagged with the
listen request's id so several subscriptions can share one channel."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.core.protocol.errors import InspectorError
from inspector.core.protocol.modern import SUBSCRIPTION_ID_KEY
from inspector.core.record.traffic import Frame

if TYPE_CHECKING:
    from inspector.core.protocol.operation import Operation
    from inspector.forms.values import JSONObject

__all__ = ["Subscription", "subscription_id_of"]


def subscription_id_of(params: Any) -> Any:
    """The listen request id a notification's ``_meta`` tags it with (None when untagged)."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    return meta.get(SUBSCRIPTION_ID_KEY) if isinstance(meta, dict) else None


@dataclass
class Subscription:
    """One listen request: what was asked, what the server honoured, what came."""

    requested: JSONObject
    operation: Operation
    acknowledged: JSONObject | None = None
    received: list[Frame] = field(default_factory=list)
    ended: str | None = None

    @property
    def id(self) -> Any:
        """The listen request's id."""
        return self.operation.id

    @property
    def refused(self) -> list[str]:
        """Requested notification types the server did not acknowledge."""
        if self.acknowledged is None:
            return []
        out: list[str] = []
        for key, value in self.requested.items():
            granted = self.acknowledged.get(key)
            if key == "resourceSubscriptions":
                missing = [uri for uri in value if uri not in (granted or [])]
                out.extend(f"resource {uri}" for uri in missing)
            elif value and not granted:
                out.append(key)
        return out

    def deliver(self, method: str, params: Any, frame: Frame) -> None:
        """Take a notification of this subscription: the acknowledgement says what the server grants;
        anything before it is marked as a problem."""
        if method == "notifications/subscriptions/acknowledged":
            granted = params.get("notifications") if isinstance(params, dict) else None
            self.acknowledged = granted if isinstance(granted, dict) else {}
            return
        if self.acknowledged is None:
            frame.problems.append("notification on a subscription before its acknowledgement")
        self.received.append(frame)

    def note_end(self, future: Any) -> None:
        """Record why the listen request ended, unless that is known already."""
        if future.cancelled():
            self.ended = self.ended or "cancelled"
        elif future.exception() is not None:
            self.ended = self.ended or str(future.exception())
        else:
            self.ended = self.ended or "ended by the server"

    async def wait_ended(self) -> None:
        """Until the server ends the subscription (or the connection goes)."""
        try:
            await self.operation.result()
            self.ended = "ended by the server"
        except InspectorError as exc:
            self.ended = str(exc)

    async def close(self) -> None:
        """Cancel the listen request (once; a failure to send the cancellation is ignored)."""
        if self.ended is None:
            self.ended = "closed by the client"
            with contextlib.suppress(InspectorError, OSError):
                await self.operation.cancel("subscription closed")
