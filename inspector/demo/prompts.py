"""Prompts: required and optional arguments, several roles, embedded resource and image content."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts.base import AssistantMessage, Message, UserMessage
from mcp_types import EmbeddedResource, ImageContent, TextResourceContents
from pydantic import Field

from inspector.demo import media, sample_data
from inspector.demo.resources import SOURCE, SOURCE_URI

STYLES = {
    "friendly": "warm and friendly",
    "formal": "formal and polite",
    "pirate": "like a pirate",
    "haiku": "as a haiku",
    "shakespeare": "in Shakespearean English",
}
LANGUAGES = ["Python", "TypeScript", "Rust", "Go", "Java", "Kotlin", "C", "C++", "C#", "Haskell", "Ruby"]
FOCUSES = ["readability", "performance", "security", "tests", "naming"]
HAIKU_TOPICS = ["debugging", "coffee", "deadlines", "refactoring", "the cloud"]


def register_prompts(server: MCPServer[Any]) -> None:
    """Register greeting, code_review, travel_plan and tip_of_the_day on *server*."""

    @server.prompt(title="Greeting", icons=media.icon("chat"))
    def greeting(
        name: Annotated[str, Field(description="Who to greet (required)")],
        style: Annotated[str, Field(description=f"One of: {', '.join(STYLES)} (completes)")] = "friendly",
    ) -> str:
        """A one-message prompt with a required and an optional argument."""
        manner = STYLES.get(style, style)
        return f"Please greet {name}, {manner}."

    @server.prompt(title="Code review", icons=media.icon("document"))
    def code_review(
        language: Annotated[str, Field(description="Programming language (completes)")],
        focus: Annotated[str, Field(description="What to pay attention to (completes)")] = "readability",
    ) -> list[Message]:
        """A conversation of several messages with both roles, an embedded resource and an image."""
        return [
            UserMessage(f"You are reviewing {language} code. Focus on {focus}."),
            UserMessage(
                EmbeddedResource(
                    type="resource",
                    resource=TextResourceContents(uri=SOURCE_URI, mime_type="text/x-python", text=SOURCE),
                )
            ),
            AssistantMessage("I have read the module. Is there anything about the UI I should know?"),
            UserMessage("Here is the colour palette the output will use:"),
            UserMessage(ImageContent(type="image", data=media.b64(media.gradient_png()), mime_type=media.PNG_MIME)),
            AssistantMessage(f"Thanks. I'll now review the code with an eye on {focus}."),
        ]

    @server.prompt(title="Travel plan")
    def travel_plan(
        country: Annotated[str, Field(description="ISO country code, e.g. FR (completes)")],
        city: Annotated[str, Field(description="A city in that country (completion uses the country)")],
        days: Annotated[str, Field(description="Length of the stay in days")] = "3",
    ) -> list[Message]:
        """Argument completion that depends on another argument: city suggestions follow country."""
        return [
            UserMessage(f"Plan {days} days in {city} ({country}). Keep it to a short bullet list per day."),
            AssistantMessage(f"Happy to. Before I start: do you prefer museums or the outdoors in {city}?"),
            UserMessage("A mix of both, please."),
        ]

    @server.prompt(title="Tip of the day")
    def tip_of_the_day() -> str:
        """A prompt without arguments."""
        return (
            "Share one practical tip for debugging an MCP server. Mention the raw JSON-RPC traffic "
            "view, and keep it under 60 words."
        )


def country_codes() -> list[str]:
    """The country codes of the demo's cities, sorted (travel_plan's completions)."""
    return sorted(set(sample_data.CITIES.values()))
