#!/usr/bin/env bash
# The whole test run, from a fresh machine: a virtualenv with the package and
# its dev tools, the npm peers, then lint, types and the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[dev]'
bash scripts/setup-peers.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/pytest -n 2 "$@"
