"""The outcome of a call: progress while it runs, then the result or error."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import ProgressBar, Static

from inspector.core.protocol.errors import InspectorError, JsonRpcError
from inspector.core.protocol.tasks import TaskInfo
from inspector.tui import looks
from inspector.tui.gaps import hold_gaps
from inspector.tui.keymap import key_hint
from inspector.tui.safe import plain, plain_line
from inspector.tui.widgets.big_text import HIGHLIGHT_LIMIT, json_widget
from inspector.tui.widgets.content_view import ContentList, prepare_blocks
from inspector.tui.widgets.json_tree import JsonTree

if TYPE_CHECKING:
    from inspector.forms import Violation

__all__ = ["ResultView", "problems_by_path", "structured_check", "structured_violations"]


def structured_violations(output_schema: dict[str, Any] | None, result: dict[str, Any]) -> list[Violation]:
    """structuredContent checked against the tool's outputSchema (once: the
    summary and the tree both show the outcome)."""
    if output_schema is None or "structuredContent" not in result:
        return []
    from inspector.forms import validate_value

    return validate_value(output_schema, result["structuredContent"])


def structured_check(
    output_schema: dict[str, Any] | None, result: dict[str, Any], violations: list[Violation]
) -> Text | None:
    """What validating structuredContent against the tool's outputSchema says."""
    if output_schema is None:
        return None
    if "structuredContent" not in result:
        if result.get("isError") is True:
            return Text("outputSchema declared; no structuredContent (an error result may omit it)", style="dim")
        return Text("⚠ the tool declares an outputSchema but returned no structuredContent", style=looks.WARNING_STRONG)
    if not violations:
        return Text("✔ structuredContent matches the outputSchema", style=looks.OK)
    text = Text("✖ structuredContent does not match the outputSchema:\n", style=looks.ERROR_STRONG)
    for violation in violations:
        text.append(f"  {violation.display_path or '(root)'}: ", style=looks.ERROR)
        text.append_text(plain(violation.message))
        text.append("\n")
    return text


def problems_by_path(violations: list[Violation]) -> dict[tuple[str | int, ...], list[str]]:
    """Violations by the path in the value they are about (for `JsonTree`)."""
    found: dict[tuple[str | int, ...], list[str]] = {}
    for violation in violations:
        found.setdefault(tuple(violation.path), []).append(violation.message)
    return found


