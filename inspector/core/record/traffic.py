"""The recorded log of everything that crossed the wire.

Every frame is recorded before it is interpreted: the exact bytes, then the
parsed message or the reason it could not be parsed.  Transport events that
are not JSON-RPC (stderr lines, HTTP status lines, process start and exit)
are frames too, so one ordered log tells the whole story of a session.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from inspector.core.checks.problems import Problem
from inspector.core.protocol.wire_json import loads

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = [
    "JSONRPC_KINDS",
    "RECENT",
    "UNPARSED",
    "Direction",
    "Frame",
    "FrameKind",
    "FrameMask",
    "TrafficLog",
    "classify",
    "parse_raw",
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


# A frame's message not parsed yet (or dropped from the recent cache): it is
# parsed again from the raw bytes when someone asks for it.
UNPARSED: Any = object()


def parse_raw(raw: bytes) -> Any:
    """The JSON value of raw frame bytes, or None when they are not JSON."""
    try:
        return loads(raw)
    except UnicodeDecodeError:
        # Our own frames encode lone surrogates (surrogatepass); json.loads
        # of the bytes refuses them, of the text it does not.
        try:
            return loads(raw.decode("utf-8", errors="surrogatepass"))
        except (ValueError, RecursionError):
            return None
    except (ValueError, RecursionError):
        return None


# Frames whose raw text is bigger count against the byte budget of the cache.
BIG_FRAME = 1 << 16


class RecentMessages:
    """The parsed messages of the frames added or looked at last.

    A frame does not keep its parsed message for good: 1,000,000 small
    frames would cost 1.6 GB as dicts.  Only the last `count` or so parsed
    messages stay (and about `budget` bytes of raw text behind them, the
    newest always kept), so the session and the views that just looked at
    a frame get the same object back without parsing twice.  Adding is an
    append; old entries are dropped in batches.
    """

    def __init__(self, count: int = 256, budget: int = 32 << 20) -> None:
        self.count = count
        self.budget = budget
        # Appended to by `TrafficLog.add` itself (the hot path); `settle`
        # is called once this reaches `limit` or a big frame came.
        self.entries: list[tuple[Frame, Any]] = []
        self.limit = 2 * count
        self._big = 0

    def keep(self, frame: Frame, message: Any) -> None:
        """Remember `message` as `frame`'s parsed message, dropping old entries once there are too many."""
        self.entries.append((frame, message))
        raw = frame.raw
        if len(self.entries) >= self.limit or (raw is not None and len(raw) > BIG_FRAME):
            self.settle(frame)

    def settle(self, newest: Frame) -> None:
        """Drop old entries: beyond `count`, or while big frames pass `budget`."""
        entries = self.entries
        raw = newest.raw
        if raw is not None and len(raw) > BIG_FRAME:
            self._big += len(raw)
            if self._big > self.budget:
                self._drop(len(entries) - 1)
                return
        if len(entries) >= self.limit:
            self._drop(len(entries) - self.count)

    def _drop(self, how_many: int) -> None:
        """Forget the oldest `how_many` entries."""
        entries = self.entries
        for old, old_message in entries[:how_many]:
            # A message set by hand since (a masked copy, say) stays.
            if old._message is old_message:
                old._message = UNPARSED
        del entries[:how_many]
        self._big = sum(len(f.raw) for f, _m in entries if f.raw is not None and len(f.raw) > BIG_FRAME)

    def clear(self) -> None:
        """Forget every entry (their frames parse their raw bytes again when asked)."""
        self._drop(len(self.entries))


RECENT = RecentMessages()


class _UnattachedList(list[Any]):
    """An empty list standing in for a frame's absent `problems`/`findings`:
    reading it costs the frame nothing; the first change attaches it."""

    __slots__ = ("_owner", "_slot")

    def __init__(self, owner: Frame, slot: str) -> None:
        super().__init__()
        self._owner: Frame | None = owner
        self._slot = slot

    def _attach(self) -> None:
        owner = self._owner
        if owner is not None:
            self._owner = None
            current = getattr(owner, self._slot)
            if current is None:
                setattr(owner, self._slot, self)

    def append(self, item: Any) -> None:
        self._attach()
        super().append(item)

    def extend(self, items: Any) -> None:
        self._attach()
        super().extend(items)

    def insert(self, index: Any, item: Any) -> None:
        self._attach()
        super().insert(index, item)

    def __iadd__(self, items: Any) -> Any:  # type: ignore[misc]
        self._attach()
        return super().__iadd__(items)

    def __setitem__(self, index: Any, value: Any) -> None:
        self._attach()
        super().__setitem__(index, value)


