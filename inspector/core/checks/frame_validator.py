"""Validation of every message against the negotiated revision.

The unit of work is one traffic frame.  A `FrameValidator` follows a session
frame by frame (requests, results matched to their request's method,
notifications, the server's requests and our answers) and returns
`Problem`s: severity, message path (``result.tools[3].inputSchema.type``),
what is wrong, what the spec says, the spec page, a stable rule id::

    validator = FrameValidator(lambda: client.protocol_version)
    for frame in new_frames:                 # in order, e.g. in a background step
        frame.findings = validator.check(frame)

or attach it to a log (``traffic.subscribe(validator.annotate)``) to fill
``Frame.findings`` as frames arrive.  Only the first frame of a session pays
for importing the wire models (`mcp_types`, ~0.25 s); after that a frame
costs microseconds to a few milliseconds (tool schemas are checked against
their metaschema once per distinct schema).

What is checked here: JSON itself, batches, and non-JSON lines on a stdio
server's stdout (the exact line, with the hint to log on stderr); each
message goes to `validate_message` (`message_checks`), which checks:

* the JSON-RPC envelope;
* the shape of each message with the `mcp_types` models of the revision in
  use (2025-11-25 models for every handshake revision, 2026-07-28 for the
  stateless era), each list item on its own so one broken tool does not
  hide the others;
* for the revisions older than 2025-11-25, the revision's own schema: a
  content type, union member or enum value it lacks is an error (its schema
  rejects the message); a field it does not define is info, whether a later
  revision added it or no revision has it (every revision's schema allows
  extra fields, and a peer ignores them);
* methods the revision does not have, and server requests or notifications
  for capabilities nobody declared;
* tool ``inputSchema`` / ``outputSchema`` against their JSON Schema
  metaschema (the ``$schema`` they declare, 2020-12 when absent);
* ``structuredContent`` against the tool's ``outputSchema``, and a missing
  ``structuredContent`` where an output schema was declared.

UI-neutral: no Textual, no Rich, no printing.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from inspector.core.checks.message_checks import validate_message
from inspector.core.checks.problems import Problem
from inspector.core.checks.rules import RULES
from inspector.core.checks.wire_models import SERVER_RESULT, model_for
from inspector.core.protocol.versions import KNOWN_VERSIONS, MODERN_VERSIONS, at_least
from inspector.core.record.traffic import Frame
from inspector.forms.values import short_json

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject

__all__ = ["FrameValidator"]

_STDOUT_MARK = "a line on the server's stdout that is not JSON"
_MAX_LINE = 4000


def _frame_subject(frame: Frame, method: str | None) -> str:
    """What a frame is, for problems about the message as a whole."""
    ours = frame.direction == "out"
    if frame.kind == "request":
        return f"{'request' if ours else 'server request'} {method or '?'}"
    if frame.kind == "notification":
        return f"{'our notification' if ours else 'notification'} {method or '?'}"
    if frame.kind in ("response", "error"):
        what = "our answer to" if ours else "response to"
        return f"{what} {method}" if method else f"{'our answer' if ours else 'response'} id {short_json(frame.id, 40)}"
    return frame.kind


@dataclass(slots=True)
class _Sent:
    method: str
    params: Any
    revision: str | None


class FrameValidator:
    """Validates the frames of one session, in order, remembering what it needs.

    ``revision``: the negotiated revision, or a callable that returns it
    (``lambda: client.protocol_version``); until it is known, the validator
    uses what the frames themselves say (the initialize exchange, a
    stateless request's ``_meta``).  ``tools``: a lookup from tool name to
    its definition, for structured content; without one, the validator
    uses the tools it saw in tools/list results.  ``frames``: a lookup from
    sequence number to frame (``traffic.by_seq``) for responses whose
    request it did not see.  ``pause``: called between the items of a list
    (see `validate_message`).

    `check(frame)` returns the problems of one frame; `annotate(frame)`
    also stores them in ``frame.findings`` and can be subscribed to a
    `TrafficLog`.  `check_all(frames)` validates a recorded session.
    """

    def __init__(
        self,
        revision: str | Callable[[], str | None] | None = None,
        tools: Callable[[str], JSONObject | None] | None = None,
        frames: Callable[[int], Frame | None] | None = None,
        pause: Callable[[], None] | None = None,
    ) -> None:
        self._revision_source = revision
        self._pause = pause
        self._tools_source = tools
        self._frames = frames
        self.revision: str | None = None
        self.client_capabilities: JSONObject | None = None
        self.server_capabilities: JSONObject | None = None
        self.tools: dict[str, JSONObject] = {}
        self._sent: OrderedDict[tuple[str, Any], _Sent] = OrderedDict()

    @staticmethod
    def warm() -> None:
        """Import the wire models now (about 0.25 s), e.g. in a worker at start-up, so
        the first frame checked does not pay for it."""
        model_for(SERVER_RESULT, "ping", "2025-11-25")
        from inspector.forms import check_schema

        check_schema({"type": "object"})

    # -- what the validator knows ------------------------------------------------

    def current_revision(self) -> str | None:
        """The revision in use: the one given, once it is a known revision, else the one the frames said."""
        source = self._revision_source
        value = source() if callable(source) else source
        if value in KNOWN_VERSIONS:
            return value
        return self.revision

    def tool(self, name: str) -> JSONObject | None:
        """The definition of the tool named `name`: from the lookup given, else from the tools lists seen."""
        if self._tools_source is not None:
            found = self._tools_source(name)
            if found is not None:
                return found
        return self.tools.get(name)

    def _remember(self, key: tuple[str, Any], sent: _Sent) -> None:
        self._sent[key] = sent
        if len(self._sent) > 4096:
            self._sent.popitem(last=False)

    # -- checking -----------------------------------------------------------------

    def annotate(self, frame: Frame) -> list[Problem]:
        """Check `frame` and store the problems in ``frame.findings``.

        A frame that is not JSON-RPC has nothing on the wire to check, and
        keeps what the inspector found itself (a skill file failing
        verification is such a local frame)."""
        problems = self.check(frame)
        if not problems and not frame.is_jsonrpc:
            return problems
        frame.findings = problems
        return problems

    def check_all(self, frames: Iterable[Frame]) -> list[Problem]:
        """The problems of every frame of a recorded session, in order."""
        out: list[Problem] = []
        for frame in frames:
            out.extend(self.check(frame))
        return out

    def check(self, frame: Frame) -> list[Problem]:
        """The problems of one frame (frames must come in order)."""
        try:
            return self._check(frame)
        except RecursionError:
            return [RULES["wire-schema"].problem("the message is nested too deeply to validate", seq=frame.seq)]

    def _check(self, frame: Frame) -> list[Problem]:
        if frame.kind == "invalid":
            return self._invalid(frame)
        if frame.kind == "batch":
            return self._batch(frame)
        if not frame.is_jsonrpc or not isinstance(frame.message, dict):
            return []
        message = frame.message
        revision = self._revision_for(frame, message)
        method = frame.method
        request_params: Any = None
        if frame.kind == "request" and isinstance(method, str):
            self._remember((frame.direction, message.get("id")), _Sent(method, message.get("params"), revision))
        elif frame.kind in ("response", "error"):
            method, request_params, revision = self._answered(frame, message, method, revision)
        problems = validate_message(
            message,
            kind=frame.kind,
            direction=frame.direction,
            revision=revision,
            method=method,
            request_params=request_params,
            client_capabilities=self.client_capabilities,
            server_capabilities=self.server_capabilities,
            tool_lookup=self.tool,
            seq=frame.seq,
            pause=self._pause,
        )
        if frame.direction == "in":
            problems.extend(self._session_problems(frame, revision))
        self._learn(frame, message, method, request_params, revision)
        if problems:
            subject = _frame_subject(frame, method)
            problems = [p if p.subject else replace(p, subject=subject) for p in problems]
        return problems

    def _answered(
        self, frame: Frame, message: JSONObject, method: str | None, revision: str | None
    ) -> tuple[str | None, Any, str | None]:
        """(method, params, revision) of the request a response answers, as far as known."""
        asked = "out" if frame.direction == "in" else "in"
        sent = self._sent.pop((asked, message.get("id")), None)
        if sent is None and frame.partner is not None and self._frames is not None:
            partner = self._frames(frame.partner)
            if partner is not None and isinstance(partner.message, dict):
                sent = _Sent(partner.method or "", partner.message.get("params"), None)
        request_params: Any = None
        if sent is not None:
            method = method or sent.method
            request_params = sent.params
            revision = sent.revision or revision
        result = message.get("result")
        if method == "initialize" and isinstance(result, dict) and result.get("protocolVersion") in KNOWN_VERSIONS:
            revision = str(result["protocolVersion"])  # the answer is in the revision it chose
        return method, request_params, revision

    def _revision_for(self, frame: Frame, message: JSONObject) -> str | None:
        params = message.get("params")
        if frame.kind == "request" and frame.direction == "out" and isinstance(params, dict):
            meta = params.get("_meta")
            version = meta.get("io.modelcontextprotocol/protocolVersion") if isinstance(meta, dict) else None
            if version in KNOWN_VERSIONS:
                return str(version)
            if frame.method == "initialize" and params.get("protocolVersion") in KNOWN_VERSIONS:
                return str(params["protocolVersion"])
        return self.current_revision()

    def _learn(
        self, frame: Frame, message: JSONObject, method: str | None, request_params: Any, revision: str | None
    ) -> None:
        if frame.kind == "request" and frame.direction == "out":
            params = message.get("params")
            if isinstance(params, dict):
                self._learn_from_request(params, method)
            return
        if frame.kind != "response" or frame.direction != "in":
            return
        result = message.get("result")
        if isinstance(result, dict):
            self._learn_from_result(result, method, request_params, revision)

    def _learn_from_request(self, params: JSONObject, method: str | None) -> None:
        """What our own request says: the client's capabilities, the revision it asks for."""
        if method == "initialize":
            caps = params.get("capabilities")
            self.client_capabilities = caps if isinstance(caps, dict) else {}
            if self.revision is None and params.get("protocolVersion") in KNOWN_VERSIONS:
                self.revision = str(params["protocolVersion"])
        meta = params.get("_meta")
        if isinstance(meta, dict) and isinstance(meta.get("io.modelcontextprotocol/clientCapabilities"), dict):
            self.client_capabilities = meta["io.modelcontextprotocol/clientCapabilities"]

    def _learn_from_result(
        self, result: JSONObject, method: str | None, request_params: Any, revision: str | None
    ) -> None:
        """What a server's result says: the revision, its capabilities, its tools."""
        if method == "initialize":
            version = result.get("protocolVersion")
            if version in KNOWN_VERSIONS:
                self.revision = str(version)
            caps = result.get("capabilities")
            self.server_capabilities = caps if isinstance(caps, dict) else {}
        elif method == "server/discover":
            if revision in MODERN_VERSIONS:
                self.revision = revision
            caps = result.get("capabilities")
            self.server_capabilities = caps if isinstance(caps, dict) else {}
        elif method == "tools/list" and isinstance(result.get("tools"), list):
            self._learn_tools(result["tools"], request_params)

    def _learn_tools(self, tools: list[Any], request_params: Any) -> None:
        """A tools/list page: the first page starts the list afresh."""
        if not (isinstance(request_params, dict) and request_params.get("cursor")):
            self.tools = {}
        for tool in tools:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                self.tools[tool["name"]] = tool

    # -- frames that are not a message ------------------------------------------------

    def _invalid(self, frame: Frame) -> list[Problem]:
        revision = self.current_revision()
        error = frame.error or ""
        if error.startswith(_STDOUT_MARK) or any(p.startswith(_STDOUT_MARK) for p in frame.problems):
            line = frame.text()
            shown = line if len(line) <= _MAX_LINE else line[: _MAX_LINE - 1] + "…"
            return [
                RULES["stdout-not-json"].problem(
                    f"not JSON on stdout: {shown}  (write logs to stderr)",
                    revision=revision,
                    seq=frame.seq,
                    subject="stdout line",
                )
            ]
        if frame.direction != "in":
            return []
        if error:
            return [RULES["jsonrpc-parse"].problem(error, revision=revision, seq=frame.seq, subject="message")]
        text = "; ".join(frame.problems) or "not a JSON-RPC request, notification or response"
        return [RULES["jsonrpc-envelope"].problem(text, revision=revision, seq=frame.seq, subject="message")]

    def _batch(self, frame: Frame) -> list[Problem]:
        revision = self.current_revision()
        out = []
        if at_least(revision, "2025-06-18"):
            out.append(
                RULES["jsonrpc-batch"].problem(
                    f"a JSON-RPC batch, which {revision} does not allow",
                    revision=revision,
                    seq=frame.seq,
                    subject="batch",
                )
            )
        for text in frame.problems:
            out.append(RULES["jsonrpc-envelope"].problem(text, revision=revision, seq=frame.seq, subject="batch"))
        return out

    def _session_problems(self, frame: Frame, revision: str | None) -> list[Problem]:
        """What the session noticed about an inbound frame (unknown ids, stray progress)."""
        return [
            RULES["jsonrpc-session"].problem(text, revision=revision, seq=frame.seq)
            for text in frame.problems
            if not text.startswith(("notification observer failed", "progress callback failed"))
        ]
