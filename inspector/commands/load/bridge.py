"""Our asyncio client core, called from Locust's gevent greenlets.

Locust monkey-patches the standard library for gevent; our client core is
asyncio.  One asyncio loop runs in a real OS thread (not a patched one) per
process, and each greenlet hands it a coroutine and waits for the answer
cooperatively, so the other users keep running meanwhile.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

__all__ = ["AsyncioThread"]

T = TypeVar("T")


def _patched() -> bool:
    try:
        from gevent import monkey
    except ImportError:
        return False
    return bool(monkey.is_module_patched("threading"))


def _real_thread_starter() -> Any:
    if _patched():
        from gevent import monkey

        return monkey.get_original("_thread", "start_new_thread")
    import _thread

    return _thread.start_new_thread


class _UnpatchedLoop(asyncio.SelectorEventLoop):
    """A loop on the real epoll, not gevent's selector (whose hub belongs to
    the greenlets' thread).  Name lookups call the real getaddrinfo right
    here: the default executor's threads would be greenlets of a hub that
    never runs in this thread.  A lookup happens once per connection."""

    async def getaddrinfo(
        self, host: Any, port: Any, *, family: int = 0, type: int = 0, proto: int = 0, flags: int = 0
    ) -> Any:
        from gevent import monkey

        lookup = monkey.get_original("socket", "getaddrinfo")
        return lookup(host, port, family, type, proto, flags)


def _new_loop() -> asyncio.AbstractEventLoop:
    if not _patched():
        return asyncio.new_event_loop()
    from gevent import monkey

    selector = monkey.get_original("selectors", "DefaultSelector")
    return _UnpatchedLoop(selector())


def _wait(future: Future[T]) -> T:
    """The future's result; under gevent only this greenlet waits, woken
    from the loop's thread through the hub's thread-safe async watcher."""
    try:
        from gevent import get_hub
    except ImportError:
        return future.result()
    if not _patched():
        return future.result()
    hub = get_hub()
    watcher = hub.loop.async_()
    done = threading.Event()  # patched: a greenlet event, touched only in this thread

    def woken() -> None:
        done.set()

    watcher.start(woken)
    future.add_done_callback(lambda _f: watcher.send())
    try:
        while not future.done():
            done.wait(1.0)
            done.clear()
    except BaseException:
        # The greenlet was killed (the run ended): the coroutine is cancelled too,
        # so a connection half made is closed by its own cleanup.
        future.cancel()
        raise
    finally:
        watcher.stop()
        watcher.close()
    return future.result()


class AsyncioThread:
    """An asyncio loop on a real thread of its own, for coroutines started from gevent greenlets."""

    _shared: AsyncioThread | None = None
    _lock = threading.Lock()

    def __init__(self) -> None:
        self.loop = _new_loop()
        ready: list[bool] = []

        def serve() -> None:
            asyncio.set_event_loop(self.loop)
            ready.append(True)
            self.loop.run_forever()

        _real_thread_starter()(serve, ())

    @classmethod
    def shared(cls) -> AsyncioThread:
        """The one loop thread of the process, started on first use."""
        with cls._lock:
            if cls._shared is None:
                cls._shared = cls()
            return cls._shared

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run *coroutine* on the loop and wait for its result (the calling greenlet yields meanwhile)."""
        return _wait(asyncio.run_coroutine_threadsafe(coroutine, self.loop))
