"""The asyncio protocols on a child's pipes: lines split as they are read, stdin's flow control."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class LineSplitter:
    """Splits a byte stream on b"\\n", holding at most `limit` bytes of one line.

    A line is handed on exactly as it arrived, without its b"\\n" (a trailing
    b"\\r" stays: JSON parses it as whitespace, and the traffic record keeps
    the raw bytes exact), as `emit(line, 0)`.  A line longer than `limit` is
    cut: its first `keep` bytes are kept, the rest only counted, and it is
    handed on at its end as `emit(head, bytes_cut)`; `exceeded(head, size)`
    hears of it at once, when the limit is crossed (the end may never come).
    """

    __slots__ = ("_chunks", "_cut", "_emit", "_exceeded", "_head", "_keep", "_limit", "_size", "stopped")

    def __init__(
        self,
        emit: Callable[[bytes, int], None],
        limit: int,
        keep: int,
        exceeded: Callable[[bytes, int], None] | None = None,
    ) -> None:
        self._chunks: list[bytes] = []
        self._size = 0
        self._head = b""
        self._cut = 0
        self._emit = emit
        self._limit = limit
        self._keep = min(keep, limit)
        self._exceeded = exceeded
        # Set by the owner when the stream is given up: the rest is ignored.
        self.stopped = False

    def feed(self, data: bytes) -> None:
        """Split what was read; each line that ends here is emitted at once."""
        start = 0
        find = data.find
        idx = find(b"\n")
        while idx >= 0:
            if self._chunks or self._cut or idx - start > self._limit:
                self._add(data[start:idx])
                if self.stopped:
                    return
                self._end()
            else:
                # The usual case: a whole line within one read, no copy joined.
                self._emit(data[start:idx], 0)
            if self.stopped:
                return
            start = idx + 1
            idx = find(b"\n", start)
        if start < len(data):
            self._add(data[start:] if start else data)

    def _add(self, piece: bytes) -> None:
        if self._cut:
            self._cut += len(piece)
            return
        size = self._size + len(piece)
        if size <= self._limit:
            self._chunks.append(piece)
            self._size = size
            return
        self._chunks.append(piece)
        head = self._first(self._keep)
        self._chunks.clear()
        self._size = 0
        self._head = head
        self._cut = size - len(head)
        if self._exceeded is not None:
            self._exceeded(head, size)

    def _first(self, count: int) -> bytes:
        """The first `count` bytes of the held chunks, without joining them all."""
        taken: list[bytes] = []
        for chunk in self._chunks:
            taken.append(chunk[:count])
            count -= len(taken[-1])
            if count <= 0:
                break
        return b"".join(taken)

    def _end(self) -> None:
        if self._cut:
            line, cut = self._head, self._cut
            self._head, self._cut = b"", 0
        else:
            line, cut = b"".join(self._chunks), 0
            self._chunks.clear()
            self._size = 0
        self._emit(line, cut)

    def flush(self) -> None:
        """Emit the unfinished last line, at the end of the stream."""
        if (self._chunks or self._cut) and not self.stopped:
            self._end()


class PipeReader(asyncio.Protocol):
    """A child's stdout or stderr: its bytes go to a splitter; `closed` hears of the end."""

    def __init__(self, splitter: LineSplitter, closed: Callable[[], None]) -> None:
        self.splitter = splitter
        self.closed = closed

    def data_received(self, data: bytes) -> None:
        """Hand what was read to the splitter."""
        self.splitter.feed(data)

    def eof_received(self) -> bool:
        """Let the pipe close at the end of the stream."""
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        """The pipe is gone: the last line, if unfinished, goes out, then `closed` hears of it."""
        self.splitter.flush()
        self.closed()


class PipeWriter(asyncio.Protocol):
    """A child's stdin: flow control for the writer, and `lost` once the pipe is gone."""

    def __init__(self) -> None:
        self.paused = False
        self.resume_waiter: asyncio.Future[None] | None = None
        self.lost = asyncio.Event()

    def pause_writing(self) -> None:
        """The child is not reading: writers wait."""
        self.paused = True

    def resume_writing(self) -> None:
        """The pipe drained: a waiting writer goes on."""
        self.paused = False
        if self.resume_waiter is not None and not self.resume_waiter.done():
            self.resume_waiter.set_result(None)
        self.resume_waiter = None

    def connection_lost(self, exc: Exception | None) -> None:
        """The pipe is gone: a waiting writer is released and `lost` set."""
        self.resume_writing()
        self.lost.set()
