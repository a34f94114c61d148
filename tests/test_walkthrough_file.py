"""Walkthrough files: what they hold once read, and clear errors (file and
line) for the ones that make no sense, from the loader and from `inspector demo`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from inspector.walkthrough import WalkthroughError, load_walkthrough

from .peers import ROOT, run_inspector


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "walk.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def demo(*args: str) -> subprocess.CompletedProcess[str]:
    """`inspector demo ARGS` with nothing on its input: the 60 s bound is
    generous, only a hang (a TUI started anyway) reaches it."""
    return run_inspector("demo", *args, env={"PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL)


def test_a_file_is_read_into_steps(tmp_path: Path) -> None:
    walkthrough = load_walkthrough(
        write(
            tmp_path,
            "name: Tour\n"
            "server: 'stdio:python server.py'\n"
            "pause: 1.5\n"
            "steps:\n"
            "  - caption: Hello\n"
            "  - tool: echo\n"
            "    pause: key\n"
            "  - fill: {message: yes, repeat: 2}\n"
            "  - call: echo\n"
            "    confirm: yes\n"
            "  - call: divide\n"
            "    arguments: {dividend: 1, divisor: 0}\n"
            "    confirm: false\n"
            "  - traffic: true\n"
            "  - read: demo://readme\n"
            "    pause: 0\n"
            "  - get: greeting\n"
            "    arguments: {name: Ada}\n",
        )
    )
    assert walkthrough.name == "Tour"
    assert walkthrough.server == "stdio:python server.py"
    assert walkthrough.pause == 1.5
    steps = walkthrough.steps
    assert [(s.action, s.line) for s in steps] == [
        (None, 5),
        ("tool", 6),
        ("fill", 8),
        ("call", 9),
        ("call", 11),
        ("traffic", 14),
        ("read", 15),
        ("get", 17),
    ]
    assert steps[0].caption == "Hello"
    assert steps[1].pause == "key"
    # YAML 1.2, as the collections: `yes` is text.
    assert steps[2].target == {"message": "yes", "repeat": 2}
    assert steps[3].confirm == "yes" and steps[4].confirm == "no"
    assert steps[4].arguments == {"dividend": 1, "divisor": 0}
    assert steps[5].target == "last"
    assert steps[6].pause == 0.0
    assert [s.sends for s in steps] == [False, False, False, True, True, False, True, True]


def test_the_example_walkthrough_is_valid() -> None:
    walkthrough = load_walkthrough(str(ROOT / "examples" / "tour.yaml"))
    assert walkthrough.server is None  # the demo server, or the one the command line names
    assert any(step.action == "call" and step.confirm == "yes" for step in walkthrough.steps)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- caption: hi\n", "a walkthrough is a mapping with `steps:`"),
        ("steps: []\n", "`steps:` must be a list of at least one step"),
        ("name: x\nsteps:\n  - caption: hi\ncolour: red\n", "walk.yaml:4: unknown key(s) colour"),
        ("steps:\n  - caption: hi\n  - tool: echo\n    call: echo\n", "walk.yaml:3: step 2: one action per step"),
        ("steps:\n  - caption: hi\n  - pause: 2\n", "walk.yaml:3: step 2: nothing to do"),
        ("steps:\n  - callz: echo\n", "walk.yaml:2: step 1: unknown key(s) callz"),
        ("steps:\n  - call: ''\n", "`call:` needs a name or URI"),
        ("steps:\n  - fill: [1, 2]\n", "`fill:` maps field names to the values to type"),
        ("steps:\n  - tool: echo\n    confirm: yes\n", "`confirm:` answers a call's confirmation"),
        ("steps:\n  - call: echo\n    confirm: maybe\n", "`confirm:` is yes, no or trust"),
        ("steps:\n  - caption: hi\n    pause: soon\n", "pause: seconds (0 or more), or `key`"),
        ("steps:\n  - caption: hi\n    pause: -1\n", "pause: seconds (0 or more)"),
        ("pause: forever\nsteps:\n  - caption: hi\n", "walk.yaml:1: pause: seconds"),
        ("steps:\n  - read: demo://x\n    arguments: {a: 1}\n", "`arguments:` is a mapping, for `call` and `get`"),
        ("steps:\n  - get: greeting\n    arguments: {name: 1}\n", "a prompt's arguments are text"),
        ("steps:\n  - call: echo\n    arguments: {when: 2024-01-01}\n", "an unquoted date or time"),
        ("steps:\n  - caption: [a]\n", "`caption:` must be text"),
        ("steps:\n  - traffic: 3\n", "`traffic:` is a method"),
        ("steps: [\n", "not valid YAML"),
    ],
)
def test_a_file_that_makes_no_sense_is_refused_clearly(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(WalkthroughError) as refused:
        load_walkthrough(write(tmp_path, text))
    assert message in str(refused.value)
    assert str(tmp_path / "walk.yaml") in str(refused.value)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(WalkthroughError, match=r"no-such\.yaml: No such file"):
        load_walkthrough(str(tmp_path / "no-such.yaml"))


def test_inspector_demo_refuses_a_bad_file_before_starting(tmp_path: Path) -> None:
    path = write(tmp_path, "steps:\n  - caption: hi\n  - call: echo\n    confirm: perhaps\n")
    done = demo(path)
    assert done.returncode == 2
    assert f"inspector: error: {path}:3: step 2: `confirm:` is yes, no or trust" in done.stderr


def test_pace_must_be_a_speed(tmp_path: Path) -> None:
    path = write(tmp_path, "steps:\n  - caption: hi\n")
    done = demo(path, "--pace", "0")
    assert done.returncode == 2
    assert "a speed above 0" in done.stderr


def test_the_readme_shows_the_example_walkthrough_as_it_is() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Walkthroughs: `inspector demo`", 1)[1].split("\n## ", 1)[0]
    shown = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    assert shown == (ROOT / "examples" / "tour.yaml").read_text(encoding="utf-8")
    for picture in ("screenshots/tour/03-fill-message-repeat.svg", "screenshots/tour/05-traffic-tools-call.svg"):
        assert picture in section and (ROOT / picture).is_file()


def test_inspector_demo_takes_the_server_the_file_names(tmp_path: Path) -> None:
    # The file's `server:` is read with the collections' forms: one they do not know is refused by name.
    path = write(tmp_path, "server: 'ftp://nowhere'\nsteps:\n  - caption: hi\n")
    done = demo(path)
    assert done.returncode == 2
    assert f"{path}: server: 'ftp://nowhere' is none of" in done.stderr
