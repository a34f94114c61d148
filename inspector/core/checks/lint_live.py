"""The checks lint makes on the live connection, beyond reading the lists.

* `list_pages` pages one list by hand, so a repeating or endless cursor, or
  a page that fails, is seen and the items before it are kept; a list that
  answers with items for a capability the server does not declare is found
  here too.
* `probe_capabilities` exercises each declared capability once
  (resources/subscribe, completion/complete, logging/setLevel,
  subscriptions/listen); in the handshake era a declared listChanged whose
  notification never arrived is reported as info (lint cannot make a list
  change).

Lint never calls a tool: that could change the world.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from inspector.core.checks.problems import Problem
from inspector.core.checks.rules import RULES
from inspector.core.checks.spec_pages import spec_url
from inspector.core.checks.uri_template import template_errors
from inspector.core.protocol.client import CAPABILITY_OF_KIND
from inspector.core.protocol.errors import ConnectionClosed, InspectorError, JsonRpcError
from inspector.core.protocol.items import KIND_FIELDS, LIST_METHODS, Item, parse_item

if TYPE_CHECKING:
    from inspector.core.protocol.client import Client
    from inspector.forms.values import JSONObject

__all__ = ["LISTEN_WAIT", "list_pages", "probe_capabilities"]

LISTEN_WAIT = 3.0


# -- listing -------------------------------------------------------------------------------


async def list_pages(client: Client, kind: str, max_pages: int) -> tuple[list[Item], list[Problem]]:
    """Every page of one list, by hand: repeats, endless cursors and failing pages are findings."""
    listing = _Listing(client, kind)
    cursor: str | None = None
    while True:
        next_cursor = listing.take(await listing.page(cursor))
        if next_cursor is None or listing.stops_at(next_cursor, cursor, max_pages):
            break
        cursor = next_cursor
    return listing.items, listing.problems + listing.undeclared()


class _Listing:
    """One list as it is paged: the items so far, the cursors seen, what went wrong."""

    def __init__(self, client: Client, kind: str) -> None:
        self.client = client
        self.kind = kind
        self.method = LIST_METHODS[kind]
        self.capability = CAPABILITY_OF_KIND[kind]
        self.declared = self.capability in client.server_capabilities
        self.items: list[Item] = []
        self.problems: list[Problem] = []
        self.seen: set[str] = set()
        self.pages = 0

    async def page(self, cursor: str | None) -> Any:
        """The result of the page at `cursor`; None when the request failed (a finding if declared)."""
        try:
            result = await self.client.request(self.method, {"cursor": cursor} if cursor is not None else None)
        except ConnectionClosed:
            raise
        except InspectorError as exc:
            if self.declared:
                where = f" on page {self.pages + 1}" if self.pages else ""
                self._report("capability-list-fails", f"{self.method} failed{where}: {exc}", self._capability)
            return None
        self.pages += 1
        return result

    def take(self, result: Any) -> str | None:
        """Keep the page's items; its nextCursor, if it offers one."""
        if not isinstance(result, dict):
            return None  # the wire validation says what is wrong with it
        raw_items = result.get(KIND_FIELDS[self.kind][0])
        if isinstance(raw_items, list):
            self.items.extend(parse_item(self.kind, raw, self.pages - 1) for raw in raw_items)
        next_cursor = result.get("nextCursor")
        return next_cursor if isinstance(next_cursor, str) else None

    def stops_at(self, next_cursor: str, cursor: str | None, max_pages: int) -> bool:
        """Whether following `next_cursor` would loop or go past `max_pages` (a finding either way)."""
        if next_cursor in self.seen or next_cursor == cursor:
            message = f"{self.method} page {self.pages} offers nextCursor {next_cursor!r} again; stopped"
            self._report("pagination-cursor-repeats", message, f"list {self.kind}")
            return True
        if self.pages >= max_pages:
            message = f"{self.method} still offers a nextCursor after {self.pages} pages; stopped"
            self._report("pagination-endless", message, f"list {self.kind}")
            return True
        self.seen.add(next_cursor)
        return False

    def undeclared(self) -> list[Problem]:
        """Items from a list whose capability the server does not declare."""
        if self.declared or not self.items:
            return []
        message = (
            f"{self.method} answered with {len(self.items)} item(s) but the server does not declare {self.capability!r}"
        )
        return [self._problem("capability-undeclared-list", message, self._capability)]

    @property
    def _capability(self) -> str:
        return f"capability {self.capability}"

    def _report(self, rule: str, message: str, subject: str) -> None:
        self.problems.append(self._problem(rule, message, subject))

    def _problem(self, rule: str, message: str, subject: str) -> Problem:
        return RULES[rule].problem(message, revision=self.client.protocol_version, subject=subject)


# -- declared capabilities, exercised once ---------------------------------------------------


async def probe_capabilities(client: Client, listings: dict[str, list[Item]]) -> list[Problem]:
    """Each declared capability asked once; what fails is a finding."""
    if client.modern is not None:
        # The stateless era has no resources/subscribe and no logging/setLevel; subscriptions/listen asks for changes.
        return [*await _probe_completions(client, listings), *await _probe_listen(client)]
    return [
        *await _probe_subscribe(client, listings),
        *await _probe_completions(client, listings),
        *await _probe_logging(client),
        *_list_changed_unobserved(client),
    ]


