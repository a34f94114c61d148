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

What is checked:

* the JSON-RPC envelope, JSON itself, and non-JSON lines on a stdio
  server's stdout (the exact line, with the hint to log on stderr);
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

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from inspector.core.checks import wire_models as wm
from inspector.core.checks.problems import Problem
from inspector.core.checks.rules import RULES as WIRE_RULES
from inspector.core.checks.spec_pages import page_for_model as _page_for
from inspector.core.checks.spec_pages import spec_url
from inspector.core.protocol.versions import KNOWN_VERSIONS, MODERN_VERSIONS, at_least
from inspector.core.record.traffic import Frame
from inspector.forms.paths import Path, format_path
from inspector.forms.values import short_json

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = [
    "FrameValidator",
    "check_structured_content",
    "check_tool_schemas",
    "validate_message",
]


# Methods of extensions the inspector knows (not validated, not "unknown").
_EXTENSION_METHODS = frozenset(
    {
        "tasks/get",
        "tasks/result",
        "tasks/list",
        "tasks/cancel",
        "tasks/update",
        "notifications/tasks/status",
    }
)

# Client capability a server request needs.
_REQUEST_CAPABILITY = {
    "sampling/createMessage": "sampling",
    "elicitation/create": "elicitation",
    "roots/list": "roots",
}

# Server capability (and sub-flag) a server notification needs.
_NOTIFICATION_CAPABILITY = {
    "notifications/tools/list_changed": ("tools", "listChanged"),
    "notifications/prompts/list_changed": ("prompts", "listChanged"),
    "notifications/resources/list_changed": ("resources", "listChanged"),
    "notifications/resources/updated": ("resources", "subscribe"),
    "notifications/message": ("logging", None),
}

_STDOUT_MARK = "a line on the server's stdout that is not JSON"
_MAX_ISSUES = 50
_MAX_LINE = 4000


def _join(prefix: Path, path: Iterable[str | int]) -> str:
    return format_path((*prefix, *path))


def _subject(kind: str, item: Any) -> str:
    if not isinstance(item, dict):
        return ""
    key = {"tools": "name", "resources": "uri", "templates": "uriTemplate", "prompts": "name"}[kind]
    value = item.get(key)
    noun = {"tools": "tool", "resources": "resource", "templates": "template", "prompts": "prompt"}[kind]
    return f"{noun} {short_json(value, 80)}" if isinstance(value, str) else ""


@dataclass(slots=True)
class _Context:
    """What one check needs to know besides the message."""

    revision: str | None
    direction: str
    seq: int | None = None
    method: str | None = None
    request_params: Any = None
    client_caps: dict[str, Any] | None = None
    server_caps: dict[str, Any] | None = None
    tool_lookup: Callable[[str], dict[str, Any] | None] | None = None
    pause: Callable[[], None] | None = None


