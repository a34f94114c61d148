"""Content blocks (tool results, prompt messages, resource contents) as widgets."""

from __future__ import annotations

import base64
import binascii
import io
import json
from collections.abc import Callable
from functools import partial
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from inspector.core.safetext import visible
from inspector.tui import looks
from inspector.tui.gaps import hold_gaps
from inspector.tui.looks import ThemedSyntax
from inspector.tui.safe import json_syntax, plain, plain_line
from inspector.tui.widgets.big_text import HIGHLIGHT_LIMIT, LazyBody, LazyText, prepare_json, prepare_text

__all__ = [
    "BlockView",
    "ContentList",
    "PreparedText",
    "decode_blob",
    "image_cells",
    "prepare_blocks",
    "resource_body",
    "save_blob",
]

MAX_TEXT_SHOWN = 200_000
MAX_IMAGE_CELLS = 48

_LEXERS = {
    "application/json": "json",
    "text/markdown": "markdown",
    "text/x-python": "python",
    "text/python": "python",
    "application/x-python": "python",
    "text/html": "html",
    "text/css": "css",
    "application/javascript": "javascript",
    "text/javascript": "javascript",
    "application/xml": "xml",
    "text/xml": "xml",
    "application/yaml": "yaml",
    "text/yaml": "yaml",
    "text/x-sh": "bash",
    "application/toml": "toml",
}


def decode_blob(data: Any) -> bytes | None:
    """The bytes of a base64 string; None for anything else or bad base64."""
    if not isinstance(data, str):
        return None
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


_EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "image/svg+xml": ".svg",
    "audio/wav": ".wav",
    "audio/x-wav": ".wav",
    "audio/mpeg": ".mp3",
    "audio/ogg": ".ogg",
    "application/json": ".json",
    "text/plain": ".txt",
    "text/markdown": ".md",
}


def save_blob(data: bytes, mime: str, stem: str, directory: str | None = None) -> str:
    """Write bytes to a new file in `directory` (default: the working directory,
    or the temporary directory when that cannot be written); returns the path."""
    import os
    import tempfile

    suffix = _EXTENSIONS.get(mime.split(";")[0].strip().lower(), ".bin")
    folders = [directory] if directory else [os.getcwd(), tempfile.gettempdir()]
    failure: OSError | None = None
    for folder in folders:
        try:
            return _write_new(os.path.join(folder, stem), suffix, data)
        except OSError as exc:
            failure = exc
    assert failure is not None
    raise failure


def _write_new(base: str, suffix: str, data: bytes) -> str:
    import os

    path, counter = base + suffix, 1
    while True:
        try:
            with open(path, "xb") as handle:
                handle.write(data)
            return path
        except FileExistsError:
            counter += 1
            path = f"{base}-{counter}{suffix}"
        except OSError:
            # A half-written file is worse than none.
            if os.path.exists(path):
                os.unlink(path)
            raise


