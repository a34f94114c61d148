"""Multi round-trip requests (2026-07-28, SEP-2322).

A `tools/call`, `prompts/get` or `resources/read` may answer
`resultType: "input_required"` with `inputRequests` (elicitation, sampling,
roots).  The answers go to the same handlers the handshake era's
server-to-client requests use, and the original request is sent again with
`inputResponses` and the `requestState` exactly as received, under a new id.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.core.protocol.errors import JsonRpcError, ProtocolError
from inspector.core.protocol.server_requests import ServerRequest
from inspector.core.record.traffic import Frame

if TYPE_CHECKING:
    from inspector.core.protocol.client import Client
    from inspector.forms.values import JSONObject

__all__ = ["MAX_ROUNDS", "MRTR_METHODS", "Round", "RoundStepper", "StoppedByUser", "answer_input_requests"]

MRTR_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})
MAX_ROUNDS = 8


class StoppedByUser(ProtocolError):
    """The person chose not to answer another round."""


@dataclass
class Round:
    """One `input_required` answer, as a manual stepper sees it."""

    number: int
    method: str
    input_requests: JSONObject
    request_state: str | None
    frame: Frame | None
    responses: JSONObject = field(default_factory=dict)


# Called before each retry in manual mode: True sends it, False stops.
RoundStepper = Callable[[Round], Awaitable[bool]]


async def _answer_one(client: Client, key: str, request: Any, frame: Frame) -> Any:
    if not isinstance(request, dict) or not isinstance(request.get("method"), str):
        raise ProtocolError(f"inputRequests[{key!r}] is not a request object")
    method = request["method"]
    server_request = ServerRequest(key, method, request.get("params"), frame)
    handlers = client.handlers
    if method == "elicitation/create" and handlers.supports_elicitation:
        return await handlers.elicit(server_request)
    if method == "sampling/createMessage" and handlers.supports_sampling:
        return await handlers.create_message(server_request)
    if method == "roots/list" and handlers.supports_roots:
        return {"roots": await handlers.list_roots(server_request)}
    raise ProtocolError(f"the server asked for {method!r} (inputRequests[{key!r}]), which this client cannot answer")


async def answer_input_requests(client: Client, requests: JSONObject, frame: Frame) -> JSONObject:
    """Every input request answered, in the server's key order."""
    answers: JSONObject = {}
    for key, request in requests.items():
        try:
            answers[key] = await _answer_one(client, key, request, frame)
        except JsonRpcError as exc:
            # A refusal (e.g. the person rejected a sampling request) has no
            # result shape of its own in MRTR; the round stops here.
            raise ProtocolError(f"inputRequests[{key!r}]: {exc.message}") from exc
    return answers


async def run_rounds(
    client: Client,
    method: str,
    params: JSONObject,
    result: Any,
    first_frame: Frame | None,
    send: Callable[[str, JSONObject, Frame | None, str], Awaitable[tuple[Any, Frame | None]]],
    stepper: RoundStepper | None = None,
    *,
    original: int | None = None,
) -> Any:
    """Answer rounds until the result is no longer `input_required`.

    `first_frame` is the request whose answer is `result`; `original` the
    sequence number of the operation's very first request (named in each
    round's note), by default `first_frame`'s.
    """
    number = 0
    frame = first_frame
    if original is None and first_frame is not None:
        original = first_frame.seq
    while isinstance(result, dict) and result.get("resultType") == "input_required":
        number += 1
        if number > MAX_ROUNDS:
            raise ProtocolError(f"{method}: still input_required after {MAX_ROUNDS} rounds; stopped")
        requests = result.get("inputRequests") or {}
        if not isinstance(requests, dict):
            raise ProtocolError(f"{method}: inputRequests is not an object")
        state = result.get("requestState")
        if state is not None and not isinstance(state, str):
            raise ProtocolError(f"{method}: requestState is not a string")
        response_frame = client.traffic.partner_of(frame) if frame is not None else None
        answers = await answer_input_requests(client, requests, response_frame or frame or _blank(client))
        this_round = Round(number, method, requests, state, response_frame, answers)
        if stepper is not None and not await stepper(this_round):
            raise StoppedByUser(f"{method}: stopped by the user at round {number}")
        retry = dict(params)
        retry["inputResponses"] = answers
        if state is not None:
            retry["requestState"] = state
        note = f"MRTR round {number + 1} of request #{original}" if original is not None else f"MRTR round {number + 1}"
        result, frame = await send(method, retry, frame, note)
        await asyncio.sleep(0)
    return result


def _blank(client: Client) -> Frame:
    return client.traffic.event("local", "transport", note="input requests without a response frame")
