"""The host side of the MCP Apps protocol (SEP-1865) for one previewed app:
the inspector plays the host that an app's view talks JSON-RPC to.

The view's handshake (`ui/initialize`, then `ui/notifications/initialized`)
is answered with the host's capabilities and context; the tool's input and
result then go to the view as `ui/notifications/tool-input` and
`ui/notifications/tool-result` (or `tool-cancelled`).  What the view asks of
its host:

- `tools/call` is checked against the tool's `visibility` (the spec's MUST:
  only tools open to apps), then put to the person through the same
  confirmation as any call (`confirm`), and only then sent to the server;
  one such call waits for an answer at a time.
- `resources/read` goes to the server as it is.
- `ui/message`, `ui/update-model-context` and `notifications/message` are
  shown to the person (`show`); `ui/open-link` is shown, never opened;
  `ui/request-display-mode` gets the one mode there is, `inline`.

Every message either way is a frame of the traffic log (kind `app`, marked
`app → host` / `host → app`, with its exact text); the requests forwarded
to the server are ordinary traffic of their own.  Nothing here serves HTTP:
`app_host` carries the messages between this bridge and the browser.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from inspector.core.background import BackgroundTasks
from inspector.core.extensions.apps import APPS_PROTOCOL_VERSION, tool_ui
from inspector.core.protocol.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    InspectorError,
    JsonRpcError,
)
from inspector.core.record.traffic import classify

if TYPE_CHECKING:
    from inspector.core.protocol.client import Client
    from inspector.core.protocol.items import Item
    from inspector.forms.values import JSONObject

__all__ = [
    "APP_TO_HOST",
    "HOST_TO_APP",
    "MAX_IN_FLIGHT",
    "AppBridge",
    "AppView",
    "CallConfirmer",
    "Shower",
    "host_capabilities",
    "record_app_message",
]

APP_TO_HOST = "app → host"
HOST_TO_APP = "host → app"
# Implementation-defined errors, as the extension's examples use.
REFUSED = -32000
# How long a view has to answer ui/resource-teardown before it goes anyway.
TEARDOWN_WAIT = 2.0
# The views' requests answered at once; past it a request is refused at
# once (an app that floods its host does not flood the server through it).
MAX_IN_FLIGHT = 16

# (the tool the app asks for, its arguments) -> whether the person lets the call go.
CallConfirmer = Callable[["Item", dict[str, Any]], Awaitable[bool]]
# (direction, the message or None when it was not JSON, its exact text): each message shown to the person.
Shower = Callable[[str, Any, str], None]


class AppView(Protocol):
    """One view (the app's document in its frame), as the transport reaches it."""

    async def post(self, message: JSONObject) -> None:
        """Deliver a JSON-RPC message into the view."""

    async def reload(self) -> None:
        """Replace the view with a fresh one (it starts over with ui/initialize)."""


@dataclass
class _ViewState:
    initialized: bool = False
    sent_input: bool = False
    sent_result: bool = False
    app_info: Any = None
    # Our requests to the view (ui/resource-teardown) waiting for their answers.
    pending: dict[str, asyncio.Future[Any]] = field(default_factory=dict)


def host_capabilities(ui_meta: JSONObject) -> JSONObject:
    """What the preview offers a view: proxied tools and resource reads, logging,
    and the sandbox it really applies (the CSP origins the resource declared)."""
    csp = ui_meta.get("csp") if isinstance(ui_meta, dict) else None
    sandbox: JSONObject = {"permissions": {}}
    if isinstance(csp, dict):
        from inspector.core.extensions.apps import declared_origins

        sandbox["csp"] = declared_origins(csp)
    return {"serverTools": {}, "serverResources": {}, "logging": {}, "sandbox": sandbox}


def record_app_message(traffic: Any, direction: str, message: Any, raw: str) -> None:
    """One message between a view and the host in the traffic log, with its exact text."""
    _kind, method, request_id = classify(message)
    note = f"{direction}: {method}" if method else direction
    traffic.add("local", "app", raw=raw.encode(), message=message, method=method, id=request_id, note=note)


class AppBridge:
    """The host for the views of one tool's app."""

    def __init__(
        self,
        client: Client,
        tool: JSONObject,
        *,
        host_version: str,
        find_tool: Callable[[str], Item | None],
        confirm: CallConfirmer,
        ui_meta: JSONObject | None = None,
        show: Shower | None = None,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self.client = client
        self.tool = tool
        self.host_version = host_version
        self.find_tool = find_tool
        self.confirm = confirm
        self.ui_meta = ui_meta or {}
        self.show = show
        self.notify = notify or (lambda _text: None)
        # The call the views render: its arguments, then its result (or why there is none).
        self.arguments: JSONObject | None = None
        self.result: Any = None
        self.cancelled: str | None = None
        # The latest ui/update-model-context of a view (each one replaces the last).
        self.model_context: Any = None
        self._views: dict[AppView, _ViewState] = {}
        self._calling = False
        # The answers to the views' requests in progress, ended by close().
        self._tasks = BackgroundTasks()
        self._next_id = 0

    # -- the call the views render -----------------------------------------------------

    async def new_call(self, arguments: JSONObject) -> None:
        """The tool is called (again) with these arguments: views that showed
        another call are torn down and reloaded (tool-input goes once per view)."""
        stale = [view for view, state in self._views.items() if state.sent_input]
        self.arguments, self.result, self.cancelled = dict(arguments), None, None
        await self._teardown(stale, "the tool is called again")
        for view in stale:
            if view in self._views:  # not gone meanwhile
                self._views[view] = _ViewState()
                await view.reload()
        for view, state in list(self._views.items()):
            await self._catch_up(view, state)

    async def set_result(self, result: Any) -> None:
        """The call's result came: each initialized view that has not had it is sent it (tool-result)."""
        self.result = result
        for view, state in list(self._views.items()):
            await self._catch_up(view, state)

    async def set_cancelled(self, reason: str) -> None:
        """The call ended without a result: each initialized view that has not had one is told why (tool-cancelled)."""
        self.cancelled = reason
        for view, state in list(self._views.items()):
            await self._catch_up(view, state)

    async def _catch_up(self, view: AppView, state: _ViewState) -> None:
        """Send a view what it has not had yet; nothing before it says it is initialized."""
        if not state.initialized or self.arguments is None:
            return
        if not state.sent_input:
            state.sent_input = True
            await self._post(view, _notification("ui/notifications/tool-input", {"arguments": self.arguments}))
        if state.sent_result:
            return
        if self.result is not None:
            state.sent_result = True
            await self._post(view, _notification("ui/notifications/tool-result", self.result))
        elif self.cancelled is not None:
            state.sent_result = True
            await self._post(view, _notification("ui/notifications/tool-cancelled", {"reason": self.cancelled}))

    # -- views -------------------------------------------------------------------------

    def attach(self, view: AppView) -> None:
        """A view's page connected: nothing is sent to it before it says it is initialized."""
        self._views[view] = _ViewState()

    def detach(self, view: AppView) -> None:
        """A view's page went away: the host's requests still waiting on it are cancelled."""
        state = self._views.pop(view, None)
        if state is not None:
            for future in state.pending.values():
                if not future.done():
                    future.cancel()

    async def close(self) -> None:
        """Before the preview stops: every view is told (ui/resource-teardown), briefly awaited."""
        await self._teardown(list(self._views), "the preview stops")
        await self._tasks.close()

    async def _teardown(self, views: list[AppView], reason: str) -> None:
        waiting: list[asyncio.Future[Any]] = []
        for view in views:
            state = self._views.get(view)
            if state is None or not state.initialized:
                continue
            self._next_id += 1
            request_id = f"inspector-{self._next_id}"
            future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            state.pending[request_id] = future
            waiting.append(future)
            await self._post(
                view,
                {"jsonrpc": "2.0", "id": request_id, "method": "ui/resource-teardown", "params": {"reason": reason}},
            )
        if waiting:
            await asyncio.wait(waiting, timeout=TEARDOWN_WAIT)

    # -- what a view sends -------------------------------------------------------------

    async def receive(self, view: AppView, message: Any, raw: str) -> None:
        """One message from a view: recorded, shown, then answered.

        A request is answered from a task of its own, so a tools/call waiting
        for the person does not hold up the view's other messages.
        """
        self._record(APP_TO_HOST, message, raw)
        state = self._views.get(view)
        if state is None or not isinstance(message, dict):
            return
        kind, method, request_id = classify(message)
        if kind in ("response", "error"):
            future = state.pending.pop(str(request_id), None) if request_id is not None else None
            if future is not None and not future.done():
                future.set_result(message)
            return
        if kind == "notification":
            await self._notification(view, state, str(method), message.get("params"))
            return
        if kind != "request":
            return
        if len(self._tasks) >= MAX_IN_FLIGHT:
            busy = {"code": REFUSED, "message": f"more than {MAX_IN_FLIGHT} requests from the app are in flight"}
            await self._post(view, {"jsonrpc": "2.0", "id": request_id, "error": busy})
            return
        self._tasks.start(self._answer(view, state, str(method), request_id, message.get("params")))

    async def _notification(self, view: AppView, state: _ViewState, method: str, params: Any) -> None:
        if method == "ui/notifications/initialized":
            state.initialized = True
            await self._catch_up(view, state)
        elif method == "notifications/message":
            level = params.get("level") if isinstance(params, dict) else None
            data = params.get("data") if isinstance(params, dict) else params
            self.notify(f"app log ({level or 'no level'}): {_text(data)}")

    async def _answer(self, view: AppView, state: _ViewState, method: str, request_id: Any, params: Any) -> None:
        try:
            result = await self._result_for(state, method, params)
        except JsonRpcError as exc:
            reply: JSONObject = {"jsonrpc": "2.0", "id": request_id, "error": exc.to_dict()}
        except InspectorError as exc:
            reply = {"jsonrpc": "2.0", "id": request_id, "error": {"code": INTERNAL_ERROR, "message": str(exc)}}
        else:
            reply = {"jsonrpc": "2.0", "id": request_id, "result": result}
        if view in self._views:
            await self._post(view, reply)

    async def _result_for(self, state: _ViewState, method: str, params: Any) -> Any:
        params = params if isinstance(params, dict) else {}
        if method == "ui/initialize":
            state.app_info = params.get("appInfo")
            return self._initialize_result()
        if method == "ping":
            return {}
        if method == "tools/call":
            return await self._forward_call(params)
        if method == "resources/read":
            uri = params.get("uri")
            if not isinstance(uri, str):
                raise JsonRpcError(INVALID_PARAMS, "resources/read needs a uri string")
            return await self.client.read_resource(uri)
        if method == "ui/open-link":
            self.notify(
                f"the app asks to open a link (not opened; open it yourself if you trust it): "
                f"{_text(params.get('url'))}"
            )
            raise JsonRpcError(REFUSED, "the inspector does not open links for an app; the person was shown the URL")
        if method == "ui/message":
            self.notify(f"the app sends a message ({_text(params.get('role'))}): {_text(params.get('content'))}")
            return {}
        if method == "ui/update-model-context":
            self.model_context = params
            self.notify(f"the app updates its model context: {_text(params)}")
            return {}
        if method == "ui/request-display-mode":
            return {"mode": "inline"}
        raise JsonRpcError(METHOD_NOT_FOUND, f"the inspector's app host does not handle {method}")

    def _initialize_result(self) -> JSONObject:
        context = {
            "toolInfo": {"tool": self.tool},
            "displayMode": "inline",
            "availableDisplayModes": ["inline"],
            "platform": "web",
            "userAgent": f"inspector/{self.host_version}",
        }
        return {
            "protocolVersion": APPS_PROTOCOL_VERSION,
            "hostCapabilities": host_capabilities(self.ui_meta),
            "hostInfo": {"name": "inspector", "version": self.host_version},
            "hostContext": context,
        }

    async def _forward_call(self, params: JSONObject) -> Any:
        name = params.get("name")
        arguments = params.get("arguments", {})
        if not isinstance(name, str):
            raise JsonRpcError(INVALID_PARAMS, "tools/call needs a tool name")
        if not isinstance(arguments, dict):
            raise JsonRpcError(INVALID_PARAMS, "tools/call arguments must be an object")
        tool = self.find_tool(name)
        if tool is None:
            raise JsonRpcError(INVALID_PARAMS, f"the server lists no tool named {name!r}")
        ui = tool_ui(tool.data)
        visibility = ui.visibility if ui is not None else ["model", "app"]
        if "app" not in visibility:
            # The extension's MUST: an app calls only tools open to apps.
            raise JsonRpcError(REFUSED, f"{name} is not callable by apps (visibility: {', '.join(visibility)})")
        if self._calling:
            raise JsonRpcError(REFUSED, "another tools/call from the app is waiting for the person's answer")
        self._calling = True
        try:
            allowed = await self.confirm(tool, arguments)
        finally:
            self._calling = False
        if not allowed:
            raise JsonRpcError(REFUSED, "the person refused the call")
        return await self.client.call_tool(name, arguments)

    # -- sending -------------------------------------------------------------------------

    async def _post(self, view: AppView, message: JSONObject) -> None:
        self._record(HOST_TO_APP, message, json.dumps(message, ensure_ascii=False))
        await view.post(message)

    def _record(self, direction: str, message: Any, raw: str) -> None:
        record_app_message(self.client.traffic, direction, message, raw)
        if self.show is not None:
            self.show(direction, message, raw)


def _notification(method: str, params: Any) -> JSONObject:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def _text(value: Any) -> str:
    """A value from the app, as one line for the person (made inert where it is shown)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)
