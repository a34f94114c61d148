"""What the authorization tests share: a protected test server (tests/servers/auth_server.py
and its kin) on a free loopback port, its /_mode and /_stats controls, and the Auth pane on
its own showing the steps of a login."""

from __future__ import annotations

import contextlib
import io
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx2
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from inspector.core.auth.log import AuthEvent
from inspector.tui.panes.auth import AuthPane

from .peers import PYTHON, SERVERS, free_port, serving
from .test_auth_pane import PaneApp, _text
from .tui_helpers import console_for, settle

# The login's own deadline (--oauth-timeout) in a test whose login is meant to run out in one
# step: waiting for a person who never comes, or for a server that never answers.  It counts
# from the first step, so the steps before that one (discovery, registration: tenths of a
# second) come out of it too.  Far above what they take on a loaded machine, so the deadline
# passes in the step the test means; every second of it is spent waiting, so it is not the
# hang bound.
LOGIN_DEADLINE = 10.0


@contextlib.contextmanager
def protected_server(script: str, *args: str) -> Iterator[str]:
    """tests/servers/`script` on a free loopback port, until the block ends; yields its base URL
    (the MCP server is its /mcp)."""
    port = free_port()
    with serving([PYTHON, str(SERVERS / script), "--port", str(port), *args], port):
        yield f"http://127.0.0.1:{port}"


def control(base: str, **mode: Any) -> None:
    """Set the server's misbehaviours (POST /_mode): every one left out goes back to its default."""
    httpx2.post(f"{base}/_mode", json=mode).raise_for_status()


def stats(base: str) -> dict[str, Any]:
    """What the server has counted so far (GET /_stats)."""
    data: dict[str, Any] = httpx2.get(f"{base}/_stats").json()
    return data


def rendered(app: Any, selector: str) -> str:
    """What a Static shows, as plain text (whatever renderable it holds)."""
    console = console_for(app, file=io.StringIO())
    with console.capture() as capture:
        console.print(app.query_one(selector, Static).content)
    return capture.get()


@dataclass
class StepsShown:
    """The Auth pane showing a login's events: its steps list and each row's text."""

    app: PaneApp
    pilot: Pilot[None]
    steps: OptionList
    rows: list[str]

    async def open(self, index: int, what: str) -> None:
        """Highlight the step at `index` and wait until its detail (`what`) is drawn."""
        self.steps.highlighted = index
        await settle(self.pilot, what)

    def text(self, selector: str) -> str:
        return _text(self.app, selector)

    def rendered(self, selector: str) -> str:
        return rendered(self.app, selector)


@contextlib.asynccontextmanager
async def steps_shown(events: list[AuthEvent]) -> AsyncIterator[StepsShown]:
    """The Auth pane on its own (no server behind it) showing `events`, drawn."""
    app = PaneApp()
    async with app.run_test(size=(160, 50)) as pilot:
        app.query_one(AuthPane).set_events(events)
        await settle(pilot, "the flow's steps drawn")
        steps = app.query_one("#auth-steps", OptionList)
        rows = [str(steps.get_option_at_index(i).prompt) for i in range(steps.option_count)]
        yield StepsShown(app, pilot, steps, rows)
