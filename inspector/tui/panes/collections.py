"""Collections: a collection file's steps, run one or all on the connected
server, with pass/fail per expectation (the same runner as `inspector test`).

Saved variables live as long as the loaded collection: running a step that
uses `${NAME}` after the step that saves it works, as in a full run.
"""

from __future__ import annotations

import os

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, DataTable, Input, Static

from inspector.collections import Collection, CollectionError, CollectionRunner, Step, StepResult, load_collection
from inspector.tui import looks
from inspector.tui.panes.context import ServerContext
from inspector.tui.panes.messages import Notice
from inspector.tui.safe import plain, plain_line

__all__ = ["DEFAULT_COLLECTION", "CollectionsPane", "check_lines"]

DEFAULT_COLLECTION = "collection.yaml"


def check_lines(result: StepResult) -> Text:
    """Each expectation of a step's last run: ✓ or ✗, and what was found instead."""
    text = Text()
    text.append_text(plain_line(f"{result.step.name}  ({result.answer.elapsed_ms:.0f} ms)", 200, style="bold"))
    for check in result.checks:
        text.append("\n")
        text.append("✓ " if check.passed else "✗ ", style=looks.OK if check.passed else looks.ERROR_STRONG)
        text.append_text(plain_line(check.label, 200))
        if check.detail and not check.passed:
            text.append(": ", style="dim")
            text.append_text(plain(check.detail, style=looks.ERROR))
    return text


class CollectionsPane(Vertical):
    """The Collections tab: a collection file's steps, run one or all on the connected server, with each
    expectation's outcome."""

    BINDINGS = [
        Binding("a", "run_all", "Run all", id="collection_run_all"),
    ]

    def __init__(self, server: ServerContext) -> None:
        super().__init__()
        self.server = server
        self.collection: Collection | None = None
        self.runner: CollectionRunner | None = None
        self.results: dict[str, StepResult] = {}

    @property
    def path(self) -> str:
        """The path typed in the box, else the default collection file."""
        return self.query_one("#collection-path", Input).value.strip() or DEFAULT_COLLECTION

    def compose(self) -> ComposeResult:
        yield Static(
            Text(
                "A collection file (YAML): enter on a step runs it, a runs them all. "
                "ctrl+b saves the selected tool's last call as a step.",
                style="dim",
            )
        )
        with Horizontal():
            yield Input(DEFAULT_COLLECTION, placeholder="collection file, then enter", id="collection-path")
            yield Button("Load", id="collection-load")
        yield DataTable(id="collection-steps", cursor_type="row", zebra_stripes=True)
        yield VerticalScroll(Static(id="collection-checks"), id="collection-checks-scroll")

    def on_mount(self) -> None:
        table = self.query_one("#collection-steps", DataTable)
        table.add_columns("result", "step", "sends")
        table.border_title = "Steps"

    @on(Input.Submitted, "#collection-path")
    @on(Button.Pressed, "#collection-load")
    def action_load(self) -> None:
        """Load the collection file the path box names."""
        self.load(self.path)

    def load(self, path: str) -> bool:
        """Load and show the collection at *path* (the box takes it too); False, with a notice, when it is missing or
        does not load."""
        self.query_one("#collection-path", Input).value = path
        if not os.path.exists(path):
            self.post_message(Notice(f"{path}: no such file yet (ctrl+b in Tools saves a call there)"))
            return False
        try:
            collection = load_collection(path)
        except CollectionError as exc:
            self.post_message(Notice(str(exc), severity="error"))
            return False
        self.collection = collection
        self.runner = None
        self.results = {}
        self._fill()
        return True

    def _fill(self) -> None:
        table = self.query_one("#collection-steps", DataTable)
        table.clear()
        collection = self.collection
        if collection is None:
            return
        table.border_title = f"Steps of {collection.name} ({len(collection.steps)})"
        for step in collection.steps:
            table.add_row(self._status(step), plain_line(step.name, 60), plain_line(step.label, 60), key=step.name)
        self.query_one("#collection-checks", Static).update("")

    def _status(self, step: Step) -> Text:
        result = self.results.get(step.name)
        if result is None:
            return Text("–", style="dim")
        return Text("✓ pass", style=looks.OK) if result.passed else Text("✗ FAIL", style=looks.ERROR_STRONG)

    def _highlighted(self) -> Step | None:
        table = self.query_one("#collection-steps", DataTable)
        if self.collection is None or not self.collection.steps or table.row_count == 0:
            return None
        return self.collection.steps[min(table.cursor_row, len(self.collection.steps) - 1)]

    @on(DataTable.RowHighlighted, "#collection-steps")
    def _show_checks(self) -> None:
        step = self._highlighted()
        result = self.results.get(step.name) if step is not None else None
        checks = self.query_one("#collection-checks", Static)
        checks.update(check_lines(result) if result is not None else Text("not run yet", style="dim"))

    @on(DataTable.RowSelected, "#collection-steps")
    def _run_selected(self) -> None:
        step = self._highlighted()
        if step is not None:
            self.run_steps([step])

    def action_run_all(self) -> None:
        if self.collection is not None:
            self.run_steps(list(self.collection.steps))

    def run_steps(self, steps: list[Step]) -> None:
        """After one confirmation naming every tool the steps call."""
        if self.server.recording:
            self.notify("this is a recording: nothing can be sent (inspector test FILE runs a collection)")
            return
        tools = sorted({str(step.target) for step in steps if step.kind == "call"})
        if not tools:
            self._run(steps)
            return
        from inspector.tui.screens.run_steps import RunStepsScreen

        def answered(run: bool | None) -> None:
            if run:
                self._run(steps)
            else:
                self.notify("not run")

        self.app.push_screen(RunStepsScreen(len(steps), tools), callback=answered)

    @work(group="collection-run", exclusive=True, exit_on_error=False)
    async def _run(self, steps: list[Step]) -> None:
        collection = self.collection
        if collection is None:
            return
        if self.runner is None or self.runner.client is not self.server.client:
            self.runner = CollectionRunner(self.server.client, collection)
        table = self.query_one("#collection-steps", DataTable)
        for step in steps:
            table.update_cell(step.name, table.ordered_columns[0].key, Text("… running", style=looks.WARNING))
            result = await self.runner.run_step(step)
            self.results[step.name] = result
            table.update_cell(step.name, table.ordered_columns[0].key, self._status(step))
            self._show_checks()
        passed = sum(1 for step in steps if self.results[step.name].passed)
        self.notify(f"{passed} of {len(steps)} step(s) passed", severity="information")
