"""ARCHITECTURE.md names files and packages that exist, and its layer list is the import contract's."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAP = (ROOT / "ARCHITECTURE.md").read_text()


def named_paths() -> list[str]:
    """Every `…py` or `…tcss` file and `…/` folder the map names in backticks."""
    return sorted({name for name in re.findall(r"`([\w./]+)`", MAP) if name.endswith((".py", ".tcss", "/"))})


def test_every_file_the_map_names_exists() -> None:
    package = ROOT / "inspector"
    everything = {path.relative_to(package).as_posix() for path in package.rglob("*")}
    names = named_paths()
    assert len(names) > 20
    missing = []
    for name in names:
        bare = name.rstrip("/")
        # A path from the package root, or a module named inside the package it is listed under.
        if bare.startswith("tests/"):
            found = (ROOT / bare).exists()
        else:
            found = bare in everything or any(path.endswith("/" + bare) for path in everything)
        if not found:
            missing.append(name)
    assert not missing


def test_the_layer_diagram_is_the_contract() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(contract["layers"] for contract in contracts if contract["type"] == "layers")
    diagram = re.search(r"```\n(inspector\.cli.*?)```", MAP, re.S)
    assert diagram is not None
    drawn = [line.split()[0] for line in diagram.group(1).splitlines() if line.strip()]
    assert drawn == layers


def test_no_module_of_the_package_is_over_500_lines() -> None:
    # Issue 15's bound: a module over it holds more than one idea and is split along its seams.
    package = Path(__file__).resolve().parent.parent / "inspector"
    long = {
        str(path.relative_to(package)): lines
        for path in package.rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > 500
    }
    assert not long, long
