"""Replaying a recording against a live server, and comparing the answers.

`ReplayPlan.from_traffic` reads a recording: how the connection opened
(era, revision, the client's capabilities), which server it talked to, the
client-to-server requests and notifications in order (the handshake left
out: a fresh one is made), and how the client answered the server's own
requests.  `Replayer` re-sends each message on a connected `Client`, one at
a time, and compares each answer with the recorded one, ignoring what is
expected to change between runs (ids, timestamps, task and subscription
ids, cursors; see `normalise`).  Ids the server hands out (a task id, a
cursor) are carried over: a later request that used the recorded value
gets the new one.

No printing here; the command (`commands/replay.py`) shows the outcome."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.core.compare.diff import Change, json_changes
from inspector.core.protocol.errors import INTERNAL_ERROR, InspectorError, JsonRpcError
from inspector.core.protocol.handlers import ClientHandlers
from inspector.core.protocol.modern import CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, PROTOCOL_VERSION_KEY
from inspector.core.protocol.server_requests import ServerRequest
from inspector.core.record.recording_files import opening
from inspector.core.record.secret_mask import MASK
from inspector.core.record.traffic import Frame, TrafficLog
from inspector.core.servers.spec import ServerSpec, demo_spec

if TYPE_CHECKING:
    from inspector.core.protocol.client import Client
    from inspector.forms.values import JSONObject

__all__ = [
    "HANDSHAKE_METHODS",
    "Outcome",
    "ReplayHandlers",
    "ReplayPlan",
    "Replayer",
    "normalise",
    "recorded_server",
]

HANDSHAKE_METHODS = frozenset({"initialize", "notifications/initialized", "server/discover"})
# Members whose values differ from run to run by design.
VOLATILE_KEYS = frozenset(
    {
        "timestamp",
        "createdAt",
        "updatedAt",
        "lastUpdatedAt",
        "expiresAt",
        "requestId",
        "progressToken",
        "taskId",
        "subscriptionId",
        "elicitationId",
        "sessionId",
        "nextCursor",
        "pollInterval",
        "requestState",
    }
)
# Of those, the ones a later request may send back (carried over by value).
_CARRIED_KEYS = frozenset({"taskId", "subscriptionId", "elicitationId", "nextCursor", "requestId", "requestState"})
# ISO 8601 and its common spaced form ("2026-01-01 10:00:00 UTC").
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?( ?(Z|UTC|GMT|[+-]\d\d:?\d\d))?")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_ENVELOPE_KEYS = (PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, "progressToken")


def normalise(value: Any, ignore: frozenset[str] = frozenset()) -> Any:
    """`value` with what changes between runs replaced by placeholders: the
    members in VOLATILE_KEYS and `ignore`, timestamps and UUIDs in strings."""
    if isinstance(value, dict):
        return {
            k: "<volatile>" if k in VOLATILE_KEYS or k in ignore else normalise(v, ignore) for k, v in value.items()
        }
    if isinstance(value, list):
        return [normalise(v, ignore) for v in value]
    if isinstance(value, str):
        return _UUID.sub("<uuid>", _TIMESTAMP.sub("<timestamp>", value))
    return value


def _masked_matches(recorded: str, got: str) -> bool:
    """A recorded string with secrets masked out matches whatever they were."""
    pattern = ".+?".join(re.escape(part) for part in recorded.split(MASK))
    return re.fullmatch(pattern, got, flags=re.DOTALL) is not None


def _align_masks(recorded: Any, got: Any) -> Any:
    """`got`, with strings that match a masked recorded string replaced by it."""
    if isinstance(recorded, dict) and isinstance(got, dict):
        return {k: _align_masks(recorded[k], v) if k in recorded else v for k, v in got.items()}
    if isinstance(recorded, list) and isinstance(got, list):
        return [_align_masks(recorded[i], v) if i < len(recorded) else v for i, v in enumerate(got)]
    if isinstance(recorded, str) and isinstance(got, str) and MASK in recorded and _masked_matches(recorded, got):
        return recorded
    return got


def answer_of(message: Any) -> JSONObject:
    """What is compared of an answer: its result or error, not its id."""
    if not isinstance(message, dict):
        return {"invalid": message}
    return {k: v for k, v in message.items() if k not in ("id", "jsonrpc")}


def compare(recorded: Any, got: Any, ignore: frozenset[str] = frozenset()) -> list[Change]:
    """The differences between a recorded and a replayed answer, both normalised (`ignore` adds member names);
    a masked recorded string matches what it hides."""
    before = normalise(recorded, ignore)
    after = _align_masks(before, normalise(got, ignore))
    return json_changes(before, after)


def _strip_envelope(params: Any) -> tuple[Any, bool]:
    """Params without the era's envelope and the old progress token (a fresh
    connection adds its own); and whether progress was asked for."""
    if not isinstance(params, dict) or not isinstance(params.get("_meta"), dict):
        return params, False
    meta = dict(params["_meta"])
    progress = "progressToken" in meta
    for key in _ENVELOPE_KEYS:
        meta.pop(key, None)
    out = {k: v for k, v in params.items() if k != "_meta"}
    if meta:
        out["_meta"] = meta
    return out, progress


def _carried(recorded: Any, got: Any, found: dict[str, str]) -> None:
    """Ids the server handed out: recorded value -> the value it gave now."""
    if isinstance(recorded, dict) and isinstance(got, dict):
        for key, old in recorded.items():
            new = got.get(key)
            if key in _CARRIED_KEYS and isinstance(old, str) and isinstance(new, str) and old != new:
                found[old] = new
            elif key in got:
                _carried(old, new, found)
    elif isinstance(recorded, list) and isinstance(got, list):
        for old, new in zip(recorded, got, strict=False):
            _carried(old, new, found)


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def _substitute(value: Any, carried: dict[str, str]) -> Any:
    if not carried:
        return value
    if isinstance(value, str):
        return carried.get(value, value)
    if isinstance(value, dict):
        return {k: _substitute(v, carried) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, carried) for v in value]
    return value


@dataclass
class Step:
    """One client-to-server message of the recording."""

    frame: Frame
    # The recorded answer to a request (None: none was recorded).
    answer: Frame | None = None


@dataclass
class RecordedAnswer:
    """How the recorded client answered one server request."""

    method: str
    params: Any
    message: JSONObject
    used: bool = False


def recorded_server(traffic: TrafficLog) -> ServerSpec | None:
    """The server a recording talked to, when it says so: the stdio command
    it spawned, or the URL it posted to."""
    for frame in traffic:
        meta = frame.meta or {}
        if frame.kind == "process" and meta.get("event") == "spawned" and isinstance(meta.get("argv"), list):
            argv = [str(word) for word in meta["argv"]]
            if not argv or MASK in argv:
                return None
            if argv[1:] == ["-m", "inspector.demo"]:
                return demo_spec()
            cwd = meta.get("cwd")
            return ServerSpec(command=argv[0], args=argv[1:], cwd=cwd if isinstance(cwd, str) else None)
        if frame.kind == "http" and isinstance(meta.get("url"), str) and meta.get("http") in ("POST", "GET"):
            sse = any(f.kind == "sse" and (f.note or "").startswith("endpoint:") for f in traffic)
            return ServerSpec(transport="sse" if sse else "auto", url=meta["url"])
    return None


@dataclass
class ReplayPlan:
    """What a recording replays: how it opened (era, revision, capabilities), its steps, the client's
    answers to the server's requests, what is skipped, and the server it talked to."""

    era: str
    protocol_version: str | None
    capabilities: JSONObject
    steps: list[Step]
    answers: list[RecordedAnswer]
    # Client-to-server frames not replayed, with the reason.
    skipped: list[tuple[Frame, str]] = field(default_factory=list)
    server: ServerSpec | None = None

    @classmethod
    def from_traffic(cls, traffic: TrafficLog) -> ReplayPlan:
        """The plan of a recording read into a traffic log."""
        era, result = opening(traffic)
        plan = cls(
            era=era, protocol_version=None, capabilities={}, steps=[], answers=[], server=recorded_server(traffic)
        )
        for frame in traffic:
            if frame.direction == "out" and frame.is_jsonrpc:
                plan._add(traffic, frame)
        if era == "legacy":
            chosen = result.get("protocolVersion")
            plan.protocol_version = chosen if isinstance(chosen, str) else None
        return plan

    def _add(self, traffic: TrafficLog, frame: Frame) -> None:
        """One frame the client sent: a step, an answer to the server, or skipped."""
        message = frame.message if isinstance(frame.message, dict) else {}
        self._note_client(frame, message)
        if frame.kind in ("response", "error"):
            request = traffic.partner_of(frame)
            if request is not None and request.direction == "in" and request.method:
                params_in = request.message.get("params") if isinstance(request.message, dict) else None
                self.answers.append(RecordedAnswer(request.method, params_in, message))
            return
        if frame.method in HANDSHAKE_METHODS:
            return
        if frame.kind == "request":
            answer = traffic.partner_of(frame)
            self.steps.append(Step(frame, answer if answer is not None and answer.direction == "in" else None))
        elif frame.kind == "notification":
            self.steps.append(Step(frame))
        else:
            self.skipped.append((frame, f"a {frame.kind} message is not replayed"))

    def _note_client(self, frame: Frame, message: JSONObject) -> None:
        """The client's capabilities (and a modern client's revision) as its frames declared them."""
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        if frame.method == "initialize" and isinstance(params, dict):
            caps = params.get("capabilities")
            self.capabilities = caps if isinstance(caps, dict) else {}
        elif isinstance(meta, dict) and isinstance(meta.get(CLIENT_CAPABILITIES_KEY), dict) and self.era == "modern":
            self.capabilities = meta[CLIENT_CAPABILITIES_KEY]
            if self.protocol_version is None and isinstance(meta.get(PROTOCOL_VERSION_KEY), str):
                self.protocol_version = meta[PROTOCOL_VERSION_KEY]


