"""Recording one server's traffic to a JSON Lines file: from the start
(--record FILE) or from the record key on, session so far included."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable

from inspector.core.record.frame_lines import JsonlRecorder
from inspector.core.record.traffic import TrafficLog

__all__ = ["SessionRecorder", "new_recording_path"]


def new_recording_path() -> str:
    """A file name nobody has yet, in the working directory (else the temporary one)."""
    stem = time.strftime("inspector-%Y%m%d-%H%M%S")
    for folder in (os.getcwd(), tempfile.gettempdir()):
        if not os.access(folder, os.W_OK):
            continue
        for counter in range(1000):
            path = os.path.join(folder, f"{stem}{'-' + str(counter) if counter else ''}.jsonl")
            if not os.path.exists(path):
                return path
    raise OSError("no writable folder for a recording")


class SessionRecorder:
    """The JSON Lines file a server's traffic goes to while recording is on."""

    def __init__(self, traffic: TrafficLog) -> None:
        self._traffic = traffic
        self._recorder: JsonlRecorder | None = None
        self._unsubscribe: Callable[[], None] | None = None
        # The file being written (None: not recording).
        self.path: str | None = None

    def start(self, path: str) -> None:
        """Record every frame from now on to *path* (--record FILE)."""
        self._recorder = JsonlRecorder.open(path)
        self._unsubscribe = self._traffic.subscribe(self._recorder)
        self.path = path

    def start_new(self) -> str:
        """Record the session so far and every frame from now on to a new
        file; returns its path (OSError: no file could be opened)."""
        path = new_recording_path()
        recorder = JsonlRecorder.open(path)
        for frame in list(self._traffic.frames):
            recorder(frame)
        # Nothing arrives between the copy above and this (one thread).
        self._recorder = recorder
        self._unsubscribe = self._traffic.subscribe(recorder)
        self.path = path
        return path

    def toggle(self) -> tuple[str, str]:
        """Record on (to a new file, the session so far included) or off;
        returns what a toast says of it and the toast's severity."""
        if self.path is not None:
            path = self.path
            self.stop()
            return f"recording stopped: {path}", "information"
        try:
            path = self.start_new()
        except OSError as exc:
            return f"cannot record: {exc}", "error"
        return f"recording to {path}", "information"

    def stop(self) -> None:
        """Stop recording and close the file (nothing to do when not recording)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        if self._recorder is not None:
            self._recorder.close()
        self._recorder = self._unsubscribe = self.path = None
