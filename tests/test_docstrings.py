"""Docstrings on public classes and functions: scripts/docstring_coverage.py holds
the areas of the package that are at 100% (its COVERED), and keeps them there."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "docstring_coverage.py"


def coverage(*args: str) -> tuple[int, dict[str, Any], str]:
    """The script's exit code, its counts per area, and what it wrote to stderr."""
    done = subprocess.run([sys.executable, str(SCRIPT), "--json", *args], capture_output=True, text=True, check=False)
    counts: dict[str, Any] = json.loads(done.stdout)
    return done.returncode, counts, done.stderr


def test_every_covered_area_documents_every_public_class_and_function() -> None:
    code, counts, stderr = coverage("--check")
    covered = {name: area for name, area in counts.items() if area["covered"]}
    assert covered, "COVERED names no area that exists"
    for name, area in covered.items():
        assert area["public"] > 0, name
        assert area["missing"] == [], f"{name}: public definitions without a docstring"
    assert code == 0, stderr


HOOKED = """
from textual.app import App
from textual.binding import Binding


class Screen(App[None]):
    BINDINGS = [Binding("q", "quit", "Quit"), ("r", "reload", "Reload"), Binding("x", "hidden", show=False)]

    def compose(self): ...
    def on_mount(self): ...
    def watch_value(self, value): ...
    def action_quit(self): ...
    def action_reload(self): ...
    def action_hidden(self): ...
    def action_unbound(self): ...
    def helper(self): ...
"""

PLAIN = '''
from typing import overload


class Session:
    """Documented."""

    def on_lost(self, callback): ...

    @property
    def state(self):
        """Documented."""

    @state.setter
    def state(self, value): ...

    @overload
    def get(self, key: int) -> int: ...
    @overload
    def get(self, key: str) -> str: ...
    def get(self, key):
        """Documented."""

    class Inner:
        def method(self): ...


class _Private:
    def method(self): ...


def outer():
    """Documented."""

    def inner(): ...


async def fetch(): ...


def _helper(): ...
'''


def test_the_rules_count_hooks_only_where_their_framework_is_imported(tmp_path: Path) -> None:
    package = tmp_path / "inspector"
    (package / "core" / "record").mkdir(parents=True)
    (package / "tui").mkdir()
    (package / "tui" / "screen.py").write_text(HOOKED)
    (package / "core" / "record" / "session.py").write_text(PLAIN)
    code, counts, _ = coverage("--root", str(package))
    assert code == 0
    # The Textual hooks and the described bindings' actions are exempt; an
    # action whose binding has no description, or none at all, is not.
    assert counts["inspector.tui"]["public"] == 4
    assert [line.split()[-1] for line in counts["inspector.tui"]["missing"]] == [
        "Screen",
        "Screen.action_hidden",
        "Screen.action_unbound",
        "Screen.helper",
    ]
    # on_lost is no hook without Textual; the setter and the overload stubs are
    # exempt; a private class's methods and a nested function are not public.
    area = counts["inspector.core.record"]
    assert area["public"] == 8 and area["documented"] == 4
    assert [line.split()[-1] for line in area["missing"]] == [
        "Session.on_lost",
        "Session.Inner",
        "Session.Inner.method",
        "fetch",
    ]
    assert area["missing"][0] == "inspector/core/record/session.py:8 Session.on_lost"


MODELS = """
from pydantic import BaseModel


class Wind(BaseModel):
    speed: int

    def beaufort(self): ...
"""


def test_pydantic_models_are_exempt_only_where_their_docstring_goes_on_the_wire(tmp_path: Path) -> None:
    package = tmp_path / "inspector"
    for area in ("demo", "forms"):
        (package / area).mkdir(parents=True)
        (package / area / "models.py").write_text(MODELS)
    _, counts, _ = coverage("--root", str(package))
    # The demo server's models: a docstring would become their schema's description.
    assert [line.split()[-1] for line in counts["inspector.demo"]["missing"]] == ["Wind.beaufort"]
    assert [line.split()[-1] for line in counts["inspector.forms"]["missing"]] == ["Wind", "Wind.beaufort"]


def test_check_fails_on_a_covered_area_with_an_undocumented_function(tmp_path: Path) -> None:
    _, real, _ = coverage()
    name = next(name for name, area in real.items() if area["covered"])
    folder = tmp_path.joinpath(*name.split("."))
    folder.mkdir(parents=True)
    (folder / "values.py").write_text('def documented():\n    """Yes."""\n\n\ndef bare(): ...\n')
    code, counts, stderr = coverage("--check", "--root", str(tmp_path / "inspector"))
    where = f"{Path(*name.split('.'))}/values.py:5 bare"
    assert counts[name] == {"public": 2, "documented": 1, "missing": [where], "covered": True}
    assert code == 1 and where in stderr