class _Checker:
    """Turns one message into problems; shared state lives in `FrameValidator`."""

    def __init__(self, ctx: _Context) -> None:
        self.ctx = ctx
        self.out: list[Problem] = []

    def add(self, rule: str, message: str, *, path: str = "", subject: str = "", **kw: Any) -> None:
        if len(self.out) >= _MAX_ISSUES * 4:
            return
        self.out.append(
            WIRE_RULES[rule].problem(
                message, revision=self.ctx.revision, path=path, subject=subject, seq=self.ctx.seq, **kw
            )
        )

    # -- envelope ------------------------------------------------------------------

    def envelope(self, message: JSONObject, kind: str) -> None:
        if message.get("jsonrpc") != "2.0":
            got = short_json(message["jsonrpc"], 40) if "jsonrpc" in message else "nothing"
            self.add("jsonrpc-envelope", f'jsonrpc must be "2.0", got {got}', path="jsonrpc")
        if kind == "request":
            ident = message.get("id")
            if ident is None or isinstance(ident, bool) or not isinstance(ident, (str, int)):
                self.add(
                    "jsonrpc-envelope",
                    f"a request id must be a string or an integer, got {short_json(ident, 40)}",
                    path="id",
                )
            if "params" in message and not isinstance(message["params"], dict):
                self.add("jsonrpc-envelope", "params must be an object", path="params")
        elif kind == "notification":
            if "params" in message and not isinstance(message["params"], dict):
                self.add("jsonrpc-envelope", "params must be an object", path="params")
        elif kind in ("response", "error"):
            if "result" in message and "error" in message:
                self.add("jsonrpc-envelope", "a response must not carry both result and error")
            if kind == "response" and not isinstance(message.get("result"), dict):
                self.add(
                    "jsonrpc-envelope",
                    f"result must be an object, got {short_json(message.get('result'), 40)}",
                    path="result",
                )
            if kind == "error":
                self._error_object(message.get("error"))

    def _error_object(self, error: Any) -> None:
        if not isinstance(error, dict):
            self.add("jsonrpc-envelope", "error must be an object with code and message", path="error")
            return
        code = error.get("code")
        if isinstance(code, bool) or not isinstance(code, int):
            self.add(
                "jsonrpc-envelope", f"error.code must be an integer, got {short_json(code, 40)}", path="error.code"
            )
        if not isinstance(error.get("message"), str):
            self.add("jsonrpc-envelope", "error.message must be a string", path="error.message")

    # -- models --------------------------------------------------------------------

    def issues(
        self,
        issues: list[wm.ModelIssue],
        prefix: Path,
        *,
        subject: str = "",
        item_kind: str | None = None,
    ) -> None:
        for issue in issues[:_MAX_ISSUES]:
            rule = _specific_rule(item_kind, issue.path) or "wire-schema"
            spec = ""
            if issue.model and issue.field:
                spec = f"{issue.model}.{issue.field}: {issue.expected}"
                if issue.kind == "missing":
                    spec += " (required)"
            page = _page_for(issue.model) if issue.model else "basic"
            problem = WIRE_RULES[rule].problem(
                issue.message,
                revision=self.ctx.revision,
                path=_join(prefix, issue.path),
                subject=subject,
                seq=self.ctx.seq,
                spec=spec or None,
            )
            if rule == "wire-schema":
                problem = replace(problem, url=spec_url(self.ctx.revision, page))
            self.out.append(problem)

    def notes(self, notes: list[wm.FieldNote], prefix: Path, subject: str = "") -> None:
        revision = self.ctx.revision
        if revision not in KNOWN_VERSIONS:
            return
        for note in notes[:_MAX_ISSUES]:
            path = _join(prefix, note.path)
            if note.added_in is not None and KNOWN_VERSIONS.index(note.added_in) > KNOWN_VERSIONS.index(revision):
                self.add(
                    "wire-field-newer",
                    f"{note.model}.{note.field} was added in {note.added_in}; this session uses {revision}",
                    path=path,
                    subject=subject,
                    url=spec_url(note.added_in, "changelog"),
                )
            elif note.added_in is None:
                self.add(
                    "wire-field-unknown",
                    f"{note.model} has no field {short_json(note.field, 60)} in {revision} (ignored by clients)",
                    path=path,
                    subject=subject,
                )

    def model(
        self,
        model: Any,
        value: Any,
        prefix: Path,
        *,
        skip_root: int = 1,
        subject: str = "",
        item_kind: str | None = None,
    ) -> Any:
        instance, issues = wm.validate_model(model, value)
        self.issues(issues, prefix, subject=subject, item_kind=item_kind)
        if instance is not None and self.ctx.revision:
            self.notes(wm.field_notes(instance, value, self.ctx.revision, skip_root=skip_root), prefix, subject)
            self.newer_values(wm.revision_issues(instance, value, self.ctx.revision), prefix, subject)
        return instance

    def newer_values(self, issues: list[wm.RevisionIssue], prefix: Path, subject: str = "") -> None:
        """What the negotiated (older) revision's own schema rejects: it needs a later revision."""
        for issue in issues[:_MAX_ISSUES]:
            self.add(
                "wire-value-newer",
                issue.message,
                path=_join(prefix, issue.path),
                subject=subject,
                spec=f"{WIRE_RULES['wire-value-newer'].spec} ({issue.spec})" if issue.spec else None,
                url=spec_url(issue.added_in, "changelog"),
            )


def _specific_rule(item_kind: str | None, path: tuple[str | int, ...]) -> str | None:
    """Some schema errors have a rule of their own (and a lint rule id to match)."""
    if item_kind == "tools":
        if path == ("inputSchema",) or path == ("inputSchema", "type"):
            return "tool-input-schema-root"
        if path[:1] == ("outputSchema",) and len(path) <= 2:
            return "tool-output-schema-invalid"
    if item_kind == "prompts" and len(path) == 3 and path[0] == "arguments" and path[2] == "name":
        return "prompt-argument-name"
    return None


