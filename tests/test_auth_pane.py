"""The Auth pane on its own: it draws the auth log's steps as they arrive,
shows the failing step and why, the masked HTTP exchange of a step, and
server text as inert text; its keys post messages for the app."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import OptionList, Static

from inspector.core.auth.log import AuthLog, HttpExchange
from inspector.core.record.traffic import TrafficLog
from inspector.tui import looks
from inspector.tui.app import STYLE_SHEETS
from inspector.tui.panes.auth import AuthPane

from .tui_helpers import settle


class PaneApp(App[None]):
    # The pane's looks live in the inspector's style sheets (panes.tcss), not on the pane.
    CSS_PATH = STYLE_SHEETS

    def __init__(self) -> None:
        super().__init__()
        # The pane draws in the colour roles the inspector's app installs.
        looks.install(self)
        self.messages: list[str] = []

    def compose(self) -> ComposeResult:
        yield AuthPane(server="http://127.0.0.1:1/mcp")

    def on_auth_pane_login_requested(self, message: AuthPane.LoginRequested) -> None:
        self.messages.append("login")

    def on_auth_pane_cancel_requested(self, message: AuthPane.CancelRequested) -> None:
        self.messages.append("cancel")

    def on_auth_pane_step_failed(self, message: AuthPane.StepFailed) -> None:
        self.messages.append(f"failed:{message.event.step}")

    def on_auth_pane_copy_url_requested(self, message: AuthPane.CopyUrlRequested) -> None:
        self.messages.append(f"copy:{message.url}")


def _text(app: PaneApp, selector: str) -> str:
    return str(app.query_one(selector, Static).render())


async def test_pane_follows_the_flow_and_points_at_the_failure() -> None:
    app = PaneApp()
    traffic = TrafficLog()
    log = AuthLog(traffic=traffic)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = app.query_one(AuthPane)
        log.subscribe(pane.add_event)
        exchange = HttpExchange(
            method="POST",
            url="http://127.0.0.1:1/mcp",
            request_headers={"authorization": "Bearer ***"},
            status=401,
            reason="Unauthorized",
            response_headers={"www-authenticate": 'Bearer scope="mcp:read"'},
            response_body='{"error": "\x1b]0;pwned\x07"}',
        )
        log.emit("challenge", "info", "HTTP 401: the server requires authorization", http=exchange)
        log.emit("authorization", "waiting", "waiting for the browser", data={"url": "http://as/authorize?x=1"})
        await settle(pilot, "the waiting step drawn")
        assert "waiting" in _text(app, "#auth-summary") and "http://as/authorize?x=1" in _text(app, "#auth-summary")
        log.emit("callback", "failed", "authorization response rejected: wrong issuer [bold]x[/bold]")
        await settle(pilot, "the failed step drawn")
        summary = _text(app, "#auth-summary")
        assert "failed at callback" in summary and "[bold]x[/bold]" in summary  # inert, not markup
        steps = app.query_one("#auth-steps", OptionList)
        assert steps.option_count == 3 and steps.highlighted == 2
        assert "failed:callback" in app.messages
        steps.highlighted = 0
        await settle(pilot, "the first step's detail")
        detail = _text(app, "#auth-step-http")
        assert "www-authenticate" in detail and "Bearer ***" in detail
        assert "\x1b" not in detail  # control characters made visible
        await pilot.press("L")
        await pilot.press("X")
        await pilot.press("C")
        await settle(pilot, "the keys' messages handled")
        assert app.messages[-3:] == ["login", "cancel", "copy:http://as/authorize?x=1"]
        # The same story from the traffic log (a recording reopened).
        pane.set_events(AuthPane.events_in(traffic))
        await settle(pilot, "the steps from the traffic drawn")
        assert steps.option_count == 3 and "failed at callback" in _text(app, "#auth-summary")
        pane.clear()
        await settle(pilot, "the pane cleared")
        assert steps.option_count == 0 and "No authorization activity" in _text(app, "#auth-summary")
