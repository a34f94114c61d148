#!/usr/bin/env bash
# Installs the real MCP peers the tests and benchmarks run against (pinned in
# peers/package-lock.json): server-everything, server-filesystem and
# server-sequential-thinking, the official Inspector, both conformance suite
# versions, and Node 22 for the conformance suite.
set -euo pipefail
cd "$(dirname "$0")/../peers"
if [ -f node_modules/.installed ] && [ package-lock.json -ot node_modules/.installed ]; then
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
touch node_modules/.installed
