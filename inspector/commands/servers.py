"""`inspector servers`: the MCP servers other clients on this machine use."""

from __future__ import annotations

import argparse

from ..core.discovery import candidate_files, discover
from . import exitcodes
from .output import Output

__all__ = ["run_servers"]


def run_servers(args: argparse.Namespace) -> int:
    out = Output.for_args(args)
    found = discover()
    if out.json:
        out.json_value(
            {
                "files": [{"client": client, "path": path} for client, path in candidate_files()],
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
    if not found:
        out.line("no MCP client config files found (looked for Claude Desktop, Claude Code, VS Code, Cursor, Windsurf)")
        return exitcodes.OK
    for entry in found:
        out.line(f"{entry.name:<24} {entry.client:<15} {entry.summary}")
        out.line(f"{'':<24} {'':<15} {entry.path}")
    out.line("use one with: inspector --server NAME   (or --config FILE --server NAME)")
    return exitcodes.OK