def _size(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MiB"


def image_cells(data: bytes, max_width: int = MAX_IMAGE_CELLS) -> Text:
    """A character-cell drawing of an image: each cell shows two pixels with ▀."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as opened:
        image = opened.convert("RGB")
        width, height = image.size
        scale = min(1.0, max_width / max(width, 1))
        cols = max(1, int(width * scale))
        rows = max(2, int(height * scale) // 2 * 2)
        small = image.resize((cols, rows))
        pixels = small.load()
        assert pixels is not None
    text = Text(no_wrap=True)
    for y in range(0, rows, 2):
        for x in range(cols):
            top = pixels[x, y]
            bottom = pixels[x, y + 1] if y + 1 < rows else top
            assert isinstance(top, tuple) and isinstance(bottom, tuple)
            text.append("▀", style=f"rgb({top[0]},{top[1]},{top[2]}) on rgb({bottom[0]},{bottom[1]},{bottom[2]})")
        text.append("\n")
    return text


def _audio_facts(data: bytes, mime: str) -> str:
    if "wav" in mime:
        import wave

        try:
            with wave.open(io.BytesIO(data)) as wav:
                seconds = wav.getnframes() / float(wav.getframerate() or 1)
                return f"{seconds:.2f} s, {wav.getframerate()} Hz, {wav.getnchannels()} channel(s)"
        except (wave.Error, EOFError):
            return "unreadable WAV data"
    return "duration unknown for this type"


def text_body(text: str, mime: str | None = None) -> RenderableType:
    """Text by type: pretty JSON when it parses, highlighted source, else plain."""
    shown = text if len(text) <= MAX_TEXT_SHOWN else text[:MAX_TEXT_SHOWN]
    note = f"\n… {len(text) - MAX_TEXT_SHOWN} more characters (save to see all)" if len(text) > MAX_TEXT_SHOWN else ""
    stripped = shown.lstrip()
    if stripped.startswith(("{", "[")) and not note:
        try:
            return json_syntax(json.loads(shown))
        except ValueError:
            pass
    lexer = _LEXERS.get((mime or "").split(";")[0].strip().lower())
    if lexer is not None:
        return ThemedSyntax(visible(shown) + note, lexer, word_wrap=True, background_color="default")
    return plain(shown + note)


# A large text block's body, prepared off the UI loop: (text, is JSON).
PreparedText = tuple[str, bool]


def prepare_text_body(text: str) -> PreparedText:
    """What `text_body` shows, as prepared text for a `LazyText` (run it in a thread)."""
    shown = text if len(text) <= MAX_TEXT_SHOWN else text[:MAX_TEXT_SHOWN]
    if len(text) > MAX_TEXT_SHOWN:
        return prepare_text(shown + f"\n… {len(text) - MAX_TEXT_SHOWN} more characters (save to see all)"), False
    if shown.lstrip().startswith(("{", "[")):
        try:
            return prepare_json(json.loads(shown)), True
        except ValueError:
            pass
    return prepare_text(shown), False


def prepare_blocks(blocks: list[Any]) -> dict[int, PreparedText]:
    """The bodies of the large text blocks of a result, by index (run it in a thread)."""
    prepared: dict[int, PreparedText] = {}
    for index, block in enumerate(blocks):
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str) and len(text) > HIGHLIGHT_LIMIT:
                prepared[index] = prepare_text_body(text)
    return prepared


def resource_body(contents: dict[str, Any]) -> RenderableType:
    """How one resource content is drawn: its text, an image, or a hex preview of other bytes."""
    mime = contents.get("mimeType") if isinstance(contents.get("mimeType"), str) else None
    if isinstance(contents.get("text"), str):
        return text_body(contents["text"], mime)
    data = decode_blob(contents.get("blob"))
    if data is None:
        return Text("blob is not valid base64", style=looks.ERROR_STRONG)
    if mime and mime.startswith("image/"):
        try:
            return image_cells(data)
        except Exception as exc:  # Pillow raises many types for bad images  # noqa: BLE001
            return Text(f"cannot draw image: {exc}", style=looks.ERROR)
    return hex_preview(data)


def hex_preview(data: bytes, limit: int = 256) -> Text:
    """The size of *data* and a hex dump of its first *limit* bytes."""
    text = Text(f"{_size(len(data))} binary\n", style="bold")
    for offset in range(0, min(len(data), limit), 16):
        chunk = data[offset : offset + 16]
        hexes = " ".join(f"{b:02x}" for b in chunk)
        chars = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        text.append(f"{offset:08x}  {hexes:<48}  {chars}\n", style="dim")
    if len(data) > limit:
        text.append(f"… {len(data) - limit} more bytes\n", style="dim")
    return text


class BlockView(Vertical):
    """One content block with a title line and its body."""

    DEFAULT_CSS = """
    BlockView { height: auto; margin: 0 0 1 0; border-left: thick $primary-muted; padding: 0 1; }
    BlockView.error { border-left: thick $error; }
    BlockView > .block-title { color: $text-muted; }
    """

    BINDINGS = [
        Binding("s", "save", "Save to file", id="save_block"),
        Binding("enter", "read_link", "Read link", id="read_link"),
    ]

    class ReadLink(Message):
        """Asks for the resource at *uri* to be read (enter on a resource link)."""

        def __init__(self, uri: str) -> None:
            super().__init__()
            self.uri = uri

    def __init__(self, block: Any, index: int, prepared: PreparedText | None = None) -> None:
        super().__init__()
        self.block = block if isinstance(block, dict) else {"type": "?", "value": block}
        self.index = index
        self.prepared = prepared
        self.can_focus = self.block.get("type") in ("image", "audio", "resource_link", "resource")

    @property
    def binary(self) -> tuple[bytes, str] | None:
        """The block's bytes and MIME type (a text's as UTF-8); None when it carries none or its base64 is bad."""
        block = self.block
        kind = block.get("type")
        if kind in ("image", "audio"):
            data = decode_blob(block.get("data"))
            return (data, str(block.get("mimeType") or "")) if data is not None else None
        if kind == "resource":
            resource: dict[str, Any] = block["resource"] if isinstance(block.get("resource"), dict) else {}
            data = decode_blob(resource.get("blob"))
            if data is not None:
                return data, str(resource.get("mimeType") or "")
            if isinstance(resource.get("text"), str):
                return resource["text"].encode(), str(resource.get("mimeType") or "text/plain")
        if kind == "text" and isinstance(block.get("text"), str):
            return block["text"].encode(), "text/plain"
        return None

    def compose(self) -> ComposeResult:
        if self.prepared is not None:
            # A large text: its body was prepared in a thread and is drawn a screen at a time.
            text = self.block.get("text")
            title = Text(f"[{self.index + 1}] text", style="bold")
            title.append(f"  {len(text) if isinstance(text, str) else 0} chars", style="dim")
            yield Static(hold_gaps(title), classes="block-title")
            prepared, is_json = self.prepared
            yield LazyText(prepared, json=is_json, classes="block-body")
            return
        text = self._big_text()
        if text is not None:
            # A large text that was not prepared: it is, in a thread, once shown.
            title = self._title()
            if self.block.get("type") == "text":
                title.append(f"  {len(text)} chars", style="dim")
            yield Static(hold_gaps(title), classes="block-title")
            yield LazyBody(partial(prepare_text_body, text), classes="block-body")
            return
        title, body = self._title_and_body()
        yield Static(hold_gaps(title), classes="block-title")
        picture = self._graphics()
        yield picture if picture is not None else Static(body)

    def _big_text(self) -> str | None:
        """The text of a text block or a text resource above HIGHLIGHT_LIMIT."""
        block = self.block
        if block.get("type") == "text":
            text = block.get("text")
        elif block.get("type") == "resource" and isinstance(block.get("resource"), dict):
            text = block["resource"].get("text")
        else:
            return None
        return text if isinstance(text, str) and len(text) > HIGHLIGHT_LIMIT else None

    def _title(self) -> Text:
        """The title line of a text block or a resource (as `_title_and_body` makes it)."""
        block = self.block
        label = Text(f"[{self.index + 1}] {block.get('type')}", style="bold")
        resource = block.get("resource")
        if isinstance(resource, dict):
            label.append_text(plain_line(f"  {resource.get('uri', '?')} {resource.get('mimeType', '')}", 100))
        return label

    def _graphics(self) -> Any:
        """The image drawn with a terminal graphics protocol, when there is one."""
        block = self.block
        if block.get("type") == "image":
            data = decode_blob(block.get("data"))
        elif block.get("type") == "resource" and isinstance(block.get("resource"), dict):
            resource = block["resource"]
            mime = resource.get("mimeType")
            data = decode_blob(resource.get("blob")) if isinstance(mime, str) and mime.startswith("image/") else None
        else:
            return None
        if data is None:
            return None
        from inspector.tui.graphics import graphics_widget

        try:
            return graphics_widget(data)
        except Exception:  # noqa: BLE001 - Pillow raises many types; fall back to cells
            return None

    def _title_and_body(self) -> tuple[Text, RenderableType]:
        block = self.block
        kind = str(block.get("type"))
        label = Text(f"[{self.index + 1}] {kind}", style="bold")
        shown = _BLOCK_BODIES.get(kind)
        if shown is None:
            return label, json_syntax(block)
        return shown(label, block)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "save":
            return self.block.get("type") in ("image", "audio", "resource")
        if action == "read_link":
            return self.block.get("type") == "resource_link"
        return True

    def action_read_link(self) -> None:
        uri = self.block.get("uri")
        if isinstance(uri, str):
            self.post_message(self.ReadLink(uri))

    def action_save(self) -> None:
        binary = self.binary
        if binary is None:
            self.app.notify("this block holds nothing to save", severity="warning")
            return
        data, mime = binary
        try:
            path = save_blob(data, mime, f"mcp-{self.block.get('type')}-{self.index + 1}")
        except OSError as exc:
            self.app.notify(f"could not save: {exc}", severity="error", markup=False)
            return
        self.app.notify(f"saved {len(data)} bytes to {path}", markup=False)


class ContentList(Vertical):
    """All blocks of a result, in order."""

    DEFAULT_CSS = """
    ContentList { height: auto; }
    """

    def __init__(
        self, blocks: list[Any], *, prepared: dict[int, PreparedText] | None = None, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.blocks = blocks
        self.prepared = prepared or {}

    def compose(self) -> ComposeResult:
        for index, block in enumerate(self.blocks):
            yield BlockView(block, index, self.prepared.get(index))


def _text_block(label: Text, block: dict[str, Any]) -> tuple[Text, RenderableType]:
    text = block.get("text")
    if not isinstance(text, str):
        return label, Text(f"text is not a string: {text!r}", style=looks.ERROR)
    label.append(f"  {len(text)} chars", style="dim")
    return label, text_body(text)


def _media_block(label: Text, block: dict[str, Any]) -> tuple[Text, RenderableType]:
    """An image (drawn in cells) or audio (its facts), with its type and size in the title."""
    kind = block.get("type")
    mime = str(block.get("mimeType") or "?")
    data = decode_blob(block.get("data"))
    label.append_text(plain_line(f"  {mime}", 40, style="dim"))
    if data is None:
        return label, Text("data is not valid base64", style=looks.ERROR_STRONG)
    label.append(f"  {_size(len(data))}  (s: save to file)", style="dim")
    if kind == "image":
        try:
            return label, image_cells(data)
        except Exception as exc:  # Pillow raises many types for bad images  # noqa: BLE001
            return label, Text(f"cannot draw image: {exc}", style=looks.ERROR)
    return label, Text(_audio_facts(data, mime))


def _link_block(label: Text, block: dict[str, Any]) -> tuple[Text, RenderableType]:
    label.append("  (enter: read it)", style="dim")
    body = Text()
    body.append_text(plain_line(str(block.get("uri", "?")), 200, style="underline"))
    for key in ("name", "title", "mimeType", "description"):
        if isinstance(block.get(key), str):
            body.append(f"\n{key}: ", style="dim")
            body.append_text(plain_line(block[key], 200))
    return label, body


def _resource_block(label: Text, block: dict[str, Any]) -> tuple[Text, RenderableType]:
    resource = block.get("resource")
    if not isinstance(resource, dict):
        return label, Text("resource is not an object", style=looks.ERROR)
    label.append_text(plain_line(f"  {resource.get('uri', '?')} {resource.get('mimeType', '')}", 100))
    return label, resource_body(resource)


# A content block's title and body, by its type; any other type is shown as JSON.
_BLOCK_BODIES: dict[str, Callable[[Text, dict[str, Any]], tuple[Text, RenderableType]]] = {
    "text": _text_block,
    "image": _media_block,
    "audio": _media_block,
    "resource_link": _link_block,
    "resource": _resource_block,
}
