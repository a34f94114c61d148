"""How many public classes and functions of the package carry a docstring, per area.

    .venv/bin/python scripts/docstring_coverage.py [--missing] [--check] [--json] [--root DIR]

An area is a top-level package of ``inspector/`` (``inspector.tui``), except
under ``core``, where each subpackage or module is one (``inspector.core.record``).
Public: a class or function defined at module level or in a class body
(nested the same way) whose name, and every enclosing class's name, does not
start with ``_``.  Exempt: the methods `HOOKS` names, whose meaning a
framework fixes, in a module that imports it; a Textual ``action_*`` method
only when the class's ``BINDINGS`` names that action (its description says
what it does); ``@overload`` stubs and property setters/deleters (the getter
carries the docstring); the pydantic models of `WIRE_MODEL_AREAS`.

``--check`` exits 1 when an area of `COVERED` is short of 100%, listing
what is missing; ``--missing`` lists every undocumented definition.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

COVERED: tuple[str, ...] = (
    "inspector.cli",
    "inspector.collections",
    "inspector.commands",
    "inspector.core.auth",
    "inspector.core.background",
    "inspector.core.checks",
    "inspector.core.compare",
    "inspector.core.extensions",
    "inspector.core.protocol",
    "inspector.core.record",
    "inspector.core.safetext",
    "inspector.core.servers",
    "inspector.core.transports",
    "inspector.demo",
    "inspector.forms",
    "inspector.tui",
    "inspector.walkthrough",
)
"""The areas held at 100% (tests/test_docstrings.py); add one once it is there."""

HOOKS: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    # What a widget or app is made of, draws and allows; message handlers,
    # reactive watchers, validators and computed values.  (``action_*``: see `bound_actions`.)
    "textual": (
        frozenset(
            {
                "compose",
                "render",
                "render_line",
                "render_lines",
                "get_content_width",
                "get_content_height",
                "check_action",
            }
        ),
        ("on_", "watch_", "validate_", "compute_"),
    ),
    "locust": (frozenset({"on_start", "on_stop"}), ()),
    "http.server": (frozenset({"log_message"}), ("do_",)),
}
"""Per framework, the method names and prefixes whose meaning it fixes: exempt
in a module that imports that framework (elsewhere ``on_x`` is a name like any other)."""

WIRE_MODEL_AREAS: tuple[str, ...] = ("inspector.demo",)
"""Areas whose pydantic models (``class X(BaseModel)``) are exempt: pydantic sends a model's
docstring as its JSON Schema's ``description``, so a docstring there would change what the
demo server sends."""


@dataclass
class Area:
    """The public definitions of one area, and those without a docstring."""

    name: str
    public: int = 0
    missing: list[str] = field(default_factory=list)

    @property
    def documented(self) -> int:
        """How many public definitions have a docstring."""
        return self.public - len(self.missing)

    @property
    def percent(self) -> float:
        """The share documented, 100 for an area with nothing public."""
        return 100.0 * self.documented / self.public if self.public else 100.0


Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def area_of(module: str) -> str:
    """The area a dotted module name counts under."""
    parts = module.split(".")
    depth = 3 if parts[:2] == ["inspector", "core"] else 2
    return ".".join(parts[:depth])


def module_name(path: Path, package_root: Path) -> str:
    """The dotted name of the module at *path* inside the package at *package_root*."""
    parts = (package_root.name, *path.relative_to(package_root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def bound_actions(cls: ast.ClassDef) -> set[str]:
    """The actions that a class's ``BINDINGS`` describes: ``Binding("q", "quit", "Quit")``,
    ``("q", "quit", "Quit")`` or ``description=`` (a binding with no description says nothing)."""
    actions: set[str] = set()
    for statement in cls.body:
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        else:
            continue
        if not any(isinstance(t, ast.Name) and t.id == "BINDINGS" for t in targets):
            continue
        for node in ast.walk(value):
            if isinstance(node, ast.Call):
                arguments = [*node.args, *(k.value for k in node.keywords if k.arg == "description")]
            elif isinstance(node, ast.Tuple):
                arguments = list(node.elts)
            else:
                continue
            strings = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else "" for a in arguments]
            if len(strings) >= 3 and strings[1] and strings[2]:
                actions.add(strings[1].split("(")[0])
    return actions


def frameworks(tree: ast.Module) -> set[str]:
    """The frameworks of `HOOKS` that a module imports (anywhere in it)."""
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported.add(node.module)
    return {f for f in HOOKS if any(name == f or name.startswith(f + ".") for name in imported)}


def is_exempt(definition: Definition, bound: set[str], used: set[str]) -> bool:
    """Whether *definition*, a method of a class whose bindings name *bound*, in a
    module that imports the frameworks *used*, needs no docstring."""
    if isinstance(definition, ast.ClassDef):
        return False
    name = definition.name
    for framework in used:
        names, prefixes = HOOKS[framework]
        if name in names or name.startswith(prefixes):
            return True
    if "textual" in used and name.startswith("action_") and name.removeprefix("action_") in bound:
        return True
    for decorator in definition.decorator_list:
        if isinstance(decorator, ast.Name) and decorator.id == "overload":
            return True
        if isinstance(decorator, ast.Attribute) and decorator.attr in {"setter", "deleter", "overload"}:
            return True
    return False


def is_wire_model(definition: Definition) -> bool:
    """Whether *definition* is a class that names ``BaseModel`` among its bases."""
    if not isinstance(definition, ast.ClassDef):
        return False
    return any(
        (isinstance(base, ast.Name) and base.id == "BaseModel")
        or (isinstance(base, ast.Attribute) and base.attr == "BaseModel")
        for base in definition.bases
    )


def public_definitions(tree: ast.Module, wire_models: bool = False) -> Iterator[tuple[Definition, str]]:
    """Each public class and function of a module, with its dotted name, where the rules require a
    docstring (*wire_models*: the module is in one of `WIRE_MODEL_AREAS`)."""

    used = frameworks(tree)

    def walk(body: list[ast.stmt], prefix: str, bound: set[str] | None) -> Iterator[tuple[Definition, str]]:
        for statement in body:
            if not isinstance(statement, Definition) or statement.name.startswith("_"):
                continue
            if bound is not None and is_exempt(statement, bound, used):
                continue
            if not (wire_models and is_wire_model(statement)):
                yield statement, prefix + statement.name
            if isinstance(statement, ast.ClassDef):
                yield from walk(statement.body, f"{prefix}{statement.name}.", bound_actions(statement))

    yield from walk(tree.body, "", None)


def survey(package_root: Path) -> dict[str, Area]:
    """Every area under *package_root*, by name, with its counts."""
    areas: dict[str, Area] = {}
    for path in sorted(package_root.rglob("*.py")):
        module = module_name(path, package_root)
        area = areas.setdefault(area_of(module), Area(area_of(module)))
        tree = ast.parse(path.read_text("utf-8"), filename=str(path))
        for definition, name in public_definitions(tree, area.name in WIRE_MODEL_AREAS):
            area.public += 1
            if ast.get_docstring(definition) is None:
                area.missing.append(f"{path.relative_to(package_root.parent)}:{definition.lineno} {name}")
    return dict(sorted(areas.items()))


def table(areas: list[Area]) -> str:
    """The counts as aligned lines, one per area and one overall."""
    total = Area("overall", sum(a.public for a in areas), [m for a in areas for m in a.missing])
    width = max(len(area.name) for area in [*areas, total])
    lines = [f"{'area':<{width}}  public  documented      %"]
    for area in [*areas, total]:
        mark = "  (covered)" if area.name in COVERED else ""
        lines.append(f"{area.name:<{width}}  {area.public:6}  {area.documented:10}  {area.percent:5.1f}{mark}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Print the table (or JSON); with --check, 1 when a covered area is short."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, default=ROOT / "inspector", help="the package to survey")
    parser.add_argument("--missing", action="store_true", help="list every undocumented public definition")
    parser.add_argument("--check", action="store_true", help="exit 1 unless every covered area is at 100%%")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = parser.parse_args(argv)
    areas = survey(args.root)
    shown = [a for a in areas.values() if a.public]
    if args.json:
        counts = {
            a.name: {"public": a.public, "documented": a.documented, "missing": a.missing, "covered": a.name in COVERED}
            for a in shown
        }
        print(json.dumps(counts, indent=1))
    else:
        print(table(shown))
    short = [a for name, a in areas.items() if name in COVERED and a.missing]
    for area in areas.values() if args.missing else short if args.check else []:
        for line in area.missing:
            print(f"missing: {line}", file=sys.stderr)
    return 1 if args.check and short else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
