"""The command palette offers every action of the app (taken from the
bindings), the bindings of what has focus, and the actions without a key;
choosing one does what it says. Against the demo server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.binding import Binding
from textual.command import CommandList, CommandPalette
from textual.widgets import TabbedContent

from inspector.core.servers.spec import demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.palette import binding_title
from inspector.tui.panes.bottom import BottomPanel

from .tui_helpers import burst, wait_connected, wait_for

SIZE = (150, 45)


def options(app: InspectorApp) -> list[str]:
    """The palette's entries as shown: title, then the help line."""
    found = app.screen.query_one(CommandList)
    return [str(found.get_option_at_index(i).prompt) for i in range(found.option_count)]


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def spawned(app: InspectorApp) -> int:
    return len([f for f in app.traffic.frames if f.kind == "process" and "spawned" in (f.note or "")])


async def open_palette(pilot, app: InspectorApp) -> None:  # type: ignore[no-untyped-def]
    await burst(pilot, "ctrl+p")
    await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")


async def choose(pilot, app: InspectorApp, title: str) -> None:  # type: ignore[no-untyped-def]
    """Type a title into the palette and take the entry it brings to the top."""
    await open_palette(pilot, app)
    await burst(pilot, *title)

    def on_top() -> bool:
        shown = options(app) if isinstance(app.screen, CommandPalette) else []
        return bool(shown) and shown[0].splitlines()[0] == title

    await wait_for(pilot, on_top, f"{title!r} at the top of the palette")
    await burst(pilot, "enter")
    # The palette leaves the screen stack at once and runs the command later
    # (`call_later`): a closed palette does not mean the command has run, so
    # callers wait for the command's effect.
    await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette), "the palette closed")


def reconnected_session_done(app: InspectorApp) -> bool:
    """Everything the reconnect sets off has come back: the lists answered
    and the change stream acknowledged, so no frame of it arrives later."""
    starts = [i for i, f in enumerate(app.traffic.frames) if f.kind == "process" and "spawned" in (f.note or "")]
    if len(starts) < 2 or app.client.in_flight:
        return False
    since = app.traffic.frames[starts[-1] :]
    answered = {f.method for f in since if f.kind in ("response", "error")}
    lists = {"tools/list", "resources/list", "resources/templates/list", "prompts/list"}
    if not lists <= answered:
        return False
    listens = any(f.kind == "request" and f.method == "subscriptions/listen" for f in since)
    acknowledged = any(f.method == "notifications/subscriptions/acknowledged" for f in since)
    return acknowledged or (app.client.modern is None and not listens)


async def test_every_binding_of_the_app_is_in_the_palette_with_its_key() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await open_palette(pilot, app)
        bindings = [b for b in InspectorApp.BINDINGS if isinstance(b, Binding)]
        # The palette fills its list in batches (every quarter second on a
        # slow machine); it takes the class -ready once the search is done.
        await wait_for(
            pilot, lambda: app.screen.has_class("-ready") and len(options(app)) > len(bindings), "all the entries"
        )
        shown = options(app)
        titles = [entry.splitlines()[0] for entry in shown]
        firsts: dict[str, Binding] = {}
        for binding in bindings:
            firsts.setdefault(binding.action, binding)
        for binding in firsts.values():
            title = binding_title(binding)
            assert title in titles, (binding.id, title, titles)
            entry = shown[titles.index(title)]
            first_key = binding.key.split(",")[0]
            assert f"key: {first_key}" in entry, (binding.id, entry)
        for title in (
            "go to: Tasks pane",
            "panel: Latency tab",
            "panel: show / hide",
            "reconnect: restart / reconnect the server",
            "help: every key",
            "jump: a letter per field in view",
        ):
            assert title in titles, title
        # Actions without a key of their own, and a pane's actions from anywhere.
        for title in ("record: start", "Copy as command (tools)", "Raw message (traffic)", "Theme"):
            assert title in titles, (title, titles)
        # The focused list's own keys are offered too.
        assert "Filter (tool / resource / template / prompt lists)" in titles
        # Textual's own key panel and quit would duplicate ours.
        assert "Keys" not in titles and titles.count("Quit") == 1


async def test_choosing_entries_does_what_they_say(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        main = app.query_one("#main", TabbedContent)
        await choose(pilot, app, "go to: Prompts pane")
        await wait_for(pilot, lambda: main.active == "prompts", "the Prompts pane shown")
        prompts = app.query_one("#prompt-list").options  # type: ignore[attr-defined]
        await wait_for(pilot, lambda: app.focused is prompts, "focus on the prompt list")

        panel = app.query_one(BottomPanel)
        bottom = panel.query_one("#bottom-tabs", TabbedContent)
        await choose(pilot, app, "panel: Stderr tab")
        await wait_for(pilot, lambda: bottom.active == "stderr" and panel.display, "the panel open on its Stderr tab")
        await choose(pilot, app, "panel: show / hide")
        await wait_for(pilot, lambda: not panel.display, "the panel hidden")

        await choose(pilot, app, "record: start")
        await wait_for(pilot, lambda: app.recording_path is not None, "recording")
        path = Path(app.recording_path or "")
        assert path.parent == tmp_path
        await choose(pilot, app, "reconnect: restart / reconnect the server")
        await wait_for(pilot, lambda: spawned(app) == 2, "a new server process")
        await wait_for(pilot, lambda: app.client.state == "connected" and app.negotiated, "connected again")
        # Stopped only once the new session's answers are in: one arriving
        # after the stop would (rightly) not be written.
        await wait_for(pilot, lambda: reconnected_session_done(app), "the new session's lists and change stream")
        await choose(pilot, app, "record: stop")
        await wait_for(pilot, lambda: app.recording_path is None, "the recording stopped")
        written = [json.loads(line) for line in read(path).splitlines()]
        # The session from its start (the first process) and the restart after recording began.
        notes = [record.get("note") or "" for record in written if record["kind"] == "process"]
        assert sum("spawned" in note for note in notes) == 2, notes
        assert len(written) == len(app.traffic.frames)
        # Stopped: what comes later is not written.
        before = read(path)
        await choose(pilot, app, "go to: Tools pane")
        app.refresh_list("tools")
        await wait_for(pilot, lambda: app.traffic.frames[-1].method == "tools/list", "a later frame")
        assert read(path) == before
