"""`inspector servers`: the MCP servers other clients on this machine use."""

from __future__ import annotations

import argparse
import os
import sys

from inspector.commands import exitcodes
from inspector.commands.output import Output
from inspector.core.servers.discovery import candidate_files, discover

__all__ = ["run_servers"]


def run_servers(args: argparse.Namespace) -> int:
    """`inspector servers`: the MCP servers other clients on this machine use; returns the exit code."""
    out = Output.for_args(args)
    files = list(args.config or [])
    missing = [path for path in files if not os.path.isfile(path)]
    if missing:
        print(f"inspector servers: no such config file: {missing[0]}", file=sys.stderr)
        return exitcodes.USAGE
    found = discover(files=files or None)
    if out.json:
        listed = [("config", path) for path in files] if files else candidate_files()
        out.json_value(
            {
                "files": [{"client": client, "path": path} for client, path in listed],
                "servers": [
                    {
                        "client": entry.client,
                        "path": entry.path,
                        "name": entry.name,
                        "usable": entry.usable,
                        "inputs": [
                            {"id": item.id, "variable": item.variable, "password": item.password}
                            for item in entry.inputs
                        ],
                        "transport": entry.spec.transport if entry.spec else None,
                        "target": entry.summary,
                        "problem": entry.problem,
                    }
                    for entry in found
                ],
            }
        )
        return exitcodes.OK
    if not found and files:
        out.line(f"no servers in {', '.join(files)} (looked for mcpServers and servers)")
        return exitcodes.OK
    if not found:
        out.line("no MCP client config files found (looked for Claude Desktop, Claude Code, VS Code, Cursor, Windsurf)")
        return exitcodes.OK
    for entry in found:
        out.line(f"{entry.name:<24} {entry.client:<15} {entry.summary}")
        out.line(f"{'':<24} {'':<15} {entry.path}")
    if files:
        out.line(f"use one with: inspector --config {files[0]} --server NAME")
    else:
        out.line("use one with: inspector --server NAME   (or --config FILE --server NAME)")
    return exitcodes.OK
