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


def frame_to_record(frame: Frame, mask: RecordMask | None = None) -> JSONObject:
    """A JSON-serialisable dict for one frame (the `--record` line format)."""
    record: JSONObject = {
        "seq": frame.seq,
        "time": round(frame.time, 6),
        "dir": frame.direction,
        "kind": frame.kind,
    }
    if frame.raw is not None:
        try:
            record["raw"] = frame.raw.decode("utf-8")
        except UnicodeDecodeError:
            record["raw_b64"] = base64.b64encode(frame.raw).decode("ascii")
    _add_message_fields(record, frame)
    _add_notes(record, frame)
    return mask(record) if mask is not None else record


def _add_message_fields(record: JSONObject, frame: Frame) -> None:
    """What the session read of the message: its error, method, id, timing and partner."""
    if frame.error is not None:
        record["error"] = frame.error
    if frame.method is not None:
        record["method"] = frame.method
    if frame.id is not None:
        record["id"] = frame.id
    if frame.latency is not None:
        record["latency_ms"] = round(frame.latency * 1000, 3)
    if frame.partner is not None:
        record["partner"] = frame.partner


def _add_notes(record: JSONObject, frame: Frame) -> None:
    """What was said about the frame: transport meta, a note, problems, findings."""
    if frame.meta:
        record["meta"] = frame.meta
    if frame.note is not None:
        record["note"] = frame.note
    if frame.problems:
        record["problems"] = list(frame.problems)
    if frame.findings:
        record["findings"] = [problem.to_dict() for problem in frame.findings]


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
        """A recorder writing to a new file at `path` (an existing one is overwritten)."""
        return cls(open(path, "w", encoding="utf-8"), mask)

    def __call__(self, frame: Frame) -> None:
        self._stream.write(json.dumps(frame_to_record(frame, self._mask), ensure_ascii=False) + "\n")
        self._stream.flush()

    def close(self) -> None:
        """Close the stream."""
        self._stream.close()