class ReplayHandlers(ClientHandlers):
    """Answers the server's requests as the recorded client did: the recorded
    answer to the same method (the one with the same params first), else a
    refusal (elicitation: decline)."""

    def __init__(self, answers: list[RecordedAnswer]) -> None:
        self.answers = answers
        # (method, "recorded" | "declined") for every request the server made.
        self.log: list[tuple[str, str]] = []

    def _take(self, request: ServerRequest) -> RecordedAnswer | None:
        candidates = [a for a in self.answers if a.method == request.method and not a.used]
        for candidate in candidates:
            if compare(candidate.params, request.params) == []:
                candidate.used = True
                return candidate
        if candidates:
            candidates[0].used = True
            return candidates[0]
        return None

    def _answer(self, request: ServerRequest) -> Any:
        found = self._take(request)
        if found is None:
            self.log.append((request.method, "declined"))
            return None
        self.log.append((request.method, "recorded"))
        if "error" in found.message:
            error = JsonRpcError.from_dict(found.message["error"])
            raise error
        return found.message.get("result")

    async def _roots(self, request: ServerRequest) -> list[JSONObject]:
        result = self._answer(request)
        if result is None:
            raise JsonRpcError(INTERNAL_ERROR, "replay: no recorded answer to roots/list")
        roots = result.get("roots") if isinstance(result, dict) else None
        return roots if isinstance(roots, list) else []

    async def _sample(self, request: ServerRequest) -> JSONObject:
        result = self._answer(request)
        if not isinstance(result, dict):
            raise JsonRpcError(-1, "replay: no recorded answer to this sampling request (declined)")
        return result

    async def _elicit(self, request: ServerRequest) -> JSONObject:
        result = self._answer(request)
        return result if isinstance(result, dict) else {"action": "decline"}

    @classmethod
    def for_capabilities(cls, capabilities: JSONObject, answers: list[RecordedAnswer]) -> ReplayHandlers:
        """Handlers that declare what the recorded client declared (the client
        declares exactly the capabilities its handlers override)."""
        namespace: dict[str, Any] = {}
        if "roots" in capabilities:
            namespace["list_roots"] = cls._roots
        sampling = capabilities.get("sampling")
        if sampling is not None:
            namespace["create_message"] = cls._sample
            namespace["supports_sampling_tools"] = isinstance(sampling, dict) and "tools" in sampling
        elicitation = capabilities.get("elicitation")
        if elicitation is not None:
            namespace["elicit"] = cls._elicit
            namespace["supports_url_elicitation"] = isinstance(elicitation, dict) and "url" in elicitation
        kind: type[ReplayHandlers] = type("RecordedClientHandlers", (cls,), namespace)
        return kind(answers)


