"""Where the focus goes when a pane is shown: its list, else the first thing in it that takes focus."""

from __future__ import annotations

from textual.widget import Widget

from inspector.tui.widgets.filter_list import FilterList
from inspector.tui.widgets.traffic_table import TrafficTable

__all__ = ["focus_pane"]


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
