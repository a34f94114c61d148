"""Paginated lists as the client fetches them: every page of a `*/list` (or of a
request of the same shape, such as the skills extension's directory read),
following `nextCursor` within bounds, and the stateless era's tool headers
learnt from the tools listed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from inspector.core.protocol.errors import JsonRpcError, ProtocolError
from inspector.core.protocol.items import KIND_FIELDS, LIST_METHODS, Item, ListResult, parse_items
from inspector.core.protocol.modern import tool_header_paths

if TYPE_CHECKING:
    from inspector.core.protocol.operation import Operation
    from inspector.core.transports.base import Transport
    from inspector.forms.values import JSONObject

__all__ = [
    "DEFAULT_MAX_PAGES",
    "DIRECTORY_MIME",
    "DIRECTORY_READ",
    "PageObserver",
    "apply_tool_headers",
    "declares_directory_read",
    "fetch_list",
    "learn_tool_headers",
    "require_directory_read",
]

DEFAULT_MAX_PAGES = 1000
# SEP-2640: the skills extension, whose `directoryRead` setting declares `resources/directory/read`.
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
DIRECTORY_READ = "resources/directory/read"
DIRECTORY_MIME = "inode/directory"

# Called with each page's items as it arrives (while the next page is on its way).
PageObserver = Callable[[list[Item]], None]
StartRequest = Callable[[str, Any], Awaitable["Operation"]]


async def fetch_list(
    start_request: StartRequest,
    kind: str,
    max_pages: int,
    on_page: PageObserver | None = None,
    *,
    method: str | None = None,
    params: JSONObject | None = None,
) -> ListResult:
    """Follow nextCursor.  The next page is asked for before this one is
    parsed, so our parsing overlaps the server's work on the next.
    `method` and `params` name another paginated request of the same shape."""
    listing = ListResult(kind)
    key = KIND_FIELDS[kind][0]
    method = method or LIST_METHODS[kind]
    seen: set[str] = set()
    operation: Operation | None = await start_request(method, dict(params) if params else None)
    page_number = 0
    while operation is not None:
        try:
            result = await operation.result()
        except JsonRpcError as exc:
            if page_number == 0:
                raise
            # Keep the pages that worked; say where it broke.
            listing.problems.append(f"page {page_number + 1} failed: {exc.message} (code {exc.code})")
            listing.complete = False
            break
        operation = None
        listing.pages.append(result if isinstance(result, dict) else {"_invalid": result})
        if not isinstance(result, dict):
            listing.problems.append(f"page {page_number + 1}: the result is not an object")
            break
        cursor = _next_cursor(listing, result.get("nextCursor"), seen, page_number, max_pages)
        if cursor is not None:
            operation = await start_request(method, {**(params or {}), "cursor": cursor})
        _add_page(listing, kind, key, result, page_number, on_page)
        page_number += 1
    return listing


def _next_cursor(listing: ListResult, cursor: Any, seen: set[str], page_number: int, max_pages: int) -> str | None:
    """The cursor of the next page to ask for; None when there is none, or the page's own is refused (noted)."""
    if cursor is None:
        return None
    problem = _cursor_problem(cursor, seen, page_number, max_pages)
    if problem is not None:
        listing.problems.append(problem)
        listing.complete = False
        return None
    seen.add(cursor)
    return str(cursor)  # a str already (checked above)


def _cursor_problem(cursor: Any, seen: set[str], page_number: int, max_pages: int) -> str | None:
    if not isinstance(cursor, str):
        return f"page {page_number + 1}: nextCursor is not a string: {cursor!r}"
    if cursor in seen:
        return f"page {page_number + 1}: nextCursor {cursor!r} repeats; stopped"
    if page_number + 1 >= max_pages:
        return f"stopped after {max_pages} pages; the server still offered a nextCursor"
    return None


def _add_page(
    listing: ListResult,
    kind: str,
    key: str,
    result: JSONObject,
    page_number: int,
    on_page: PageObserver | None,
) -> None:
    raw_items = result.get(key)
    if not isinstance(raw_items, list):
        listing.problems.append(f"page {page_number + 1}: {key!r} is missing or not an array")
        raw_items = []
    first = len(listing.items)
    listing.items.extend(parse_items(kind, raw_items, page_number))
    if on_page is not None:
        on_page(listing.items[first:])


def apply_tool_headers(transport: Transport | None, listing: ListResult) -> None:
    """Stateless HTTP: learn each tool's x-mcp-header paths; exclude invalid tools."""
    if transport is None:
        return
    kept = []
    for item in listing.items:
        _paths, problem = tool_header_paths(item.data.get("inputSchema"))
        if problem is not None:
            item.problems.append(f"excluded: {problem}")
            listing.excluded.append(item)
            continue
        kept.append(item)
    listing.items = kept
    if listing.excluded:
        listing.problems.append(f"{len(listing.excluded)} tool(s) excluded for invalid x-mcp-header annotations")
    learn_tool_headers(transport, kept)


def learn_tool_headers(transport: Transport | None, items: list[Item]) -> None:
    """The header paths the (stateless HTTP) transport mirrors into `Mcp-Param-*`, from these (valid) tools."""
    if transport is None:
        return
    headers: dict[str, dict[str, tuple[str, ...]]] = {}
    for item in items:
        paths, problem = tool_header_paths(item.data.get("inputSchema"))
        if problem is None:
            headers[item.key] = paths
    transport.tool_headers = headers  # type: ignore[attr-defined]


def declares_directory_read(capabilities: JSONObject) -> bool:
    """The server declares `resources/directory/read` (the skills extension's `directoryRead: true`)."""
    extensions = capabilities.get("extensions")
    settings = extensions.get(SKILLS_EXTENSION) if isinstance(extensions, dict) else None
    return isinstance(settings, dict) and settings.get("directoryRead") is True


def require_directory_read(capabilities: JSONObject) -> None:
    """Refuse `resources/directory/read` to a server that does not declare it (the spec's MUST NOT)."""
    if not declares_directory_read(capabilities):
        raise ProtocolError(
            f"the server does not declare {DIRECTORY_READ} "
            f"(capabilities.extensions[{SKILLS_EXTENSION!r}].directoryRead is not true)"
        )