@dataclass
class Outcome:
    """What happened to one recorded message."""

    frame: Frame
    # "match", "differs", "sent" (a notification, or a request with no
    # recorded answer) or "failed" (it could not be sent).
    status: str
    changes: list[Change] = field(default_factory=list)
    recorded: Any = None
    got: Any = None
    detail: str | None = None

    @property
    def label(self) -> str:
        """The method, and the tool, prompt or resource it names (`tools/call echo`)."""
        message = self.frame.message if isinstance(self.frame.message, dict) else {}
        params = message.get("params")
        name = (params.get("name") or params.get("uri")) if isinstance(params, dict) else None
        return f"{self.frame.method}{' ' + name if isinstance(name, str) else ''}"

    def to_json(self) -> JSONObject:
        """The outcome for the JSON report: seq, method, status, detail, and each difference found."""
        out: JSONObject = {"seq": self.frame.seq, "method": self.frame.method, "status": self.status}
        if self.detail:
            out["detail"] = self.detail
        if self.changes:
            out["differences"] = [
                {"path": c.path, "what": c.what, "recorded": c.before, "replayed": c.after} for c in self.changes
            ]
        return out


class Replayer:
    """Re-sends a plan's messages on a connected client, one at a time."""

    def __init__(self, client: Client, plan: ReplayPlan, ignore: Iterable[str] = ()) -> None:
        self.client = client
        self.plan = plan
        self.ignore = frozenset(ignore)
        # Recorded request id -> the id it has now (for cancellations).
        self.ids: dict[Any, Any] = {}
        self.carried: dict[str, str] = {}
        self._answers: dict[int, Frame] = {}

    def _observe(self, frame: Frame) -> None:
        # The answer as the traffic log holds it (masked like the recording).
        # Kept for any request, not only one being waited for: an answer can
        # arrive before start_request() has returned (its send is awaited).
        if frame.direction == "in" and frame.partner is not None and frame.kind in ("response", "error"):
            self._answers[frame.partner] = frame

    async def run(self) -> list[Outcome]:
        """Re-send the steps one at a time, comparing each answer with the recorded one."""
        unsubscribe = self.client.traffic.subscribe(self._observe)
        try:
            return [await self._step(step) for step in self.plan.steps]
        finally:
            unsubscribe()

    async def _step(self, step: Step) -> Outcome:
        frame = step.frame
        message = frame.message if isinstance(frame.message, dict) else {}
        method = frame.method or ""
        params, progress = _strip_envelope(message.get("params"))
        params = _substitute(params, self.carried)
        session, _transport = self.client.require()
        if frame.kind == "notification":
            if method == "notifications/cancelled" and isinstance(params, dict):
                if params.get("requestId") not in self.ids:
                    return Outcome(frame, "sent", detail="not sent: it cancels a request that was not replayed")
                params = {**params, "requestId": self.ids[params["requestId"]]}
            try:
                await session.notify(method, params, note="replayed")
            except InspectorError as exc:
                return Outcome(frame, "failed", detail=str(exc))
            return Outcome(frame, "sent")
        try:
            pending = await session.start_request(
                method, params, on_progress=(lambda *_: None) if progress else None, note="replayed"
            )
        except InspectorError as exc:
            return Outcome(frame, "failed", detail=str(exc))
        self.ids[frame.id] = pending.id
        # Whatever becomes of it, its failure is ours to read (no "never retrieved").
        pending.future.add_done_callback(_retrieve)
        if step.answer is None:
            # Nothing to compare with (the recording ended, or it was cancelled):
            # do not wait for it either.
            return Outcome(frame, "sent", detail="no answer was recorded")
        # wait() does not raise the request's own failure; a cancelled
        # replay (Ctrl-C) still ends here.
        await asyncio.wait({pending.future})
        answer = self._answers.pop(pending.frame.seq, None)
        recorded = answer_of(step.answer.message)
        if answer is None:
            failure = pending.future.exception() if pending.future.done() and not pending.future.cancelled() else None
            detail = str(failure) if failure is not None else "no answer"
            return Outcome(frame, "differs", json_changes(recorded, {}), recorded, None, detail)
        got = answer_of(answer.message)
        _carried(recorded, got, self.carried)
        changes = compare(recorded, got, self.ignore)
        return Outcome(frame, "differs" if changes else "match", changes, recorded, got)
