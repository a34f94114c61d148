"""The Logs tab: the server's notifications/message, with the level selector
that sends logging/setLevel."""

from __future__ import annotations

import json
import time

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Select, Static

from inspector.core.record.traffic import Frame
from inspector.core.safetext import one_line
from inspector.tui import looks
from inspector.tui.panes.context import ServerContext
from inspector.tui.safe import plain_line
from inspector.tui.widgets.traffic_table import TrafficTable

__all__ = ["LOG_LEVELS", "LogsPane", "log_row"]

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_LEVEL_STYLE = {
    "debug": "dim",
    "info": looks.INFO,
    "notice": looks.INFO_STRONG,
    "warning": looks.WARNING,
    "error": looks.ERROR,
    "critical": looks.ERROR_STRONG,
    "alert": looks.ALARM,
    "emergency": looks.ALARM,
}


def log_row(frame: Frame, width: int = 0) -> Text:
    """One log notification's line: time, level, logger and data on one line."""
    params = frame.message.get("params") if isinstance(frame.message, dict) else None
    params = params if isinstance(params, dict) else {}
    level = str(params.get("level", "?"))
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(time.strftime("%H:%M:%S", time.localtime(frame.time)) + " ", style="dim")
    text.append(f"{level:<9.9}", style=_LEVEL_STYLE.get(level, looks.ERROR_STRONG))
    if isinstance(params.get("logger"), str):
        text.append_text(plain_line(f"[{params['logger']}] ", 30, style=looks.ACCENT))
    data = params.get("data")
    text.append(one_line(data if isinstance(data, str) else json.dumps(data, ensure_ascii=False), 400))
    return text


def _is_log(frame: Frame) -> bool:
    return frame.method == "notifications/message" and frame.direction == "in"


class LogsPane(Vertical):
    """The server's log messages, and the level it is asked to send."""

    def __init__(self, server: ServerContext) -> None:
        super().__init__()
        self.server = server
        self.traffic = server.traffic

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Select([(level, level) for level in LOG_LEVELS], prompt="log level", id="log-level")
            yield Static("sends logging/setLevel", id="logs-hint")
        yield TrafficTable(
            self.traffic.frames, predicate=_is_log, row_renderer=log_row, arrows="messages", id="logs-table"
        )

    @on(Select.Changed, "#log-level")
    def _level(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self._set_level(event.value)

    @work(group="log-level", exclusive=True)
    async def _set_level(self, level: str) -> None:
        await self.server.client.set_logging_level(level)
        self.notify(f"log level set to {level}")
