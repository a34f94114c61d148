"""Saving the current tool call as a collection step: which file, which name,
and the step as it will be written (arguments as they were sent,
expectations from what came back)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from inspector.tui.safe import plain

__all__ = ["SaveStepScreen"]


def _as_yaml(step: dict[str, Any]) -> str:
    """The step as the file will hold it."""
    import io

    from inspector.collections.reading import yaml_round_trip

    stream = io.StringIO()
    yaml_round_trip().dump([step], stream)
    return stream.getvalue().rstrip("\n")


class SaveStepScreen(ModalScreen[tuple[str, str] | None]):
    """Saving a call as a collection *step*: answers with the file and the step's name, None not to save."""

    BINDINGS = [Binding("escape", "cancel", "Don't save", id="save_step_cancel")]

    def __init__(self, path: str, step: dict[str, Any]) -> None:
        super().__init__()
        self.path = path
        self.step = step

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Save the call as a collection step", style="bold"))
            yield Label("collection file (created if missing; the step is appended)")
            yield Input(self.path, id="save-step-path")
            yield Label("step name")
            yield Input(str(self.step.get("name", "")), id="save-step-name")
            yield VerticalScroll(Static(plain(_as_yaml(self.step)), id="save-step-body"), id="save-step-preview")
            yield Static(Text("enter: save   escape: don't", style="dim"))

    def on_mount(self) -> None:
        self.query_one("#save-step-path", Input).focus()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        path = self.query_one("#save-step-path", Input).value.strip()
        name = self.query_one("#save-step-name", Input).value.strip()
        if path and name:
            self.dismiss((path, name))

    def action_cancel(self) -> None:
        self.dismiss(None)
