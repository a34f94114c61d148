"""ctrl+b: the selected tool's last call (as it went out) and its answer,
saved as a step of a collection file the person names."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inspector.collections import Answer, CollectionError
from inspector.collections.saving import append_step, call_step
from inspector.core.record.recording_files import last_call

if TYPE_CHECKING:
    from inspector.tui.app import InspectorApp

__all__ = ["save_current_call"]


def _answer(app: InspectorApp, response: Any, tool: dict[str, Any]) -> Answer:
    message = response.message if isinstance(response.message, dict) else {}
    answer = Answer(tool=tool, revision=app.client.protocol_version)
    if isinstance(message.get("error"), dict):
        answer.error = message["error"]
    else:
        answer.result = message.get("result")
    if response.latency is not None:
        answer.elapsed_ms = response.latency * 1000
    return answer


def save_current_call(app: InspectorApp) -> None:
    """ctrl+b: save the selected tool's last call and its answer as a step of the collection file the person names,
    then show it in Collections."""
    from inspector.tui.panes.collections import CollectionsPane
    from inspector.tui.panes.tools import ToolsPane
    from inspector.tui.screens.save_step import SaveStepScreen

    tool = app.view.query_one(ToolsPane).tool
    if tool is None:
        app.notify("select a tool and call it first: the step saves what was sent and what came back")
        return
    found = last_call(app.traffic, tool.key)
    if found is None or found[1] is None:
        app.notify_plain(f"call {tool.key} first: the step saves what was sent and what came back")
        return
    request, response = found
    params = request.message.get("params") if isinstance(request.message, dict) else None
    if not isinstance(params, dict):
        return
    step = call_step(f"call {tool.key}", tool.key, params, _answer(app, response, tool.data))
    pane = app.view.query_one(CollectionsPane)

    def chosen(where: tuple[str, str] | None) -> None:
        if where is None:
            app.notify("not saved")
            return
        path, name = where
        step["name"] = name
        try:
            saved_as = append_step(path, step)
        except (CollectionError, OSError) as exc:
            app.notify_plain(f"not saved: {exc}", severity="error")
            return
        app.notify_plain(f"saved step {saved_as!r} to {path}")
        from textual.widgets import TabbedContent

        app.view.query_one("#main", TabbedContent).show_tab("collections")
        pane.load(path)

    app.push_screen(SaveStepScreen(pane.path, step), callback=chosen)
