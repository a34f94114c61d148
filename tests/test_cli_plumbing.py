"""What every command shares: the exit code list (help, README, code agree)
and a reader that goes away early (`| head`) ending any command quietly."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.commands import exitcodes

from .peers import PYTHON, ROOT, SERVERS

INSPECTOR = [sys.executable, "-m", "inspector"]
VERSIONED = str(SERVERS / "versioned.py")


def test_help_lists_every_exit_code() -> None:
    result = subprocess.run([*INSPECTOR, "--help"], capture_output=True, text=True, timeout=30, check=True)
    text = " ".join(result.stdout.split())
    for code, meaning in exitcodes.MEANINGS.items():
        assert f"{code} {meaning}" in text, (code, meaning)
    constants = {value for name, value in vars(exitcodes).items() if name.isupper() and isinstance(value, int)}
    assert constants == set(exitcodes.MEANINGS), "every exit code constant has a meaning"


def test_readme_exit_code_table_matches() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Exit codes", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| (\d+) \| (.+?) \|$", section, flags=re.MULTILINE))
    assert {int(code) for code in rows} == set(exitcodes.MEANINGS)
    for code, meaning in exitcodes.MEANINGS.items():
        assert rows[str(code)].startswith(meaning), (code, rows[str(code)])


def _recording(path: Path, release: int) -> str:
    subprocess.run(
        [
            *INSPECTOR,
            "list",
            "tools",
            "--json",
            "--record",
            str(path),
            "--",
            PYTHON,
            VERSIONED,
            "--release",
            str(release),
        ],
        capture_output=True,
        timeout=60,
        check=True,
    )
    return str(path)


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    folder = tmp_path_factory.mktemp("pipes")
    return _recording(folder / "one.jsonl", 1), _recording(folder / "two.jsonl", 2)


def _commands(recordings: tuple[str, str]) -> list[list[str]]:
    one, two = recordings
    return [
        ["lint", "--rules", "--human"],
        ["lint", "--rules", "--json"],
        ["diff", "--human", one, two],
        ["servers", "--human"],
        ["list", "tools", "--human", "--", PYTHON, VERSIONED],
        ["replay", "--human", one],
        ["diff", "--human", f"stdio:{PYTHON} {VERSIONED}", "--", PYTHON, VERSIONED, "--release", "2"],
    ]


def test_a_closed_pipe_ends_every_command_quietly(recordings: tuple[str, str]) -> None:
    for command in _commands(recordings):
        # The reader is gone before the first byte: every write fails.
        read_end, write_end = os.pipe()
        os.close(read_end)
        try:
            result = subprocess.run(
                [*INSPECTOR, *command], stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=60, check=False
            )
        finally:
            os.close(write_end)
        assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr, (command, result.stderr)
        assert result.returncode == exitcodes.OK, (command, result.returncode, result.stderr)


def test_piped_into_head(recordings: tuple[str, str]) -> None:
    for command in _commands(recordings)[:3]:
        line = " ".join(f"'{word}'" for word in [*INSPECTOR, *command]) + " | head -c1"
        result = subprocess.run(
            ["bash", "-o", "pipefail", "-c", line], capture_output=True, text=True, timeout=60, check=False
        )
        assert len(result.stdout) == 1, (command, result.stdout)
        assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr, (command, result.stderr)


def test_a_recording_cut_short_by_a_crash_still_opens(tmp_path: Path, recordings: tuple[str, str]) -> None:
    from inspector.core.record.recording_files import RecordingError, lists_from_traffic, load_recording

    lines = Path(recordings[0]).read_text(encoding="utf-8").splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines) + lines[1][: len(lines[1]) // 2], encoding="utf-8")
    warnings: list[str] = []
    traffic = load_recording(str(cut), warnings)
    assert len(warnings) == 1 and f"cut.jsonl:{len(lines) + 1}:" in warnings[0]
    assert traffic.frames[-1].kind == "transport" and "cut short" in (traffic.frames[-1].note or "")
    assert len(traffic.frames) == len(lines) + 1
    assert lists_from_traffic(traffic)["tools"].names() == ["search", "echo", "legacy_export"]
    # diff accepts it too, and says why a line was skipped.
    result = subprocess.run(
        [*INSPECTOR, "diff", "--json", str(cut), recordings[0]], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == exitcodes.OK, result.stderr
    assert "cut short" in result.stderr
    # Damage in the middle is still refused, with the line number.
    middle = tmp_path / "middle.jsonl"
    middle.write_text(lines[0] + "{not json\n" + "".join(lines[1:]), encoding="utf-8")
    with pytest.raises(RecordingError, match=r"middle\.jsonl:2: not a recorded frame"):
        load_recording(str(middle))
    result = subprocess.run(
        [*INSPECTOR, "diff", str(middle), recordings[0]], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == exitcodes.USAGE and "middle.jsonl:2:" in result.stderr
    # A file whose only line is damaged holds nothing to open.
    only = tmp_path / "only.jsonl"
    only.write_text(lines[0][:10], encoding="utf-8")
    with pytest.raises(RecordingError, match=r"only\.jsonl:1:"):
        load_recording(str(only))
