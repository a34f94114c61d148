"""Where the TUI's looks live: the app's panes, modal screens and containers
take theirs from the app's .tcss sheets, never from DEFAULT_CSS, and every
rule in those sheets starts from a class the TUI defines (a renamed pane would
otherwise lose its looks without a word). Reusable widgets under widgets/ keep
DEFAULT_CSS, so they look right mounted alone."""

from __future__ import annotations

import ast
import re
import tomllib
from fnmatch import fnmatch
from pathlib import Path

from inspector.tui.app import InspectorApp

ROOT = Path(__file__).resolve().parents[1]
TUI = ROOT / "inspector" / "tui"
# The app's own modules besides panes/ and screens/: containers no other app mounts.
APP_ONLY = ("server_view.py", "server_list.py", "walkthrough_overlay.py", "servers_compare.py")
SHEETS = ("panes.tcss", "screens.tcss")


def _app_modules() -> list[Path]:
    """The modules whose classes are styled by the app's sheets."""
    modules = sorted((TUI / "panes").glob("*.py")) + sorted((TUI / "screens").glob("*.py"))
    return modules + [TUI / name for name in APP_ONLY]


def _class_css(path: Path) -> list[str]:
    """`Class.ATTR` for every class in the module that sets DEFAULT_CSS or CSS."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ClassDef):
            for statement in node.body:
                targets = statement.targets if isinstance(statement, ast.Assign) else []
                if isinstance(statement, ast.AnnAssign):
                    targets = [statement.target]
                found += [
                    f"{node.name}.{target.id}"
                    for target in targets
                    if isinstance(target, ast.Name) and target.id in {"DEFAULT_CSS", "CSS"}
                ]
    return found


def _first_types(sheet: str) -> set[str]:
    """The type each selector of the sheet starts from."""
    text = re.sub(r"/\*.*?\*/", "", sheet, flags=re.S)
    selectors = re.findall(r"([^{}]+)\{[^{}]*\}", text)
    assert selectors
    firsts = set()
    for group in selectors:
        for selector in group.split(","):
            match = re.match(r"\s*([A-Za-z_]\w*)", selector)
            assert match, f"a rule that starts from no type: {selector.strip()!r}"
            firsts.add(match.group(1))
    return firsts


def test_no_pane_or_screen_carries_its_own_css() -> None:
    modules = _app_modules()
    assert len(modules) > 25
    carried = {path.relative_to(TUI).as_posix(): css for path in modules if (css := _class_css(path))}
    assert carried == {}


def test_the_check_sees_default_css_where_it_is() -> None:
    # The widgets keep theirs: the AST walk finds them, so an empty result above means something.
    assert _class_css(TUI / "widgets" / "status_bar.py") == ["StatusBar.DEFAULT_CSS", "KeyBar.DEFAULT_CSS"]


def test_every_rule_starts_from_a_class_the_tui_defines() -> None:
    defined = {
        node.name
        for path in TUI.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ClassDef)
    }
    for name in SHEETS:
        unknown = _first_types((TUI / name).read_text()) - defined
        assert unknown == set(), name


def test_the_app_loads_the_sheets_from_the_package_and_ships_them() -> None:
    paths = [Path(path) for path in InspectorApp.CSS_PATH or []]
    assert [path.name for path in paths] == [*SHEETS, "app.tcss"]
    assert all(path.is_absolute() and path.is_file() and path.parent == TUI for path in paths)
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    shipped = config["tool"]["setuptools"]["package-data"]["*"]
    assert all(any(fnmatch(path.name, pattern) for pattern in shipped) for path in paths)
