"""Tools that need something from the client: sampling, form and URL elicitation, roots.

Up to 2025-11-25 the server sends these as requests in the middle of the tool call; from
2026-07-28 it answers `input_required` and the client retries with the answers. `Resolve`
markers let MCPServer pick the right mechanism per call; URL elicitation has no marker yet, so
`elicit_url` does the same by hand.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    Elicit,
    ElicitationResult,
    ListRoots,
    MCPServer,
    Resolve,
    Sample,
)
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import (
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequiredResult,
    ListRootsResult,
    ModelHint,
    ModelPreferences,
    SamplingMessage,
    TextContent,
    ToolAnnotations,
)
from pydantic import BaseModel, Field, WithJsonSchema

from inspector.demo import media, notifications

URL_KEY = "open_demo_page"
DEMO_PAGE = "https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation"

_SIZES = {"s": "Small", "m": "Medium", "l": "Large"}


class Profile(BaseModel):
    """The form `elicit_profile` shows: one field of each primitive kind, all with defaults."""

    name: str = Field(default="Ada", title="Your name", min_length=1, max_length=40)
    email: Annotated[str, WithJsonSchema({"type": "string", "format": "email", "title": "E-mail"})] = "ada@example.org"
    age: int = Field(default=36, title="Age", ge=0, le=150)
    rating: float = Field(default=4.5, title="How much do you like this demo?", ge=0, le=5)
    subscribe: bool = Field(default=True, title="Keep me posted")
    colour: Literal["red", "green", "blue"] = Field(default="green", title="Favourite colour")
    size: Annotated[
        Literal["s", "m", "l"],
        WithJsonSchema(
            {
                "type": "string",
                "title": "T-shirt size",
                "oneOf": [{"const": value, "title": title} for value, title in _SIZES.items()],
            }
        ),
    ] = "m"


def ask_profile() -> Elicit[Profile]:
    """The form elicitation `elicit_profile` resolves: a `Profile`, every field with a default."""
    return Elicit("Tell the demo server a little about yourself (every field has a default).", Profile)


def ask_llm(prompt: str, max_tokens: int) -> Sample:
    """The sampling request `sample_llm` resolves: *prompt* as the user's message, a system prompt, preferences."""
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
        max_tokens=max_tokens,
        system_prompt="You are a concise assistant helping someone try out an MCP inspector.",
        temperature=0.7,
        model_preferences=ModelPreferences(
            hints=[ModelHint(name="claude-sonnet"), ModelHint(name="gpt")],
            cost_priority=0.3,
            speed_priority=0.8,
            intelligence_priority=0.5,
        ),
        metadata={"requested_by": "inspector-demo"},
    )


def ask_roots() -> ListRoots:
    """The roots request `list_roots` resolves."""
    return ListRoots()


def _url_input_required(ctx: Context[Any, Any], message: str) -> str | InputRequiredResult:
    """2026-07-28: ask with `input_required`; the retry carries the answer."""
    answer = (ctx.input_responses or {}).get(URL_KEY)
    if answer is None:
        request = ElicitRequest(params=ElicitRequestURLParams(message=message, url=DEMO_PAGE))
        return InputRequiredResult(input_requests={URL_KEY: request})
    if not isinstance(answer, ElicitResult):
        raise ToolError("the answer to the URL elicitation was not an elicitation result")
    return f"URL elicitation answered: {answer.action}."


async def _url_request(ctx: Context[Any, Any], message: str) -> str:
    """Up to 2025-11-25: an elicitation/create request in the middle of the call."""
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.elicitation is None or capabilities.elicitation.url is None:
        raise ToolError("this client did not declare elicitation.url support")
    elicitation_id = uuid.uuid4().hex
    result = await ctx.elicit_url(message, DEMO_PAGE, elicitation_id)
    if result.action == "accept":
        # The page needs no input, so the out-of-band part is over as soon as it was accepted.
        await ctx.session.send_elicit_complete(elicitation_id, related_request_id=ctx.request_id)
    return f"URL elicitation answered: {result.action}."


def register_client_request_tools(server: MCPServer[Any]) -> None:
    """Register sample_llm, elicit_profile, elicit_url and list_roots on *server*."""

    @server.tool(
        title="Ask the client's LLM",
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=True),
        icons=media.icon("chat"),
        structured_output=False,
    )
    async def sample_llm(
        prompt: Annotated[str, Field(description="What to ask the model")] = "Write a haiku about inspectors.",
        max_tokens: Annotated[int, Field(ge=1, le=4096, description="The longest reply you accept")] = 200,
        *,
        reply: Annotated[CreateMessageResult, Resolve(ask_llm)],
    ) -> str:
        """Send sampling/createMessage to the client and return what it answered."""
        content = reply.content
        body = content.text if isinstance(content, TextContent) else f"[{content.type} content]"
        stop = f", stop reason {reply.stop_reason}" if reply.stop_reason else ""
        return f"The client answered (model {reply.model}{stop}):\n\n{body}"

    @server.tool(
        title="Fill in a form (elicitation)",
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
        icons=media.icon("form"),
        structured_output=False,
    )
    async def elicit_profile(*, answer: Annotated[ElicitationResult[Profile], Resolve(ask_profile)]) -> str:
        """Ask the user for a small profile with elicitation/create (form mode): string, e-mail,
        integer, number, boolean, an enum and a titled enum, each with a default."""
        if isinstance(answer, AcceptedElicitation):
            profile = answer.data
            return (
                f"Thanks, {profile.name}! You are {profile.age}, rate the demo {profile.rating}/5, "
                f"like {profile.colour}, wear {_SIZES[profile.size]} and "
                f"{'will' if profile.subscribe else 'will not'} hear from us at {profile.email}."
            )
        return f"The form was {answer.action}ed; nothing was collected."

    @server.tool(
        title="Open a web page (URL elicitation)",
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=True),
        structured_output=False,
    )
    async def elicit_url(ctx: Context[Any, Any]) -> str | InputRequiredResult:
        """Ask the client to open a web page (elicitation/create in URL mode) and report whether the
        user agreed to go there."""
        message = "Please open the MCP elicitation documentation; nothing needs to be entered there."
        if notifications.is_modern(ctx):
            return _url_input_required(ctx, message)
        return await _url_request(ctx, message)

    @server.tool(
        title="List the client's roots",
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
        structured_output=False,
    )
    async def list_roots(*, roots: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
        """Ask the client for its roots (roots/list) and list them."""
        if not roots.roots:
            return "The client has no roots."
        lines = [f"- {root.name or '(unnamed)'}: {root.uri}" for root in roots.roots]
        return f"The client shared {len(lines)} root(s):\n" + "\n".join(lines)
