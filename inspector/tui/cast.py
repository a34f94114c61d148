"""`--record-cast FILE`: an asciinema v2 cast of what the TUI writes to its terminal.

The cast is taken where Textual hands its output to the terminal: the
driver's `write`.  Every driver (a real terminal's, the browser's under
`inspector serve`) goes through it, so the cast holds exactly the bytes the
terminal got, in order, with their times.  Each chunk is masked with the
session's secrets (the mask the traffic log uses) before it is written, so a
secret that reached the screen some other way still never reaches the file.

Format (asciinema v2): a header line `{"version": 2, "width", "height",
"timestamp", ...}`, then one `[seconds, "o", text]` line per write and a
`[seconds, "r", "COLSxROWS"]` line when the terminal's size changes.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.driver import Driver

    from inspector.core.record.secret_mask import SecretMask

__all__ = ["CastWriter", "casting_driver"]


class CastWriter:
    """Writes one cast file; the header waits for the first output, when the
    terminal's size is known."""

    def __init__(
        self,
        stream: IO[str],
        mask: Callable[[], SecretMask | None],
        env: dict[str, str] | None = None,
    ) -> None:
        self._stream: IO[str] | None = stream
        self._mask = mask
        self._env = env or {}
        self._start: float | None = None
        self._last_size: tuple[int, int] | None = None
        # Drivers write from the app's thread; a stop may come from another.
        self._lock = threading.Lock()
        self.error: OSError | None = None

    @classmethod
    def open(
        cls,
        path: str,
        mask: Callable[[], SecretMask | None],
        env: dict[str, str] | None = None,
    ) -> CastWriter:
        """A writer to a new cast file at *path* (text it cannot encode replaced); *mask* gives the secret mask at
        each write, *env* goes in the header."""
        # Terminal output is text; a lone surrogate from a server's text must not end the cast.
        return cls(open(path, "w", encoding="utf-8", errors="replace"), mask, env)

    def output(self, data: str, size: tuple[int, int]) -> None:
        """Record one chunk the terminal is sent, and the terminal's size (columns, rows) then."""
        with self._lock:
            if self._stream is None or not data:
                return
            try:
                self._write(data, size)
            except OSError as exc:
                # A full disk stops the cast, never the session.
                self.error = exc
                self._close()

    def _write(self, data: str, size: tuple[int, int]) -> None:
        assert self._stream is not None
        now = time.monotonic()
        width, height = size
        if self._start is None:
            self._start = now
            header: dict[str, Any] = {"version": 2, "width": width, "height": height, "timestamp": int(time.time())}
            if self._env:
                header["env"] = self._env
            self._line(header)
        elif (width, height) != self._last_size:
            self._line([round(now - self._start, 6), "r", f"{width}x{height}"])
        self._last_size = (width, height)
        mask = self._mask()
        if mask is not None and not mask.empty:
            data = mask.raw_text(data)
        self._line([round(now - self._start, 6), "o", data])
        # Flushed per write, so a session that is killed keeps its cast.
        self._stream.flush()

    def _line(self, value: Any) -> None:
        assert self._stream is not None
        self._stream.write(json.dumps(value, ensure_ascii=False) + "\n")

    def close(self) -> None:
        """Close the file; output after it is dropped."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.close()
            except OSError as exc:
                self.error = self.error or exc


def casting_driver(base: type[Driver], cast: CastWriter) -> type[Driver]:
    """`base` with every write also recorded in `cast` (before it is sent, so
    the cast's order is the terminal's)."""

    class CastingDriver(base):  # type: ignore[valid-type,misc]
        def write(self, data: str) -> None:
            # The terminal's size as Textual's own drivers ask it; in the
            # browser (textual-serve) the size the page reported.  (The app's
            # size lags until its first resize event, and a terminal driver's
            # `_size` is only a copy of that.)
            if self.is_web and self._size is not None:
                cast.output(data, self._size)
            else:
                columns, lines = shutil.get_terminal_size()
                cast.output(data, (columns, lines))
            super().write(data)

    CastingDriver.__name__ = f"Casting{base.__name__}"
    return CastingDriver
