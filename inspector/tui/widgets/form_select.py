"""A form's select: its list of options mounted only when needed, safe to remove while it mounts."""

from __future__ import annotations

import contextlib
from typing import Any

from textual.app import ComposeResult
from textual.css.query import NoMatches
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widget import Widget
from textual.widgets import OptionList, Select
from textual.widgets._select import NonSelectableStatic, SelectCurrent

__all__ = ["BLANK", "FormSelect"]

BLANK = Select.NULL


class _SteadyPart(NonSelectableStatic):
    """A part of the select's line (its label, an arrow): one line whatever
    it shows, so a change of its content's size asks for no second layout."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)


class _FormSelectCurrent(SelectCurrent):
    """The select's line (the value and the arrow), of steady parts: a select
    newly mounted lays the screen out once, not a second time as its label
    and arrows take their sizes."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)

    def compose(self) -> ComposeResult:
        yield _SteadyPart(self.placeholder, id="label")
        yield _SteadyPart("▼", classes="arrow down-arrow")
        yield _SteadyPart("▲", classes="arrow up-arrow")


class FormSelect(Select[Any]):
    """A form's select, safe to remove while it mounts.

    Its list of options (an OptionList, the costliest of a select's parts)
    is mounted when first needed: opened, or holding a value to highlight.
    A form of many choices, most of them left blank, mounts a third fewer
    widgets."""

    # The option list while it waits to be mounted (set in compose).
    _unmounted_options: Widget | None = None
    # One line in a form's row, whatever it shows (see `_FormSelectCurrent`).
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)

    def compose(self) -> ComposeResult:
        for part in super().compose():
            if isinstance(part, OptionList):
                self._unmounted_options = part
                continue
            if type(part) is SelectCurrent:
                part = _FormSelectCurrent(self.prompt)
            yield part

    def _mount_options(self) -> None:
        options, self._unmounted_options = self._unmounted_options, None
        if options is not None and self.is_attached:
            self.mount(options)
            self._setup_options_renderables()

    def _setup_options_renderables(self) -> None:
        if self._unmounted_options is not None:
            return  # filled when mounted
        # A form rebuilt while this select mounts (a page of the list arriving
        # on a busy machine) takes its overlay away before the select's own
        # mount handler fills it; there is nothing left to fill then.
        with contextlib.suppress(NoMatches):
            super()._setup_options_renderables()

    def _watch_value(self, value: Any) -> None:
        if value != self.NULL:
            self._mount_options()  # the value is highlighted in it
        super()._watch_value(value)

    def _watch_expanded(self, expanded: bool) -> None:
        if expanded:
            self._mount_options()
        super()._watch_expanded(expanded)

    def _watch_prompt(self, prompt: str) -> None:
        if self.is_mounted:
            self._mount_options()  # the blank option shows the prompt
        super()._watch_prompt(prompt)

    def action_show_overlay(self) -> None:
        """Open the list of options (mounting it first if it waits)."""
        self._mount_options()
        super().action_show_overlay()
