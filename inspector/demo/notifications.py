"""Change notifications that reach the client in either protocol era, and the handshake-era
handlers (`resources/subscribe`, `logging/setLevel`) MCPServer does not register by itself.

The eras deliver change notifications differently: up to 2025-11-25 the server pushes
`notifications/*` on the connection, from 2026-07-28 they travel only on `subscriptions/listen`
streams, which MCPServer feeds from its subscription bus (`ctx.notify_*`). Each helper here
does whichever the calling request's era needs.
"""

from __future__ import annotations

import warnings
from collections.abc import Awaitable
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import LoggingLevel
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from inspector.demo.state import DemoState, connection_key

DemoContext = Context[Any, Any]


def is_modern(ctx: DemoContext) -> bool:
    """Whether the request came in a stateless-era (2026-07-28 and later) revision."""
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def log_message(ctx: DemoContext, level: LoggingLevel, data: Any, logger_name: str) -> Awaitable[None]:
    """`ctx.log` without its deprecation warning.

    Logging is deprecated from 2026-07-28 but is a full feature of every handshake revision, and
    showing it is the point of the demo. The warning fires when the call is made, not awaited, so
    only the synchronous call sits inside the filter and no other task can run meanwhile.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        return ctx.log(level, data, logger_name=logger_name)


async def _send_on_request(ctx: DemoContext, notification: types.ServerNotification) -> None:
    # Tied to the triggering request so that on Streamable HTTP it rides that request's response
    # stream, which every client reads, rather than the optional standalone GET stream.
    await ctx.session.send_notification(notification, related_request_id=ctx.request_id)


async def tools_changed(ctx: DemoContext) -> None:
    """Tell the client the tool list changed, as the request's era delivers it."""
    if is_modern(ctx):
        await ctx.notify_tools_changed()
    else:
        await _send_on_request(ctx, types.ToolListChangedNotification())


async def prompts_changed(ctx: DemoContext) -> None:
    """Tell the client the prompt list changed, as the request's era delivers it."""
    if is_modern(ctx):
        await ctx.notify_prompts_changed()
    else:
        await _send_on_request(ctx, types.PromptListChangedNotification())


async def resources_changed(ctx: DemoContext) -> None:
    """Tell the client the resource list changed, as the request's era delivers it."""
    if is_modern(ctx):
        await ctx.notify_resources_changed()
    else:
        await _send_on_request(ctx, types.ResourceListChangedNotification())


async def resource_updated(ctx: DemoContext, state: DemoState, uri: str) -> bool:
    """Announce that `uri` changed; returns whether this connection was told."""
    if is_modern(ctx):
        # Listen streams filter by URI themselves; publishing is always right.
        await ctx.notify_resource_updated(uri)
        return True
    if uri not in state.subscriptions.get(connection_key(ctx.request_context), set()):
        return False
    notification = types.ResourceUpdatedNotification(params=types.ResourceUpdatedNotificationParams(uri=uri))
    await _send_on_request(ctx, notification)
    return True


def install_handshake_extras(server: MCPServer[Any], state: DemoState) -> None:
    """Register subscribe/unsubscribe/setLevel and advertise `listChanged` for handshake clients.

    MCPServer exposes no public hook for these, so this reaches its low-level server, the one
    place the demo depends on SDK internals for protocol behaviour.
    """
    lowlevel = server._lowlevel_server

    async def subscribe(
        rctx: ServerRequestContext[Any, Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        state.subscriptions.setdefault(connection_key(rctx), set()).add(str(params.uri))
        return types.EmptyResult()

    async def unsubscribe(
        rctx: ServerRequestContext[Any, Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        state.subscriptions.get(connection_key(rctx), set()).discard(str(params.uri))
        return types.EmptyResult()

    async def set_level(rctx: ServerRequestContext[Any, Any], params: types.SetLevelRequestParams) -> types.EmptyResult:
        state.log_levels[connection_key(rctx)] = params.level
        return types.EmptyResult()

    lowlevel.add_request_handler("resources/subscribe", types.SubscribeRequestParams, subscribe)
    lowlevel.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams, unsubscribe)
    lowlevel.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)

    # Every transport (stdio loop, Streamable HTTP sessions, SSE) builds its `initialize` answer
    # from `create_initialization_options()` with no arguments, whose defaults advertise no
    # `listChanged`; this demo does send those notifications, so make the default say so.
    original = lowlevel.create_initialization_options

    def with_list_changed(
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        everything = NotificationOptions(prompts_changed=True, resources_changed=True, tools_changed=True)
        return original(notification_options or everything, experimental_capabilities, extensions)

    lowlevel.create_initialization_options = with_list_changed  # type: ignore[method-assign]
