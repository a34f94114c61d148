"""Auth: the authorization debugger.  Every step of an OAuth flow as it
happens (the server's challenge, each metadata request, registration, the
authorization URL, the callback, the token exchange, refreshes, storage),
with its status, the masked HTTP exchange, and at the top a plain sentence
saying where the flow stands or which step failed and why.

Self-contained: it renders `AuthEvent`s it is given and posts messages for
the actions (log in, log out, cancel); the app owns the session and does them.

    pane = AuthPane(server=spec.url)                 # or AuthPane(events)
    unsubscribe = session.log.subscribe(pane.add_event)
    pane.set_events(session.log.events)              # what happened before
    pane.set_events(AuthPane.events_in(traffic))     # or from a recording

`confirm_in(app)` is the session's `confirm`: endpoints on another origin
than the issuer are shown in a `CrossOriginScreen` before the browser opens.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from inspector.core.auth.handoff import PasteRefused, pasted_params, redirect_uri_of
from inspector.core.auth.log import STEPS, AuthEvent, HttpExchange, events_from_frames
from inspector.core.record.traffic import Frame
from inspector.tui import looks
from inspector.tui.safe import json_syntax, plain, plain_line

__all__ = ["AuthPane", "CrossOriginScreen", "confirm_in", "event_row", "exchange_text", "summary_text"]

_MARK = {
    "ok": ("✓", looks.OK),
    "failed": ("✗", looks.ERROR_STRONG),
    "waiting": ("…", looks.WARNING_STRONG),
    "info": ("·", "dim"),
}


def event_row(event: AuthEvent) -> Text:
    """One step's line: its mark, its step name and its title (in the error colour when it failed)."""
    mark, style = _MARK.get(event.status, ("?", looks.ERROR))
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{mark} ", style=style)
    text.append(f"{event.step:<17} ", style="bold" if event.status != "info" else "")
    text.append_text(plain_line(event.title, 160, style=looks.ERROR if event.failed else ""))
    return text


def summary_text(events: list[AuthEvent], server: str | None = None) -> Text:
    """One sentence on where the flow stands (the failing step first)."""
    text = Text()
    if server:
        text.append_text(plain_line(server, 120, style="bold"))
        text.append("\n")
    if not events:
        text.append("No authorization activity yet. It appears here when the server asks for it.", style="dim")
        return text
    last = events[-1]
    failure = _last_index(events, lambda e: e.failed)
    success = _last_index(events, lambda e: e.status == "ok" and e.step in ("login", "retry", "stored", "refresh"))
    if failure is not None and (success is None or failure > success):
        failed = events[failure]
        text.append("✗ failed at ", style=looks.ERROR_STRONG)
        text.append(failed.step, style=looks.ERROR_STRONG)
        text.append(": ")
        text.append_text(plain(failed.title, style=looks.ERROR))
        if failed.detail:
            text.append("\n")
            text.append_text(plain(failed.detail))
        return text
    if last.status == "waiting":
        text.append("… waiting: ", style=looks.WARNING_STRONG)
        text.append_text(plain(last.title))
        url = (last.data or {}).get("url")
        if isinstance(url, str):
            text.append("\nopen: ", style="dim")
            text.append_text(plain(url))
        return text
    if success is not None:
        text.append("✓ ", style=looks.OK_STRONG)
        text.append_text(plain(events[success].title))
        return text
    text.append("· ", style="dim")
    text.append_text(plain(last.title))
    return text


def _last_index(events: list[AuthEvent], test: Callable[[AuthEvent], bool]) -> int | None:
    for index in range(len(events) - 1, -1, -1):
        if test(events[index]):
            return index
    return None


def exchange_text(exchange: HttpExchange) -> Text:
    """An HTTP exchange as it was recorded (already masked), drawn inert."""
    text = Text()
    text.append(f"{exchange.method} ", style="bold")
    text.append_text(plain(exchange.url))
    for name, value in exchange.request_headers.items():
        text.append("\n")
        text.append_text(plain_line(f"{name}: {value}", 400, style="dim"))
    if exchange.request_body:
        text.append("\n\n")
        text.append_text(plain(exchange.request_body))
    text.append("\n\n")
    if exchange.status is None:
        text.append("no response", style=looks.ERROR_STRONG)
        if exchange.error:
            text.append(": ")
            text.append_text(plain(exchange.error, style=looks.ERROR))
        return text
    style = (
        looks.OK_STRONG
        if exchange.status < 300
        else looks.WARNING_STRONG
        if exchange.status < 400
        else looks.ERROR_STRONG
    )
    text.append(f"{exchange.status} {exchange.reason or ''}".rstrip(), style=style)
    for name, value in exchange.response_headers.items():
        text.append("\n")
        line_style = "bold" if name.lower() in ("www-authenticate", "location") else "dim"
        text.append_text(plain_line(f"{name}: {value}", 400, style=line_style))
    if exchange.response_body:
        text.append("\n\n")
        text.append_text(plain(exchange.response_body))
    return text


