"""Who owns a task: a scope's task group, or the object that started it.

Where a task lives for one scope, the code uses `asyncio.TaskGroup` (through
`task_group()` below): the scope does not end before its tasks do, and one
that fails stops the others.  The core is asyncio, not anyio, for speed (the
stdio transport hands lines over in protocol callbacks), so the group is
asyncio's own rather than anyio's, whose cancel scopes do not reach the
plain asyncio tasks and callbacks the core is made of.

Some work has to outlive the call that starts it: the answer to a server
request, started from a transport's read callback; the notice that a
request was cancelled, sent after it timed out; an HTTP POST whose answer
arrives on another path.  Such a task belongs to the object that started
it (a session, a transport, a client), which holds it in `BackgroundTasks`
and, on close, cancels it and waits for it to end: nothing runs on after
its owner has closed, and no task is collected mid-run for want of a
reference (the event loop keeps only a weak one).  A long-lived
`asyncio.TaskGroup` would not do there: a group is entered and left by one
task, and a child's failure cancels that task and every sibling, while an
owner's background tasks are unrelated to each other.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine
from typing import Any, TypeVar

__all__ = ["BackgroundTasks", "stop_task", "task_group"]

T = TypeVar("T")


class BackgroundTasks:
    """The tasks one object started and must end when it closes."""

    __slots__ = ("_closed", "_tasks")

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False

    def __len__(self) -> int:
        return len(self._tasks)

    def start(self, work: Coroutine[Any, Any, T], *, name: str | None = None) -> asyncio.Task[T]:
        """Run `work` in a task held until it ends.

        Once the owner has closed, the task is cancelled before it runs: a
        callback that fires during the close (a pipe's end) starts nothing.
        """
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        if self._closed:
            task.cancel()
        return task

    async def wait(self, timeout: float | None = None) -> None:
        """Until the tasks running now have ended (at most `timeout` seconds), without cancelling them."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)

    async def cancel_all(self, timeout: float | None = None) -> bool:
        """Cancel every task and wait for them to end; False if some still run after `timeout` seconds.

        The caller's own task, when it is one of them, is neither cancelled
        nor waited for.  A task still running after the timeout stays held.
        """
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        me = asyncio.current_task()
        # A task may start another while it ends: go round until none is left.
        while tasks := {task for task in self._tasks if task is not me and not task.done()}:
            for task in tasks:
                task.cancel()
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                return False
            await asyncio.wait(tasks, timeout=left)
        return True

    async def close(self, timeout: float | None = None) -> bool:
        """No more tasks from now on; the running ones cancelled and waited for (see `cancel_all`)."""
        self._closed = True
        return await self.cancel_all(timeout)


async def stop_task(task: asyncio.Future[Any]) -> None:
    """Cancel a task of the caller's own and wait until it has ended.

    The task's outcome is left with it; a cancellation of the caller
    itself still reaches the caller.
    """
    task.cancel()
    await asyncio.wait({task})


@contextlib.asynccontextmanager
async def task_group() -> AsyncIterator[asyncio.TaskGroup]:
    """`asyncio.TaskGroup`, with a lone failure raised as itself.

    The callers catch the inspector's own errors (a connection refused, a
    timeout); a group wraps even one in an ExceptionGroup.  When one task
    failed and the others were only cancelled because of it, that one
    error is raised as it was; several failures stay grouped.
    """
    lone: BaseException | None = None
    try:
        async with asyncio.TaskGroup() as group:
            yield group
    except BaseExceptionGroup as grouped:
        if len(grouped.exceptions) != 1:
            raise
        lone = grouped.exceptions[0]
    if lone is not None:
        # Raised outside the handler, so its context stays its own, not the group.
        raise lone