# -- tool schemas ------------------------------------------------------------------

_SCHEMA_CACHE: OrderedDict[tuple[str, bool], list[tuple[Path, str, str]]] = OrderedDict()
_SCHEMA_CACHE_SIZE = 1024
_SCHEMA_LOCK = threading.Lock()  # the TUI may validate in a worker thread
_DRAFT7 = "http://json-schema.org/draft-07/schema#"


def _schema_violations(schema: Any, lenient_dialect: bool) -> list[tuple[Path, str, str]]:
    """(path, message, keyword) of metaschema violations, cached per distinct schema."""
    from inspector.forms import check_schema

    try:
        key = (json.dumps(schema, sort_keys=True, ensure_ascii=False), lenient_dialect)
    except (TypeError, ValueError):
        key = (repr(schema), lenient_dialect)
    with _SCHEMA_LOCK:
        cached = _SCHEMA_CACHE.get(key)
        if cached is not None:
            _SCHEMA_CACHE.move_to_end(key)
            return cached
    # The 2020-12 metaschema reaches one keyword along several paths: report each once.
    found = list(dict.fromkeys((v.path, v.message, v.keyword) for v in check_schema(schema)))
    # Before 2025-11-25 no dialect was the default: accept draft-07 too.
    lenient = found and lenient_dialect and isinstance(schema, dict) and "$schema" not in schema
    if lenient and not check_schema({**schema, "$schema": _DRAFT7}):
        found = []
    with _SCHEMA_LOCK:
        _SCHEMA_CACHE[key] = found
        if len(_SCHEMA_CACHE) > _SCHEMA_CACHE_SIZE:
            _SCHEMA_CACHE.popitem(last=False)
    return found


def check_tool_schemas(
    tool: Any, revision: str | None, prefix: Path = (), *, subject: str = "", seq: int | None = None
) -> list[Problem]:
    """A tool's inputSchema and outputSchema against their metaschema."""
    if not isinstance(tool, dict):
        return []
    out: list[Problem] = []
    lenient = not at_least(revision, "2025-11-25")
    for key, rule_id in (("inputSchema", "tool-input-schema-invalid"), ("outputSchema", "tool-output-schema-invalid")):
        schema = tool.get(key)
        if not isinstance(schema, dict):
            continue
        rule = WIRE_RULES[rule_id]
        for path, message, keyword in _schema_violations(schema, lenient)[:_MAX_ISSUES]:
            severity = "warning" if keyword == "$schema" else None
            out.append(
                rule.problem(
                    message,
                    revision=revision,
                    path=_join((*prefix, key), path),
                    subject=subject,
                    severity=severity,
                    seq=seq,
                )
            )
    return out


def check_structured_content(
    result: Any, tool: Any, revision: str | None, prefix: Path = ("result",), *, seq: int | None = None
) -> list[Problem]:
    """A tools/call result against the tool's outputSchema."""
    if not isinstance(result, dict) or not isinstance(tool, dict):
        return []
    schema = tool.get("outputSchema")
    if not isinstance(schema, dict) or result.get("isError") is True:
        return []
    name = tool.get("name")
    subject = f"tool {short_json(name, 80)}" if isinstance(name, str) else ""
    if "structuredContent" not in result:
        return [
            WIRE_RULES["structured-content-missing"].problem(
                "the tool declares an outputSchema but the result has no structuredContent",
                revision=revision,
                path=format_path(prefix),
                subject=subject,
                seq=seq,
            )
        ]
    from inspector.forms import validate_value

    out = []
    for violation in validate_value(schema, result["structuredContent"])[:_MAX_ISSUES]:
        if violation.keyword == "schema":
            continue  # the schema itself is unusable: reported with the tool
        out.append(
            WIRE_RULES["structured-content-invalid"].problem(
                violation.message,
                revision=revision,
                path=_join((*prefix, "structuredContent"), violation.path),
                subject=subject,
                seq=seq,
                # A pattern too slow to apply proves nothing about the value.
                severity="warning" if violation.unchecked else None,
            )
        )
    return out


# -- one message --------------------------------------------------------------------


