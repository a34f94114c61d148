"""Everyday tools: the annotation variants, structured output, every content type, an error.

Annotation hints are spelled out in full on most tools because an inspector has to show the
difference between a hint that is absent (spec defaults apply) and one set explicitly; `echo`
deliberately has none at all.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import (
    Annotations,
    AudioContent,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)
from mcp_types.version import LATEST_PROTOCOL_VERSION, is_version_at_least
from pydantic import BaseModel, Field

from inspector.demo import media, sample_data
from inspector.demo.resources import AUDIO_URI, CONFIG, IMAGE_URI, SOURCE, SOURCE_URI

READ_ONLY_LOCAL = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)


class Wind(BaseModel):
    speed: int = Field(description="km/h (metric) or mph (imperial)")
    direction: Literal["N", "NE", "E", "SE", "S", "SW", "W", "NW"]


class Conditions(BaseModel):
    temperature: int
    conditions: str
    humidity_percent: int = Field(ge=0, le=100)
    wind: Wind


class DayForecast(BaseModel):
    day: int = Field(description="Days from today")
    high: int
    low: int
    conditions: str


class WeatherReport(BaseModel):
    """Pretend weather for one city."""

    city: str
    country: str | None = Field(description="ISO country code, null for cities the demo does not know")
    units: Literal["metric", "imperial"]
    current: Conditions
    forecast: list[DayForecast]


def _gallery(version: str) -> list[ContentBlock]:
    """One content block of every kind the protocol `version` knows, and a note for those it does not."""
    blocks: list[ContentBlock] = [
        TextContent(
            type="text",
            text="Here is one of each content type. ✨",
            annotations=Annotations(audience=["user"], priority=0.9),
        ),
        ImageContent(type="image", data=media.b64(media.gradient_png()), mime_type=media.PNG_MIME),
    ]
    # Audio arrived in 2025-03-26 and resource links in 2025-06-18; older clients would not know
    # the block types, so they get a note instead.
    missing = []
    if is_version_at_least(version, "2025-03-26"):
        blocks.append(AudioContent(type="audio", data=media.b64(media.sine_wav()), mime_type=media.WAV_MIME))
    else:
        missing.append("audio")
    if is_version_at_least(version, "2025-06-18"):
        blocks += [
            ResourceLink(
                type="resource_link",
                uri=IMAGE_URI,
                name="gradient.png",
                title="Gradient image",
                description="The same image, as a resource to read",
                mime_type=media.PNG_MIME,
            ),
            ResourceLink(type="resource_link", uri=AUDIO_URI, name="a440.wav", mime_type=media.WAV_MIME),
        ]
    else:
        missing.append("resource links")
    blocks.append(
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(uri=SOURCE_URI, mime_type="text/x-python", text=SOURCE),
            annotations=Annotations(audience=["assistant"], priority=0.2),
        )
    )
    if missing:
        note = f"Protocol {version} has no {' or '.join(missing)} content; use a newer revision to see them."
        blocks.append(TextContent(type="text", text=note))
    return blocks


def register_tools(server: MCPServer[Any]) -> None:
    """Register echo, divide, weather_report, delete_remote_file, media_gallery and get_json on *server*."""

    @server.tool(structured_output=False)
    def echo(
        message: Annotated[str, Field(description="Text to send back")],
        repeat: Annotated[int, Field(ge=1, le=10, description="How many times")] = 1,
    ) -> str:
        """Send the message straight back. This tool carries no annotations at all."""
        return "\n".join([message] * repeat)

    @server.tool(
        title="Divide",
        annotations=ToolAnnotations(
            title="Divide two numbers", read_only_hint=True, idempotent_hint=True, open_world_hint=False
        ),
        icons=media.icon("calculator"),
        structured_output=False,
    )
    def divide(
        dividend: Annotated[float, Field(description="The number to divide")],
        divisor: Annotated[float, Field(description="What to divide by; 0 gives a tool error")],
    ) -> str:
        """Divide one number by another. Divide by zero to see a tool execution error (isError)."""
        if divisor == 0:
            raise ToolError("cannot divide by zero, try any other divisor")
        return f"{dividend:g} ÷ {divisor:g} = {dividend / divisor:g}"

    @server.tool(
        title="Weather report",
        annotations=READ_ONLY_LOCAL,
        icons=media.icon("weather"),
    )
    def weather_report(
        city: Annotated[str, Field(description="Any city name; try Paris, Kyōto or São Paulo")],
        units: Annotated[Literal["metric", "imperial"], Field(description="Celsius or Fahrenheit")] = "metric",
    ) -> WeatherReport:
        """Pretend weather with an output schema: the result carries structuredContent plus the same
        data as JSON text for clients that only read content."""
        return WeatherReport.model_validate(sample_data.weather_for(city, units))

    @server.tool(
        title="Delete a remote file",
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=True
        ),
        icons=media.icon("danger"),
        structured_output=False,
    )
    def delete_remote_file(
        url: Annotated[str, Field(description="The file to delete", json_schema_extra={"format": "uri"})],
        force: Annotated[bool, Field(description="Pretend harder")] = False,
    ) -> str:
        """Destructive and open-world by its annotations, so an inspector should ask before running
        it. It only pretends: nothing is contacted and nothing is deleted."""
        return f"Pretended to delete {url}{' (forced)' if force else ''}. Nothing was touched."

    @server.tool(
        title="Media gallery",
        annotations=READ_ONLY_LOCAL,
        icons=media.icon("media"),
        meta={"io.github.inspector-demo/category": "content"},
    )
    def media_gallery(ctx: Context[Any, Any]) -> list[ContentBlock]:
        """Return one content block of every kind: text, image, audio, a resource link and an
        embedded resource, some with audience/priority annotations."""
        return _gallery(ctx.protocol_version or LATEST_PROTOCOL_VERSION)

    @server.tool(annotations=READ_ONLY_LOCAL, structured_output=False)
    def get_json() -> str:
        """Return a JSON document as plain text content (no output schema), for JSON pretty-printing."""
        document = {**CONFIG, "users": list(sample_data.USERS), "cities": sample_data.CITIES}
        return json.dumps(document, indent=2, ensure_ascii=False)
