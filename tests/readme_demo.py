"""The README's `inspector demo` commands, run as a person runs them: in
tmux, the presenter's page down pressed until the walkthrough has played
to its end; then what the command wrote (the SVG per step, the cast) is
checked against the walkthrough file."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from inspector.walkthrough import load_walkthrough

from .tmux_session import tmux_running
from .waiting import eventually_sync

__all__ = ["run_walkthrough"]

END = "End of the walkthrough."


def run_walkthrough(path: Path, env: dict[str, str], argv: list[str], name: str) -> None:
    """`argv` (an `inspector demo FILE …` command) in tmux in the folder `path`."""
    walkthrough = load_walkthrough(str(path / argv[2]))
    seen: set[str] = set()
    with tmux_running(argv, env, path, name, (130, 40)) as run:

        def played() -> bool:
            screen = run.capture()
            seen.update(step.caption for step in walkthrough.steps if step.caption and step.caption in screen)
            if run.status.exists():
                return True
            if walkthrough.name in screen:
                # The presenter's clicker: on to the next step (a step waiting for its key included).
                run.send("NPage", check=False)
            return END in screen

        # A generous bound: the TUI starts, the demo server starts, every step types and calls.
        eventually_sync(played, "the walkthrough to play to its end", timeout=240, poll=0.3)
        assert "Traceback" not in run.screen, run.screen
        if "--quit-at-end" not in argv:
            assert END in run.screen, run.screen
            run.send("C-q")
        eventually_sync(run.status.exists, "the program to end")
        assert run.status.read_text().strip() == "0", run.screen
    # The captions were on the terminal (a caption shown only between two polls may be missed: most are seen).
    captions = [step.caption for step in walkthrough.steps if step.caption]
    assert len(seen) >= 2, (seen, captions)
    if "--svg-dir" in argv:
        check_svgs(path / argv[argv.index("--svg-dir") + 1], walkthrough)
    if "--record-cast" in argv:
        check_cast(path / argv[argv.index("--record-cast") + 1], walkthrough)


def svg_text(file: Path) -> str:
    runs = re.findall(r"<text[^>]*>(.*?)</text>", file.read_text(encoding="utf-8"), re.S)
    return html.unescape("".join(runs)).replace("\xa0", " ")


def check_svgs(folder: Path, walkthrough: Any) -> None:
    files = sorted(folder.glob("*.svg"))
    assert len(files) == len(walkthrough.steps), [f.name for f in files]
    for index, (file, step) in enumerate(zip(files, walkthrough.steps, strict=True)):
        assert file.name.startswith(f"{index + 1:02d}-"), file.name
        # The caption may wrap on a narrow terminal: each of its words is there.
        words = set(re.findall(r"\w+", svg_text(file)))
        assert set(re.findall(r"\w+", step.caption)) <= words, (file.name, step.caption)


def check_cast(file: Path, walkthrough: Any) -> None:
    lines = file.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["version"] == 2 and header["width"] > 0 and header["height"] > 0
    output = "".join(text for _, kind, text in (json.loads(line) for line in lines[1:]) if kind == "o")
    # The terminal's text without its escape sequences: the captions are in it.
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\x1b[=>]", "", output)
    assert "Quit" in plain
    # The caption's position line names the walkthrough, up to its last step.
    assert walkthrough.name in plain
    last = len(walkthrough.steps)
    assert f"step {last} of {last}" in plain
