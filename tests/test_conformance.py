"""The official conformance suite's client scenarios, run against our scenario
client (tests/conformance/client.py), which drives our own client core.

Each run uses an expected-failures baseline, empty but for one 0.1.16
scenario whose fixture breaks RFC 8414 (its reason is in the file); the
harness itself fails a run on any other failure and on baseline entries that
now pass.

Every scenario is its own harness run and its own test: with `--suite all`
the harness starts every scenario's client at once, and on a busy machine
the slowest of them failed scenarios that were merely starved.  Each run has
limits that only a hang reaches.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .peers import NODE22, PEERS, ROOT, require

CONFORMANCE = ROOT / "tests" / "conformance"
CLIENT = CONFORMANCE / "client.py"
# Per scenario; the scenario client's own timeouts (HANG there) are shorter.
SCENARIO_LIMIT_MS = 300_000

RUNS = {
    "0.1.16": ("conformance-0116", "expected-failures-0.1.16.yml", []),
    "0.2.0": ("conformance-020", "expected-failures-0.2.0.yml", []),
    "0.2.0-2026-07-28": ("conformance-020", "expected-failures-0.2.0.yml", ["--spec-version", "2026-07-28"]),
}
LISTED = re.compile(r"^\s+- (\S+)")


def scenarios(run: str) -> list[str]:
    """The client scenarios the harness of `run` offers (its `--suite all`)."""
    package, _baseline, extra = RUNS[run]
    try:
        listing = subprocess.run(
            [str(require(NODE22)), str(require(PEERS / package / "dist" / "index.js")), "list", "--client", *extra],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        # A missing peer is a failure of the test, never a silent skip.
        return [f"!cannot list scenarios: {exc}"]
    names = [m.group(1) for line in listing.splitlines() if (m := LISTED.match(line))]
    return names or [f"!no scenarios listed: {listing[-500:]}"]


SCENARIOS = {run: scenarios(run) for run in RUNS}
CASES = [pytest.param(run, name, id=f"{run}:{name}") for run, names in SCENARIOS.items() for name in names]


# The one scenario allowed to stay in a baseline: 0.1.16's fixture breaks RFC 8414 §3.3
# (its reason is written next to it in the file); 0.2.0 fixed it.
ALLOWED = {"0.1.16": ["auth/2025-03-26-oauth-metadata-backcompat"]}


def test_baselines_hold_only_the_allowed_exception() -> None:
    for run, (_package, baseline, _extra) in RUNS.items():
        entries = yaml.safe_load((CONFORMANCE / baseline).read_text())["client"] or []
        assert entries == ALLOWED.get(run, []), baseline


def test_every_run_has_its_core_scenarios() -> None:
    for run in RUNS:
        names = set(SCENARIOS[run])
        assert {"tools_call", "sse-retry"} <= names or {"tools_call", "request-metadata"} <= names, (run, names)


@pytest.mark.timeout(SCENARIO_LIMIT_MS // 1000 + 120)
@pytest.mark.parametrize(("run", "scenario"), CASES)
def test_conformance_scenario(run: str, scenario: str, tmp_path: Path) -> None:
    assert not scenario.startswith("!"), scenario
    package, baseline, extra = RUNS[run]
    run_scenario(package, baseline, extra, scenario, tmp_path)


# The harness lists extension scenarios only off the spec timeline; forced,
# the skills scenarios also run against our client in the stateless era.
SKILLS_CASES = [name for name in SCENARIOS["0.2.0"] if "sep-2640-" in name]


@pytest.mark.timeout(SCENARIO_LIMIT_MS // 1000 + 120)
@pytest.mark.parametrize("scenario", SKILLS_CASES)
def test_skills_scenario_in_the_stateless_era(scenario: str, tmp_path: Path) -> None:
    package, baseline, _extra = RUNS["0.2.0"]
    run_scenario(package, baseline, ["--spec-version", "2026-07-28", "--force"], scenario, tmp_path)


def test_the_skills_scenarios_are_offered() -> None:
    assert len(SKILLS_CASES) >= 4, SKILLS_CASES


def run_scenario(package: str, baseline: str, extra: list[str], scenario: str, tmp_path: Path) -> None:
    suite = require(PEERS / package / "dist" / "index.js")
    result = subprocess.run(
        [
            str(require(NODE22)),
            str(suite),
            "client",
            "--command",
            f"{sys.executable} {CLIENT}",
            "--scenario",
            scenario,
            "--expected-failures",
            str(CONFORMANCE / baseline),
            "--timeout",
            str(SCENARIO_LIMIT_MS),
            *extra,
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=SCENARIO_LIMIT_MS / 1000 + 60,
        check=False,
    )
    output = result.stdout + result.stderr
    results = output[output.find("Test Results") :] if "Test Results" in output else output[-6000:]
    failed = [line for line in output.splitlines() if "FAILURE" in line or "✗" in line]
    assert result.returncode == 0, "\n".join([*failed[:40], results])
    assert "Baseline check passed" in output or "OVERALL: PASSED" in output, results
    if scenario.startswith("sep-2640-"):
        # The skills scenarios skip every check of a client that never lists
        # skills, and a run of skips passes: each check must have run.
        assert "SKIPPED" not in output and re.search(r"Passed: [1-9]", output), results
