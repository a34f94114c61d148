"""Reading `--record` files back: the traffic, the lists the server sent, and
how the connection opened.  Used to reopen a session offline and to diff
two recordings."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from inspector.core.protocol.items import KIND_FIELDS, LIST_METHODS, ListResult, parse_item
from inspector.core.record.frame_lines import frame_from_record
from inspector.core.record.traffic import Frame, TrafficLog

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["RecordingError", "last_call", "lists_from_traffic", "load_recording", "opening"]


class RecordingError(ValueError):
    """A file that is not a recording we can read, with the reason."""


def load_recording(path: str, warnings: list[str] | None = None) -> TrafficLog:
    """Every frame of a JSON Lines recording, in order.

    A damaged line in the middle is an error naming it.  A damaged last line
    is what a crash while writing leaves behind (each frame is flushed as a
    whole line, so only the last one can be cut): it is skipped, with a
    warning in `warnings` and as a note frame at the end of the traffic.
    """
    try:
        handle = open(path, encoding="utf-8", errors="surrogateescape")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise RecordingError(f"cannot read {path}: {exc.strerror or exc}") from exc
    traffic = TrafficLog()
    with handle:
        damaged = _read_frames(path, handle, traffic.frames)
    if damaged is not None:
        _skip_damaged_end(path, damaged, traffic.frames, warnings)
    if not traffic.frames:
        raise RecordingError(f"{path} holds no frames")
    _link_partners(traffic)
    return traffic


def _read_frames(path: str, lines: Iterable[str], frames: list[Frame]) -> tuple[int, Exception] | None:
    """Append each recorded frame; the damaged last line, if any (line number, why)."""
    # A bad line is held back until the next good one shows it was not the last.
    damaged: tuple[int, Exception] | None = None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if damaged is not None:
            raise _damaged(path, *damaged)
        try:
            frame = frame_from_record(json.loads(line))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            damaged = (number, exc)
            continue
        frames.append(frame)
    return damaged


def _skip_damaged_end(
    path: str, damaged: tuple[int, Exception], frames: list[Frame], warnings: list[str] | None
) -> None:
    """A cut last line after good ones: a warning, and a note frame at the end."""
    if not frames:
        raise _damaged(path, *damaged)
    warning = (
        f"{path}:{damaged[0]}: the last line is cut short or damaged (a crash while recording?); "
        f"it is skipped ({damaged[1]})"
    )
    if warnings is not None:
        warnings.append(warning)
    last = frames[-1]
    frames.append(Frame(last.seq + 1, last.time, "local", "transport", note=warning))


def _link_partners(traffic: TrafficLog) -> None:
    """A request is written before its answer exists; the link is on the
    answer's line, so make it go both ways again."""
    for frame in traffic.frames:
        if frame.partner is not None and frame.direction == "in":
            partner = traffic.by_seq(frame.partner)
            if partner is not None and partner.partner is None:
                partner.partner = frame.seq


def _damaged(path: str, number: int, exc: Exception) -> RecordingError:
    return RecordingError(f"{path}:{number}: not a recorded frame ({exc}); only a damaged last line can be skipped")


def opening(traffic: TrafficLog) -> tuple[str, JSONObject]:
    """("legacy" | "modern" | "unknown", the initialize or discover result)."""
    found: tuple[str, JSONObject] = ("unknown", {})
    for frame in traffic:
        if frame.direction != "out" or frame.kind != "request" or frame.method not in ("initialize", "server/discover"):
            continue
        answer = traffic.partner_of(frame)
        if answer is None or answer.kind != "response" or not isinstance(answer.message, dict):
            continue
        result = answer.message.get("result")
        if isinstance(result, dict) and (frame.method == "initialize" or "supportedVersions" in result):
            found = ("legacy" if frame.method == "initialize" else "modern", result)
    return found


def lists_from_traffic(traffic: TrafficLog) -> dict[str, ListResult]:
    """The last complete listing of each kind the recording holds."""
    lists: dict[str, ListResult] = {}
    for kind, method in LIST_METHODS.items():
        key = KIND_FIELDS[kind][0]
        current: ListResult | None = None
        for frame in traffic:
            if frame.direction != "out" or frame.kind != "request" or frame.method != method:
                continue
            params = frame.message.get("params") if isinstance(frame.message, dict) else None
            first_page = not (isinstance(params, dict) and params.get("cursor"))
            if first_page:
                current = ListResult(kind)
            if current is None:
                continue
            answer = traffic.partner_of(frame)
            result = answer.message.get("result") if answer is not None and isinstance(answer.message, dict) else None
            if not isinstance(result, dict):
                current.problems.append(f"page {len(current.pages) + 1} has no result in the recording")
                continue
            current.pages.append(result)
            items = result.get(key)
            if isinstance(items, list):
                current.items.extend(parse_item(kind, raw, len(current.pages) - 1) for raw in items)
            if "nextCursor" not in result:
                lists[kind] = current
    return lists


def last_call(traffic: TrafficLog, tool: str) -> tuple[Frame, Frame | None] | None:
    """The last `tools/call` of `tool` the recording holds, and its answer if it has one."""
    for frame in reversed(traffic.frames):
        if frame.direction != "out" or frame.method != "tools/call" or not isinstance(frame.message, dict):
            continue
        params = frame.message.get("params")
        if isinstance(params, dict) and params.get("name") == tool:
            return frame, traffic.partner_of(frame)
    return None
