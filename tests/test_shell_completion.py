"""Shell completion: `inspector --completion SHELL` scripts run in real shells,
completing subcommands, options and the names a live server offers."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.commands.completion import sanitized

from .peers import free_port, run_inspector, serving

SERVERS = Path(__file__).parent / "servers"
DIRECTORY_SERVER = SERVERS / "directory_tree.py"
# Far above what listing the demo server takes; only a hang reaches it.
BOUND = "60"


@pytest.fixture
def inspector_on_path(tmp_path: Path) -> dict[str, str]:
    """An environment whose `inspector` runs this checkout, as an installed script would."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "inspector"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m inspector "$@"\n')
    script.chmod(0o755)
    root = str(Path(__file__).resolve().parents[1])
    return {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        "INSPECTOR_COMPLETION_TIMEOUT": BOUND,
    }


def completed(argv: list[str], env: dict[str, str] | None = None) -> str:
    """What `argv` (a shell, or the inspector) printed, having exited 0 within a bound only a hang reaches."""
    result = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout


def complete_names(env: dict[str, str], *server: str) -> str:
    """What `inspector --complete-names tools -- SERVER...` printed (the shell scripts' helper)."""
    return completed([sys.executable, "-m", "inspector", "--complete-names", "tools", "--", *server], env)


def script_file(shell: str, tmp_path: Path) -> Path:
    result = run_inspector("--completion", shell)
    assert result.returncode == 0, result.stderr
    assert "inspector" in result.stdout
    path = tmp_path / f"inspector.{shell}"
    path.write_text(result.stdout)
    return path


BASH_DRIVER = r"""
source "$1"
COMP_LINE="$2"
COMP_POINT=${3:-${#COMP_LINE}}
read -ra COMP_WORDS <<< "${COMP_LINE:0:$COMP_POINT}"
[[ "${COMP_LINE:0:$COMP_POINT}" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
_python_argcomplete inspector
printf '%s\n' "${COMPREPLY[@]}"
"""


def bash_complete(script: Path, env: dict[str, str], line: str, point: int | None = None) -> list[str]:
    """What bash offers for `line` with the cursor at `point` (default: the end)."""
    driver = ["bash", "--norc", "--noprofile", "-c", BASH_DRIVER, "driver", str(script), line, str(point or "")]
    return [word.strip() for word in completed(driver, env).splitlines() if word.strip()]


def test_bash_completes_subcommands_and_options(tmp_path: Path, inspector_on_path: dict[str, str]) -> None:
    script = script_file("bash", tmp_path)
    assert set(bash_complete(script, inspector_on_path, "inspector li")) == {"list", "lint"}
    offered = bash_complete(script, inspector_on_path, "inspector ")
    assert {"call", "read", "get", "list", "auth", "tui"} <= set(offered)
    assert "--complete-names" not in bash_complete(script, inspector_on_path, "inspector --comp")
    assert bash_complete(script, inspector_on_path, "inspector call --with-") == ["--with-defaults"]
    assert set(bash_complete(script, inspector_on_path, "inspector list ")) == {
        "tools",
        "resources",
        "templates",
        "prompts",
    }


def test_bash_completes_the_demo_servers_names(tmp_path: Path, inspector_on_path: dict[str, str]) -> None:
    script = script_file("bash", tmp_path)
    tools = bash_complete(script, inspector_on_path, "inspector call ")
    assert {"echo", "divide", "plan_trip"} <= set(tools)
    assert bash_complete(script, inspector_on_path, "inspector call div") == ["divide"]
    prompts = bash_complete(script, inspector_on_path, "inspector get ")
    assert "greeting" in prompts and "echo" not in prompts
    # bash splits words at ':' (COMP_WORDBREAKS): the reply completes the part after it.
    resources = bash_complete(script, inspector_on_path, "inspector read demo://re")
    assert resources == ["//readme"]


def test_bash_completes_names_of_the_server_after_dashdash(tmp_path: Path, inspector_on_path: dict[str, str]) -> None:
    """`inspector call <TAB> -- python server.py`: the server is named after the cursor."""
    script = script_file("bash", tmp_path)
    head = "inspector call "
    line = f"{head} -- {sys.executable} {DIRECTORY_SERVER}"
    offered = bash_complete(script, inspector_on_path, line, len(head))
    assert "list_tree" in offered
    assert "echo" not in offered  # not the demo server's


def test_names_are_sanitized_for_the_shell(inspector_on_path: dict[str, str]) -> None:
    printed = complete_names(inspector_on_path, sys.executable, str(DIRECTORY_SERVER))
    names = printed.splitlines()
    # The server also offers names with a newline and a terminal escape: dropped, not split or passed on.
    assert names == ["list_tree"], names
    assert "\x1b" not in printed


def test_sanitized_bounds_and_filters() -> None:
    assert sanitized(["a", "a", "b\nc", "", None, "x" * 10_000, "ok name", "zero\u200bwidth"]) == ["a", "ok name"]
    assert len(sanitized([f"n{i}" for i in range(50_000)])) == 2000