def validate_message(
    message: Any,
    *,
    kind: str,
    direction: str,
    revision: str | None,
    method: str | None = None,
    request_params: Any = None,
    client_capabilities: JSONObject | None = None,
    server_capabilities: JSONObject | None = None,
    tool_lookup: Callable[[str], JSONObject | None] | None = None,
    seq: int | None = None,
    pause: Callable[[], None] | None = None,
) -> list[Problem]:
    """Problems of one parsed JSON-RPC message.

    ``kind`` is the frame kind (request, response, error, notification);
    ``direction`` "out" (client to server) or "in"; ``method`` for a response
    is the method of the request it answers, ``request_params`` that
    request's params.  Capabilities, when given, enable the capability
    checks; ``tool_lookup(name)`` gives the tool definition for structured
    content checks.  ``pause()``, when given, is called between the items of
    a list (a page may hold thousands): a caller sharing the interpreter
    with others can step aside there.
    """
    ctx = _Context(
        revision if revision in KNOWN_VERSIONS else None,
        direction,
        seq,
        method,
        request_params,
        client_capabilities,
        server_capabilities,
        tool_lookup,
        pause,
    )
    checker = _Checker(ctx)
    if not isinstance(message, dict):
        checker.add("jsonrpc-envelope", "a JSON-RPC message must be an object")
        return checker.out
    checker.envelope(message, kind)
    if kind == "request":
        _check_request(checker, message, direction)
    elif kind == "notification":
        _check_notification(checker, message, direction)
    elif kind == "response" and isinstance(message.get("result"), dict):
        _check_result(checker, message["result"], direction)
    return checker.out


_REQUEST_STUB = {"jsonrpc": "2.0", "id": 0}


def _method_gate(checker: _Checker, surface: str, method: str, ours: bool) -> Any:
    """The model for `method`, or a problem saying why there is none."""
    revision = checker.ctx.revision
    if revision is None:
        return None
    model = wm.model_for(surface, method, revision)
    if model is not None:
        return model
    if method in _EXTENSION_METHODS:
        return None
    elsewhere = wm.revisions_with(surface, method)
    if elsewhere:
        checker.add(
            "method-not-in-revision",
            f"{method} is not part of {revision} (it exists in {', '.join(elsewhere)})",
            path="method",
            severity="warning" if ours else None,
        )
    else:
        checker.add(
            "method-unknown", f"{short_json(method, 80)} is not a method of the MCP specification", path="method"
        )
    return None


def _check_request(checker: _Checker, message: JSONObject, direction: str) -> None:
    method = message.get("method")
    if not isinstance(method, str):
        return
    surface = wm.CLIENT_REQUEST if direction == "out" else wm.SERVER_REQUEST
    model = _method_gate(checker, surface, method, ours=direction == "out")
    if direction == "in":
        _check_request_capability(checker, method, message.get("params"))
    if model is None:
        return
    checker.model(model, {**message, **_REQUEST_STUB}, (), skip_root=2)
    if direction == "out" and method == "tools/call":
        _check_arguments(checker, message.get("params"))


def _check_request_capability(checker: _Checker, method: str, params: Any) -> None:
    caps = checker.ctx.client_caps
    needed = _REQUEST_CAPABILITY.get(method)
    if caps is None or needed is None:
        return
    if needed not in caps:
        checker.add(
            "capability-undeclared-request",
            f"the server sent {method} but the client did not declare the {needed!r} capability",
            path="method",
        )
        return
    if method == "elicitation/create" and isinstance(params, dict) and params.get("mode") == "url":
        elicitation = caps.get("elicitation")
        if isinstance(elicitation, dict) and "url" not in elicitation:
            checker.add(
                "capability-undeclared-request",
                "the server asked for URL-mode elicitation but the client did not declare elicitation.url",
                path="params.mode",
            )


def _check_arguments(checker: _Checker, params: Any) -> None:
    lookup = checker.ctx.tool_lookup
    if lookup is None or not isinstance(params, dict) or not isinstance(params.get("name"), str):
        return
    tool = lookup(params["name"])
    schema = tool.get("inputSchema") if isinstance(tool, dict) else None
    if not isinstance(schema, dict):
        return
    from inspector.forms import validate_value

    arguments = params.get("arguments", {})
    for violation in validate_value(schema, arguments)[:_MAX_ISSUES]:
        if violation.keyword == "schema":
            continue
        checker.add(
            "tool-arguments-invalid",
            violation.message,
            path=_join(("params", "arguments"), violation.path),
            subject=f"tool {short_json(params['name'], 80)}",
            severity="warning" if violation.unchecked else None,
        )


