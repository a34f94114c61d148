"""Tasks, in both their forms.

* 2025-11-25 (experimental, core protocol): the client asks for a task with
  `params.task`; the server answers `{task: {...}}`; `tasks/get` polls,
  `tasks/result` blocks for the result, `tasks/list` and `tasks/cancel`
  exist, and `notifications/tasks/status` may report changes.
* 2026-07-28 (the `io.modelcontextprotocol/tasks` extension): the server
  decides to answer `resultType: "task"` with the task fields inline;
  `tasks/get` returns the result (or error, or `inputRequests`) itself,
  `tasks/update` answers input requests, `tasks/cancel` asks to stop.

`TaskTracker` keeps every task the session has seen, polls the live ones at
the server's interval, answers input requests through the client's
handlers, and tells observers of every change.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.core.background import BackgroundTasks, stop_task
from inspector.core.protocol.errors import InspectorError, JsonRpcError, ProtocolError

if TYPE_CHECKING:
    from inspector.core.protocol.client import Client
    from inspector.forms.values import JSONObject

__all__ = ["TERMINAL", "TaskInfo", "TaskTracker", "task_fields"]

TERMINAL = frozenset({"completed", "failed", "cancelled"})
DEFAULT_POLL_MS = 1000
MIN_POLL_MS = 100


def task_fields(result: Any) -> JSONObject | None:
    """The task object in a result, in either era's shape (None if not a task)."""
    if not isinstance(result, dict):
        return None
    if result.get("resultType") == "task" and isinstance(result.get("taskId"), str):
        return result
    inner = result.get("task")
    if isinstance(inner, dict) and isinstance(inner.get("taskId"), str):
        return inner
    return None


@dataclass
class TaskInfo:
    """One task as the client knows it: its id, form and origin, status and its history, timing hints,
    result or error, and the input requests it waits on."""

    task_id: str
    flavour: str  # "2025-11-25" (core, experimental) or "extension" (2026-07-28)
    origin: str = ""
    status: str = "working"
    status_message: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    ttl_ms: int | None = None
    poll_ms: int | None = None
    result: Any = None
    error: Any = None
    input_requests: JSONObject = field(default_factory=dict)
    answered: set[str] = field(default_factory=set)
    raw: JSONObject = field(default_factory=dict)
    history: list[str] = field(default_factory=list)

    @property
    def terminal(self) -> bool:
        """Whether the task has ended (completed, failed or cancelled)."""
        return self.status in TERMINAL

    def update(self, fields: JSONObject) -> None:
        """Take the fields of a task object from the server (status, timing, result, error, input requests)."""
        self.raw = fields
        status = fields.get("status")
        if isinstance(status, str) and status != self.status:
            self.history.append(status)
            self.status = status
        self.status_message = fields.get("statusMessage") if isinstance(fields.get("statusMessage"), str) else None
        self.created_at = fields.get("createdAt", self.created_at)
        self.updated_at = fields.get("lastUpdatedAt", self.updated_at)
        ttl = fields.get("ttlMs", fields.get("ttl"))
        self.ttl_ms = ttl if isinstance(ttl, int) else self.ttl_ms
        poll = fields.get("pollIntervalMs", fields.get("pollInterval"))
        self.poll_ms = poll if isinstance(poll, int) else self.poll_ms
        if "result" in fields:
            self.result = fields["result"]
        if "error" in fields:
            self.error = fields["error"]
        requests = fields.get("inputRequests")
        self.input_requests = requests if isinstance(requests, dict) else {}


TaskObserver = Callable[[TaskInfo], None]


