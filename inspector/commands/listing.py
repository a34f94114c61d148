"""`inspector list KIND`: every page of a list."""

from __future__ import annotations

import json
import sys

from ..core.items import KIND_FIELDS
from ..core.safetext import visible
from . import exitcodes
from .render import item_line
from .runner import CommandContext

__all__ = ["run_list"]

_dumps = json.JSONEncoder(ensure_ascii=False).encode


async def run_list(ctx: CommandContext) -> int:
    kind = ctx.args.kind
    encoded: list[str] = []
    # JSON output is encoded page by page while the next page is on its way.
    on_page = (lambda items: encoded.extend(_dumps(item.raw) for item in items)) if ctx.out.json else None
    listing = await ctx.client.list_all(kind, max_pages=ctx.args.max_pages, on_page=on_page)
    for problem in listing.problems:
        print(f"inspector: {visible(problem)}", file=sys.stderr)
    key = KIND_FIELDS[kind][0]
    if ctx.out.json:
        ctx.out.write_text('{"' + key + '": [' + ", ".join(encoded) + "]}")
    else:
        pages = len(listing.pages)
        ctx.out.line(f"{len(listing.items)} {kind} ({pages} page{'s' if pages != 1 else ''})")
        for item in listing.items:
            ctx.out.line(item_line(item))
    broken = sum(1 for item in listing.items if item.problems)
    if broken:
        print(f"inspector: {broken} item(s) with problems (kept, see above)", file=sys.stderr)
    return exitcodes.OK
