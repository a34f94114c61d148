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
from typing import Any

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


def main() -> int:
    tasks = Tasks()
    out = sys.stdout
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if "id" not in message:
            continue
        method = message.get("method")
        params = message.get("params") or {}
        caps = (params.get("_meta") or {}).get(CAPS_KEY) or {}
        wants_tasks = EXTENSION in (caps.get("extensions") or {})

        def reply(result: dict[str, Any], message_id: Any = message["id"]) -> None:
            out.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "result": {"resultType": "complete", **result}}))
            out.write("\n")
            out.flush()

        def fail(code: int, text: str, data: Any = None, message_id: Any = message["id"]) -> None:
            error: dict[str, Any] = {"code": code, "message": text}
            if data is not None:
                error["data"] = data
            out.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "error": error}) + "\n")
            out.flush()

        if method == "initialize":
            fail(-32022, "only 2026-07-28 is supported", {"supported": [VERSION]})
        elif method == "server/discover":
            reply(
                {
                    "supportedVersions": [VERSION],
                    "capabilities": {"tools": {}, "extensions": {EXTENSION: {}}},
                    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern-tasks", "version": "1.0.0"}},
                }
            )
        elif method == "tools/list":
            reply({"tools": TOOLS})
        elif method == "tools/call":
            name = params.get("name")
            if not wants_tasks:
                reply({"content": [{"type": "text", "text": f"{name} ran synchronously"}], "isError": False})
            else:
                out.write(
                    json.dumps(
                        {
                            "jsonrpc": "2.0",
                            "id": message["id"],
                            "result": {"resultType": "task", **tasks.create(str(name))},
                        }
                    )
                    + "\n"
                )
                out.flush()
        elif method == "tasks/get":
            task = tasks.poll(str(params.get("taskId")))
            if task is None:
                fail(-32602, "unknown task")
            else:
                reply(dict(task))
        elif method == "tasks/update":
            entry = tasks.tasks.get(str(params.get("taskId")))
            if entry is None:
                fail(-32602, "unknown task")
            else:
                answers = params.get("inputResponses") or {}
                if "confirm-1" in answers:
                    entry["answer"] = answers["confirm-1"]
                    entry["task"].update(status="working", statusMessage="confirmed")
                    entry["task"].pop("inputRequests", None)
                reply({})
        elif method == "tasks/cancel":
            entry = tasks.tasks.get(str(params.get("taskId")))
            if entry is None:
                fail(-32602, "unknown task")
            else:
                entry["task"].update(status="cancelled", statusMessage="cancelled by the client")
                reply({})
        else:
            fail(-32601, f"Method not found: {method}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
