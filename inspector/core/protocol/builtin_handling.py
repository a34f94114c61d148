"""What the client handles itself whatever the face: ping and roots answered,
each notification delivered to the subscription it belongs to, caches
invalidated by list changes and resource updates, task status followed, and a
URL elicitation's completion passed on; sampling and elicitation go to the
face's handlers when it supports them.  In the stateless era, the client's
own listen stream (list changes, subscribed resources) is opened here too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inspector.core.protocol.subscriptions import Subscription, subscription_id_of

if TYPE_CHECKING:
    from inspector.core.protocol.client import Client
    from inspector.core.protocol.server_requests import ServerRequest
    from inspector.core.protocol.session import Session
    from inspector.core.record.traffic import Frame
    from inspector.forms.values import JSONObject

__all__ = ["LIST_CHANGED_KINDS", "BuiltinHandling", "changes_wanted"]

LIST_CHANGED_KINDS = {
    "notifications/tools/list_changed": ("tools",),
    "notifications/resources/list_changed": ("resources", "templates"),
    "notifications/prompts/list_changed": ("prompts",),
}


class BuiltinHandling:
    """The client's own handlers and notification observer, installed on each new session."""

    def __init__(self, client: Client, subscriptions: dict[Any, Subscription]) -> None:
        self.client = client
        # The client's open listen streams, by request id.
        self.subscriptions = subscriptions

    def install(self, session: Session) -> None:
        """Install on a new session: ``ping`` answered, ``roots/list`` too when the face has roots, sampling
        and elicitation passed to the face's handlers when it supports them, and every notification observed."""
        session.notification_observers.append(self.on_notification)
        requests = session.server_requests.handlers
        requests["ping"] = self._answer_ping
        handlers = self.client.handlers
        if handlers.supports_roots:
            requests["roots/list"] = self._answer_roots
        if handlers.supports_sampling:
            requests["sampling/createMessage"] = handlers.create_message
        if handlers.supports_elicitation:
            requests["elicitation/create"] = handlers.elicit

    async def _answer_ping(self, request: ServerRequest) -> JSONObject:
        return {}

    async def _answer_roots(self, request: ServerRequest) -> JSONObject:
        return {"roots": await self.client.handlers.list_roots(request)}

    def on_notification(self, method: str, params: Any, frame: Frame) -> None:
        """Act on a notification: deliver it to its subscription, drop the cached results it makes stale,
        update the task it reports on, and pass a URL elicitation's completion to the face."""
        client = self.client
        self._deliver(method, params, frame)
        for kind in LIST_CHANGED_KINDS.get(method, ()):
            client.cache.invalidate(kind)
        if method == "notifications/resources/updated" and isinstance(params, dict):
            uri = params.get("uri")
            if isinstance(uri, str):
                client.cache.invalidate("read", uri)
        client.tasks.on_notification(method, params)
        if method == "notifications/elicitation/complete" and isinstance(params, dict):
            elicitation_id = params.get("elicitationId")
            if isinstance(elicitation_id, str):
                client.handlers.elicitation_complete(elicitation_id)

    async def listen(self, notifications: JSONObject) -> Subscription:
        """Open a `subscriptions/listen` stream (stateless era)."""
        operation = await self.client.start_request(
            "subscriptions/listen", {"notifications": notifications}, timeout=False
        )
        subscription = Subscription(notifications, operation)
        self.subscriptions[operation.id] = subscription
        if operation.current is not None:
            # Nobody need await a subscription's end; its outcome is kept on it.
            operation.current.future.add_done_callback(subscription.note_end)
        return subscription

    async def listen_changes(self) -> Subscription | None:
        """The client's own listen stream, replacing the previous one (stateless era; None otherwise)."""
        client = self.client
        if client.modern is None:
            return None
        wanted = changes_wanted(client.server_capabilities, client.resource_subscriptions)
        previous = client.subscription
        client.subscription = await self.listen(wanted) if wanted else None
        if previous is not None:
            await previous.close()
            self.subscriptions.pop(previous.id, None)
        return client.subscription

    def _deliver(self, method: str, params: Any, frame: Frame) -> None:
        """A notification of a listen stream, to its subscription."""
        subscription_id = subscription_id_of(params)
        if subscription_id is None:
            return
        subscription = self.subscriptions.get(subscription_id)
        if subscription is None:
            frame.problems.append(f"notification for unknown subscription {subscription_id!r}")
            return
        frame.partner = subscription.operation.first_frame.seq if subscription.operation.first_frame else None
        subscription.deliver(method, params, frame)


def changes_wanted(capabilities: JSONObject, resource_subscriptions: set[str]) -> JSONObject:
    """What the client's own listen stream asks for: every list change the server
    offers, plus the resources subscribed to (empty: no stream)."""
    wanted: JSONObject = {}
    for capability, key in (
        ("tools", "toolsListChanged"),
        ("prompts", "promptsListChanged"),
        ("resources", "resourcesListChanged"),
    ):
        if isinstance(capabilities.get(capability), dict) and capabilities[capability].get("listChanged"):
            wanted[key] = True
    if resource_subscriptions:
        wanted["resourceSubscriptions"] = sorted(resource_subscriptions)
    return wanted
