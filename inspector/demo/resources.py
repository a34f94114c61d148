"""Static resources, resource templates and the toggled extra resource.

Covers the content kinds an inspector renders differently: Markdown, plain text with Unicode,
JSON, Python source (for syntax highlighting), a PNG and a WAV blob, plus a text resource that
changes at runtime (`demo://notes`) so subscriptions have something to report.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp_types import Annotations

from inspector.demo import media, sample_data
from inspector.demo.state import EXTRA_RESOURCE, NOTES_URI, DemoState

README_URI = "demo://readme"
CONFIG_URI = "demo://config.json"
SOURCE_URI = "demo://source/fizzbuzz.py"
UNICODE_URI = "demo://unicode.txt"
IMAGE_URI = "demo://images/gradient.png"
AUDIO_URI = "demo://audio/a440.wav"

README = """\
# inspector-demo

Welcome! This server exists to show every feature of an MCP inspector.

## Things to try

| Where | What |
|---|---|
| **Tools** | `register_user` and `plan_trip` build big forms; `media_gallery` returns every content type |
| **Tools** | `long_running_task` reports progress, cancel it half-way |
| **Tools** | `sample_llm`, `elicit_profile`, `elicit_url`, `list_roots` ask *you* (the client) things |
| **Resources** | subscribe to `demo://notes`, then call `append_note` |
| **Templates** | `demo://users/{user_id}` completes user ids |
| **Prompts** | `code_review` returns several messages with an embedded resource and an image |

> Nothing here touches the network or your files: every tool only pretends.
"""

SOURCE = '''\
"""FizzBuzz, the classic warm-up, to show off syntax highlighting."""

from collections.abc import Iterator


def fizzbuzz(limit: int = 15) -> Iterator[str]:
    for n in range(1, limit + 1):
        word = ("Fizz" if n % 3 == 0 else "") + ("Buzz" if n % 5 == 0 else "")
        yield word or str(n)


if __name__ == "__main__":
    print(", ".join(fizzbuzz()))
'''

UNICODE_TEXT = """\
Unicode sampler
===============
Latin:    Zoë, Ñandú, Ærøskøbing, Łódź, İstanbul, Straße
Greek:    Καλημέρα κόσμε
Cyrillic: Съешь же ещё этих мягких французских булок
CJK:      你好，世界 · こんにちは世界 · 안녕하세요
Symbols:  → ⇒ ∀ ∃ ∑ √ ∞ ≠ ≤ ≥ ° € £ ¥ © ™
Emoji:    🚀 🌍 🎉 🐍 ☕
Box:      ┌─┬─┐ │ │ │ └─┴─┘
"""

CONFIG: dict[str, Any] = {
    "server": "inspector-demo",
    "features": {"progress": True, "sampling": True, "elicitation": ["form", "url"]},
    "limits": {"max_steps": 100, "max_interval_ms": 10000},
    "flags": [True, False, None],
    "pi": 3.14159,
    "greeting": "¡Hola! 👋",
}


def register_resources(server: MCPServer[Any], state: DemoState) -> None:
    """Register the resources (readme, notes, config, source, text, image, audio, the bonus) and the templates."""
    started = datetime.now(UTC).isoformat(timespec="seconds")

    @server.resource(
        README_URI,
        name="readme",
        title="Read me first",
        description="What this demo server offers and what to try (Markdown).",
        mime_type="text/markdown",
        icons=media.icon("document"),
        annotations=Annotations(audience=["user"], priority=1.0, last_modified=started),
    )
    def readme() -> str:
        return README

    @server.resource(
        NOTES_URI,
        name="notes",
        title="Notes (changes at runtime)",
        description="Grows each time the append_note tool runs; subscribe to it to see updates.",
        mime_type="text/plain",
        annotations=Annotations(audience=["user", "assistant"], priority=0.8),
    )
    def notes() -> str:
        return state.notes_text()

    @server.resource(
        CONFIG_URI,
        name="config",
        title="Configuration (JSON)",
        description="A JSON document with nested objects, arrays, numbers, booleans and null.",
        mime_type="application/json",
    )
    def config() -> str:
        return json.dumps(CONFIG, indent=2, ensure_ascii=False)

    @server.resource(
        SOURCE_URI,
        name="fizzbuzz.py",
        title="Python source",
        description="A short Python module, for syntax highlighting.",
        mime_type="text/x-python",
        annotations=Annotations(audience=["assistant"], priority=0.3),
    )
    def source() -> str:
        return SOURCE

    @server.resource(
        UNICODE_URI,
        name="unicode",
        title="Unicode sampler",
        description="Accents, Greek, Cyrillic, CJK, symbols and emoji.",
        mime_type="text/plain",
    )
    def unicode_text() -> str:
        return UNICODE_TEXT

    @server.resource(
        IMAGE_URI,
        name="gradient.png",
        title="Gradient image",
        description="A 64×48 PNG generated in memory (binary blob).",
        mime_type=media.PNG_MIME,
        icons=media.icon("media"),
    )
    def image() -> bytes:
        return media.gradient_png()

    @server.resource(
        AUDIO_URI,
        name="a440.wav",
        title="Tuning fork (A4)",
        description="Half a second of a 440 Hz sine wave, 8 kHz mono WAV (binary blob).",
        mime_type=media.WAV_MIME,
    )
    def audio() -> bytes:
        return media.sine_wav()

    @server.resource(
        EXTRA_RESOURCE,
        name="bonus.txt",
        title="Bonus resource",
        description="Appears and disappears with the toggle_extras tool.",
        mime_type="text/plain",
    )
    def bonus() -> str:
        return "You found the bonus resource. Toggle it off again with toggle_extras.\n"

    register_templates(server)


def register_templates(server: MCPServer[Any]) -> None:
    """Register the resource templates: a user, a file and a city's weather."""

    @server.resource(
        "demo://users/{user_id}",
        name="user",
        title="User profile",
        description="A made-up user profile as JSON. user_id completes (try 'a').",
        mime_type="application/json",
    )
    def user(user_id: str) -> str:
        profile = sample_data.USERS.get(user_id)
        if profile is None:
            raise ResourceNotFoundError(f"no user {user_id!r}; known ids: {', '.join(sample_data.USERS)}")
        return json.dumps({"id": user_id, **profile}, indent=2, ensure_ascii=False)

    @server.resource(
        "demo://files/{+path}",
        name="file",
        title="Project file",
        description="A file of a small made-up project; {+path} may contain slashes and completes segment by segment.",
        mime_type="text/plain",
        icons=media.icon("document"),
    )
    def file(path: str) -> str:
        if path not in sample_data.FILES:
            raise ResourceNotFoundError(f"no file {path!r}")
        return sample_data.FILES[path]

    @server.resource(
        "demo://weather/{city}{?units}",
        name="weather",
        title="Weather by city",
        description="Pretend weather as JSON; city completes, the optional units query is metric or imperial.",
        mime_type="application/json",
        icons=media.icon("weather"),
    )
    def weather(city: str, units: str = "metric") -> str:
        if units not in ("metric", "imperial"):
            raise ResourceError("units must be metric or imperial")
        return json.dumps(sample_data.weather_for(city, units), indent=2, ensure_ascii=False)
