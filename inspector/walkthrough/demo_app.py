"""`inspector demo`: the inspector's TUI with a walkthrough playing in it.

The app is the ordinary one plus a caption over its bottom rows and three
presenter keys; the walkthrough drives the ordinary panes (see `player`).
"""

from __future__ import annotations

import os
import re
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType

from inspector.core.servers.spec import ServerSpec
from inspector.tui.app import InspectorApp
from inspector.tui.walkthrough_overlay import CaptionOverlay
from inspector.walkthrough.model import WalkStep, Walkthrough
from inspector.walkthrough.player import Player

__all__ = ["PRESENTER_KEYS", "DemoApp", "svg_name"]

# Presentation clickers send page down / page up; priority, so a list or a
# text field with focus does not take them while a walkthrough plays.
PRESENTER_KEYS = [
    Binding("pagedown", "walk('next')", "Next step", id="walk_next", priority=True, tooltip="walkthrough"),
    Binding(
        "pageup",
        "walk('back')",
        "Step back",
        id="walk_back",
        priority=True,
        tooltip="walkthrough: the previous step again; what it sent is not sent again",
    ),
    Binding("f12", "walk_pause", "Pause", id="walk_pause", priority=True, tooltip="walkthrough: pause / resume"),
]
_KEY_NAMES = {"pagedown": "page down", "pageup": "page up"}


def svg_name(index: int, step: WalkStep) -> str:
    """`03-call-echo.svg`: numbered in step order, named after what the step does."""
    words = re.sub(r"[^a-z0-9]+", "-", step.label.lower()).strip("-")[:40] or "step"
    return f"{index + 1:02d}-{words}.svg"


class DemoApp(InspectorApp):
    """The inspector's app with a walkthrough playing in it: a caption overlay and the presenter's keys."""

    BINDINGS: ClassVar[list[BindingType]] = [*PRESENTER_KEYS]

    def __init__(
        self,
        spec: ServerSpec,
        walkthrough: Walkthrough,
        *,
        pace: float = 1.0,
        manual: bool = False,
        svg_dir: str | None = None,
        quit_at_end: bool = False,
        **options: Any,
    ) -> None:
        super().__init__(spec, **options)
        self.walkthrough = walkthrough
        self.svg_dir = svg_dir
        self.quit_at_end = quit_at_end
        self.svgs: list[str] = []
        self.overlay = CaptionOverlay()
        self.player = Player(
            self,
            walkthrough,
            self.overlay,
            pace=pace,
            manual=manual,
            on_step=self._stepped,
            stay_at_end=not quit_at_end,
        )

    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield self.overlay

    def on_mount(self) -> None:
        # InspectorApp's own on_mount runs too (Textual calls each class's handler).
        self.overlay.show_step(f"{self.walkthrough.name}: waiting for the server…", "")
        self.run_worker(self._play(), group="walkthrough", exit_on_error=False)

    def on_resize(self) -> None:
        # A taller or shorter terminal: the caption keeps to the bottom rows.
        self.overlay.call_after_refresh(self.overlay.place)

    def _keys(self) -> list[tuple[str, Binding]]:
        """The presenter's keys in force (a keymap may give them others), spelled out."""
        from inspector.tui.keymap import keys_in_force
        from inspector.tui.screens.help import key_names

        keys = []
        for binding in PRESENTER_KEYS:
            names = key_names(keys_in_force(binding, self.keymap))
            keys.append((" / ".join(_KEY_NAMES.get(k, k) for k in names.split(" / ")), binding))
        return keys

    @property
    def help_rows(self) -> list[tuple[str, str, str, str]]:
        """What the help screen lists beside the app's own keys."""
        return [(keys, f"{b.description} ({b.tooltip})", "inspector demo", b.id or "") for keys, b in self._keys()]

    async def _play(self) -> None:
        # The keymap is in force once mounted: the caption's hint follows it.
        from inspector.tui.keymap import key_hint

        keys = self._keys()
        self.overlay.keys = " · ".join(f"{names} {b.description.lower()}" for names, b in keys)
        # At the end only going back and quitting still do something.
        back = next(f"{names} {b.description.lower()}" for names, b in keys if b.id == "walk_back")
        self.overlay.end_keys = f"{back} · {key_hint(self, 'quit', ' / ')} quit"
        await self.player.run()
        if self.quit_at_end:
            self.exit(0)

    async def _stepped(self, index: int, step: WalkStep) -> None:
        if self.svg_dir is None:
            return
        name = svg_name(index, step)
        os.makedirs(self.svg_dir, exist_ok=True)
        self.save_screenshot(filename=name, path=self.svg_dir)
        self.svgs.append(os.path.join(self.svg_dir, name))

    def action_walk(self, move: str) -> None:
        """Hand the presenter's "next" or "back" to the player."""
        self.player.request(move)

    def action_walk_pause(self) -> None:
        """Pause the walkthrough, or resume it."""
        self.player.toggle_pause()
