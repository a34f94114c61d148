"""A frame as one line of a `--record` file, and back.

The line keeps the exact bytes (as text, or base64 when they are not UTF-8)
and what the session knew of the frame; reading a line parses the bytes
again, so a loaded frame is what a live one would have been.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from inspector.core.checks.problems import Problem
from inspector.core.record.traffic import JSONRPC_KINDS, UNPARSED, Frame

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["JsonlRecorder", "frame_from_record", "frame_to_record"]

RecordMask = Callable[["JSONObject"], "JSONObject"]


def _raw_fields(raw: bytes) -> JSONObject:
    try:
        return {"raw": raw.decode("utf-8")}
    except UnicodeDecodeError:
        return {"raw_b64": base64.b64encode(raw).decode("ascii")}


def _optional_fields(frame: Frame) -> tuple[tuple[str, Any], ...]:
    """The line's optional keys in their written order; None means left out."""
    latency = frame.latency
    return (
        ("error", frame.error),
        ("method", frame.method),
        ("id", frame.id),
        ("latency_ms", None if latency is None else round(latency * 1000, 3)),
        ("partner", frame.partner),
        ("meta", frame.meta or None),
        ("note", frame.note),
        ("problems", list(frame.problems) if frame.problems else None),
        ("findings", [problem.to_dict() for problem in frame.findings] if frame.findings else None),
    )


def frame_to_record(frame: Frame, mask: RecordMask | None = None) -> JSONObject:
    """A JSON-serialisable dict for one frame (the `--record` line format)."""
    record: JSONObject = {
        "seq": frame.seq,
        "time": round(frame.time, 6),
        "dir": frame.direction,
        "kind": frame.kind,
    }
    if frame.raw is not None:
        record.update(_raw_fields(frame.raw))
    for key, value in _optional_fields(frame):
        if value is not None:
            record[key] = value
    return mask(record) if mask is not None else record


def frame_from_record(record: JSONObject) -> Frame:
    """Rebuild a frame from a recorded line (re-parsing the raw text)."""
    raw: bytes | None = None
    if "raw" in record:
        raw = record["raw"].encode("utf-8", errors="surrogateescape")
    elif "raw_b64" in record:
        raw = base64.b64decode(record["raw_b64"])
    message: Any = None
    error = record.get("error")
    if raw is not None and record.get("kind") in JSONRPC_KINDS and error is None:
        try:
            json.loads(raw)
        except ValueError as exc:
            error = str(exc)
        except RecursionError:
            error = "nested too deeply to parse"
        else:
            # Parsed again from the raw text when asked for, like a live frame's.
            message = UNPARSED
    latency = record.get("latency_ms")
    frame = Frame(
        seq=int(record["seq"]),
        time=float(record.get("time", 0.0)),
        direction=str(record.get("dir", "local")),
        kind=str(record.get("kind", "transport")),
        raw=raw,
        message=message,
        error=error,
        method=sys.intern(record["method"]) if isinstance(record.get("method"), str) else None,
        id=record.get("id"),
        latency=latency / 1000 if isinstance(latency, (int, float)) else None,
        partner=record.get("partner"),
        meta=record.get("meta"),
        note=record.get("note"),
    )
    problems = record.get("problems")
    if problems:
        frame.problems.extend(problems)
    findings = record.get("findings")
    if isinstance(findings, list) and findings:
        frame.findings.extend(Problem.from_dict(f) for f in findings if isinstance(f, dict))
    return frame


class JsonlRecorder:
    """Writes each frame as one JSON line, flushed at once so a crash loses nothing."""

    def __init__(self, stream: IO[str], mask: RecordMask | None = None) -> None:
        self._stream = stream
        self._mask = mask

    @classmethod
    def open(cls, path: str, mask: RecordMask | None = None) -> JsonlRecorder:
        return cls(open(path, "w", encoding="utf-8"), mask)

    def __call__(self, frame: Frame) -> None:
        self._stream.write(json.dumps(frame_to_record(frame, self._mask), ensure_ascii=False) + "\n")
        self._stream.flush()

    def close(self) -> None:
        self._stream.close()
