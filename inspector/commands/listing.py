"""`inspector list KIND`: every page of a list."""

from __future__ import annotations

import gc
import sys

from inspector.commands import exitcodes
from inspector.commands.render import item_line
from inspector.commands.runner import CommandContext
from inspector.core.protocol.items import KIND_FIELDS, Item, ListResult
from inspector.core.protocol.wire_json import ListPieces
from inspector.core.safetext import visible

__all__ = ["run_list"]


async def run_list(ctx: CommandContext) -> int:
    """`inspector list KIND`: every page of the list; returns the exit code."""
    try:
        return await _run_list(ctx)
    finally:
        gc.unfreeze()


async def _run_list(ctx: CommandContext) -> int:
    kind = ctx.args.kind
    key = KIND_FIELDS[kind][0]
    # With --json each page's items, as received (tools the client excludes
    # too: they were sent), are written as the page arrives, while the
    # server makes the next one; the page fields of the whole come last.
    written = ListPieces(key) if ctx.out.json else None

    def on_page(items: list[Item]) -> None:
        if written is not None:
            ctx.out.write_utf8_parts(written.items([item.raw for item in items]), end=False)
        # The list is held whole until it is printed, and it holds no
        # reference cycle: each page, once parsed, is put out of the cyclic
        # collector's sight, so the collections the next pages cause do not
        # walk it again (a fifth of the time of 100,000 tools).
        gc.freeze()

    try:
        listing = await ctx.client.list_all(kind, max_pages=ctx.args.max_pages, on_page=on_page)
    except BaseException:
        if written is not None and written.started:
            # A later page failed past its request (the connection, the
            # time): the pages written stay one whole JSON value, and the
            # error and exit code say the list is short.
            ctx.out.write_utf8_parts(written.end({}))
        raise
    # 100,000 tools are 3 million objects: freed one by one they cost a
    # quarter of the time it took to list them; the process may end first.
    ctx.held.append(listing)
    for problem in listing.problems:
        print(f"inspector: {visible(problem)}", file=sys.stderr)
    if written is not None:
        # The page fields that still mean something for the whole.
        ctx.out.write_utf8_parts(written.end(dict(_page_fields(listing))))
    else:
        pages = len(listing.pages)
        ctx.out.line(f"{len(listing.items)} {kind} ({pages} page{'s' if pages != 1 else ''})")
        for item in listing.items:
            ctx.out.line(item_line(item))
    return _report_items(listing, kind)


def _report_items(listing: ListResult, kind: str) -> int:
    """Tell stderr of the items left out or kept with problems; the exit code."""
    for item in listing.excluded:
        reasons = "; ".join(item.problems)
        print(f"inspector: {kind[:-1]} {visible(item.key)!r} {visible(reasons)}", file=sys.stderr)
    broken = sum(1 for item in listing.items if item.problems)
    if broken:
        print(f"inspector: {broken} item(s) with problems (kept, see above)", file=sys.stderr)
    if not listing.complete:
        # The pages that worked are printed; a script must still know the list is short.
        print("inspector: the list is incomplete (see above)", file=sys.stderr)
        return exitcodes.PROTOCOL_ERROR
    return exitcodes.OK


def _page_fields(listing: ListResult) -> list[tuple[str, object]]:
    fields: list[tuple[str, object]] = []
    if listing.ttl_ms is not None:
        fields.append(("ttlMs", listing.ttl_ms))
    if listing.cache_scope is not None:
        fields.append(("cacheScope", listing.cache_scope))
    last = listing.pages[-1] if listing.pages else {}
    if not listing.complete and isinstance(last.get("nextCursor"), str):
        # Where a script could carry on from.
        fields.append(("nextCursor", last["nextCursor"]))
    return fields
