"""Tasks: the 2025-11-25 experimental tasks (server-everything's
simulate-research-query) and the 2026-07-28 tasks extension (a hand-written
modern server)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from inspector.core.protocol.client import Client
from inspector.core.servers.spec import ServerSpec

from .conftest import RecordingHandlers
from .peers import PYTHON, SERVERS

MODERN_TASKS = str(SERVERS / "modern_tasks.py")


class Confirming(RecordingHandlers):
    async def elicit(self, request):  # type: ignore[no-untyped-def]
        self.seen.append(("elicitation/create", request.params))
        return {"action": "accept", "content": {"go": True}}


async def test_core_tasks_2025_11_25(everything_stdio: ServerSpec) -> None:
    client = Client(everything_stdio, handlers=Confirming())
    await client.connect()
    try:
        tools = await client.list_all("tools")
        research = tools.find("simulate-research-query")
        assert research is not None
        assert client.task_support(research.data) == "required"
        assert client.task_support(tools.find("echo").data) == "forbidden"  # type: ignore[union-attr]
        statuses: list[str] = []
        operation = await client.start_call_tool("simulate-research-query", {"topic": "otters"}, task_ttl=60000)
        created = await operation.result()
        assert "task" in created and created["task"]["status"] == "working"
        result, task = await client.finish_task(
            created, "simulate-research-query", on_status=lambda t: statuses.append(t.status)
        )
        assert task is not None and task.flavour == "2025-11-25"
        assert task.status == "completed"
        assert "otters" in result["content"][0]["text"]
        listed = await client.tasks.list()
        assert task.task_id in [t.task_id for t in listed]
        sent = [f.method for f in client.traffic if f.direction == "out" and f.kind == "request"]
        assert "tasks/result" in sent and "tasks/get" in sent
    finally:
        await client.close()


async def test_core_task_input_and_cancel_2025_11_25(everything_stdio: ServerSpec) -> None:
    handlers = Confirming()
    client = Client(everything_stdio, handlers=handlers)
    await client.connect()
    try:
        operation = await client.start_call_tool(
            "simulate-research-query", {"topic": "python", "ambiguous": True}, task_ttl=60000
        )
        _result, task = await client.finish_task(await operation.result(), "simulate-research-query")
        assert task is not None and task.status == "completed"
        assert any(method == "elicitation/create" for method, _ in handlers.seen)

        operation = await client.start_call_tool("simulate-research-query", {"topic": "slow"}, task_ttl=60000)
        info = client.tasks.adopt(await operation.result(), "simulate-research-query")
        assert info is not None
        await client.tasks.cancel(info.task_id)
        assert info.status == "cancelled"
    finally:
        await client.close()


@pytest.fixture
def modern_tasks() -> ServerSpec:
    return ServerSpec(command=PYTHON, args=[MODERN_TASKS])


async def test_extension_tasks_poll_to_completion(modern_tasks: ServerSpec) -> None:
    client = Client(modern_tasks, handlers=Confirming())
    await client.connect()
    try:
        assert client.era == "modern"
        assert "io.modelcontextprotocol/tasks" in client.server_capabilities["extensions"]
        first = await client.call_tool("slow_job", {})
        assert first["resultType"] == "task"
        result, task = await client.finish_task(first, "slow_job")
        assert task is not None and task.flavour == "extension" and task.status == "completed"
        assert result["content"][0]["text"] == "slow job finished"
        polls = [f for f in client.traffic if f.method == "tasks/get" and f.direction == "out"]
        assert len(polls) >= 3
    finally:
        await client.close()


async def test_extension_task_input_required_answered_with_update(modern_tasks: ServerSpec) -> None:
    handlers = Confirming()
    client = Client(modern_tasks, handlers=handlers)
    await client.connect()
    try:
        result, task = await client.finish_task(await client.call_tool("ask_job", {}), "ask_job")
        assert task is not None and "input_required" in task.history and task.status == "completed"
        assert '"go": true' in result["content"][0]["text"]
        updates = [f for f in client.traffic if f.method == "tasks/update" and f.direction == "out"]
        assert updates and updates[0].message["params"]["inputResponses"]["confirm-1"]["action"] == "accept"
    finally:
        await client.close()


async def test_extension_task_cancel(modern_tasks: ServerSpec) -> None:
    client = Client(modern_tasks)
    await client.connect()
    try:
        info = client.tasks.adopt(await client.call_tool("stuck_job", {}), "stuck_job")
        # A stuck task never ends by itself: it is still running whenever
        # the cancel comes, so the cancel is sent at once.
        assert info is not None and info.status == "working"
        await client.tasks.cancel(info.task_id)
        assert info.status == "cancelled"
    finally:
        await client.close()


def test_cli_follows_a_task_to_its_result() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "inspector", "call", "slow_job", "--yes", "--json", "--", PYTHON, MODERN_TASKS],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["content"][0]["text"] == "slow job finished"
    assert "ended completed" in out.stderr
