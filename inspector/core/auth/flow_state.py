"""What one run of the OAuth flow has seen so far, and how its answers are read."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

import httpx2

__all__ = ["FlowState", "credential", "response_json", "scope_note"]


@dataclass
class FlowState:
    """What one run of the flow (one MCP request's authorization) has seen so far."""

    request: httpx2.Request
    main_sent: bool = False
    challenged: bool = False
    step: str = "challenge"
    resource_metadata_url: str | None = None
    prm_found: bool = False
    registered: bool = False
    authorization_url: str | None = None
    state: str | None = None
    failed_logged: bool = False
    challenge: dict[str, str] = field(default_factory=dict)
    # Step-ups made for this request so far, and a retry's insufficient_scope
    # answer that starts the next one.
    step_ups: int = 0
    again: httpx2.Response | None = None
    # The login's own deadline (time.monotonic), from the flow's first request of its own (discovery's first).
    deadline: float | None = None
    # The MCP request (session, id) whose clock is held while the flow runs.
    held: tuple[Any, Any] | None = None
    origins_checked: bool = False
    prm_url: str | None = None
    # The flow's own client for the authorization server, closed when the flow ends.
    http: httpx2.AsyncClient | None = field(default=None, repr=False)
    # The SDK's flow for the current round, and the request sent that has no answer yet.
    sdk: AsyncGenerator[httpx2.Request, httpx2.Response] | None = field(default=None, repr=False)
    pending: httpx2.Request | None = field(default=None, repr=False)
    # The answer the retry got, handed to the next round's first request when it carries
    # the same credential (`replay_credential`) instead of sending that request again.
    replay: httpx2.Response | None = field(default=None, repr=False)
    replay_credential: str | None = None
    # The flow ends with the answer the caller gets as it is.
    over: bool = False


def scope_note(challenge: dict[str, str]) -> str | None:
    """The challenge's scope-related fields, one line."""
    parts = []
    for key in ("scope", "resource_metadata", "error", "error_description"):
        if challenge.get(key):
            parts.append(f"{key}: {challenge[key]}")
    return "; ".join(parts) or None


def credential(request: httpx2.Request) -> str:
    """The token a request carries, whatever its scheme (Bearer from the SDK, DPoP once presented)."""
    return request.headers.get("authorization", "").partition(" ")[2].strip()


def response_json(response: httpx2.Response) -> Any:
    """The body as JSON; None when it is not JSON or not read."""
    try:
        return json.loads(response.content)
    except (ValueError, httpx2.ResponseNotRead):
        return None
