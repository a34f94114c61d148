"""Problems: every finding of the live wire validation, worst first, each
linked to its frame and to the spec page that says why."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from inspector.core.checks.problems import Problem, severity_rank
from inspector.tui import looks
from inspector.tui.safe import plain, plain_line

if TYPE_CHECKING:
    from inspector.core.record.traffic import Frame

__all__ = ["ProblemsPane", "severity_style"]

_STYLE = {"error": looks.ERROR_STRONG, "warning": looks.WARNING, "info": looks.INFO}


def severity_style(severity: str) -> str:
    """The Rich style a severity is drawn in (the error colour for one it does not know)."""
    return _STYLE.get(severity, looks.ERROR)


def problem_row(problem: Problem) -> Text:
    """A finding's two lines in the list: severity, frame number and where, then the message."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{problem.severity:<8}", style=severity_style(problem.severity))
    if problem.seq is not None:
        text.append(f"#{problem.seq:<6}", style="dim")
    text.append_text(plain_line(problem.where or "(message)", 60, style="bold"))
    text.append("\n")
    text.append_text(plain_line(problem.message, 200))
    return text


class ProblemsPane(Horizontal):
    """The Problems tab: the wire validation's findings, each one's detail, and enter to show its frame."""

    BINDINGS = [Binding("enter", "show_frame", "Show the frame", id="problem_frame", show=False)]

    class ShowFrame(Message):
        """Asks for the Traffic pane to show frame *seq*."""

        def __init__(self, seq: int) -> None:
            super().__init__()
            self.seq = seq

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[Problem] = []
        self._seen = 0

    def compose(self) -> ComposeResult:
        yield OptionList(id="problem-list")
        with VerticalScroll(id="problem-detail"):
            yield Static(Text("No problems found in the traffic so far.", style="dim"), id="problem-text")

    def take(self, frames: list[Frame], upto: int | None = None) -> int:
        """Add the findings of frames not seen yet, up to frame index `upto`
        (the frames checked so far); returns how many there are now."""
        end = len(frames) if upto is None else min(upto, len(frames))
        fresh = [problem for frame in frames[self._seen : end] for problem in frame.findings]
        self._seen = max(self._seen, end)
        if fresh:
            self.problems.extend(fresh)
            self.problems.sort(key=lambda p: (severity_rank(p.severity), p.seq or 0))
            options = self.query_one("#problem-list", OptionList)
            highlighted = options.highlighted
            options.clear_options()
            options.add_options(Option(problem_row(problem)) for problem in self.problems)
            if self.problems:
                options.highlighted = min(highlighted or 0, len(self.problems) - 1)
        return len(self.problems)

    @property
    def counts(self) -> dict[str, int]:
        """How many findings there are of each severity."""
        counts: dict[str, int] = {}
        for problem in self.problems:
            counts[problem.severity] = counts.get(problem.severity, 0) + 1
        return counts

    @on(OptionList.OptionHighlighted, "#problem-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        problem = self.problems[event.option_index]
        text = Text()
        text.append(f"{problem.severity} ", style=severity_style(problem.severity))
        text.append(f"[{problem.rule}]", style="bold")
        if problem.seq is not None:
            text.append(f"  frame #{problem.seq} (enter shows it)", style="dim")
        if problem.where:
            text.append("\nwhere: ", style="dim")
            text.append_text(plain(problem.where))
        text.append("\n\n")
        text.append_text(plain(problem.message))
        if problem.spec:
            text.append("\n\nwhat the spec says: ", style="dim")
            text.append_text(plain(problem.spec, style="italic"))
        if problem.url:
            text.append("\n")
            text.append_text(plain(problem.url, style="underline"))
        self.query_one("#problem-text", Static).update(text)

    @on(OptionList.OptionSelected, "#problem-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.action_show_frame()

    def action_show_frame(self) -> None:
        index = self.query_one("#problem-list", OptionList).highlighted
        if index is not None and 0 <= index < len(self.problems):
            seq = self.problems[index].seq
            if seq is not None:
                self.post_message(self.ShowFrame(seq))