def _check_notification(checker: _Checker, message: JSONObject, direction: str) -> None:
    method = message.get("method")
    if not isinstance(method, str):
        return
    surface = wm.CLIENT_NOTIFICATION if direction == "out" else wm.SERVER_NOTIFICATION
    model = _method_gate(checker, surface, method, ours=direction == "out")
    if direction == "in":
        _check_notification_capability(checker, method)
    if model is not None:
        checker.model(model, {**message, "jsonrpc": "2.0"}, (), skip_root=2)


def _check_notification_capability(checker: _Checker, method: str) -> None:
    caps = checker.ctx.server_caps
    needed = _NOTIFICATION_CAPABILITY.get(method)
    if caps is None or needed is None:
        return
    capability, flag = needed
    declared = caps.get(capability)
    if declared is None:
        checker.add(
            "capability-undeclared-notification",
            f"{method} sent, but the server did not declare the {capability!r} capability",
            path="method",
        )
    elif flag is not None and not (isinstance(declared, dict) and declared.get(flag) is True):
        checker.add(
            "capability-undeclared-notification",
            f"{method} sent, but the server did not declare {capability}.{flag}",
            path="method",
        )


def _check_result(checker: _Checker, result: JSONObject, direction: str) -> None:
    ctx = checker.ctx
    method = ctx.method
    if method is None or ctx.revision is None:
        return
    surface = wm.SERVER_RESULT if direction == "in" else wm.CLIENT_RESULT
    model = wm.model_for(surface, method, ctx.revision)
    if model is None:
        return  # the request was already flagged (or is an extension's)
    model = _result_arm(model, result, method, ctx)
    if model is None:
        return
    if method == "initialize":
        version = result.get("protocolVersion")
        if isinstance(version, str) and version not in KNOWN_VERSIONS:
            checker.add(
                "protocol-version-unknown",
                f"the server answered protocolVersion {short_json(version, 40)}, which is not a known revision",
                path="result.protocolVersion",
            )
    if method == "server/discover" and "supportedVersions" not in result:
        # The era probe, answered by a server that does not know the method.
        checker.add(
            "jsonrpc-session",
            "server/discover answered with a result that is not a discover result; a server that does not "
            "implement a method should answer with error -32601",
            path="result",
        )
        return
    items = wm.ITEM_FIELDS.get(method)
    if items is not None and isinstance(result.get(items[0]), list):
        _check_list(checker, model, result, *items)
    else:
        checker.model(model, result, ("result",))
    if method == "tools/call" and direction == "in":
        _check_call_result(checker, result)


def _result_arm(model: Any, result: JSONObject, method: str, ctx: _Context) -> Any:
    """Which model a result is checked with: the `resultType` decides between union arms."""
    arms = wm.union_arms(model)
    result_type = result.get("resultType")
    if len(arms) > 1:
        wanted = [a for a in arms if "InputRequired" in a.__name__]
        other = [a for a in arms if "InputRequired" not in a.__name__]
        if result_type == "input_required":
            return wanted[0] if wanted else None
        if result_type not in (None, "complete"):
            return None  # an extension's result (tasks: "task")
        return other[0] if other else None
    if (
        method == "tools/call"
        and ctx.revision == "2025-11-25"
        and isinstance(ctx.request_params, dict)
        and "task" in ctx.request_params
        and "task" in result
    ):
        return wm.named_model("2025-11-25", "CreateTaskResult")
    if ctx.revision in MODERN_VERSIONS and result_type not in (None, "complete", "input_required"):
        return None
    return model


def _check_list(checker: _Checker, model: Any, result: JSONObject, key: str, kind: str) -> None:
    items = result[key]
    checker.model(model, {**result, key: []}, ("result",))
    item_cls = wm.item_model(model, key)
    if item_cls is None:
        return
    pause = checker.ctx.pause
    for index, item in enumerate(items):
        if pause is not None:
            pause()
        prefix: Path = ("result", key, index)
        subject = _subject(kind, item)
        checker.model(item_cls, item, prefix, skip_root=0, subject=subject, item_kind=kind)
        if kind == "tools":
            checker.out.extend(
                check_tool_schemas(item, checker.ctx.revision, prefix, subject=subject, seq=checker.ctx.seq)
            )


