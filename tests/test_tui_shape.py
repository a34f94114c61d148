"""The TUI's shape: panes receive what they read from their view (attributes
down) and post what they ask for (messages up); no pane walks up the tree to
its `ServerView` or the app.  Read from the source (AST), so a pane that
reaches up fails here before it works anywhere."""

from __future__ import annotations

import ast
from pathlib import Path

from textual.widgets import TextArea

from inspector.core.servers.spec import demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.traffic import TrafficPane
from inspector.tui.screens.composer import TEMPLATE, ComposerScreen

from .tui_helpers import burst, focus, select, wait_connected, wait_for

PANES = Path(__file__).resolve().parents[1] / "inspector" / "tui" / "panes"

# The modules above the panes: a pane that imports one of them can reach its owner.
OWNERS = ("inspector.tui.server_view", "inspector.tui.app")
# Names that only a pane reaching up would use.
OWNER_NAMES = {"owner_of", "ServerView", "InspectorApp"}
# Walking up from the pane itself.
UPWARD = {"ancestors", "ancestors_with_self", "parent", "inspector"}
# What the app holds of every server: a pane is handed its own.
APP_VIEWS = {"view", "views"}


def _imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The full names an import statement brings in."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    # A relative import inside the panes package climbs to inspector.tui at most.
    base = node.module or ""
    if node.level:
        package = ["inspector", "tui", "panes"][: 3 - (node.level - 1)]
        base = ".".join([*package, *([base] if base else [])])
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _is_self_app(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "app" and _is_self(node.value)


def _attribute_finding(node: ast.Attribute) -> str | None:
    if node.attr in OWNER_NAMES:
        return f"uses .{node.attr}"
    if node.attr in UPWARD and _is_self(node.value):
        return f"walks up with self.{node.attr}"
    if node.attr in APP_VIEWS and _is_self_app(node.value):
        return f"takes self.app.{node.attr}"
    return None


def _finding(node: ast.AST) -> str | None:
    """What is wrong with *node*, if it is a pane reaching up."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        for name in _imported(node):
            if name.startswith(OWNERS):
                return f"imports {name}"
    elif isinstance(node, ast.Name) and node.id in OWNER_NAMES:
        return f"names {node.id}"
    elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in OWNER_NAMES:
        return f"names {node.value!r} (a string annotation or cast)"
    elif isinstance(node, ast.Attribute):
        return _attribute_finding(node)
    elif isinstance(node, ast.FunctionDef) and node.name == "inspector":
        return "defines an inspector property"
    return None


def reaching_up(source: str, filename: str = "<pane>") -> list[str]:
    """Every place in *source* where a pane reaches up to its owner, as `file:line what`."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        finding = _finding(node)
        if finding is not None:
            found.append(f"{filename}:{getattr(node, 'lineno', 0)} {finding}")
    return found


def test_no_pane_reaches_up_to_its_view_or_the_app() -> None:
    modules = sorted(PANES.glob("*.py"))
    assert len(modules) > 15 and PANES / "tools.py" in modules
    found = [hit for module in modules for hit in reaching_up(module.read_text(), module.name)]
    assert found == []


WALKING_UP = """
from typing import TYPE_CHECKING, cast
from textual.containers import Horizontal

if TYPE_CHECKING:
    from inspector.tui.server_view import ServerView


class SomePane(Horizontal):
    @property
    def inspector(self) -> "ServerView":
        from inspector.tui.server_view import owner_of

        return owner_of(self)

    def read(self) -> None:
        self.inspector.client.ping()
        for node in self.ancestors:
            pass
        cast("InspectorApp", self.app).view.open_resource("x")
        self.app.view.open_resource("x")
"""

HANDED_DOWN = """
from textual.containers import Horizontal
from textual.message import Message

from inspector.tui.panes.context import ServerContext
from inspector.tui.panes.messages import Notice


class SomePane(Horizontal):
    class Asked(Message):
        \"\"\"Something for the view to do.\"\"\"

    def __init__(self, server: ServerContext) -> None:
        super().__init__()
        self.server = server

    def read(self) -> None:
        self.server.client.ping()
        self.post_message(Notice("read"))
        self.post_message(self.Asked())
        focused = self.app.focused
        if focused is not None and self in focused.ancestors:
            self.app.notify("inside")
"""


def test_the_check_finds_each_way_of_reaching_up_and_passes_a_pane_that_is_handed_down() -> None:
    found = reaching_up(WALKING_UP)
    for what in (
        "imports inspector.tui.server_view",
        "names 'ServerView'",
        "names 'InspectorApp'",
        "defines an inspector property",
        "names owner_of",
        "walks up with self.inspector",
        "walks up with self.ancestors",
        "takes self.app.view",
    ):
        assert any(what in hit for hit in found), (what, found)
    assert reaching_up(HANDED_DOWN) == []
    # A relative import of the view is an import of the view.
    assert reaching_up("from ..server_view import ServerView") != []
    assert reaching_up("from .. import app") != []


async def test_what_the_tools_and_traffic_panes_ask_for_reaches_their_view() -> None:
    """Keys no other test presses: ctrl+e (the Tools pane asks its view to
    step multi round-trip rounds) and r / n in the Traffic pane (it asks its
    view for the raw composer, on a sent frame or on a template)."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(160, 45)) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "echo")
        await burst(pilot, "ctrl+e")
        await wait_for(pilot, lambda: app.client.mrtr_stepper is not None, "rounds stepped by hand")
        await burst(pilot, "ctrl+e")
        await wait_for(pilot, lambda: app.client.mrtr_stepper is None, "rounds answered automatically")

        app.view.action_show_bottom("traffic")
        table = app.view.query_one(TrafficPane).table
        sent = next(frame for frame in app.traffic.frames if frame.direction == "out" and frame.method == "tools/list")
        await wait_for(pilot, lambda: table.select_seq(sent.seq), "the tools/list request in the table")
        await focus(pilot, table)
        await burst(pilot, "r")
        await wait_for(pilot, lambda: isinstance(app.screen, ComposerScreen), "the composer on the sent frame")
        screen = app.screen
        assert isinstance(screen, ComposerScreen)
        assert screen.title_text == f"Edit and resend #{sent.seq}"
        assert '"tools/list"' in screen.query_one(TextArea).text
        await burst(pilot, "escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ComposerScreen), "the composer closed")
        await focus(pilot, table)
        await burst(pilot, "n")
        await wait_for(pilot, lambda: isinstance(app.screen, ComposerScreen), "the composer on a template")
        assert app.screen.query_one(TextArea).text == TEMPLATE
