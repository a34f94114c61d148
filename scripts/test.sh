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
# tmux drives the TUI as a terminal would in the README command tests;
# zsh and fish run the shell completion scripts.
missing=""
for tool in tmux zsh fish; do
  command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
  fi
fi
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/lint-imports
# Three workers on two cores: on an idle machine a test's processes keep
# about half a core busy (the rest of its time a server is starting, a
# timeout running out, a frame awaited), and a third worker fills those
# gaps.  worksteal gives each worker a run of whole files (a module's
# server starts once, not once a worker) and evens out the tail.
.venv/bin/pytest -n 3 --dist worksteal "$@"
