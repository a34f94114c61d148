"""The official conformance suite's client scenarios, run against our scenario
client (tests/conformance/client.py), which drives our own client core."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .peers import NODE22, PEERS, ROOT, require

CLIENT = ROOT / "tests" / "conformance" / "client.py"
SUITE_0116 = PEERS / "conformance-0116" / "dist" / "index.js"

HANDSHAKE_SCENARIOS = ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"]


def run_scenario(suite: Path, scenario: str, workdir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = f"{sys.executable} {CLIENT}"
    return subprocess.run(
        [str(require(NODE22)), str(require(suite)), "client", "--command", command, "--scenario", scenario, *extra],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.mark.parametrize("scenario", HANDSHAKE_SCENARIOS)
def test_conformance_0116(scenario: str, tmp_path: Path) -> None:
    result = run_scenario(SUITE_0116, scenario, tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    assert "OVERALL: PASSED" in output, output[-4000:]
    assert "0 failed" in output, output[-4000:]
