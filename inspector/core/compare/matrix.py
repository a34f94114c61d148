"""The same server under every revision, era and transport: what differs.

One column per (transport, revision): a command server is asked over stdio,
a URL over Streamable HTTP and over legacy HTTP+SSE (which carries only the
handshake era).  Each column is a fresh connection pinned to its revision;
a handshake server that answers `initialize` with another revision than the
one offered has not accepted it, and that column is left out of the
comparison (it would only repeat the revision the server chose).

In every accepted column the four lists are fetched whole and every tool
that declares `readOnlyHint: true` and requires no argument is called with
no arguments.  Rows are then compared across columns: an item missing
from some, an item whose JSON differs (the paths that differ), a call whose
outcome or result shape differs.  Nothing here prints: the faces render.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.core.background import task_group
from inspector.core.compare.diff import json_changes
from inspector.core.protocol.client import Client
from inspector.core.protocol.errors import InspectorError, JsonRpcError
from inspector.core.protocol.handlers import ClientHandlers
from inspector.core.protocol.items import Item, ListResult
from inspector.core.protocol.versions import HANDSHAKE_VERSIONS, KNOWN_VERSIONS, era_of
from inspector.core.record.traffic import TrafficLog
from inspector.core.servers.spec import ServerSpec

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = [
    "KINDS",
    "MATRIX_WORKERS",
    "Cell",
    "Column",
    "Matrix",
    "Row",
    "build_matrix",
    "call_shape",
    "columns_for",
    "no_argument_read_only",
]

KINDS = ("tools", "resources", "templates", "prompts")
# A column that could not be compared: why, in one word (the detail says more).
ACCEPTED, NOT_ACCEPTED, FAILED = "accepted", "not accepted", "failed"

ConnectFactory = Callable[[ServerSpec], contextlib.AbstractAsyncContextManager[Client]]


@dataclass
class Column:
    """One (transport, revision) connection: whether the server accepted the revision, and what it offered."""

    transport: str
    revision: str
    status: str = FAILED
    detail: str | None = None
    negotiated: str | None = None
    server_info: JSONObject = field(default_factory=dict)
    capabilities: JSONObject = field(default_factory=dict)
    lists: dict[str, ListResult] = field(default_factory=dict)
    # tool name -> what calling it without arguments gave.
    calls: dict[str, JSONObject] = field(default_factory=dict)

    @property
    def era(self) -> str:
        """The era of the column's revision ("legacy" handshake, "modern" stateless)."""
        return era_of(self.revision)

    @property
    def label(self) -> str:
        """`transport revision`, as columns are headed."""
        return f"{self.transport} {self.revision}"

    @property
    def accepted(self) -> bool:
        """Whether the server accepted the revision (the column is compared)."""
        return self.status == ACCEPTED

    def summary(self) -> JSONObject:
        """The column for the JSON report: status, what was negotiated, server info, capabilities, counts, calls."""
        return {
            "transport": self.transport,
            "revision": self.revision,
            "era": self.era,
            "status": self.status,
            "detail": self.detail,
            "negotiated": self.negotiated,
            "serverInfo": self.server_info,
            "capabilities": sorted(self.capabilities),
            "counts": {kind: len(listing.items) for kind, listing in self.lists.items()},
            "listProblems": {kind: listing.problems for kind, listing in self.lists.items() if listing.problems},
            "calls": self.calls,
        }


@dataclass
class Cell:
    """One row's value in one column."""

    # "same", "differs", "missing", "n/a" (the column was not compared) or,
    # for a call, its outcome ("ok", "isError", "error -32601").
    state: str
    # How it differs from the row's reference column (JSON paths).
    changes: list[str] = field(default_factory=list)
    # What the server said (a call's error message): shown, not compared.
    note: str | None = None


@dataclass
class Row:
    """One item or call compared across the columns: its cell in each, and the column read as the reference."""

    section: str
    key: str
    cells: list[Cell]
    reference: int | None = None

    @property
    def differs(self) -> bool:
        """Whether some compared column lacks the item, differs from the reference, or has another state."""
        compared = [cell for cell in self.cells if cell.state != "n/a"]
        if any(cell.state in ("missing", "differs") or cell.changes for cell in compared):
            return True
        return len({cell.state for cell in compared}) > 1

    def to_json(self, columns: list[Column]) -> JSONObject:
        """The row for the JSON report, its cells keyed by the column labels."""
        return {
            "section": self.section,
            "key": self.key,
            "differs": self.differs,
            "reference": columns[self.reference].label if self.reference is not None else None,
            "cells": {
                column.label: {
                    "state": cell.state,
                    **({"changes": cell.changes} if cell.changes else {}),
                    **({"note": cell.note} if cell.note else {}),
                }
                for column, cell in zip(columns, self.cells, strict=True)
            },
        }


@dataclass
class Matrix:
    """The server's columns and every row compared across them."""

    server: str
    columns: list[Column]
    rows: list[Row]

    @property
    def differences(self) -> list[Row]:
        """The rows that differ between columns."""
        return [row for row in self.rows if row.differs]

    def to_json(self) -> JSONObject:
        """The matrix for the JSON report: columns, rows and how many differ."""
        return {
            "server": self.server,
            "columns": [column.summary() for column in self.columns],
            "rows": [row.to_json(self.columns) for row in self.rows],
            "differences": len(self.differences),
        }