def test_a_server_that_never_answers_completes_nothing(inspector_on_path: dict[str, str]) -> None:
    """Completion has its own deadline: a silent server gives no names, not a stuck prompt."""
    env = {**inspector_on_path, "INSPECTOR_COMPLETION_TIMEOUT": "2"}
    # The server: a process that starts and never reads or writes (it outlives the test's bound).
    silent = [sys.executable, "-c", "import time; time.sleep(600)"]
    assert complete_names(env, *silent) == ""


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_parse(shell: str, tmp_path: Path) -> None:
    binary = shutil.which(shell)
    if binary is None:
        pytest.fail(f"{shell} is not installed (scripts/test.sh installs it)")
    script = script_file(shell, tmp_path)
    completed([binary, "-n", str(script)])


def test_fish_completes_subcommands_for_real(tmp_path: Path, inspector_on_path: dict[str, str]) -> None:
    fish = shutil.which("fish")
    if fish is None:
        pytest.fail("fish is not installed (scripts/test.sh installs it)")
    script = script_file("fish", tmp_path)

    def offered(line: str) -> set[str]:
        printed = completed(
            [fish, "--no-config", "-c", f"source {script}; complete --do-complete '{line}'"], inspector_on_path
        )
        return {entry.split("\t")[0] for entry in printed.splitlines()}

    assert offered("inspector li") == {"list", "lint"}
    assert offered("inspector call div") == {"divide"}


def test_bash_completes_names_of_the_server_named_by_url(tmp_path: Path, inspector_on_path: dict[str, str]) -> None:
    port = free_port()
    with serving([sys.executable, "-m", "inspector", "demo-server", "--http", str(port)], port):
        script = script_file("bash", tmp_path)
        line = f"inspector call --url http://127.0.0.1:{port}/mcp pla"
        assert bash_complete(script, inspector_on_path, line) == ["plan_trip"]
        line = f"inspector --url http://127.0.0.1:{port}/mcp get "
        assert "greeting" in bash_complete(script, inspector_on_path, line)


ZSH_DRIVER = r"""
# Only the completion system's two entry points are stood in for (compinit
# needs a terminal): `compdef` registers, `_describe` prints what it would offer.
compdef() { : }
_describe() { print -rl -- "${(@P)2}" }
source "$1"
BUFFER="$2"; CURSOR=${#BUFFER}; words=(${=BUFFER})
[[ "$BUFFER" == *" " ]] && words+=("")
_python_argcomplete
"""


def test_zsh_runs_the_script_and_gets_names(tmp_path: Path, inspector_on_path: dict[str, str]) -> None:
    zsh = shutil.which("zsh")
    if zsh is None:
        pytest.fail("zsh is not installed (scripts/test.sh installs it)")
    script = script_file("zsh", tmp_path)

    def offered(line: str) -> dict[str, str]:
        printed = completed([zsh, "-f", "-c", ZSH_DRIVER, "driver", str(script), line], inspector_on_path)
        return dict(entry.partition(":")[::2] for entry in printed.splitlines())

    subcommands = offered("inspector li")
    assert set(subcommands) == {"list", "lint"}
    assert subcommands["list"].startswith("list tools")
    assert set(offered("inspector call div")) == {"divide"}


def test_zsh_and_fish_complete_names_of_the_server_named_by_url(
    tmp_path: Path, inspector_on_path: dict[str, str]
) -> None:
    """The names of the server the line names (not the demo server's), in the other two shells."""
    zsh, fish = shutil.which("zsh"), shutil.which("fish")
    if zsh is None or fish is None:
        pytest.fail("zsh and fish must be installed (scripts/test.sh installs them)")
    zsh_script, fish_script = script_file("zsh", tmp_path), script_file("fish", tmp_path)

    def zsh_offers(line: str) -> set[str]:
        printed = completed([zsh, "-f", "-c", ZSH_DRIVER, "driver", str(zsh_script), line], inspector_on_path)
        # _describe's "word:description", the word's own colons escaped.
        return {re.split(r"(?<!\\):", entry, maxsplit=1)[0].replace("\\:", ":") for entry in printed.splitlines()}

    def fish_offers(line: str) -> set[str]:
        printed = completed(
            [fish, "--no-config", "-c", f"source {fish_script}; complete --do-complete '{line}'"], inspector_on_path
        )
        return {entry.split("\t")[0] for entry in printed.splitlines()}

    port = free_port()
    with serving([sys.executable, "-m", "inspector", "demo-server", "--http", str(port)], port):
        url = f"http://127.0.0.1:{port}/mcp"
        for offers in (zsh_offers, fish_offers):
            assert offers(f"inspector call --url {url} pla") == {"plan_trip"}, offers
            assert "greeting" in offers(f"inspector get --url {url} gre"), offers
            resources = offers(f"inspector read --url {url} demo://rea")
            assert resources == {"demo://readme"}, (offers, resources)
