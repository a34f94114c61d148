"""The confirmation step before a tool call on a terminal."""

from __future__ import annotations

import json
import sys
from typing import Any

from inspector.commands.render import hint_summary
from inspector.core.protocol.items import Item
from inspector.core.safetext import visible

__all__ = ["ask_confirmation", "ask_confirmation_async", "confirmation_text"]


def confirmation_text(tool: Item, arguments: dict[str, Any]) -> str:
    """The question asked before a call: the tool, its hints and the arguments as JSON, made safe for the terminal."""
    lines = [f"Call tool {visible(tool.key)}" + (f" ({visible(tool.title)})" if tool.title else "") + "?"]
    lines.append(f"  hints: {hint_summary(tool.hints())}")
    lines.append("  arguments:")
    for line in json.dumps(arguments, indent=2, ensure_ascii=False).splitlines():
        lines.append("    " + visible(line))
    return "\n".join(lines)


async def ask_confirmation(tool: Item, arguments: dict[str, Any]) -> bool:
    """Ask on the terminal before a call; anything but y/yes is a no."""
    return await ask_confirmation_async(confirmation_text(tool, arguments))


async def ask_confirmation_async(text: str) -> bool:
    """Ask on the terminal; anything but y/yes is a no.

    The answer is read when the event loop sees the terminal readable, never
    by a read that blocks the loop: Ctrl-C (asyncio.run cancels the command's
    task) ends the command at once, mid-question, and a preview keeps serving
    meanwhile.  A blocking read would be resumed after the signal and the
    command would wait for Enter."""
    from inspector.core.auth.handoff import read_stdin_line

    sys.stderr.write(text + "\nProceed? [y/N] ")
    sys.stderr.flush()
    answer = await read_stdin_line()
    return answer is not None and answer.strip().lower() in ("y", "yes")
