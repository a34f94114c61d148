"""The two form tools: one flat form of every field type, one deeply structured form."""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp_types import TextContent, ToolAnnotations

from inspector.demo import schemas
from inspector.demo.media import icon
from inspector.demo.schema_tool import schema_tool


def _echo_arguments(arguments: dict[str, Any]) -> TextContent:
    return TextContent(type="text", text=json.dumps(arguments, indent=2, ensure_ascii=False))


async def register_user(arguments: dict[str, Any], ctx: Context[Any, Any]) -> list[TextContent]:
    """The register_user tool: a welcome summary and the arguments back (the password hidden); nothing is stored."""
    plan = schemas.PLANS[arguments["plan"]]
    languages = ", ".join(schemas.LANGUAGES[code] for code in arguments.get("languages", [])) or "none given"
    summary = (
        f"Welcome aboard, {arguments.get('nickname') or arguments['username']}!\n"
        f"Plan: {plan}\n"
        f"Role: {arguments.get('role', 'viewer')}\n"
        f"Languages: {languages}\n"
        f"Newsletter: {'yes' if arguments.get('newsletter', True) else 'no'}\n"
        "(Nothing was stored: this is a demo.)"
    )
    shown = {key: "••••" if key == "password" else value for key, value in arguments.items()}
    return [TextContent(type="text", text=summary), _echo_arguments(shown)]


async def plan_trip(arguments: dict[str, Any], ctx: Context[Any, Any]) -> list[TextContent]:
    """The plan_trip tool: the route, nights and transport in a summary, and the arguments back."""
    stops = arguments["stops"]
    home = arguments["traveller"]["home"]
    route = " → ".join([home["city"], *(stop["place"]["city"] for stop in stops)])
    nights = sum(stop.get("nights", 1) for stop in stops)
    transport = arguments["transport"]
    budget = arguments.get("budget", "unspecified")
    summary = (
        f"{arguments.get('name', 'Grand tour')} for {arguments['traveller']['full_name']}\n"
        f"Route: {route}\n"
        f"Leaving {arguments['start']}, {nights} night{'s' if nights != 1 else ''} away, by {transport['mode']}.\n"
        f"Budget: {budget}"
    )
    return [TextContent(type="text", text=summary), _echo_arguments(arguments)]


def form_tools() -> list[Tool]:
    """The register_user and plan_trip tools, with their hand-written input schemas."""
    return [
        schema_tool(
            register_user,
            name="register_user",
            title="Register a user (every field type)",
            description=(
                "Create a pretend account. The input schema is a tour of field types: string "
                "formats (email, uri, date, date-time), length and pattern limits, numeric ranges, "
                "booleans, plain and titled enums, multi-selects, nullable fields, defaults and a "
                "long multi-line text. Nothing is stored."
            ),
            input_schema=schemas.REGISTER_USER,
            annotations=ToolAnnotations(
                title="Register a user (every field type)",
                read_only_hint=False,
                destructive_hint=False,
                idempotent_hint=True,
                open_world_hint=False,
            ),
            icons=icon("form"),
        ),
        schema_tool(
            plan_trip,
            name="plan_trip",
            title="Plan a trip (nested structures)",
            description=(
                "Plan a pretend trip.\n\n"
                "The input schema shows structure rather than field types:\n"
                "- nested objects three levels deep (traveller → home → coordinates)\n"
                "- an array of objects (`stops`) and arrays of strings (`tags`, `activities`)\n"
                "- `$ref` into local `$defs`, reused in several places\n"
                "- `oneOf` variants told apart by a `const` (`transport`)\n"
                "- `anyOf` of a number or an enum (`budget`), and an object-or-null"
            ),
            input_schema=schemas.PLAN_TRIP,
            annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
            icons=icon("form"),
            meta={"io.github.inspector-demo/category": "forms"},
        ),
    ]
