"""Tasks: every task this session has seen, in either era's form, with its
status history, result or error, and the actions the protocol offers."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from inspector.core.protocol.errors import InspectorError
from inspector.core.protocol.tasks import TaskInfo
from inspector.tui import looks
from inspector.tui.panes.context import ServerContext
from inspector.tui.panes.messages import Notice
from inspector.tui.safe import plain, plain_line
from inspector.tui.widgets.big_text import json_widget
from inspector.tui.widgets.filter_list import FilterList

__all__ = ["TasksPane"]

_STATUS_STYLE = {
    "working": looks.WARNING,
    "input_required": looks.ACCENT_STRONG,
    "completed": looks.OK,
    "failed": looks.ERROR_STRONG,
    "cancelled": "dim",
}


def task_row(info: TaskInfo) -> Text:
    """A task's two lines: its status and id, then where it came from and its era's form."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{info.status:<15}", style=_STATUS_STYLE.get(info.status, looks.ERROR))
    text.append_text(plain_line(info.task_id, 40, style="bold"))
    text.append("\n")
    text.append_text(plain_line(f"{info.origin or '?'} · {info.flavour}", 60, style="dim"))
    return text


def _task_haystack(info: TaskInfo) -> str:
    return f"{info.task_id}\n{info.status}\n{info.origin or ''}\n{info.flavour}\n{info.status_message or ''}"


class TasksPane(Horizontal):
    """The Tasks tab: the session's tasks, the chosen one's detail, and get, cancel, list and answer."""

    BINDINGS = [
        Binding("g", "get", "Refresh task", id="task_get"),
        Binding("x", "cancel", "Cancel task", id="task_cancel"),
        Binding("l", "list", "tasks/list", id="task_list"),
        Binding("a", "answer", "Answer input", id="task_answer"),
    ]

    def __init__(self, server: ServerContext) -> None:
        super().__init__()
        self.server = server
        self.shown: Sequence[TaskInfo] = []

    def compose(self) -> ComposeResult:
        yield FilterList(
            "Tasks",
            task_row,
            haystack=_task_haystack,
            lines=2,
            placeholder="filter (id, status, tool)",
            id="task-list",
        )
        with VerticalScroll(id="task-detail"):
            yield Static(Text("No tasks yet. A tool that runs as a task shows up here.", style="dim"), id="task-info")

    @property
    def task_list(self) -> FilterList[TaskInfo]:
        """The list of tasks."""
        return self.query_one("#task-list", FilterList)

    def refresh_tasks(self) -> None:
        """Fill the list with the session's tasks; with none chosen yet, highlight the newest."""
        task_list = self.task_list
        current = self.current
        task_list.set_items(list(self.server.client.tasks.tasks.values()))
        self.shown = task_list.shown
        if current is None and task_list.shown:
            # Nothing chosen yet: the newest task.  (The list announces its
            # highlight after every refresh, which redraws the detail.)
            task_list.options.highlighted = len(task_list.shown) - 1

    @property
    def current(self) -> TaskInfo | None:
        """The task highlighted, if any."""
        return self.task_list.highlighted_item

    @on(FilterList.Highlighted, "#task-list")
    def _highlighted(self, event: FilterList.Highlighted) -> None:
        event.stop()
        self.shown = self.task_list.shown
        if self.current is not None:
            self._show(self.current)

    def _show(self, info: TaskInfo) -> None:
        text = Text()
        text.append_text(plain_line(info.task_id, 80, style="bold"))
        text.append(f"\nstatus: {info.status}", style=_STATUS_STYLE.get(info.status, looks.ERROR))
        if info.status_message:
            text.append("  ")
            text.append_text(plain(info.status_message))
        facts = [f"from: {info.origin} ({info.flavour} tasks)"]
        for label, fact in (
            ("created", info.created_at),
            ("updated", info.updated_at),
            ("ttl ms", info.ttl_ms),
            ("poll ms", info.poll_ms),
        ):
            if fact is not None:
                facts.append(f"{label}: {fact}")
        if info.history:
            facts.append("history: " + " → ".join(info.history))
        for fact in facts:
            text.append("\n")
            text.append_text(plain_line(fact, 200, style="dim"))
        keys = "g tasks/get · x tasks/cancel"
        keys += " · l tasks/list" if info.flavour == "2025-11-25" else " · a answer input (tasks/update)"
        text.append(f"\n{keys}", style="dim")
        self.query_one("#task-info", Static).update(text)
        detail = self.query_one("#task-detail", VerticalScroll)
        detail.remove_children(".task-json")
        sections: list[tuple[str, object]] = [
            ("input requests", info.input_requests),
            ("result", info.result),
            ("error", info.error),
            ("raw", info.raw),
        ]
        for title, payload in sections:
            if payload:
                detail.mount(Static(Text(title, style="bold"), classes="task-json"))
                detail.mount(json_widget(payload, classes="task-json"))

    @work(group="task-action")
    async def action_get(self) -> None:
        if self.current is not None:
            await self._guard(self.server.client.tasks.get(self.current.task_id))

    @work(group="task-action")
    async def action_cancel(self) -> None:
        if self.current is not None:
            await self._guard(self.server.client.tasks.cancel(self.current.task_id))

    @work(group="task-action")
    async def action_list(self) -> None:
        await self._guard(self.server.client.tasks.list())

    @work(group="task-action")
    async def action_answer(self) -> None:
        info = self.current
        if info is not None and info.flavour == "extension" and info.status == "input_required":
            await self._guard(self.server.client.tasks.answer(info))

    async def _guard(self, action: object) -> None:
        try:
            await action  # type: ignore[misc]
        except InspectorError as exc:
            self.post_message(Notice(str(exc), severity="error"))
        self.refresh_tasks()
