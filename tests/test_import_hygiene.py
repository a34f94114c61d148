"""The core and the scripting path must not load the UI libraries."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

UI_MODULES = ("textual", "rich")


def loaded_after(code: str) -> list[str]:
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout
    modules: list[str] = json.loads(out.strip().splitlines()[-1])
    return modules


def modules_under(*packages: str) -> list[str]:
    """Every module of these packages, found on disk (a new module is checked without a line written for it)."""
    found: list[str] = []
    for package in packages:
        root = Path(importlib.util.find_spec(package).origin or "").parent  # type: ignore[union-attr]
        for path in sorted(root.rglob("*.py")):
            parts = (*package.split("."), *path.relative_to(root).with_suffix("").parts)
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def test_every_module_of_the_core_forms_and_commands_imports_no_ui() -> None:
    names = modules_under("inspector.core", "inspector.forms", "inspector.commands")
    assert len(names) > 100 and "inspector.core.protocol.session" in names
    modules = loaded_after("\n".join(f"import {name}" for name in names))
    assert not [m for m in modules if m.split(".")[0] in UI_MODULES]


def test_http_transports_import_no_ui() -> None:
    modules = loaded_after(
        "import inspector.core.transports.streamable_http\nimport inspector.core.transports.legacy_sse"
    )
    assert "httpx2" in modules
    assert not [m for m in modules if m.split(".")[0] in UI_MODULES]


def test_scripting_path_imports_no_ui_and_no_wire_models() -> None:
    modules = loaded_after(
        "import inspector.cli\nimport inspector.commands.runner\nimport inspector.commands.call\n"
        "import inspector.commands.listing\nimport inspector.forms"
    )
    roots = {m.split(".")[0] for m in modules}
    assert not roots & set(UI_MODULES)
    # mcp_types costs a quarter of a second to import; the scripting path
    # must not pay it (validation loads it lazily).
    assert "mcp_types" not in roots


def test_version_list_matches_mcp_types() -> None:
    from mcp_types import version

    from inspector.core.protocol import versions

    assert versions.HANDSHAKE_VERSIONS == version.HANDSHAKE_PROTOCOL_VERSIONS
    assert versions.MODERN_VERSIONS == version.MODERN_PROTOCOL_VERSIONS


def test_a_ui_import_in_the_core_breaks_the_import_contracts(tmp_path: Path) -> None:
    """lint-imports (run by scripts/test.sh) fails on a core module that imports Textual or the TUI."""
    root = Path(__file__).resolve().parents[1]
    lint_imports = Path(sys.executable).parent / "lint-imports"
    (tmp_path / "pyproject.toml").write_bytes((root / "pyproject.toml").read_bytes())
    shutil.copytree(root / "inspector", tmp_path / "inspector", ignore=shutil.ignore_patterns("__pycache__"))

    def lint() -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PYTHONPATH": str(tmp_path)}
        return subprocess.run([str(lint_imports)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)

    assert lint().returncode == 0
    session = tmp_path / "inspector" / "core" / "protocol" / "session.py"
    original = session.read_text()
    session.write_text(original + "\nimport textual.app  # deliberate\n")
    broken = lint()
    assert broken.returncode != 0 and "inspector.core.protocol.session -> textual (l." in broken.stdout
    session.write_text(original + "\nimport inspector.tui.app  # deliberate\n")
    broken = lint()
    assert broken.returncode != 0 and "inspector.core.protocol.session -> inspector.tui.app" in broken.stdout


def test_what_comes_before_a_stdio_server_starts_loads_no_asyncio() -> None:
    """A scripting command starts a stdio server as soon as its command line
    is read (`cli.main._early_spawn`), and imports the rest while the server
    boots: parsing the command line must not load asyncio (20 ms) first."""
    modules = loaded_after(
        "import inspector.cli.main, inspector.tui.servers_args, inspector.core.transports.childproc\n"
        "from inspector.cli.parser import build_parser\n"
        "build_parser().parse_args(['list', 'tools'])"
    )
    assert "inspector.commands.completion" in modules  # the parser's completers are there
    assert "asyncio" not in modules
