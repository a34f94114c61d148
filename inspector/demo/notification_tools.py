"""Tools that make the server talk on its own: progress, log messages, list changes and
resource updates."""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import AssistantMessage, Message, UserMessage
from mcp_types import ToolAnnotations
from pydantic import Field

from inspector.demo import media, notifications
from inspector.demo.state import EXTRA_PROMPT, EXTRA_TOOL, LOG_LEVELS, NOTES_URI, DemoState, connection_key

logger = logging.getLogger(__name__)

Kind = Literal["tool", "prompt", "resource"]

_LEVEL_TEXT = {
    "debug": "Debug: the nitty-gritty, usually hidden.",
    "info": "Info: something normal happened.",
    "notice": "Notice: normal but worth a look.",
    "warning": "Warning: this might become a problem.",
    "error": "Error: something failed (not really).",
    "critical": "Critical: a component is down (not really).",
    "alert": "Alert: act now (no, don't).",
    "emergency": "Emergency: the system is unusable (it is fine).",
}

FORTUNES = (
    "A bug found in testing is worth two in production.",
    "You will soon read a well-written error message.",
    "Today is a good day to add a progress bar.",
    "The cache you seek is already warm.",
)


def register_notification_tools(server: MCPServer[Any], state: DemoState) -> None:
    """Register long_running_task, log_every_level, append_note and toggle_extras on *server*."""

    @server.tool(
        title="Long-running task",
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
        icons=media.icon("clock"),
        structured_output=False,
    )
    async def long_running_task(
        ctx: Context[Any, Any],
        steps: Annotated[int, Field(ge=1, le=100, description="How many progress updates")] = 10,
        interval_ms: Annotated[int, Field(ge=0, le=10_000, description="Pause before each step, ms")] = 500,
    ) -> str:
        """Work through `steps` steps, sending a progress notification after each (when the client
        asked for progress). Cancel it half-way: it stops at once."""
        step = 0
        try:
            for step in range(1, steps + 1):
                await anyio.sleep(interval_ms / 1000)
                await ctx.report_progress(step, steps, f"Step {step} of {steps}")
        except anyio.get_cancelled_exc_class():
            logger.info("long_running_task cancelled during step %d of %d", step, steps)
            raise
        return f"Finished all {steps} steps in about {steps * interval_ms / 1000:g} s."

    @server.tool(
        title="Log at every level",
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
        structured_output=False,
    )
    async def log_every_level(
        ctx: Context[Any, Any],
        detail: Annotated[str, Field(description="Appended to each message")] = "",
    ) -> str:
        """Send one log message at each level, debug to emergency. Handshake-era clients choose the
        minimum level with logging/setLevel; 2026-07-28 clients opt in per request."""
        sent = await _log_each_level(ctx, state, detail)
        return f"Sent up to {sent} log messages."

    @server.tool(
        title="Append a note",
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
        ),
        structured_output=False,
    )
    async def append_note(
        ctx: Context[Any, Any],
        text: Annotated[str, Field(min_length=1, max_length=500, description="The note to add")],
    ) -> str:
        """Add a line to the demo://notes resource and send notifications/resources/updated to
        clients subscribed to it. Not idempotent: every call adds another line."""
        count = state.add_note(text)
        told = await notifications.resource_updated(ctx, state, NOTES_URI)
        return f"Note {count} added; {_who_was_told(ctx, told)}."

    @server.tool(
        title="Toggle extra tool/prompt/resource",
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
        ),
        structured_output=False,
    )
    async def toggle_extras(
        ctx: Context[Any, Any],
        kind: Annotated[
            Literal["tool", "prompt", "resource", "all"], Field(description="Which list to change")
        ] = "all",
    ) -> str:
        """Add (or remove again) a bonus tool, prompt and/or resource, sending the matching
        notifications/*/list_changed so the client refreshes its lists."""
        kinds: list[Kind] = ["tool", "prompt", "resource"] if kind == "all" else [kind]
        changes = [await _toggle(server, state, ctx, one) for one in kinds]
        return "; ".join(changes) + ". The list_changed notifications were sent."


async def _log_each_level(ctx: Context[Any, Any], state: DemoState, detail: str) -> int:
    """One log message per level the client wants (a modern client: every one); how many were sent."""
    key = connection_key(ctx.request_context)
    sent = 0
    for level in LOG_LEVELS:
        if notifications.is_modern(ctx) or state.wants_log(key, level):
            text = f"{_LEVEL_TEXT[level]} {detail}".rstrip()
            await notifications.log_message(ctx, level, text, "inspector-demo")
            sent += 1
    # One structured entry too: log data may be any JSON value, not just a string.
    if notifications.is_modern(ctx) or state.wants_log(key, "info"):
        data = {"event": "log_every_level", "levels": list(LOG_LEVELS)}
        await notifications.log_message(ctx, "info", data, "inspector-demo.json")
        sent += 1
    return sent


def _who_was_told(ctx: Context[Any, Any], told: bool) -> str:
    if notifications.is_modern(ctx):
        return f"published to subscriptions/listen streams watching {NOTES_URI}"
    if told:
        return "notifications/resources/updated sent"
    return f"subscribe to {NOTES_URI} to be notified next time"


async def _toggle(server: MCPServer[Any], state: DemoState, ctx: Context[Any, Any], one: Kind) -> str:
    """Add the bonus item of kind `one`, or remove it again, and say so in a list_changed."""
    on = one not in state.extras
    if on:
        state.extras.add(one)
    else:
        state.extras.discard(one)
    if one == "tool":
        if on:
            server.add_tool(bonus_fortune, name=EXTRA_TOOL, title="Bonus fortune", structured_output=False)
        else:
            server.remove_tool(EXTRA_TOOL)
        await notifications.tools_changed(ctx)
    elif one == "prompt":
        if on:
            server.prompt(name=EXTRA_PROMPT, title="Bonus haiku")(bonus_haiku)
        else:
            server.remove_prompt(EXTRA_PROMPT)
        await notifications.prompts_changed(ctx)
    else:
        await notifications.resources_changed(ctx)
    return f"{one} {'added' if on else 'removed'}"


def bonus_fortune(number: Annotated[int, Field(ge=0, description="Pick a number")] = 0) -> str:
    """A tool that only exists after toggle_extras: returns a fortune."""
    return FORTUNES[number % len(FORTUNES)]


def bonus_haiku(topic: Annotated[str, Field(description="What the haiku is about")] = "debugging") -> list[Message]:
    """A prompt that only exists after toggle_extras."""
    return [
        UserMessage(f"Write a haiku about {topic}."),
        AssistantMessage("Silent stack trace waits\nprogress bars crawl to the end\nthe test turns green: spring"),
    ]