class AuthPane(Horizontal):
    """The auth debugger pane; feed it with `add_event` / `set_events`."""

    BINDINGS = [
        Binding("L", "login", "Log in", id="auth_login"),
        Binding("O", "logout", "Log out", id="auth_logout"),
        Binding("X", "cancel", "Cancel login", id="auth_cancel"),
        Binding("C", "copy_url", "Copy authorization URL", id="auth_copy_url"),
    ]

    class LoginRequested(Message):
        """The person asked for a (new) login."""

    class LogoutRequested(Message):
        """The person asked to forget the stored tokens."""

    class CancelRequested(Message):
        """The person asked to stop the login that waits for the browser."""

    class CopyUrlRequested(Message):
        """The person wants the authorization URL (to open it elsewhere, e.g. over SSH)."""

        def __init__(self, url: str) -> None:
            super().__init__()
            self.url = url

    class RedirectPasted(Message):
        """The person pasted the URL the browser ended on (a hand-off login), checked to be this login's redirect."""

        def __init__(self, url: str) -> None:
            super().__init__()
            self.url = url

    class StepFailed(Message):
        """A step failed (posted once per failing event, for a notification)."""

        def __init__(self, event: AuthEvent) -> None:
            super().__init__()
            self.event = event

    def __init__(
        self,
        events: Iterable[AuthEvent] = (),
        *,
        server: str | None = None,
        handoff: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.server = server
        self.events: list[AuthEvent] = list(events)
        # `--oauth-browser handoff`: a field takes the URL the browser ended on
        # (an SSH session, where the redirect cannot reach the listener).
        self.set_class(handoff, "-handoff")

    @staticmethod
    def events_in(frames: Iterable[Frame]) -> list[AuthEvent]:
        """The auth events of a traffic log (live, or read back from a --record file)."""
        return events_from_frames(frames)

    def compose(self) -> ComposeResult:
        with Vertical(id="auth-left"):
            yield Static(summary_text(self.events, self.server), id="auth-summary")
            yield OptionList(*[Option(event_row(e)) for e in self.events], id="auth-steps")
            yield Input(
                placeholder="after approving: paste the URL the browser ended on (with code and state), Enter",
                id="auth-paste",
            )
            yield Static(
                Text(
                    "The browser on another machine ends on http://127.0.0.1:PORT/callback?code=…&state=… "
                    "(the page may fail to load): paste that whole URL above.",
                    style="dim",
                ),
                id="auth-paste-note",
            )
        with VerticalScroll(id="auth-detail"):
            yield Static(Text("Select a step to see its details.", style="dim"), id="auth-step-info")
            yield Static("", id="auth-step-http")

    def on_mount(self) -> None:
        steps = self.query_one("#auth-steps", OptionList)
        steps.border_title = f"Auth steps ({len(self.events)})"
        self.query_one("#auth-summary", Static).border_title = "Authorization"
        if self.events:
            steps.highlighted = self._focus_index()

    # -- feeding ---------------------------------------------------------------------

    def add_event(self, event: AuthEvent) -> None:
        """Append one event (an `AuthLog.subscribe` callback; call it on the app's loop)."""
        self.events.append(event)
        if not self.is_mounted:
            return
        steps = self.query_one("#auth-steps", OptionList)
        following = steps.highlighted is None or steps.highlighted >= len(self.events) - 2
        steps.add_option(Option(event_row(event)))
        steps.border_title = f"Auth steps ({len(self.events)})"
        self._update_summary()
        if self.has_class("-handoff") and event.step == "callback" and event.status in ("ok", "failed"):
            # The fate of what was pasted (or of the redirect that came through the port-forward).
            mark = Text(
                "✓ " if event.status == "ok" else "✗ ",
                style=looks.OK_STRONG if event.status == "ok" else looks.ERROR_STRONG,
            )
            mark.append_text(plain(event.title, style="" if event.status == "ok" else looks.ERROR))
            self.query_one("#auth-paste-note", Static).update(mark)
        if event.failed:
            steps.highlighted = len(self.events) - 1
            self.post_message(self.StepFailed(event))
        elif following:
            steps.highlighted = len(self.events) - 1

    def set_events(self, events: Iterable[AuthEvent]) -> None:
        """Replace everything shown (a new server, or a recording)."""
        self.events = list(events)
        if not self.is_mounted:
            return
        steps = self.query_one("#auth-steps", OptionList)
        steps.clear_options()
        steps.add_options(Option(event_row(e)) for e in self.events)
        steps.border_title = f"Auth steps ({len(self.events)})"
        self._update_summary()
        if self.events:
            steps.highlighted = self._focus_index()
        else:
            self._show(None)

    def clear(self) -> None:
        """Forget every step shown."""
        self.set_events(())

    def set_server(self, server: str | None) -> None:
        """Name the server the summary speaks of (None: no name)."""
        self.server = server
        if self.is_mounted:
            self._update_summary()

    # -- drawing ---------------------------------------------------------------------

    def _focus_index(self) -> int:
        for index in range(len(self.events) - 1, -1, -1):
            if self.events[index].failed:
                return index
        return len(self.events) - 1

    def _update_summary(self) -> None:
        self.query_one("#auth-summary", Static).update(summary_text(self.events, self.server))

    @property
    def current(self) -> AuthEvent | None:
        """The step highlighted in the list, if any."""
        index = self.query_one("#auth-steps", OptionList).highlighted
        return self.events[index] if index is not None and 0 <= index < len(self.events) else None

    @on(OptionList.OptionHighlighted, "#auth-steps")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show(self.current)

    def _show(self, event: AuthEvent | None) -> None:
        info = self.query_one("#auth-step-info", Static)
        http = self.query_one("#auth-step-http", Static)
        if event is None:
            info.update(Text("Select a step to see its details.", style="dim"))
            http.update("")
            return
        mark, style = _MARK.get(event.status, ("?", looks.ERROR))
        text = Text()
        text.append(f"{mark} {event.step}", style=style)
        text.append(f"  ({event.status})", style="dim")
        explained = STEPS.get(event.step)
        if explained:
            text.append(f"\n{explained}", style=looks.HINT_ABSENT)
        text.append("\n\n")
        text.append_text(plain(event.title, style=looks.ERROR_STRONG if event.failed else "bold"))
        if event.detail:
            text.append("\n")
            text.append_text(plain(event.detail))
        info.update(text)
        parts: list[Any] = []
        if event.data:
            parts.append(json_syntax(event.data))
        if event.http is not None:
            parts.append(exchange_text(event.http))
        if not parts:
            http.update("")
        elif len(parts) == 1:
            http.update(parts[0])
        else:
            from rich.console import Group

            http.update(Group(parts[0], Text(""), parts[1]))

    # -- a hand-off login's pasted redirect ------------------------------------------------

    @on(Input.Submitted, "#auth-paste")
    def _pasted(self, event: Input.Submitted) -> None:
        """Checked here for the person's sake (what is wrong, at once); the
        login checks it again, state and issuer included, as a redirect."""
        note = self.query_one("#auth-paste-note", Static)
        url = self.authorization_url
        redirect = redirect_uri_of(url) if url is not None and self.waiting else None
        if redirect is None:
            note.update(Text("No login is waiting for a redirect (L starts one).", style=looks.WARNING))
            return
        try:
            pasted_params(event.value, redirect)
        except PasteRefused as exc:
            reason = Text("✗ ", style=looks.ERROR_STRONG)
            reason.append_text(plain(f"{exc}; paste again", style=looks.ERROR))
            note.update(reason)
            return
        event.input.value = ""
        note.update(Text("… the pasted redirect goes to the login (its state is checked)", style=looks.WARNING))
        self.post_message(self.RedirectPasted(event.value.strip()))

    @property
    def waiting(self) -> bool:
        """A login waits for its redirect: an authorization URL was given and
        nothing since has answered it (a callback) or ended the flow (a failure)."""
        for event in reversed(self.events):
            if event.failed or (event.step == "callback" and event.status in ("ok", "failed")):
                return False
            if event.step == "authorization" and isinstance((event.data or {}).get("url"), str):
                return True
        return False

    # -- actions (the app does them) -----------------------------------------------------

    def action_login(self) -> None:
        self.post_message(self.LoginRequested())

    def action_logout(self) -> None:
        self.post_message(self.LogoutRequested())

    def action_cancel(self) -> None:
        self.post_message(self.CancelRequested())

    def action_copy_url(self) -> None:
        url = self.authorization_url
        if url is not None:
            self.post_message(self.CopyUrlRequested(url))

    @property
    def authorization_url(self) -> str | None:
        """The latest authorization URL of the flow shown (None before any)."""
        for event in reversed(self.events):
            url = (event.data or {}).get("url") if event.step == "authorization" else None
            if isinstance(url, str):
                return url
        return None


class CrossOriginScreen(ModalScreen[bool]):
    """Asks before a login uses endpoints on another origin than the issuer."""

    BINDINGS = [
        Binding("y", "answer(True)", "Continue", id="cross_origin_yes"),
        Binding("n,escape", "answer(False)", "Refuse", id="cross_origin_no"),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Authorization on another origin", style=looks.WARNING_STRONG))
            # Server text: inert, control characters made visible.
            yield Static(plain(self.text), id="cross-origin-text")
            yield Static(
                Text(
                    "Your login, the authorization code or the client's credentials go there. "
                    "Continue only if you trust these origins.",
                    style="dim",
                )
            )
            with Horizontal():
                yield Button("Continue (y)", id="yes", variant="warning")
                yield Button("Refuse (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


def confirm_in(app: App[Any]) -> Callable[[str], Awaitable[bool]]:
    """An `AuthConfig.confirm` that asks in `app` (from a worker or from a request's task alike)."""

    async def confirm(text: str) -> bool:
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def answered(result: bool | None) -> None:
            if not answer.done():
                answer.set_result(bool(result))

        app.push_screen(CrossOriginScreen(text), callback=answered)
        return await answer

    return confirm
