"""Every task the client starts has an owner that ends it: once a client is
closed, nothing of its connection runs on (a server request still waiting
for the person, the stdio transport's report of a lost server, the pipes'
callbacks), and the owners and task groups behave as their callers rely on."""

from __future__ import annotations

import asyncio
import sys

import pytest

from inspector.core.background import BackgroundTasks, task_group
from inspector.core.protocol.client import Client
from inspector.core.protocol.errors import ConnectionClosed, InspectorError
from inspector.core.protocol.handlers import ClientHandlers
from inspector.core.protocol.server_requests import ServerRequest
from inspector.core.servers.spec import ServerSpec, demo_spec
from inspector.forms.values import JSONObject

from .peers import SERVERS
from .waiting import HANG, eventually


def others() -> set[asyncio.Task[object]]:
    """The loop's tasks other than the test's own."""
    return asyncio.all_tasks() - {asyncio.current_task()}


class NeverAnswers(ClientHandlers):
    """A person who never answers the server's sampling request."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self.ended = asyncio.Event()

    async def create_message(self, request: ServerRequest) -> JSONObject:
        self.asked.set()
        try:
            await asyncio.Event().wait()
        finally:
            self.ended.set()
        raise AssertionError("unreachable")


async def test_a_server_request_still_waiting_ends_with_the_client() -> None:
    handlers = NeverAnswers()
    # The handshake era: the server's request comes on the connection, answered
    # from a task of the session's (the stateless era answers inside the call).
    client = Client(demo_spec().with_overrides(era="legacy"), handlers=handlers)
    await client.connect()
    call = asyncio.get_running_loop().create_task(client.call_tool("sample_llm", {}))
    await asyncio.wait_for(handlers.asked.wait(), HANG)
    await client.close()
    # Ended by the close itself, not left to finish on some later turn of the loop.
    assert handlers.ended.is_set()
    with pytest.raises(InspectorError):
        await call
    assert others() == set()


async def test_nothing_runs_on_after_a_stdio_server_died_and_the_client_closed() -> None:
    # The server exits on its own: the transport learns of it from its pipes
    # and reports the loss from a task of its own.
    spec = ServerSpec(command=sys.executable, args=[str(SERVERS / "crashing_later.py")], timeout=20)
    client = Client(spec)
    lost: list[str] = []
    client.on_state(lambda state, _detail: lost.append(state) if state == "disconnected" else None)
    await client.connect()
    with pytest.raises(ConnectionClosed):
        await client.call_tool("crash", {})
    await eventually(lambda: lost, "the client to learn that the server died")
    await client.close()
    assert others() == set()


async def test_a_plain_close_leaves_nothing_running() -> None:
    client = Client(demo_spec())
    await client.connect()
    # The server exits when its stdin closes; its stdout's end (and the report
    # of a lost server it starts) come during the close, not after it.
    await client.close()
    assert others() == set()


# -- the owner and the task group themselves ---------------------------------------


async def test_closing_the_owner_cancels_its_tasks_and_waits_for_them() -> None:
    tasks = BackgroundTasks()
    cleaned: list[str] = []

    async def work(name: str) -> None:
        try:
            await asyncio.Event().wait()
        finally:
            # A task that needs a turn of the loop to finish its clean-up.
            await asyncio.sleep(0)
            cleaned.append(name)

    tasks.start(work("a"))
    tasks.start(work("b"))
    await asyncio.sleep(0)
    assert await tasks.close()
    assert sorted(cleaned) == ["a", "b"] and len(tasks) == 0
    # Started once closed (a pipe's callback during the close): cancelled before it runs.
    late = tasks.start(work("late"))
    await asyncio.wait({late})
    assert late.cancelled() and "late" not in cleaned


async def test_a_task_started_while_another_is_cancelled_is_ended_too() -> None:
    tasks = BackgroundTasks()
    followed = asyncio.Event()

    async def follower() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            followed.set()

    async def starts_another_when_cancelled() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            tasks.start(follower())

    tasks.start(starts_another_when_cancelled())
    await asyncio.sleep(0)
    assert await tasks.cancel_all()
    assert len(tasks) == 0 and others() == set()


async def test_the_owner_does_not_wait_for_the_task_that_closes_it() -> None:
    tasks = BackgroundTasks()

    async def closes_its_owner() -> bool:
        return await tasks.close()

    closing = tasks.start(closes_its_owner())
    assert await asyncio.wait_for(closing, HANG) is True


async def test_a_lone_failure_in_a_task_group_is_raised_as_itself() -> None:
    stopped = asyncio.Event()

    async def fails() -> None:
        raise ConnectionClosed("the server went away")

    async def waits() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            stopped.set()

    with pytest.raises(ConnectionClosed, match="the server went away"):
        async with task_group() as group:
            group.create_task(waits())
            group.create_task(fails())
    # The other task was stopped and waited for before the error came out.
    assert stopped.is_set() and others() == set()


async def test_several_failures_in_a_task_group_stay_grouped() -> None:
    async def fails(text: str) -> None:
        raise ValueError(text)

    with pytest.raises(ExceptionGroup) as raised:
        async with task_group() as group:
            group.create_task(fails("one"))
            group.create_task(fails("two"))
    assert sorted(str(error) for error in raised.value.exceptions) == ["one", "two"]
