"""`inspector info`: who the server is and what it offers."""

from __future__ import annotations

from typing import Any

from inspector.commands import exitcodes
from inspector.commands.render import json_lines
from inspector.commands.runner import CommandContext

__all__ = ["info_document", "opening_key", "run_info"]


def info_document(ctx: CommandContext) -> dict[str, Any]:
    """What `inspector info` shows: server info, revision, era, transport, capabilities, instructions, opening."""
    client = ctx.client
    transport = client.transport
    return {
        "serverInfo": client.server_info,
        "protocolVersion": client.protocol_version,
        "offeredVersion": client.offered_version,
        "era": client.era,
        "transport": transport.describe() if transport is not None else None,
        "capabilities": client.server_capabilities,
        "instructions": client.instructions,
        # What opened the connection, named for what it is: the answer to
        # `initialize` (handshake era) or to `server/discover` (stateless era).
        opening_key(client.era): client.initialize_result,
    }


def opening_key(era: str) -> str:
    """The key the opening answer goes under: `discoverResult` (stateless era) or `initializeResult`."""
    return "discoverResult" if era == "modern" else "initializeResult"


async def run_info(ctx: CommandContext) -> int:
    """`inspector info`: who the server is and what it offers; returns the exit code."""
    doc = info_document(ctx)
    out = ctx.out
    if out.json:
        out.json_value(doc)
        return exitcodes.OK
    info = doc["serverInfo"]
    name = info.get("title") or info.get("name") or "?"
    out.line(f"{name} {info.get('version', '')}".rstrip())
    if info.get("title") and info.get("name"):
        out.line(f"  name: {info['name']}")
    out.line(f"  protocol: {doc['protocolVersion']} ({doc['era']} era; offered {doc['offeredVersion']})")
    out.line(f"  transport: {doc['transport']}")
    caps = doc["capabilities"]
    out.line("  capabilities: " + (", ".join(sorted(caps)) if caps else "(none)"))
    for line in json_lines(caps):
        out.line("    " + line)
    if doc["instructions"]:
        out.line("  instructions:")
        for line in str(doc["instructions"]).splitlines():
            out.line("    " + line)
    key = opening_key(doc["era"])
    method = "server/discover" if key == "discoverResult" else "initialize"
    keys = ", ".join(doc[key]) if isinstance(doc[key], dict) else "?"
    out.line(f"  {key} (the answer to {method}; --json has it whole): {keys}")
    return exitcodes.OK
