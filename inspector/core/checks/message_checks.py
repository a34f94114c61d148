"""Problems of one JSON-RPC message, given what the session knows about it.

`validate_message` checks the envelope, the method against the revision
and the declared capabilities, and the message's shape with the wire
models of the revision in use (each list item on its own, so one broken
tool does not hide the others); a tools/call's arguments against the
tool's inputSchema, and listed tools' schemas and a result's
``structuredContent`` with `tool_schema_checks`.  `FrameValidator`
(`frame_validator`) calls it for each frame of a session; the list of what
is checked is there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from inspector.core.checks.message_checker import MAX_ISSUES, CheckContext, MessageChecker, join_path
from inspector.core.checks.problems import Problem
from inspector.core.checks.tool_schema_checks import check_structured_content, check_tool_schemas
from inspector.core.checks.wire_models import (
    CLIENT_NOTIFICATION,
    CLIENT_REQUEST,
    CLIENT_RESULT,
    ITEM_FIELDS,
    SERVER_NOTIFICATION,
    SERVER_REQUEST,
    SERVER_RESULT,
    item_model,
    model_for,
    named_model,
    revisions_with,
    union_arms,
)
from inspector.core.protocol.versions import KNOWN_VERSIONS, MODERN_VERSIONS
from inspector.forms.paths import Path
from inspector.forms.values import short_json

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject

__all__ = ["validate_message"]


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


def _subject(kind: str, item: Any) -> str:
    if not isinstance(item, dict):
        return ""
    key = {"tools": "name", "resources": "uri", "templates": "uriTemplate", "prompts": "name"}[kind]
    value = item.get(key)
    noun = {"tools": "tool", "resources": "resource", "templates": "template", "prompts": "prompt"}[kind]
    return f"{noun} {short_json(value, 80)}" if isinstance(value, str) else ""


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
    ctx = CheckContext(
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
    checker = MessageChecker(ctx)
    if not isinstance(message, dict):
        checker.add("jsonrpc-envelope", "a JSON-RPC message must be an object")
        return checker.out
    _check_envelope(checker, message, kind)
    if kind == "request":
        _check_request(checker, message, direction)
    elif kind == "notification":
        _check_notification(checker, message, direction)
    elif kind == "response" and isinstance(message.get("result"), dict):
        _check_result(checker, message["result"], direction)
    return checker.out


# -- the JSON-RPC envelope -----------------------------------------------------------


def _check_envelope(checker: MessageChecker, message: JSONObject, kind: str) -> None:
    if message.get("jsonrpc") != "2.0":
        got = short_json(message["jsonrpc"], 40) if "jsonrpc" in message else "nothing"
        checker.add("jsonrpc-envelope", f'jsonrpc must be "2.0", got {got}', path="jsonrpc")
    check = _ENVELOPE_BY_KIND.get(kind)
    if check is not None:
        check(checker, message)


def _request_envelope(checker: MessageChecker, message: JSONObject) -> None:
    ident = message.get("id")
    if ident is None or isinstance(ident, bool) or not isinstance(ident, (str, int)):
        checker.add(
            "jsonrpc-envelope",
            f"a request id must be a string or an integer, got {short_json(ident, 40)}",
            path="id",
        )
    _params_envelope(checker, message)


def _params_envelope(checker: MessageChecker, message: JSONObject) -> None:
    if "params" in message and not isinstance(message["params"], dict):
        checker.add("jsonrpc-envelope", "params must be an object", path="params")


def _response_envelope(checker: MessageChecker, message: JSONObject) -> None:
    _one_outcome(checker, message)
    if not isinstance(message.get("result"), dict):
        checker.add(
            "jsonrpc-envelope",
            f"result must be an object, got {short_json(message.get('result'), 40)}",
            path="result",
        )


def _error_envelope(checker: MessageChecker, message: JSONObject) -> None:
    _one_outcome(checker, message)
    error = message.get("error")
    if not isinstance(error, dict):
        checker.add("jsonrpc-envelope", "error must be an object with code and message", path="error")
        return
    code = error.get("code")
    if isinstance(code, bool) or not isinstance(code, int):
        checker.add("jsonrpc-envelope", f"error.code must be an integer, got {short_json(code, 40)}", path="error.code")
    if not isinstance(error.get("message"), str):
        checker.add("jsonrpc-envelope", "error.message must be a string", path="error.message")


def _one_outcome(checker: MessageChecker, message: JSONObject) -> None:
    if "result" in message and "error" in message:
        checker.add("jsonrpc-envelope", "a response must not carry both result and error")


# What the envelope of each frame kind must hold besides ``"jsonrpc": "2.0"``.
_ENVELOPE_BY_KIND: dict[str, Callable[[MessageChecker, JSONObject], None]] = {
    "request": _request_envelope,
    "notification": _params_envelope,
    "response": _response_envelope,
    "error": _error_envelope,
}


# -- requests, notifications, results ---------------------------------------------------


_REQUEST_STUB = {"jsonrpc": "2.0", "id": 0}


def _method_gate(checker: MessageChecker, surface: str, method: str, ours: bool) -> Any:
    """The model for `method`, or a problem saying why there is none."""
    revision = checker.ctx.revision
    if revision is None:
        return None
    model = model_for(surface, method, revision)
    if model is not None:
        return model
    if method in _EXTENSION_METHODS:
        return None
    elsewhere = revisions_with(surface, method)
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


def _check_request(checker: MessageChecker, message: JSONObject, direction: str) -> None:
    method = message.get("method")
    if not isinstance(method, str):
        return
    surface = CLIENT_REQUEST if direction == "out" else SERVER_REQUEST
    model = _method_gate(checker, surface, method, ours=direction == "out")
    if direction == "in":
        _check_request_capability(checker, method, message.get("params"))
    if model is None:
        return
    checker.model(model, {**message, **_REQUEST_STUB}, (), skip_root=2)
    if direction == "out" and method == "tools/call":
        _check_arguments(checker, message.get("params"))


def _check_request_capability(checker: MessageChecker, method: str, params: Any) -> None:
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


def _check_arguments(checker: MessageChecker, params: Any) -> None:
    lookup = checker.ctx.tool_lookup
    if lookup is None or not isinstance(params, dict) or not isinstance(params.get("name"), str):
        return
    tool = lookup(params["name"])
    schema = tool.get("inputSchema") if isinstance(tool, dict) else None
    if not isinstance(schema, dict):
        return
    from inspector.forms import validate_value

    arguments = params.get("arguments", {})
    for violation in validate_value(schema, arguments)[:MAX_ISSUES]:
        if violation.keyword == "schema":
            continue
        checker.add(
            "tool-arguments-invalid",
            violation.message,
            path=join_path(("params", "arguments"), violation.path),
            subject=f"tool {short_json(params['name'], 80)}",
            severity="warning" if violation.unchecked else None,
        )


def _check_notification(checker: MessageChecker, message: JSONObject, direction: str) -> None:
    method = message.get("method")
    if not isinstance(method, str):
        return
    surface = CLIENT_NOTIFICATION if direction == "out" else SERVER_NOTIFICATION
    model = _method_gate(checker, surface, method, ours=direction == "out")
    if direction == "in":
        _check_notification_capability(checker, method)
    if model is not None:
        checker.model(model, {**message, "jsonrpc": "2.0"}, (), skip_root=2)


def _check_notification_capability(checker: MessageChecker, method: str) -> None:
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


def _check_result(checker: MessageChecker, result: JSONObject, direction: str) -> None:
    ctx = checker.ctx
    method = ctx.method
    if method is None or ctx.revision is None:
        return
    surface = SERVER_RESULT if direction == "in" else CLIENT_RESULT
    model = model_for(surface, method, ctx.revision)
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
    items = ITEM_FIELDS.get(method)
    if items is not None and isinstance(result.get(items[0]), list):
        _check_list(checker, model, result, *items)
    else:
        checker.model(model, result, ("result",))
    if method == "tools/call" and direction == "in":
        _check_call_result(checker, result)


def _result_arm(model: Any, result: JSONObject, method: str, ctx: CheckContext) -> Any:
    """Which model a result is checked with: the `resultType` decides between union arms."""
    arms = union_arms(model)
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
        return named_model("2025-11-25", "CreateTaskResult")
    if ctx.revision in MODERN_VERSIONS and result_type not in (None, "complete", "input_required"):
        return None
    return model


def _check_list(checker: MessageChecker, model: Any, result: JSONObject, key: str, kind: str) -> None:
    items = result[key]
    checker.model(model, {**result, key: []}, ("result",))
    item_cls = item_model(model, key)
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


def _check_call_result(checker: MessageChecker, result: JSONObject) -> None:
    ctx = checker.ctx
    params = ctx.request_params
    if ctx.tool_lookup is None or not isinstance(params, dict) or not isinstance(params.get("name"), str):
        return
    if result.get("resultType") not in (None, "complete") or "task" in result:
        return
    tool = ctx.tool_lookup(params["name"])
    if tool is not None:
        checker.out.extend(check_structured_content(result, tool, ctx.revision, seq=ctx.seq))
