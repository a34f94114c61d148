"""A hand-written 2026-07-28 stdio server that answers with tasks (the
`io.modelcontextprotocol/tasks` extension), for the task tests.

`slow_job` becomes a task that completes after a few polls; `ask_job`
becomes a task that moves to `input_required` with an elicitation and
completes once `tasks/update` answers it; `stuck_job` runs until cancelled.
Tasks are only returned to clients that declare the extension.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

EXTENSION = "io.modelcontextprotocol/tasks"
CAPS_KEY = "io.modelcontextprotocol/clientCapabilities"
VERSION = "2026-07-28"

TOOLS = [
    {"name": name, "description": text, "inputSchema": {"type": "object"}}
    for name, text in (
        ("slow_job", "Becomes a task that completes after a few polls."),
        ("ask_job", "Becomes a task that needs a confirmation (input_required) before it completes."),
        ("stuck_job", "Becomes a task that never finishes on its own."),
    )
]


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Tasks:
    def __init__(self) -> None:
        self.tasks: dict[str, dict[str, Any]] = {}
        self.counter = 0

    def create(self, kind: str) -> dict[str, Any]:
        self.counter += 1
        task: dict[str, Any] = {
            "taskId": f"task-{self.counter}",
            "status": "working",
            "statusMessage": f"{kind} started",
            "createdAt": now(),
            "lastUpdatedAt": now(),
            "ttlMs": 60000,
            "pollIntervalMs": 100,
        }
        self.tasks[task["taskId"]] = {"task": task, "kind": kind, "polls": 0, "answer": None}
        return task

    def poll(self, task_id: str) -> dict[str, Any] | None:
        entry = self.tasks.get(task_id)
        if entry is None:
            return None
        task: dict[str, Any] = entry["task"]
        if task["status"] in ("completed", "failed", "cancelled"):
            return task
        entry["polls"] += 1
        kind = entry["kind"]
        if kind == "slow_job" and entry["polls"] >= 3:
            task.update(
                status="completed",
                statusMessage="done",
                result={"content": [{"type": "text", "text": "slow job finished"}], "isError": False},
            )
        elif kind == "ask_job":
            if entry["answer"] is None:
                task.update(
                    status="input_required",
                    statusMessage="needs a confirmation",
                    inputRequests={
                        "confirm-1": {
                            "method": "elicitation/create",
                            "params": {
                                "mode": "form",
                                "message": "Go ahead?",
                                "requestedSchema": {
                                    "type": "object",
                                    "properties": {"go": {"type": "boolean", "default": True}},
                                },
                            },
                        },
                    },
                )
            else:
                task.pop("inputRequests", None)
                text = f"ask job finished with {json.dumps(entry['answer'])}"
                task.update(
                    status="completed",
                    statusMessage="done",
                    result={"content": [{"type": "text", "text": text}], "isError": False},
                )
        task["lastUpdatedAt"] = now()
        return task


class Server:
    """Answers each request on `out`; a tool is called as a task when the client declares the extension."""

    def __init__(self, out: TextIO) -> None:
        self.tasks = Tasks()
        self.out = out

    def reply(self, message_id: Any, result: dict[str, Any]) -> None:
        self.out.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "result": {"resultType": "complete", **result}}))
        self.out.write("\n")
        self.out.flush()

    def fail(self, message_id: Any, code: int, text: str, data: Any = None) -> None:
        error: dict[str, Any] = {"code": code, "message": text}
        if data is not None:
            error["data"] = data
        self.out.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "error": error}) + "\n")
        self.out.flush()

    def handle(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        params = message.get("params") or {}
        caps = (params.get("_meta") or {}).get(CAPS_KEY) or {}
        wants_tasks = EXTENSION in (caps.get("extensions") or {})
        answers: dict[str, Callable[[Any, dict[str, Any], bool], None]] = {
            "initialize": self.initialize,
            "server/discover": self.discover,
            "tools/list": lambda message_id, params, wants_tasks: self.reply(message_id, {"tools": TOOLS}),
            "tools/call": self.call,
            "tasks/get": self.get_task,
            "tasks/update": self.update_task,
            "tasks/cancel": self.cancel_task,
        }
        answer = answers.get(method) if isinstance(method, str) else None
        if answer is None:
            self.fail(message["id"], -32601, f"Method not found: {method}")
            return
        answer(message["id"], params, wants_tasks)

    def initialize(self, message_id: Any, params: dict[str, Any], wants_tasks: bool) -> None:
        self.fail(message_id, -32022, "only 2026-07-28 is supported", {"supported": [VERSION]})

    def discover(self, message_id: Any, params: dict[str, Any], wants_tasks: bool) -> None:
        self.reply(
            message_id,
            {
                "supportedVersions": [VERSION],
                "capabilities": {"tools": {}, "extensions": {EXTENSION: {}}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern-tasks", "version": "1.0.0"}},
            },
        )

    def call(self, message_id: Any, params: dict[str, Any], wants_tasks: bool) -> None:
        name = params.get("name")
        if not wants_tasks:
            self.reply(
                message_id, {"content": [{"type": "text", "text": f"{name} ran synchronously"}], "isError": False}
            )
            return
        self.out.write(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": message_id,
                    "result": {"resultType": "task", **self.tasks.create(str(name))},
                }
            )
            + "\n"
        )
        self.out.flush()

    def get_task(self, message_id: Any, params: dict[str, Any], wants_tasks: bool) -> None:
        task = self.tasks.poll(str(params.get("taskId")))
        if task is None:
            self.fail(message_id, -32602, "unknown task")
        else:
            self.reply(message_id, dict(task))

    def update_task(self, message_id: Any, params: dict[str, Any], wants_tasks: bool) -> None:
        entry = self.tasks.tasks.get(str(params.get("taskId")))
        if entry is None:
            self.fail(message_id, -32602, "unknown task")
            return
        answers = params.get("inputResponses") or {}
        if "confirm-1" in answers:
            entry["answer"] = answers["confirm-1"]
            entry["task"].update(status="working", statusMessage="confirmed")
            entry["task"].pop("inputRequests", None)
        self.reply(message_id, {})

    def cancel_task(self, message_id: Any, params: dict[str, Any], wants_tasks: bool) -> None:
        entry = self.tasks.tasks.get(str(params.get("taskId")))
        if entry is None:
            self.fail(message_id, -32602, "unknown task")
        else:
            entry["task"].update(status="cancelled", statusMessage="cancelled by the client")
            self.reply(message_id, {})


def main() -> int:
    server = Server(sys.stdout)
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if "id" not in message:
            continue
        server.handle(message)
    return 0


if __name__ == "__main__":
    sys.exit(main())
