"""A tool call's params, and whether a 2025-11-25 tool may run as a task."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject

__all__ = ["call_params", "task_support"]


def call_params(name: str, arguments: JSONObject | None, task: JSONObject | None = None) -> JSONObject:
    """The ``tools/call`` params: the name, the arguments when given, and the task request when given."""
    params: JSONObject = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    if task is not None:
        params["task"] = task
    return params


def task_support(capabilities: JSONObject, tool: JSONObject) -> str:
    """How a 2025-11-25 tool may run as a task: forbidden, optional or required.

    Tools can only be tasks where the server declares `tasks.requests.tools.call`.
    """
    caps = capabilities.get("tasks")
    requests = caps.get("requests") if isinstance(caps, dict) else None
    tools = requests.get("tools") if isinstance(requests, dict) else None
    if not isinstance(tools, dict) or "call" not in tools:
        return "forbidden"
    execution = tool.get("execution")
    support = execution.get("taskSupport") if isinstance(execution, dict) else None
    return support if support in ("optional", "required") else "forbidden"
