"""Where the spec says so: the pages of each revision and the link to one of them.

`spec_url` links a page ("server/tools", with an anchor) in the revision a
session negotiated, following pages that moved or do not exist yet;
`page_for_model` names the topic page that explains a wire model, for a
problem found in a message of that shape.  Dependency-free: every `Rule`
links through here, and the traffic log imports the rules' module.
"""

from __future__ import annotations

__all__ = ["MODEL_PAGES", "PAGES", "SPEC_BASE", "page_for_model", "spec_url"]

SPEC_BASE = "https://modelcontextprotocol.io/specification"
# Revisions in order; kept here (not imported from versions.py) so this
# module stays dependency-free for the traffic log.
_REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")


# The pages of each revision of the spec (from its specification/<rev>/ tree).
_COMMON = frozenset(
    {
        "",
        "architecture",
        "basic",
        "client/roots",
        "client/sampling",
        "server",
        "server/prompts",
        "server/resources",
        "server/tools",
        "server/utilities/completion",
        "server/utilities/logging",
        "server/utilities/pagination",
        "basic/transports",
    }
)
_HANDSHAKE_BASIC = frozenset(
    {"basic/lifecycle", "basic/utilities/cancellation", "basic/utilities/ping", "basic/utilities/progress"}
)
PAGES: dict[str, frozenset[str]] = {
    "2024-11-05": _COMMON | _HANDSHAKE_BASIC | {"basic/messages"},
    "2025-03-26": _COMMON | _HANDSHAKE_BASIC | {"basic/authorization", "changelog"},
    "2025-06-18": _COMMON | _HANDSHAKE_BASIC | {"basic/authorization", "changelog", "client/elicitation", "schema"},
    "2025-11-25": _COMMON
    | _HANDSHAKE_BASIC
    | {"basic/authorization", "changelog", "client/elicitation", "schema", "basic/utilities/tasks"},
    "2026-07-28": _COMMON
    | {
        "basic/authorization",
        "basic/patterns",
        "basic/patterns/cancellation",
        "basic/patterns/mrtr",
        "basic/patterns/progress",
        "basic/patterns/subscriptions",
        "basic/transports/stdio",
        "basic/transports/streamable-http",
        "basic/versioning",
        "changelog",
        "client/elicitation",
        "deprecated",
        "schema",
        "server/discover",
        "server/utilities/caching",
    },
}
# Where a handshake-era page went in the stateless era.
_MOVED = {
    ("basic/lifecycle", "version-negotiation"): ("basic/versioning", "protocol-version-negotiation"),
    ("basic/lifecycle", ""): ("basic/versioning", ""),
    ("basic/utilities/progress", ""): ("basic/patterns/progress", ""),
    ("basic/utilities/cancellation", ""): ("basic/patterns/cancellation", ""),
    ("basic/transports", "stdio"): ("basic/transports/stdio", ""),
}


def spec_url(
    revision: str | None,
    page: str,
    anchor: str = "",
    since: str = "2024-11-05",
    anchor_before: tuple[tuple[str, str], ...] = (),
) -> str:
    """The spec page for `page` ("server/tools") in `revision`, never older than `since`.

    An unknown or missing revision links the newest one.  A page the revision
    does not have links where it moved (stateless era), else the nearest
    revision that has it.  ``anchor_before`` holds (revision, anchor) pairs,
    oldest first: a linked revision older than that revision uses that
    anchor instead ("" for none), for a section that a later revision added
    to a page every revision has (``#tool-names`` exists from 2025-11-25).
    """
    rev = revision if revision in _REVISIONS else _REVISIONS[-1]
    if since in _REVISIONS and _REVISIONS.index(rev) < _REVISIONS.index(since):
        rev = since
    moved = _MOVED.get((page, anchor))
    if moved is not None and moved[0] in PAGES[rev]:
        page, anchor = moved
    elif page not in PAGES[rev]:
        moved = _MOVED.get((page, ""))
        if moved is not None and moved[0] in PAGES[rev]:
            page, anchor = moved
        else:
            older = [r for r in _REVISIONS[: _REVISIONS.index(rev)] if page in PAGES[r]]
            newer = [r for r in _REVISIONS[_REVISIONS.index(rev) :] if page in PAGES[r]]
            rev = older[-1] if older else newer[0] if newer else rev
    for before, earlier_anchor in anchor_before:
        if before in _REVISIONS and _REVISIONS.index(rev) < _REVISIONS.index(before):
            anchor = earlier_anchor
            break
    url = f"{SPEC_BASE}/{rev}/{page}" if page else f"{SPEC_BASE}/{rev}"
    return f"{url}#{anchor}" if anchor else url


# Where each kind of wire model is explained (the topic page, present in every revision).
MODEL_PAGES = (
    ("Tool", "server/tools"),
    ("CallTool", "server/tools"),
    ("ListTools", "server/tools"),
    ("InputSchema", "server/tools"),
    ("OutputSchema", "server/tools"),
    ("Text", "server/tools"),
    ("Image", "server/tools"),
    ("Audio", "server/tools"),
    ("Embedded", "server/tools"),
    ("ResourceLink", "server/tools"),
    ("Resource", "server/resources"),
    ("ReadResource", "server/resources"),
    ("ListResource", "server/resources"),
    ("Blob", "server/resources"),
    ("Subscribe", "server/resources"),
    ("Unsubscribe", "server/resources"),
    ("Annotations", "server/resources"),
    ("Prompt", "server/prompts"),
    ("GetPrompt", "server/prompts"),
    ("ListPrompts", "server/prompts"),
    ("Complete", "server/utilities/completion"),
    ("Completion", "server/utilities/completion"),
    ("Logging", "server/utilities/logging"),
    ("SetLevel", "server/utilities/logging"),
    ("Progress", "basic/utilities/progress"),
    ("Cancelled", "basic/utilities/cancellation"),
    ("Ping", "basic/utilities/ping"),
    ("CreateMessage", "client/sampling"),
    ("Sampling", "client/sampling"),
    ("Elicit", "client/elicitation"),
    ("Root", "client/roots"),
    ("ListRoots", "client/roots"),
    ("Task", "basic/utilities/tasks"),
    ("GetTask", "basic/utilities/tasks"),
    ("ListTasks", "basic/utilities/tasks"),
    ("CancelTask", "basic/utilities/tasks"),
    ("CreateTask", "basic/utilities/tasks"),
    ("Discover", "server/discover"),
    ("Subscriptions", "basic/patterns/subscriptions"),
    ("InputRequired", "basic/patterns/mrtr"),
    ("Initialize", "basic/lifecycle"),
    ("Initialized", "basic/lifecycle"),
    ("ServerCapabilities", "basic/lifecycle"),
    ("ClientCapabilities", "basic/lifecycle"),
    ("Implementation", "basic/lifecycle"),
)


def page_for_model(model: str) -> str:
    """The topic page of a wire model (``ListToolsResult`` is explained on ``server/tools``)."""
    best = ""
    page = "basic"
    for prefix, where in MODEL_PAGES:
        if model.startswith(prefix) and len(prefix) > len(best):
            best, page = prefix, where
    return page
