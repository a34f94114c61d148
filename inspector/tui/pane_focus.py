"""Where the focus goes when a pane is shown: its list, else the first thing in it that takes focus."""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import TabbedContent

from inspector.tui.widgets.filter_list import FilterList
from inspector.tui.widgets.traffic_table import TrafficTable

__all__ = ["focus_active_pane", "focus_pane"]


def focus_pane(pane: Widget) -> None:
    """Focus what a pane is for: its list (a traffic-like table in the
    bottom panel), else the first thing in it that takes focus."""
    lists = pane.query(FilterList)
    if lists:
        lists.first().focus_list()
        return
    targets = [*pane.query(TrafficTable), *(w for w in pane.query("*") if w.focusable)]
    if targets:
        targets[0].focus()
    elif pane.focusable:
        pane.focus()


def focus_active_pane(tabs: TabbedContent) -> None:
    """Focus the pane *tabs* shows, unless the focus is in it already."""
    if not tabs.active:
        return
    pane = tabs.get_pane(tabs.active)
    focused = tabs.app.focused
    if focused is None or pane not in focused.ancestors_with_self:
        focus_pane(pane)
