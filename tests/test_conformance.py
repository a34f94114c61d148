"""The official conformance suite's client scenarios, run against our scenario
client (tests/conformance/client.py), which drives our own client core.

Each run uses an expected-failures baseline that may list only auth
scenarios, each with its reason in the file (optional extension flows the
inspector does not speak yet); the harness itself fails the run on any other
failure and on baseline entries that now pass.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .peers import NODE22, PEERS, ROOT, require

CONFORMANCE = ROOT / "tests" / "conformance"
CLIENT = CONFORMANCE / "client.py"

RUNS = {
    "0.1.16-all": ("conformance-0116", "expected-failures-0.1.16.yml", []),
    "0.2.0-all": ("conformance-020", "expected-failures-0.2.0.yml", []),
    "0.2.0-2026-07-28": ("conformance-020", "expected-failures-0.2.0.yml", ["--spec-version", "2026-07-28"]),
}


def test_baselines_hold_only_auth_scenarios() -> None:
    for _package, baseline, _extra in RUNS.values():
        entries = yaml.safe_load((CONFORMANCE / baseline).read_text())["client"]
        assert entries and all(str(entry).startswith("auth/") for entry in entries), baseline


# A whole suite (every client scenario, the auth ones with their full flows)
# can take longer than the default per-test limit on a busy two-core machine.
@pytest.mark.timeout(400)
@pytest.mark.parametrize("run", list(RUNS))
def test_conformance_suite(run: str, tmp_path: Path) -> None:
    package, baseline, extra = RUNS[run]
    suite = require(PEERS / package / "dist" / "index.js")
    result = subprocess.run(
        [
            str(require(NODE22)),
            str(suite),
            "client",
            "--command",
            f"{sys.executable} {CLIENT}",
            "--suite",
            "all",
            "--expected-failures",
            str(CONFORMANCE / baseline),
            # Every scenario's client starts at once; the auth ones load the
            # official SDK's OAuth client (about a second of CPU each), which
            # on a two-core machine can push the last of them past the
            # default 30 s.
            "--timeout",
            "60000",
            *extra,
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = result.stdout + result.stderr
    summary = output[output.find("SUITE SUMMARY") :] if "SUITE SUMMARY" in output else output[-6000:]
    assert result.returncode == 0, summary
    assert "Baseline check passed" in output, summary
    passed = [line for line in summary.splitlines() if line.startswith("✓ ") and "auth/" not in line]
    assert len(passed) >= 4, summary