async def _failure(client: Client, method: str, params: JSONObject) -> InspectorError | None:
    """Why `method` failed, or None when it answered (a closed connection ends the lint)."""
    try:
        await client.request(method, params)
    except ConnectionClosed:
        raise
    except InspectorError as exc:
        return exc
    return None


async def _probe_subscribe(client: Client, listings: dict[str, list[Item]]) -> list[Problem]:
    resources = client.server_capabilities.get("resources")
    if not isinstance(resources, dict) or resources.get("subscribe") is not True:
        return []
    uri = next((item.key for item in listings["resources"] if isinstance(item.data.get("uri"), str)), None)
    if uri is None:
        return []
    exc = await _failure(client, "resources/subscribe", {"uri": uri})
    if exc is None:
        with contextlib.suppress(JsonRpcError):
            await client.request("resources/unsubscribe", {"uri": uri})
        return []
    return [
        RULES["capability-subscribe-fails"].problem(
            f"resources/subscribe {uri!r} failed: {exc}",
            revision=client.protocol_version,
            subject="capability resources",
        )
    ]


async def _probe_completions(client: Client, listings: dict[str, list[Item]]) -> list[Problem]:
    if "completions" not in client.server_capabilities:
        return []
    params = _completion_params(listings)
    exc = None if params is None else await _failure(client, "completion/complete", params)
    if exc is None:
        return []
    return [
        RULES["capability-completions-fails"].problem(
            f"completion/complete failed: {exc}", revision=client.protocol_version, subject="capability completions"
        )
    ]


async def _probe_logging(client: Client) -> list[Problem]:
    if "logging" not in client.server_capabilities:
        return []
    exc = await _failure(client, "logging/setLevel", {"level": "warning"})
    if exc is None:
        return []
    return [
        RULES["capability-logging-fails"].problem(
            f"logging/setLevel failed: {exc}", revision=client.protocol_version, subject="capability logging"
        )
    ]


# The list capabilities whose listChanged promises a notification.
_LIST_CHANGED = ("tools", "resources", "prompts")


def _list_changed_unobserved(client: Client) -> list[Problem]:
    """Handshake era: a declared listChanged whose notification never arrived during the run.

    Lint cannot make a list change, so this is info, not a failure.  The
    opposite (a notification for a list whose capability did not declare
    listChanged) is the wire validation's capability-undeclared-notification.
    """
    caps = client.server_capabilities
    seen = {
        frame.method
        for frame in client.traffic.frames
        if frame.direction == "in" and frame.kind == "notification" and isinstance(frame.method, str)
    }
    out = []
    for capability in _LIST_CHANGED:
        declared = caps.get(capability)
        method = f"notifications/{capability}/list_changed"
        if isinstance(declared, dict) and declared.get("listChanged") is True and method not in seen:
            out.append(
                RULES["capability-list-changed-unobserved"].problem(
                    f"{capability}.listChanged is declared, but no {method} arrived during the lint run "
                    "(lint cannot change the list: check it by changing one while connected)",
                    revision=client.protocol_version,
                    subject=f"capability {capability}",
                    url=spec_url(client.protocol_version, f"server/{capability}", "list-changed-notification"),
                )
            )
    return out


def _completion_params(listings: dict[str, list[Item]]) -> JSONObject | None:
    """A completion request the server should be able to answer: a prompt argument or a template variable."""
    for item in listings["prompts"]:
        arguments = item.data.get("arguments")
        if isinstance(arguments, list):
            for argument in arguments:
                if isinstance(argument, dict) and isinstance(argument.get("name"), str) and argument["name"]:
                    return {
                        "ref": {"type": "ref/prompt", "name": item.name},
                        "argument": {"name": argument["name"], "value": ""},
                    }
    for item in listings["templates"]:
        template = item.data.get("uriTemplate")
        if isinstance(template, str) and not template_errors(template):
            import uritemplate

            names = list(uritemplate.URITemplate(template).variable_names)
            if names:
                return {
                    "ref": {"type": "ref/resource", "uri": template},
                    "argument": {"name": names[0], "value": ""},
                }
    return None


async def _probe_listen(client: Client) -> list[Problem]:
    """Stateless era: every declared listChanged should be honoured by subscriptions/listen."""
    revision = client.protocol_version
    try:
        subscription = await client.listen_changes()
    except ConnectionClosed:
        raise
    except InspectorError as exc:
        return [
            RULES["capability-listen-refused"].problem(
                f"subscriptions/listen failed: {exc}", revision=revision, subject="capability listChanged"
            )
        ]
    if subscription is None:
        return []
    out: list[Problem] = []
    try:
        deadline = asyncio.get_running_loop().time() + LISTEN_WAIT
        while subscription.acknowledged is None and subscription.ended is None:
            if asyncio.get_running_loop().time() > deadline:
                break
            await asyncio.sleep(0.02)
        if subscription.acknowledged is None:
            out.append(
                RULES["capability-listen-refused"].problem(
                    f"subscriptions/listen was not acknowledged within {LISTEN_WAIT:g} s"
                    + (f" ({subscription.ended})" if subscription.ended else ""),
                    revision=revision,
                    subject="capability listChanged",
                )
            )
        for refused in subscription.refused:
            out.append(
                RULES["capability-listen-refused"].problem(
                    f"{refused} is declared but subscriptions/listen did not acknowledge it",
                    revision=revision,
                    subject="capability listChanged",
                )
            )
    finally:
        await subscription.close()
        client.subscription = None
    return out