class TaskTracker:
    """Every task the session has seen: the live ones polled at the server's interval, their input requests
    answered through the client's handlers, and each change told to the observers."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.tasks: dict[str, TaskInfo] = {}
        self.observers: list[TaskObserver] = []
        # The tasks followed in the background, by task id; ended by stop().
        self._watchers: dict[str, asyncio.Task[Any]] = {}
        self._following = BackgroundTasks()

    # -- learning of tasks ----------------------------------------------------------------

    def adopt(self, result: Any, origin: str) -> TaskInfo | None:
        """Track the task a request answered with, if it did."""
        fields = task_fields(result)
        if fields is None:
            return None
        flavour = "extension" if result.get("resultType") == "task" else "2025-11-25"
        info = self.tasks.get(fields["taskId"]) or TaskInfo(fields["taskId"], flavour, origin)
        info.update(fields)
        self.tasks[info.task_id] = info
        self._changed(info)
        return info

    def on_notification(self, method: str, params: Any) -> None:
        """Update a task from a status notification (a task not seen before is added)."""
        if method not in ("notifications/tasks/status", "notifications/tasks") or not isinstance(params, dict):
            return
        task_id = params.get("taskId")
        if not isinstance(task_id, str):
            return
        info = self.tasks.get(task_id)
        if info is None:
            flavour = "extension" if method == "notifications/tasks" else "2025-11-25"
            info = self.tasks[task_id] = TaskInfo(task_id, flavour, "(announced by the server)")
        info.update(params)
        self._changed(info)

    def _changed(self, info: TaskInfo) -> None:
        for observer in list(self.observers):
            try:
                observer(info)
            except Exception as exc:  # noqa: BLE001 - an observer must never break the tracker; logged instead
                self.client.traffic.event("local", "transport", note=f"task observer failed: {exc!r}")

    # -- operations ---------------------------------------------------------------------

    async def get(self, task_id: str) -> TaskInfo:
        """Ask for a task's state with ``tasks/get`` and update it."""
        fields = await self.client.request("tasks/get", {"taskId": task_id})
        if not isinstance(fields, dict):
            raise ProtocolError("tasks/get returned something that is not an object")
        info = self.tasks.get(task_id)
        if info is None:
            flavour = "extension" if self.client.modern is not None else "2025-11-25"
            info = self.tasks[task_id] = TaskInfo(task_id, flavour)
        info.update(fields)
        self._changed(info)
        return info

    async def cancel(self, task_id: str) -> None:
        """Ask the server to cancel a task with ``tasks/cancel``, then fetch its state."""
        await self.client.request("tasks/cancel", {"taskId": task_id})
        if task_id in self.tasks:
            with contextlib.suppress(InspectorError):
                await self.get(task_id)

    async def list(self) -> list[TaskInfo]:
        """`tasks/list` (2025-11-25 only), every page."""
        cursor: str | None = None
        seen: list[TaskInfo] = []
        for _ in range(100):
            result = await self.client.request("tasks/list", {"cursor": cursor} if cursor else None)
            for fields in result.get("tasks", []) if isinstance(result, dict) else []:
                if isinstance(fields, dict) and isinstance(fields.get("taskId"), str):
                    info = self.tasks.get(fields["taskId"]) or TaskInfo(fields["taskId"], "2025-11-25", "(listed)")
                    info.update(fields)
                    self.tasks[info.task_id] = info
                    self._changed(info)
                    seen.append(info)
            cursor = result.get("nextCursor") if isinstance(result, dict) else None
            if not isinstance(cursor, str):
                break
        return seen

    async def answer(self, info: TaskInfo) -> None:
        """Answer the outstanding input requests of an extension task (`tasks/update`)."""
        from inspector.core.protocol.mrtr import answer_input_requests

        pending = {k: v for k, v in info.input_requests.items() if k not in info.answered}
        if not pending:
            return
        frame = self.client.traffic.event("local", "transport", note=f"task {info.task_id} needs input")
        responses = await answer_input_requests(self.client, pending, frame)
        await self.client.request("tasks/update", {"taskId": info.task_id, "inputResponses": responses})
        info.answered.update(responses)
        self._changed(info)

    async def wait(self, info: TaskInfo, *, on_status: Callable[[TaskInfo], None] | None = None) -> Any:
        """Poll until the task ends; return its result or raise its error."""
        if info.flavour == "2025-11-25":
            return await self._wait_core(info, on_status)
        while not info.terminal:
            await asyncio.sleep(max(info.poll_ms or DEFAULT_POLL_MS, MIN_POLL_MS) / 1000)
            await self.get(info.task_id)
            if on_status is not None:
                on_status(info)
            if info.status == "input_required":
                await self.answer(info)
        return self._outcome(info)

    async def _wait_core(self, info: TaskInfo, on_status: Callable[[TaskInfo], None] | None) -> Any:
        # 2025-11-25: tasks/result blocks until the task ends, and input the
        # task needs arrives as ordinary server requests while it blocks.
        poller = asyncio.get_running_loop().create_task(self._poll_status(info, on_status))
        try:
            result = await self.client.request("tasks/result", {"taskId": info.task_id}, timeout=False)
        finally:
            await stop_task(poller)
            if not poller.cancelled():
                with contextlib.suppress(InspectorError):
                    poller.result()
        info.result = result
        if not info.terminal:
            with contextlib.suppress(InspectorError):
                await self.get(info.task_id)
        self._changed(info)
        return result

    async def _poll_status(self, info: TaskInfo, on_status: Callable[[TaskInfo], None] | None) -> None:
        while not info.terminal:
            await asyncio.sleep(max(info.poll_ms or DEFAULT_POLL_MS, MIN_POLL_MS) / 1000)
            await self.get(info.task_id)
            if on_status is not None:
                on_status(info)

    @staticmethod
    def _outcome(info: TaskInfo) -> Any:
        if info.status == "completed":
            return info.result
        if info.status == "failed":
            raise JsonRpcError.from_dict(info.error)
        raise ProtocolError(f"task {info.task_id} was {info.status}")

    def watch(self, info: TaskInfo) -> None:
        """Follow a task in the background until it ends (for the TUI)."""
        if info.task_id in self._watchers or info.terminal:
            return

        async def follow() -> None:
            try:
                await self.wait(info)
            except InspectorError as exc:
                info.history.append(f"watch stopped: {exc}")
                self._changed(info)
            finally:
                if self._watchers.get(info.task_id) is asyncio.current_task():
                    del self._watchers[info.task_id]

        self._watchers[info.task_id] = self._following.start(follow())

    async def stop(self) -> None:
        """Stop following tasks in the background (they may be followed again later)."""
        self._watchers.clear()
        await self._following.cancel_all()