class ResultView(VerticalScroll):
    """A tool call as it runs and as it ended: progress, then the status line, content blocks and structured content."""

    DEFAULT_CSS = """
    ResultView { height: 1fr; border: round $primary-muted; padding: 0 1; }
    ResultView:focus-within { border: round $primary; }
    ResultView > ProgressBar { display: none; }
    ResultView.running > ProgressBar { display: block; }
    ResultView > #status.error { color: $error; text-style: bold; }
    ResultView.-other-tool { border: round $primary-muted 50%; }
    """

    # Empty until the first call: the layout around it may collapse it then.
    empty: reactive[bool] = reactive(True, toggle_class="-empty")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Result"
        self.last_result: Any = None
        # Whose result this is: the tool list may have moved on since.
        self.owner: str | None = None
        self.selected_tool: str | None = None

    def set_owner(self, owner: str | None) -> None:
        """Name the tool whose call this view shows (server text: one safe line)."""
        self.owner = owner
        self.border_title = "Result" if owner is None else Text.assemble("Result of ", plain_line(owner, 60))
        self._mark_other()

    def show_selected(self, selected: str | None) -> None:
        """The tool now selected in the list: say so when the result is another tool's."""
        self.selected_tool = selected
        self._mark_other()

    def _mark_other(self) -> None:
        selected = self.selected_tool
        other = self.owner is not None and selected is not None and selected != self.owner
        self.set_class(other, "-other-tool")
        self.border_subtitle = "not the selected tool" if other else ""

    def compose(self) -> ComposeResult:
        yield Static("", id="status")
        yield ProgressBar(total=None, show_eta=False, id="progress")

    def _status(self, text: Text, error: bool = False) -> None:
        status = self.query_one("#status", Static)
        status.update(hold_gaps(text))
        status.set_class(error, "error")

    async def _clear(self) -> None:
        await self.query(".result-part").remove()
        # A new outcome is read from its status line: the last one's scroll
        # position (a long result read to its end) would open the next one
        # scrolled past it, an error showing as its content alone.
        self.scroll_home(animate=False, immediate=True)

    async def running(self, label: str, owner: str | None = None) -> None:
        """Clear the view and show a call under way: a progress bar and *label* with the cancel key; *owner*: the
        tool called."""
        await self._clear()
        self.empty = False
        if owner is not None:
            self.set_owner(owner)
        self.add_class("running")
        bar = self.query_one(ProgressBar)
        bar.update(total=None, progress=0)
        text = Text("⧗ ", style=looks.WARNING)
        text.append_text(plain_line(label, 120, style=looks.WARNING))
        text.append(f" … ({key_hint(self.app, 'cancel_call')} cancels)", style=looks.WARNING)
        self._status(text)

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        """Show a progress notification: the bar at *progress* of *total* (unknown: an indefinite bar), and its
        message."""
        bar = self.query_one(ProgressBar)
        bar.update(total=total, progress=progress)
        text = Text(f"⧗ progress {progress:g}" + (f"/{total:g}" if total else ""), style=looks.WARNING)
        if message:
            text.append("  ")
            text.append_text(plain(message))
        # The cancel key stays in sight while progress replaces the first line.
        text.append(f"  ({key_hint(self.app, 'cancel_call')} cancels)", style="dim")
        self._status(text)

    def task_status(self, task: TaskInfo) -> None:
        """Show where the task the call became stands: its id, status and status message."""
        text = Text(f"⧗ task {task.task_id}: {task.status}", style=looks.ACCENT)
        if task.status_message:
            text.append("  ")
            text.append_text(plain(task.status_message))
        text.append(f"  (Tasks tab: details; {key_hint(self.app, 'cancel_call')}: tasks/cancel)", style="dim")
        self._status(text)

    async def show_result(self, result: Any, elapsed: float, output_schema: dict[str, Any] | None = None) -> None:
        """Show a tools/call *result*: OK or tool error, the time, the content blocks, and structuredContent checked
        against *output_schema*."""
        self.empty = False
        self.remove_class("running")
        await self._clear()
        self.last_result = result
        if not isinstance(result, dict):
            self._status(Text(f"✖ the result is not an object ({elapsed * 1000:.0f} ms)"), error=True)
            await self.mount(json_widget(result, classes="result-part"))
            return
        is_error = result.get("isError") is True
        head = Text()
        if is_error:
            head.append("✖ TOOL ERROR (isError: true)", style=looks.ERROR_STRONG)
        else:
            head.append("✔ OK", style=looks.OK_STRONG)
        head.append(f"  {elapsed * 1000:.1f} ms", style="dim")
        content = result.get("content")
        if isinstance(content, list):
            head.append(f"  {len(content)} content block(s)", style="dim")
        self._status(head, error=is_error)
        parts: list[Any] = []
        if isinstance(content, list):
            # Pretty-printing and escaping a large text takes tens of ms: in a thread.
            big = any(
                isinstance(block, dict) and isinstance(block.get("text"), str) and len(block["text"]) > HIGHLIGHT_LIMIT
                for block in content
            )
            prepared = await asyncio.to_thread(prepare_blocks, content) if big else {}
            parts.append(ContentList(content, prepared=prepared, id=None))
        elif "content" in result:
            parts.append(Static(Text("content is not an array", style=looks.ERROR_STRONG)))
        # A server's schema may be slow to check (and holds patterns): never on the loop.
        violations = await asyncio.to_thread(structured_violations, output_schema, result)
        check = structured_check(output_schema, result, violations)
        if "structuredContent" in result:
            parts.append(
                JsonTree(
                    result["structuredContent"],
                    label="structuredContent ",
                    problems=problems_by_path(violations),
                    id="structured-tree",
                )
            )
        if check is not None:
            parts.append(Static(check))
        for part in parts:
            part.add_class("result-part")
        await self.mount_all(parts)

    async def show_error(self, error: BaseException, elapsed: float) -> None:
        """Show a call that failed: a JSON-RPC error and its data, or the inspector's own error, with the time it
        took."""
        self.empty = False
        self.remove_class("running")
        await self._clear()
        self.last_result = None
        if isinstance(error, JsonRpcError):
            head = Text(f"✖ JSON-RPC error {error.code}: ", style=looks.ERROR_STRONG)
            head.append_text(plain(error.message))
            head.append(f"  after {elapsed * 1000:.0f} ms", style="dim")
            self._status(head, error=True)
            if error.data is not None:
                await self.mount(json_widget(error.data, classes="result-part"))
        else:
            # A person reads "cancelled", not the exception's class name.
            label = error.label if isinstance(error, InspectorError) else error.__class__.__name__
            head = Text(f"✖ {label}: ", style=looks.ERROR_STRONG)
            head.append_text(plain(str(error)))
            head.append(f"  after {elapsed * 1000:.0f} ms", style="dim")
            self._status(head, error=True)

    async def show_message(self, text: Text) -> None:
        """Clear the view and show *text* alone."""
        self.empty = False
        self.remove_class("running")
        await self._clear()
        self._status(text)