def columns_for(spec: ServerSpec) -> list[Column]:
    """Every (transport, revision) worth asking: legacy HTTP+SSE predates the stateless era."""
    transports = ["stdio"]
    if spec.url:
        transports = [spec.transport] if spec.transport in ("http", "sse") else ["http", "sse"]
    columns: list[Column] = []
    for transport in transports:
        revisions = HANDSHAKE_VERSIONS if transport == "sse" else KNOWN_VERSIONS
        columns.extend(Column(transport, revision) for revision in revisions)
    return columns


def no_argument_read_only(item: Item) -> bool:
    """A tool that says it only reads and needs nothing: safe to call blind."""
    annotations = item.data.get("annotations")
    if not isinstance(annotations, dict) or annotations.get("readOnlyHint") is not True:
        return False
    required = item.input_schema.get("required")
    return not required


def call_shape(value: Any) -> Any:
    """A result's structure without its values: what a revision may change
    (a field renamed, structuredContent added) while the values may differ
    from call to call (a clock, a counter)."""
    if isinstance(value, dict):
        return {key: call_shape(inner) for key, inner in value.items() if key != "_meta"}
    if isinstance(value, list):
        # Content blocks keep their type, the rest only their count's presence.
        return [call_shape(inner) for inner in value[:20]]
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return None if value is None else type(value).__name__


def _content_types(result: Any) -> Any:
    content = result.get("content") if isinstance(result, dict) else None
    if not isinstance(content, list):
        return content
    return [block.get("type") if isinstance(block, dict) else block for block in content]


@contextlib.asynccontextmanager
async def plain_connection(spec: ServerSpec) -> AsyncIterator[Client]:
    """A client that answers nothing the server asks (no roots, sampling or elicitation)."""
    from inspector.core.record.secret_mask import mask_traffic

    client = Client(spec, handlers=ClientHandlers(), traffic=mask_traffic(TrafficLog(retain=False), spec))
    try:
        await client.connect()
        yield client
    finally:
        await client.close()


async def _list(client: Client, kind: str) -> ListResult:
    try:
        return await client.list_all(kind)
    except JsonRpcError as exc:
        # One list refused is a cell of the matrix, not the end of the column.
        return ListResult(kind, problems=[f"error {exc.code}: {exc.message}"])


async def _call(client: Client, name: str) -> JSONObject:
    try:
        result = await client.call_tool(name, {})
    except JsonRpcError as exc:
        return {"outcome": f"error {exc.code}", "message": exc.message}
    except InspectorError as exc:
        return {"outcome": "failed", "message": str(exc)}
    if not isinstance(result, dict):
        return {"outcome": "odd", "message": f"the result is {type(result).__name__}, not an object"}
    outcome = "isError" if result.get("isError") is True else "ok"
    # The shape is what is compared; the content types say it at a glance.
    return {"outcome": outcome, "content": _content_types(result), "shape": call_shape(result)}


async def _fill(
    column: Column, spec: ServerSpec, connect: ConnectFactory, call_tools: bool, on_connect: Callable[[], None]
) -> None:
    pinned = spec.with_overrides(
        transport=column.transport, protocol_version=column.revision, era=column.era, get_stream=False
    )
    try:
        async with connect(pinned) as client:
            on_connect()
            column.negotiated = client.protocol_version
            column.server_info = dict(client.server_info)
            column.capabilities = dict(client.server_capabilities)
            if client.protocol_version != column.revision:
                column.status = NOT_ACCEPTED
                column.detail = f"offered {column.revision}; the server chose {client.protocol_version}"
                return
            for kind in KINDS:
                column.lists[kind] = await _list(client, kind)
            if call_tools:
                for item in column.lists["tools"].items:
                    if no_argument_read_only(item):
                        column.calls[item.key] = await _call(client, item.key)
            column.status = ACCEPTED
    except InspectorError as exc:
        column.status = FAILED
        column.detail = str(exc)
    except OSError as exc:
        column.detail = f"{exc.__class__.__name__}: {exc}"


def _rows_for_kind(kind: str, columns: list[Column], ignore: frozenset[str]) -> list[Row]:
    # Insertion-ordered and without repeats: a dict used as an ordered set.
    ordered: dict[str, None] = {}
    for column in columns:
        listing = column.lists.get(kind)
        for item in listing.items if column.accepted and listing is not None else ():
            ordered.setdefault(item.key)
    keys = list(ordered)
    # By key once per column: a server with 100,000 tools stays linear.
    indexes: list[JSONObject | None] = []
    for column in columns:
        listing = column.lists.get(kind) if column.accepted else None
        indexes.append({item.key: item.raw for item in listing.items} if listing is not None else None)
    rows = []
    for key in keys:
        values = [_NOT_COMPARED if index is None else index.get(key, _ABSENT) for index in indexes]
        rows.append(_compare(kind, key, values, ignore=ignore))
    return rows


