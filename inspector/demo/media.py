"""Small media generated in memory: a gradient PNG, a sine-tone WAV and SVG icons.

Everything is built on first use and cached, so the demo ships no binary files and a client
that never asks for media never pays for Pillow.
"""

from __future__ import annotations

import base64
import io
import math
import struct
import wave
from functools import cache

from mcp_types import Icon

PNG_MIME = "image/png"
WAV_MIME = "audio/wav"


@cache
def gradient_png(width: int = 64, height: int = 48) -> bytes:
    """A hue sweep left to right, fading to dark towards the bottom; a few hundred bytes."""
    from PIL import Image

    image = Image.new("RGB", (width, height))
    pixels = []
    for y in range(height):
        shade = 1.0 - 0.6 * y / max(height - 1, 1)
        for x in range(width):
            r, g, b = _hue_to_rgb(x / width)
            pixels.append((int(r * shade), int(g * shade), int(b * shade)))
    image.putdata(pixels)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def _hue_to_rgb(hue: float) -> tuple[int, int, int]:
    sector = hue * 6.0
    rising = sector - math.floor(sector)
    falling = 1.0 - rising
    channels = [
        (1.0, rising, 0.0),
        (falling, 1.0, 0.0),
        (0.0, 1.0, rising),
        (0.0, falling, 1.0),
        (rising, 0.0, 1.0),
        (1.0, 0.0, falling),
    ][int(sector) % 6]
    r, g, b = (round(255 * c) for c in channels)
    return r, g, b


@cache
def sine_wav(frequency: float = 440.0, seconds: float = 0.5, rate: int = 8000) -> bytes:
    """Mono 16-bit PCM; 8 kHz keeps half a second near 8 KB while still being audible as A4."""
    frames = int(rate * seconds)
    fade = max(frames // 20, 1)  # short fade in/out so players do not click
    samples = bytearray()
    for n in range(frames):
        envelope = min(1.0, n / fade, (frames - n) / fade)
        value = int(0.4 * 32767 * envelope * math.sin(2 * math.pi * frequency * n / rate))
        samples += struct.pack("<h", value)
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(bytes(samples))
    return buffer.getvalue()


def b64(data: bytes) -> str:
    """*data* in base64, as content blocks carry binary."""
    return base64.b64encode(data).decode("ascii")


def _svg_icon(body: str, background: str) -> str:
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24">'
        f'<rect width="24" height="24" rx="5" fill="{background}"/>{body}</svg>'
    )
    return "data:image/svg+xml;base64," + b64(svg.encode())


def icon(name: str) -> list[Icon]:
    """A one-element icon list for `name`; data: URIs so the demo needs no network."""
    body, background = _ICON_SHAPES[name]
    return [Icon(src=_svg_icon(body, background), mime_type="image/svg+xml", sizes=["24x24"])]


def server_icons() -> list[Icon]:
    """The server's own icons: an SVG for any theme plus a PNG raster, light and dark variants."""
    return [
        Icon(src=_svg_icon(*_ICON_SHAPES["server"]), mime_type="image/svg+xml", sizes=["any"]),
        Icon(src="data:image/png;base64," + b64(gradient_png(16, 16)), mime_type=PNG_MIME, sizes=["16x16"]),
        Icon(src=_svg_icon(*_ICON_SHAPES["server-dark"]), mime_type="image/svg+xml", sizes=["any"], theme="dark"),
    ]


_WHITE = 'fill="none" stroke="#fff" stroke-width="2" stroke-linecap="round"'
_ICON_SHAPES: dict[str, tuple[str, str]] = {
    "server": (f'<path d="M6 8h12M6 12h12M6 16h8" {_WHITE}/>', "#5b5bd6"),
    "server-dark": (f'<path d="M6 8h12M6 12h12M6 16h8" {_WHITE}/>', "#2a2a70"),
    "calculator": (f'<path d="M7 12h10M12 7v10" {_WHITE}/>', "#0f9d58"),
    "weather": ('<circle cx="12" cy="12" r="5" fill="#ffd54f"/>', "#4285f4"),
    "media": ('<path d="M9 7l8 5-8 5z" fill="#fff"/>', "#db4437"),
    "danger": (f'<path d="M12 6v7M12 17v1" {_WHITE}/>', "#c62828"),
    "form": (f'<path d="M7 8h10M7 12h10M7 16h6" {_WHITE}/>', "#00897b"),
    "clock": (f'<circle cx="12" cy="12" r="6" {_WHITE}/><path d="M12 9v3l2 2" {_WHITE}/>', "#6d4c41"),
    "chat": (f'<path d="M6 7h12v8h-7l-3 3v-3H6z" {_WHITE}/>', "#8e24aa"),
    "document": (f'<path d="M8 5h6l3 3v11H8z" {_WHITE}/>', "#546e7a"),
}
