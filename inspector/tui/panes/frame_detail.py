"""The selected frame's detail in the Traffic pane: its header line, the
problems found in it, its transport facts, its message and raw text (a large
frame prepared off the UI loop and drawn a screen at a time)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from inspector.core.record.traffic import Frame
from inspector.tui import looks
from inspector.tui.gaps import hold_gaps
from inspector.tui.panes.problems import severity_style
from inspector.tui.safe import json_syntax, plain, plain_line
from inspector.tui.widgets.big_text import LazyText, prepare_json, prepare_text

__all__ = ["MAX_DETAIL_CHARS", "BigFrame", "FrameDetail", "frame_detail", "prepare_frame"]

MAX_DETAIL_CHARS = 100_000
# A frame above HIGHLIGHT_LIMIT bytes is prepared in a thread and drawn a
# screen at a time (`LazyText`); these bound what such a frame shows.
MAX_PRETTY_BYTES = 4_000_000
MAX_LAZY_RAW_CHARS = 1_000_000


class FrameDetail(VerticalScroll):
    """The selected frame's JSON and raw text; the arrows scroll it."""

    arrow_hint = "scroll"


@dataclass(frozen=True)
class BigFrame:
    """A large frame's texts, prepared off the UI loop (`prepare_frame`)."""

    message: str | None
    raw: str | None
    more: int


def prepare_frame(frame: Frame) -> BigFrame:
    """Pretty-print and make inert a large frame's message and raw text (in a thread)."""
    message = None
    if frame.size <= MAX_PRETTY_BYTES and frame.message is not None:
        message = prepare_json(frame.message)
    raw = more = None
    if frame.raw is not None:
        text = frame.raw[: MAX_LAZY_RAW_CHARS * 4].decode("utf-8", errors="replace")
        shown = text[:MAX_LAZY_RAW_CHARS]
        more = len(frame.raw) - len(shown.encode("utf-8", errors="replace"))
        raw = prepare_text(shown)
    return BigFrame(message, raw, more or 0)


def frame_detail(frame: Frame, big: BigFrame | None = None) -> list[Any]:
    """The widgets that show `frame`; `big`: its texts prepared by `prepare_frame`."""
    parts: list[Any] = [Static(hold_gaps(_head(frame)))]
    parts.extend(_findings(frame))
    parts.extend(_notes(frame))
    if big is not None:
        parts.extend(_big_parts(frame, big))
    else:
        parts.extend(_small_parts(frame))
    return parts


def _head(frame: Frame) -> Text:
    # `#N` is the frame's number in the log, as in the table's first column;
    # the JSON-RPC id is always written `id N`.
    head = Text()
    head.append(f"frame #{frame.seq} ", style="bold")
    head.append(f"{frame.direction} {frame.kind}", style=looks.INFO_STRONG)
    if frame.method:
        head.append_text(plain_line(f"  {frame.method}", 80, style="bold"))
    if frame.id is not None:
        head.append_text(plain_line(f"  id {frame.id}", 40))
    stamp = time.strftime("%H:%M:%S", time.localtime(frame.time)) + f".{int(frame.time * 1000) % 1000:03d}"
    head.append(f"  {stamp}", style="dim")
    if frame.latency is not None:
        head.append(f"  {frame.latency * 1000:.2f} ms", style=looks.WARNING)
    if frame.raw is not None:
        head.append(f"  {frame.size} bytes", style="dim")
    _append_links(head, frame)
    return head


def _append_links(head: Text, frame: Frame) -> None:
    """The frames this one points to: its partner, the request it retries."""
    if frame.partner is not None:
        head.append(f"  partner frame #{frame.partner} (p jumps there)", style=looks.ACCENT)
    retry_of = frame.meta.get("retry_of") if isinstance(frame.meta, dict) else None
    if isinstance(retry_of, int):
        head.append(f"  retry of frame #{retry_of} (o jumps there)", style=looks.ACCENT)


def _findings(frame: Frame) -> list[Any]:
    """The frame's problems, then the wire validation's findings."""
    parts: list[Any] = [Static(plain(f"⚠ {problem}", style=looks.ERROR_STRONG)) for problem in frame.problems]
    for finding in frame.findings:
        line = Text(f"{finding.severity} [{finding.rule}] ", style=severity_style(finding.severity))
        if finding.where:
            line.append_text(plain(finding.where + ": ", style="bold"))
        line.append_text(plain(finding.message))
        if finding.url:
            line.append("  ")
            line.append_text(plain(finding.url, style="dim underline"))
        parts.append(Static(line))
    return parts


def _notes(frame: Frame) -> list[Any]:
    """The parse error, the note beside a raw text, the transport facts."""
    parts: list[Any] = []
    if frame.error:
        parts.append(Static(plain(f"parse error: {frame.error}", style=looks.ERROR_STRONG)))
    if frame.note and frame.raw is not None:
        parts.append(Static(plain(frame.note, style="italic")))
    if frame.meta:
        parts.append(Static(Text("transport", style="bold")))
        parts.append(Static(json_syntax(frame.meta)))
    return parts


def _too_large(frame: Frame) -> Static:
    return Static(Text(f"message too large to pretty-print ({frame.size} bytes); raw below", style=looks.WARNING))


def _small_parts(frame: Frame) -> list[Any]:
    """A frame small enough to colour and draw at once: its message, then its raw text (or its note)."""
    parts: list[Any] = []
    if frame.message is not None:
        if frame.size > MAX_DETAIL_CHARS:
            parts.append(_too_large(frame))
        else:
            parts.append(Static(Text("message", style="bold")))
            parts.append(Static(json_syntax(frame.message)))
    if frame.raw is not None:
        raw = frame.text()
        shown = raw[:MAX_DETAIL_CHARS]
        parts.append(Static(Text("raw", style="bold")))
        parts.append(
            Static(plain(shown + (f"\n… {len(raw) - len(shown)} more characters" if len(raw) > len(shown) else "")))
        )
    elif frame.note:
        parts.append(Static(plain(frame.note)))
    return parts


def _big_parts(frame: Frame, big: BigFrame) -> list[Any]:
    """A large frame: its texts drawn a screen at a time, JSON coloured as it scrolls into view."""
    parts: list[Any] = []
    if big.message is not None:
        parts.append(Static(Text("message", style="bold")))
        parts.append(LazyText(big.message, json=True, classes="detail-message"))
    elif frame.message is not None:
        parts.append(_too_large(frame))
    if big.raw is not None:
        parts.append(Static(Text("raw", style="bold")))
        parts.append(LazyText(big.raw, classes="detail-raw"))
        if big.more > 0:
            parts.append(Static(Text(f"… {big.more} more bytes (c copies the whole frame)", style="dim")))
    return parts