def _check_call_result(checker: _Checker, result: JSONObject) -> None:
    ctx = checker.ctx
    params = ctx.request_params
    if ctx.tool_lookup is None or not isinstance(params, dict) or not isinstance(params.get("name"), str):
        return
    if result.get("resultType") not in (None, "complete") or "task" in result:
        return
    tool = ctx.tool_lookup(params["name"])
    if tool is not None:
        checker.out.extend(check_structured_content(result, tool, ctx.revision, seq=ctx.seq))


# -- following a session ---------------------------------------------------------------


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
        wm.model_for(wm.SERVER_RESULT, "ping", "2025-11-25")
        from inspector.forms import check_schema

        check_schema({"type": "object"})

    # -- what the validator knows ------------------------------------------------

    def current_revision(self) -> str | None:
        source = self._revision_source
        value = source() if callable(source) else source
        if value in KNOWN_VERSIONS:
            return value
        return self.revision

    def tool(self, name: str) -> JSONObject | None:
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
        out: list[Problem] = []
        for frame in frames:
            out.extend(self.check(frame))
        return out

    def check(self, frame: Frame) -> list[Problem]:
        """The problems of one frame (frames must come in order)."""
        try:
            return self._check(frame)
        except RecursionError:
            return [WIRE_RULES["wire-schema"].problem("the message is nested too deeply to validate", seq=frame.seq)]

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
            asked = "out" if frame.direction == "in" else "in"
            sent = self._sent.pop((asked, message.get("id")), None)
            if sent is None and frame.partner is not None and self._frames is not None:
                partner = self._frames(frame.partner)
                if partner is not None and isinstance(partner.message, dict):
                    sent = _Sent(partner.method or "", partner.message.get("params"), None)
            if sent is not None:
                method = method or sent.method
                request_params = sent.params
                revision = sent.revision or revision
            result = message.get("result")
            if method == "initialize" and isinstance(result, dict) and result.get("protocolVersion") in KNOWN_VERSIONS:
                revision = str(result["protocolVersion"])  # the answer is in the revision it chose
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
        params = message.get("params")
        if frame.kind == "request" and frame.direction == "out" and isinstance(params, dict):
            if method == "initialize":
                caps = params.get("capabilities")
                self.client_capabilities = caps if isinstance(caps, dict) else {}
                if self.revision is None and params.get("protocolVersion") in KNOWN_VERSIONS:
                    self.revision = str(params["protocolVersion"])
            meta = params.get("_meta")
            if isinstance(meta, dict) and isinstance(meta.get("io.modelcontextprotocol/clientCapabilities"), dict):
                self.client_capabilities = meta["io.modelcontextprotocol/clientCapabilities"]
            return
        if frame.kind != "response" or frame.direction != "in":
            return
        result = message.get("result")
        if not isinstance(result, dict):
            return
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
            if not (isinstance(request_params, dict) and request_params.get("cursor")):
                self.tools = {}
            for tool in result["tools"]:
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
                WIRE_RULES["stdout-not-json"].problem(
                    f"not JSON on stdout: {shown}  (write logs to stderr)",
                    revision=revision,
                    seq=frame.seq,
                    subject="stdout line",
                )
            ]
        if frame.direction != "in":
            return []
        if error:
            return [WIRE_RULES["jsonrpc-parse"].problem(error, revision=revision, seq=frame.seq, subject="message")]
        text = "; ".join(frame.problems) or "not a JSON-RPC request, notification or response"
        return [WIRE_RULES["jsonrpc-envelope"].problem(text, revision=revision, seq=frame.seq, subject="message")]

    def _batch(self, frame: Frame) -> list[Problem]:
        revision = self.current_revision()
        out = []
        if at_least(revision, "2025-06-18"):
            out.append(
                WIRE_RULES["jsonrpc-batch"].problem(
                    f"a JSON-RPC batch, which {revision} does not allow",
                    revision=revision,
                    seq=frame.seq,
                    subject="batch",
                )
            )
        for text in frame.problems:
            out.append(WIRE_RULES["jsonrpc-envelope"].problem(text, revision=revision, seq=frame.seq, subject="batch"))
        return out

    def _session_problems(self, frame: Frame, revision: str | None) -> list[Problem]:
        """What the session noticed about an inbound frame (unknown ids, stray progress)."""
        return [
            WIRE_RULES["jsonrpc-session"].problem(text, revision=revision, seq=frame.seq)
            for text in frame.problems
            if not text.startswith(("notification observer failed", "progress callback failed"))
        ]
