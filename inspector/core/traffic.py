"""The recorded log of everything that crossed the wire.

Every frame is recorded before it is interpreted: the exact bytes, then the
parsed message or the reason it could not be parsed.  Transport events that
are not JSON-RPC (stderr lines, HTTP status lines, process start and exit)
are frames too, so one ordered log tells the whole story of a session.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from .problems import Problem

__all__ = [
    "Direction",
    "Frame",
    "FrameKind",
    "FrameMask",
    "JsonlRecorder",
    "TrafficLog",
    "classify",
    "frame_from_record",
    "frame_to_record",
]

# Direction: "out" = client to server, "in" = server to client, "local" = an
# event seen by the client itself (process exit, connection error, ...).
Direction = str

# Kinds of frames.  JSON-RPC frames: request, response, error, notification,
# batch, invalid.  Transport frames: stderr, http, sse, process, transport.
FrameKind = str

JSONRPC_KINDS = frozenset({"request", "response", "error", "notification", "batch", "invalid"})


def classify(message: Any) -> tuple[FrameKind, str | None, Any]:
    """Return (kind, method, id) for a parsed JSON-RPC message."""
    if isinstance(message, dict):
        method = message.get("method")
        if isinstance(method, str):
            if "id" in message:
                return "request", method, message["id"]
            return "notification", method, None
        if "error" in message and "id" in message:
            return "error", None, message["id"]
        if "result" in message and "id" in message:
            return "response", None, message["id"]
        return "invalid", None, message.get("id")
    if isinstance(message, list):
        return "batch", None, None
    return "invalid", None, None


@dataclass(slots=True, eq=False)
class Frame:
    """One entry of the traffic log."""

    seq: int
    time: float
    direction: Direction
    kind: FrameKind
    raw: bytes | None = None
    message: Any = None
    error: str | None = None
    method: str | None = None
    id: Any = None
    latency: float | None = None
    partner: int | None = None
    meta: dict[str, Any] | None = None
    note: str | None = None
    problems: list[str] = field(default_factory=list)
    # Structured findings of the wire validation (`validation.FrameValidator`).
    findings: list[Problem] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.raw) if self.raw is not None else 0

    @property
    def is_jsonrpc(self) -> bool:
        return self.kind in JSONRPC_KINDS

    def text(self) -> str:
        """The raw bytes as text; undecodable bytes shown as U+FFFD."""
        if self.raw is None:
            return self.note or ""
        return self.raw.decode("utf-8", errors="replace")


Observer = Callable[[Frame], None]
# Rewrites a new frame in place before anyone sees it (secrets masked); it
# must replace, never mutate, the frame's message and meta: the session
# still acts on the objects it handed over.
FrameMask = Callable[[Frame], None]


class TrafficLog:
    """An append-only, observable list of frames.

    Observers are called synchronously for every frame, in order.  A failing
    observer is reported on the log itself rather than breaking the session.

    `mask` (see `recording.mask_traffic`) rewrites each frame as it is added,
    so every view of the log (panes, copies, recordings, exports) sees the
    masked text and none has to remember to mask.
    """

    def __init__(self, *, retain: bool = True, mask: FrameMask | None = None) -> None:
        # A one-shot command that streams frames to observers need not keep
        # them: a 100 MB result would otherwise stay in memory twice.
        self.retain = retain
        self.frames: list[Frame] = []
        self.mask = mask
        self._observers: list[Observer] = []
        self._seq = 0

    def __len__(self) -> int:
        return len(self.frames)

    def __iter__(self) -> Iterator[Frame]:
        return iter(self.frames)

    def subscribe(self, observer: Observer) -> Callable[[], None]:
        self._observers.append(observer)

        def unsubscribe() -> None:
            if observer in self._observers:
                self._observers.remove(observer)

        return unsubscribe

    def add(
        self,
        direction: Direction,
        kind: FrameKind,
        *,
        raw: bytes | None = None,
        message: Any = None,
        error: str | None = None,
        method: str | None = None,
        id: Any = None,
        latency: float | None = None,
        partner: int | None = None,
        meta: dict[str, Any] | None = None,
        note: str | None = None,
        problems: list[str] | None = None,
    ) -> Frame:
        """Append a frame and tell observers; `problems` known now travel with it."""
        self._seq += 1
        frame = Frame(
            self._seq,
            time.time(),
            direction,
            kind,
            raw,
            message,
            error,
            method,
            id,
            latency,
            partner,
            meta,
            note,
        )
        if problems:
            frame.problems.extend(problems)
        if self.mask is not None:
            self.mask(frame)
        if self.retain:
            self.frames.append(frame)
        for observer in self._observers:
            try:
                observer(frame)
            except Exception as exc:  # an observer must never break the session  # noqa: BLE001
                self._observers.remove(observer)
                self.event("local", "transport", note=f"traffic observer removed after error: {exc!r}")
        return frame

    def event(self, direction: Direction, kind: FrameKind, *, note: str, meta: dict[str, Any] | None = None) -> Frame:
        """Record a transport event (no JSON-RPC payload)."""
        return self.add(direction, kind, note=note, meta=meta)

    def partner_of(self, frame: Frame) -> Frame | None:
        """A request's answer, or an answer's request (None when it has none)."""
        return self.by_seq(frame.partner) if frame.partner is not None else None

    def by_seq(self, seq: int) -> Frame | None:
        # Sequence numbers start at 1 and are dense unless frames were loaded
        # from a recording, so try the direct index first.
        if 0 < seq <= len(self.frames) and self.frames[seq - 1].seq == seq:
            return self.frames[seq - 1]
        for frame in self.frames:
            if frame.seq == seq:
                return frame
        return None


def frame_to_record(frame: Frame, mask: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> dict[str, Any]:
    """A JSON-serialisable dict for one frame (the `--record` line format)."""
    record: dict[str, Any] = {
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
    if frame.meta:
        record["meta"] = frame.meta
    if frame.note is not None:
        record["note"] = frame.note
    if frame.problems:
        record["problems"] = list(frame.problems)
    if frame.findings:
        record["findings"] = [problem.to_dict() for problem in frame.findings]
    return mask(record) if mask is not None else record


def frame_from_record(record: dict[str, Any]) -> Frame:
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
            message = json.loads(raw)
        except ValueError as exc:
            error = str(exc)
    latency = record.get("latency_ms")
    frame = Frame(
        seq=int(record["seq"]),
        time=float(record.get("time", 0.0)),
        direction=str(record.get("dir", "local")),
        kind=str(record.get("kind", "transport")),
        raw=raw,
        message=message,
        error=error,
        method=record.get("method"),
        id=record.get("id"),
        latency=latency / 1000 if isinstance(latency, (int, float)) else None,
        partner=record.get("partner"),
        meta=record.get("meta"),
        note=record.get("note"),
    )
    frame.problems.extend(record.get("problems", []))
    findings = record.get("findings")
    if isinstance(findings, list):
        frame.findings.extend(Problem.from_dict(f) for f in findings if isinstance(f, dict))
    return frame


class JsonlRecorder:
    """Writes each frame as one JSON line, flushed at once so a crash loses nothing."""

    def __init__(self, stream: IO[str], mask: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
        self._stream = stream
        self._mask = mask

    @classmethod
    def open(cls, path: str, mask: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> JsonlRecorder:
        return cls(open(path, "w", encoding="utf-8"), mask)

    def __call__(self, frame: Frame) -> None:
        self._stream.write(json.dumps(frame_to_record(frame, self._mask), ensure_ascii=False) + "\n")
        self._stream.flush()

    def close(self) -> None:
        self._stream.close()
