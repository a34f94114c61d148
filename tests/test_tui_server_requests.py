"""The server's own requests answered by the person: one modal at a time
from a queue, timeouts (queued and shown), URL-mode elicitation, and an
accepted elicitation form.  Against the embedded demo server."""

from __future__ import annotations

import asyncio
import webbrowser
from collections.abc import Callable
from typing import Any

import pytest
from textual.widgets import Static, TextArea

from inspector.core.protocol.errors import JsonRpcError
from inspector.core.servers.spec import demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.handlers import RequestScreen
from inspector.tui.panes.bottom import BottomPanel
from inspector.tui.panes.traffic import TrafficPane
from inspector.tui.screens import elicitation as elicitation_module
from inspector.tui.screens.elicitation import ElicitationScreen
from inspector.tui.screens.sampling import SamplingScreen

from .tui_helpers import TIMEOUT, field_row, fill, focus, settle, type_into, wait_connected, wait_for

SIZE = (150, 50)


def record_notifications(app: InspectorApp) -> list[str]:
    """Every toast text, in order (the app's notify still runs)."""
    notes: list[str] = []
    original = app.notify

    def notify(message: str, *args: Any, **kwargs: Any) -> None:
        notes.append(str(message))
        original(message, *args, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    return notes


def never_open_a_browser(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The URLs the screen asked a browser to open (none is opened)."""
    opened: list[str] = []

    def fake_open(url: str, *args: object, **kwargs: object) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(webbrowser, "open", fake_open)  # the module the screen opens URLs with
    return opened


def request_screens(app: InspectorApp) -> list[RequestScreen]:
    return [screen for screen in app.screen_stack if isinstance(screen, RequestScreen)]


def queue_note(app: InspectorApp) -> str:
    return str(app.screen.query_one("#queue-position", Static).render())


def shown_text(app: InspectorApp) -> str:
    return " ".join(str(static.render()) for static in app.screen.query(Static))


def sampling_prompt(screen: object) -> str:
    assert isinstance(screen, SamplingScreen)
    return str(screen.params["messages"][0]["content"]["text"])


def call(app: InspectorApp, tool: str, arguments: dict[str, Any]) -> asyncio.Task[Any]:
    """A tool call running beside the test, as the tools pane's worker would run it."""
    return asyncio.create_task(app.client.call_tool(tool, arguments))


async def wait_screen(pilot: Any, app: InspectorApp, check: Callable[[object], bool], what: str) -> None:
    await wait_for(pilot, lambda: isinstance(app.screen, RequestScreen) and check(app.screen), what)
    await settle(pilot, f"{what} drawn")


def result_text(result: Any) -> str:
    return " ".join(block.get("text", "") for block in result.get("content", []))


async def test_concurrent_sampling_requests_are_shown_one_at_a_time() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        first = call(app, "sample_llm", {"prompt": "first question"})
        await wait_screen(pilot, app, lambda s: sampling_prompt(s) == "first question", "the first request")
        second = call(app, "sample_llm", {"prompt": "second question"})
        await wait_for(pilot, lambda: len(app.handlers.waiting) == 2, "the second request queued")
        await settle(pilot, "the second request handled")
        # One modal, which says that another is waiting behind it.
        assert len(request_screens(app)) == 1
        assert sampling_prompt(app.screen) == "first question"
        await wait_for(pilot, lambda: "1 of 2 pending" in queue_note(app), "the queue position")
        assert app.facts.server_requests == 2
        app.screen.query_one("#sampling-reply", TextArea).text = "first answer"
        await pilot.press("ctrl+s")
        # The next one appears once the first is answered, now alone.
        await wait_screen(pilot, app, lambda s: sampling_prompt(s) == "second question", "the second request")
        assert len(request_screens(app)) == 1
        assert queue_note(app) == ""
        app.screen.query_one("#sampling-reply", TextArea).text = "second answer"
        await pilot.press("ctrl+s")
        assert "first answer" in result_text(await first)
        assert "second answer" in result_text(await second)
        await wait_for(pilot, lambda: not request_screens(app) and not app.handlers.waiting, "queue empty")


async def test_a_request_timing_out_in_the_queue_is_removed_and_said() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        notes = record_notifications(app)
        first = call(app, "sample_llm", {"prompt": "patient question"})
        await wait_screen(pilot, app, lambda s: sampling_prompt(s) == "patient question", "the first request")
        # The timeout is read when a request arrives: the second gets a short
        # one, yet long enough for a busy machine to draw "1 of 2" first.
        app.handlers.answer_timeout = 5.0
        second = call(app, "sample_llm", {"prompt": "impatient question"})
        await wait_for(pilot, lambda: "1 of 2 pending" in queue_note(app), "two pending")
        with pytest.raises(Exception, match="did not answer in time"):
            await asyncio.wait_for(second, TIMEOUT)
        await wait_for(pilot, lambda: "1 of 2" not in queue_note(app), "the queue note updated")
        timed_out = [note for note in notes if "no answer within 5 s" in note]
        assert timed_out and "waiting its turn in the queue" in timed_out[0]
        assert "sampling/createMessage" in timed_out[0]
        # The first is still on screen, alone, and can still be answered.
        assert sampling_prompt(app.screen) == "patient question"
        assert len(request_screens(app)) == 1 and app.handlers.waiting and len(app.handlers.waiting) == 1
        app.screen.query_one("#sampling-reply", TextArea).text = "worth the wait"
        await pilot.press("ctrl+s")
        assert "worth the wait" in result_text(await first)


async def test_a_shown_request_timing_out_unanswered_closes_and_tells_the_server() -> None:
    # The handshake era: the refusal is a JSON-RPC error frame we can see.
    app = InspectorApp(demo_spec().with_overrides(era="legacy"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        assert app.client.era == "legacy"
        notes = record_notifications(app)
        app.handlers.answer_timeout = 1.0
        # On a busy machine the modal can come and go (1 s) between two looks
        # at the screen: every screen pushed is kept to be asked afterwards.
        pushed: list[object] = []
        push_screen = app.push_screen

        def keep(screen: Any, *args: Any, **kwargs: Any) -> Any:
            pushed.append(screen)
            return push_screen(screen, *args, **kwargs)

        app.push_screen = keep  # type: ignore[method-assign]
        task = call(app, "sample_llm", {"prompt": "nobody answers this"})
        await wait_for(pilot, lambda: any(isinstance(s, SamplingScreen) for s in pushed), "the sampling modal")
        await wait_for(pilot, lambda: not request_screens(app), "the modal closed by the timeout")
        assert not app.handlers.waiting
        # The demo server passes our refusal on as the call's error.
        with pytest.raises(JsonRpcError, match="did not answer in time"):
            await asyncio.wait_for(task, TIMEOUT)
        refusals = [
            f
            for f in app.traffic
            if f.direction == "out" and f.kind == "error" and f.method == "sampling/createMessage"
        ]
        assert refusals and refusals[-1].message["error"]["code"] == -1
        assert any("no answer within 1 s" in note and "queue" not in note for note in notes), notes
        assert app.is_running and not isinstance(app.screen, RequestScreen)


async def test_url_elicitation_open_copy_accept_and_completion(monkeypatch: pytest.MonkeyPatch) -> None:
    opened = never_open_a_browser(monkeypatch)
    copied: list[str] = []

    def copy(app: object, text: str) -> str:
        copied.append(text)
        return "test clipboard"

    monkeypatch.setattr(elicitation_module, "copy_text", copy)
    # The handshake era: the demo server reports completion with a notification.
    app = InspectorApp(demo_spec().with_overrides(era="legacy"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        notes = record_notifications(app)
        task = call(app, "elicit_url", {})
        await wait_screen(pilot, app, lambda s: isinstance(s, ElicitationScreen) and s.url_mode, "the URL modal")
        screen = app.screen
        assert isinstance(screen, ElicitationScreen)
        url = screen.url
        assert url.startswith("https://modelcontextprotocol.io/")
        text = shown_text(app)
        assert url in text and "ctrl+o open in browser" in text and "ctrl+y copy URL" in text
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: opened == [url], "the browser asked to open the URL")
        await pilot.press("ctrl+y")
        await wait_for(pilot, lambda: copied == [url], "the URL copied")
        assert any("URL copied" in note for note in notes)
        await pilot.press("ctrl+s")
        result = await asyncio.wait_for(task, TIMEOUT)
        assert "URL elicitation answered: accept." in result_text(result)
        answers = [f for f in app.traffic if f.direction == "out" and f.method == "elicitation/create"]
        assert answers[-1].message["result"] == {"action": "accept"}
        elicitation_id = screen.params["elicitationId"]
        await wait_for(pilot, lambda: elicitation_id in app.handlers.completed_elicitations, "completion")
        assert any("complete" in note and elicitation_id in note for note in notes), notes


async def test_url_elicitation_refuses_to_open_a_non_http_url(monkeypatch: pytest.MonkeyPatch) -> None:
    opened = never_open_a_browser(monkeypatch)
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        notes = record_notifications(app)
        params = {"mode": "url", "message": "m", "url": "file:///etc/passwd", "elicitationId": "x"}
        app.push_screen(ElicitationScreen(params))
        await wait_for(pilot, lambda: isinstance(app.screen, ElicitationScreen), "the modal")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: any("only http(s) URLs" in note for note in notes), "the refusal")
        assert opened == []


async def test_accepting_a_filled_elicitation_form() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        task = call(app, "elicit_profile", {})
        await wait_screen(pilot, app, lambda s: isinstance(s, ElicitationScreen), "the form")
        await wait_for(pilot, lambda: any(True for _ in app.screen.query("FieldRow")), "form rows")
        await settle(pilot, "the form built")
        await fill(pilot, field_row(app, ("name",)), "Grace")
        await type_into(pilot, field_row(app, ("age",)).query_one("Input"), "41")  # type: ignore[arg-type]
        await pilot.press("ctrl+s")
        result = await asyncio.wait_for(task, TIMEOUT)
        text = result_text(result)
        assert "Thanks, Grace! You are 41" in text, text
        # Fields left alone keep their defaults.
        assert "like green" in text and "wear Medium" in text
        # The stateless era answers through a retry of the call; the traffic
        # detail names the request it repeats, and `o` goes there.
        assert app.client.era == "modern"
        retry = next(f for f in app.traffic if f.direction == "out" and (f.meta or {}).get("retry_of"))
        original = retry.meta["retry_of"]  # type: ignore[index]
        app.query_one(BottomPanel).sync()
        pane = app.query_one(TrafficPane)
        await focus(pilot, pane.table)
        assert pane.table.select_seq(retry.seq)
        await wait_for(pilot, lambda: f"retry of frame #{original}" in shown_text(app), "the retry line")
        await pilot.press("o")
        await wait_for(pilot, lambda: pane.table.selected_frame is not None, "a selection")
        assert pane.table.selected_frame is not None and pane.table.selected_frame.seq == original