_ABSENT = object()
_NOT_COMPARED = object()


# Era mechanics, not what the server offers: the stateless era's resultType
# and caching hints, and per-result metadata.
ENVELOPE_KEYS = frozenset({"_meta", "resultType", "ttlMs", "cacheScope"})


def _compare(
    section: str,
    key: str,
    values: list[Any],
    shape: Callable[[Any], Any] | None = None,
    ignore: frozenset[str] = frozenset(),
) -> Row:
    # The newest column that has the item is what the others are read against.
    reference = next((i for i in range(len(values) - 1, -1, -1) if values[i] not in (_ABSENT, _NOT_COMPARED)), None)
    cells = []
    for value in values:
        if value is _NOT_COMPARED:
            cells.append(Cell("n/a"))
        elif value is _ABSENT:
            cells.append(Cell("missing"))
        else:
            assert reference is not None
            base = values[reference]
            changes = json_changes(shape(base) if shape else base, shape(value) if shape else value, ignore=ignore)
            cells.append(Cell("differs" if changes else "same", [f"{c.what} {c.path}" for c in changes]))
    return Row(section, key, cells, reference)


def _call_rows(columns: list[Column]) -> list[Row]:
    ordered: dict[str, None] = {}
    for column in columns:
        for name in column.calls:
            ordered.setdefault(name)
    names = list(ordered)
    rows = []
    for name in names:
        values: list[Any] = []
        for column in columns:
            if not column.accepted:
                values.append(_NOT_COMPARED)
            else:
                values.append(column.calls.get(name, _ABSENT))
        row = _compare("calls", name, values, shape=_call_view, ignore=ENVELOPE_KEYS)
        for cell, value in zip(row.cells, values, strict=True):
            if isinstance(value, dict):
                # A call's cell names its outcome; its changes say whether it differs.
                cell.state = str(value.get("outcome"))
                message = value.get("message")
                cell.note = message if isinstance(message, str) else None
        rows.append(row)
    return rows


def _call_view(call: Any) -> Any:
    return {"outcome": call.get("outcome"), "shape": call.get("shape")} if isinstance(call, dict) else call


def _server_rows(columns: list[Column]) -> list[Row]:
    def pick(getter: Callable[[Column], Any]) -> list[Any]:
        return [getter(column) if column.accepted else _NOT_COMPARED for column in columns]

    return [
        _compare("server", "name", pick(lambda c: c.server_info.get("name"))),
        _compare("server", "version", pick(lambda c: c.server_info.get("version"))),
        _compare("server", "capabilities", pick(lambda c: sorted(c.capabilities))),
        _compare("server", "list problems", pick(lambda c: {k: v.problems for k, v in c.lists.items() if v.problems})),
    ]


async def build_matrix(
    spec: ServerSpec,
    *,
    connect: ConnectFactory = plain_connection,
    call_tools: bool = True,
    ignore: frozenset[str] = frozenset({"lastModified"}),
    on_column: Callable[[Column], None] | None = None,
    workers: int = 0,
) -> Matrix:
    """Ask the server once per column (a stdio server is started afresh for
    each), up to `workers` columns at a time (0: MATRIX_WORKERS), and
    compare.  Members named in `ignore` are not compared (by default
    `lastModified`, which a server may stamp with its start time).
    `on_column` hears of the columns in their order, whichever finished first."""
    columns = columns_for(spec)
    await _fill_all(columns, spec, connect, call_tools, workers or MATRIX_WORKERS, on_column)
    rows = _server_rows(columns)
    for kind in KINDS:
        rows.extend(_rows_for_kind(kind, columns, ignore))
    rows.extend(_call_rows(columns))
    return Matrix(spec.label(), columns, rows)


# Columns asked at once: each one mostly waits (a process starting, a tool
# that takes its time).  Every stdio column at once; a URL's nine columns
# in two rounds, so a small server is not flooded with sessions.
MATRIX_WORKERS = 5


def _may_log_in(spec: ServerSpec) -> bool:
    return bool(spec.url) and spec.auth is not None and spec.auth.oauth


async def _fill_all(
    columns: list[Column],
    spec: ServerSpec,
    connect: ConnectFactory,
    call_tools: bool,
    workers: int,
    on_column: Callable[[Column], None] | None,
) -> None:
    slots = asyncio.Semaphore(max(1, workers))
    # A server that may ask for a login: the first column connects alone, so
    # a person logs in once and the other columns use the token it stored.
    first_connected = asyncio.Event()
    if not _may_log_in(spec):
        first_connected.set()

    async def fill(index: int, column: Column) -> None:
        if index:
            await first_connected.wait()
        async with slots:
            try:
                await _fill(column, spec, connect, call_tools, first_connected.set)
            finally:
                first_connected.set()

    # A column that failed outright (or a cancel) stops the others, as it
    # stopped the columns after it when they were asked in turn.
    async with task_group() as group:
        # Started in column order, so the semaphore lets them in in that order.
        tasks = [group.create_task(fill(index, column)) for index, column in enumerate(columns)]
        for column, task in zip(columns, tasks, strict=True):
            await task
            if on_column is not None:
                on_column(column)