class Frame:
    """One entry of the traffic log.

    Kept small, since a session may hold millions: the raw bytes are the
    record and `message` is parsed from them on demand (the last few parsed
    messages are cached, see `RecentMessages`); `problems` and `findings`
    exist only once something is put in them.  A message that is not what
    `raw` parses to (no raw, a masked copy) is kept as given.
    """

    __slots__ = (
        "_findings",
        "_message",
        "_problems",
        "direction",
        "error",
        "id",
        "kind",
        "latency",
        "meta",
        "method",
        "note",
        "partner",
        "raw",
        "seq",
        "time",
    )

    def __init__(
        self,
        seq: int,
        time: float,
        direction: Direction,
        kind: FrameKind,
        raw: bytes | None = None,
        message: Any = None,
        error: str | None = None,
        method: str | None = None,
        id: Any = None,
        latency: float | None = None,
        partner: int | None = None,
        meta: JSONObject | None = None,
        note: str | None = None,
        problems: list[str] | None = None,
        findings: list[Problem] | None = None,
    ) -> None:
        self.seq = seq
        self.time = time
        self.direction = direction
        self.kind = kind
        self.raw = raw
        self._message = message
        self.error = error
        self.method = method
        self.id = id
        self.latency = latency
        self.partner = partner
        self.meta = meta
        self.note = note
        self._problems = problems or None
        self._findings = findings or None

    def __repr__(self) -> str:
        return f"Frame(seq={self.seq}, direction={self.direction!r}, kind={self.kind!r}, method={self.method!r})"

    @property
    def message(self) -> Any:
        """The parsed message (None when the frame has none or is not JSON)."""
        value = self._message
        if value is UNPARSED:
            raw = self.raw
            value = parse_raw(raw) if raw is not None else None
            self._message = value
            if value is not None:
                RECENT.keep(self, value)
        return value

    @message.setter
    def message(self, value: Any) -> None:
        self._message = value

    def parsed_lazily(self, message: Any) -> None:
        """`message` is what `raw` parses to: keep it only while it is recent."""
        self._message = message
        RECENT.keep(self, message)

    @property
    def problems(self) -> list[str]:
        """What the inspector noticed wrong with the frame, in words (the wire validation's: `findings`)."""
        found = self._problems
        return found if found is not None else _UnattachedList(self, "_problems")

    @problems.setter
    def problems(self, value: list[str]) -> None:
        # An empty list costs as much as the rest of a small frame: none kept.
        self._problems = value or None

    @property
    def has_problems(self) -> bool:
        """Whether `problems` holds any (without making an empty list to ask)."""
        return bool(self._problems)

    @property
    def findings(self) -> list[Problem]:
        """Structured findings of the wire validation (`frame_validator.FrameValidator`)."""
        found = self._findings
        return found if found is not None else _UnattachedList(self, "_findings")

    @findings.setter
    def findings(self, value: list[Problem]) -> None:
        # The validator sets an empty list on most frames: none kept.
        self._findings = value or None

    @property
    def size(self) -> int:
        """The raw bytes' length (0 for a frame without raw bytes)."""
        return len(self.raw) if self.raw is not None else 0

    @property
    def is_jsonrpc(self) -> bool:
        """Whether the frame is a JSON-RPC message (a request, answer, notification, batch, or an invalid one)."""
        return self.kind in JSONRPC_KINDS

    def text(self) -> str:
        """The raw bytes as text; undecodable bytes shown as U+FFFD."""
        if self.raw is None:
            return self.note or ""
        return self.raw.decode("utf-8", errors="replace")


# Told of each new frame; what it returns is not looked at.
Observer = Callable[[Frame], object]
# Rewrites a new frame in place before anyone sees it (secrets masked); it
# must replace, never mutate, the frame's message and meta: the session
# still acts on the objects it handed over.
FrameMask = Callable[[Frame], None]


_intern = sys.intern
_now = time.time


class TrafficLog:
    """An append-only, observable list of frames.

    Observers are called synchronously for every frame, in order.  A failing
    observer is reported on the log itself rather than breaking the session.

    `mask` (see `secret_mask.mask_traffic`) rewrites each frame as it is added,
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
        self._last_meta: JSONObject | None = None

    def __len__(self) -> int:
        return len(self.frames)

    def __iter__(self) -> Iterator[Frame]:
        return iter(self.frames)

    def subscribe(self, observer: Observer) -> Callable[[], None]:
        """Call `observer` with each frame added from now on; returns the function that stops it."""
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
        meta: JSONObject | None = None,
        note: str | None = None,
        problems: list[str] | None = None,
    ) -> Frame:
        """Append a frame and tell observers; `problems` known now travel with it.

        The message of a JSON-RPC frame with raw bytes must be what those
        bytes parse to (the session's frames are): it is kept only while it
        is recent and parsed again from `raw` after.  Any other message (no
        raw bytes, a transport event) is kept as given.
        """
        self._seq = seq = self._seq + 1
        if method is not None and method.__class__ is str:
            method = _intern(method)
        if meta is not None:
            # Most frames of one stream carry equal meta ({"http_status": 200}):
            # one shared dict instead of a copy per frame (meta is replaced, never changed).
            last = self._last_meta
            if last is not None and meta == last:
                meta = last
            else:
                self._last_meta = meta
        lazy = raw is not None and message is not None and kind in JSONRPC_KINDS
        frame = Frame(
            seq,
            _now(),
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
            list(problems) if problems else None,
        )
        if lazy:
            # RECENT.keep, inlined: this runs for every frame.
            recent = RECENT.entries
            recent.append((frame, message))
            if len(recent) >= RECENT.limit or len(raw) > BIG_FRAME:  # type: ignore[arg-type]
                RECENT.settle(frame)
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

    def event(self, direction: Direction, kind: FrameKind, *, note: str, meta: JSONObject | None = None) -> Frame:
        """Record a transport event (no JSON-RPC payload)."""
        return self.add(direction, kind, note=note, meta=meta)

    def partner_of(self, frame: Frame) -> Frame | None:
        """A request's answer, or an answer's request (None when it has none)."""
        return self.by_seq(frame.partner) if frame.partner is not None else None

    def by_seq(self, seq: int) -> Frame | None:
        """The frame with sequence number `seq` (None when there is none)."""
        # Sequence numbers start at 1 and are dense unless frames were loaded
        # from a recording, so try the direct index first.
        if 0 < seq <= len(self.frames) and self.frames[seq - 1].seq == seq:
            return self.frames[seq - 1]
        for frame in self.frames:
            if frame.seq == seq:
                return frame
        return None
