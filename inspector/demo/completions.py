"""The completion/complete handler: suggestions for template variables and prompt arguments."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import Completion, CompletionArgument, CompletionContext, PromptReference, ResourceTemplateReference

from inspector.demo import sample_data
from inspector.demo.prompts import FOCUSES, HAIKU_TOPICS, LANGUAGES, STYLES, country_codes
from inspector.demo.state import EXTRA_PROMPT


def _file_paths(prefix: str) -> list[str]:
    """Complete one path segment at a time: directories end in "/", as a shell would do."""
    suggestions: list[str] = []
    for path in sorted(sample_data.FILES):
        if not path.startswith(prefix):
            continue
        rest = path[len(prefix) :]
        cut = rest.find("/")
        suggestion = prefix + (rest if cut < 0 else rest[: cut + 1])
        if suggestion not in suggestions:
            suggestions.append(suggestion)
    return suggestions


def _candidates(
    ref: PromptReference | ResourceTemplateReference, argument: str, known: dict[str, str]
) -> list[str] | None:
    if isinstance(ref, ResourceTemplateReference):
        return {
            ("demo://users/{user_id}", "user_id"): list(sample_data.USERS),
            ("demo://weather/{city}{?units}", "city"): list(sample_data.CITIES),
            ("demo://weather/{city}{?units}", "units"): ["metric", "imperial"],
        }.get((ref.uri, argument))
    options: dict[tuple[str, str], list[str]] = {
        ("greeting", "style"): list(STYLES),
        ("greeting", "name"): [profile["name"] for profile in sample_data.USERS.values()],
        ("code_review", "language"): LANGUAGES,
        ("code_review", "focus"): FOCUSES,
        ("travel_plan", "country"): country_codes(),
        ("travel_plan", "days"): ["1", "2", "3", "5", "7", "14"],
        (EXTRA_PROMPT, "topic"): HAIKU_TOPICS,
    }
    if (ref.name, argument) == ("travel_plan", "city"):
        country = known.get("country", "").upper()
        return [city for city, code in sample_data.CITIES.items() if not country or code == country]
    return options.get((ref.name, argument))


def register_completions(server: MCPServer[Any]) -> None:
    """Register the completion/complete handler: template variables and prompt arguments, narrowed by what is typed."""

    # The SDK leaves completion() unannotated; its decorator returns the function as it is.
    @server.completion()  # type: ignore[untyped-decorator, no-untyped-call]
    async def complete(
        ref: PromptReference | ResourceTemplateReference,
        argument: CompletionArgument,
        context: CompletionContext | None,
    ) -> Completion | None:
        if isinstance(ref, ResourceTemplateReference) and (ref.uri, argument.name) == (
            "demo://files/{+path}",
            "path",
        ):
            paths = _file_paths(argument.value)
            return Completion(values=paths[:100], total=len(paths), has_more=len(paths) > 100)
        known = dict(context.arguments or {}) if context is not None else {}
        candidates = _candidates(ref, argument.name, known)
        if candidates is None:
            return None
        values, total = sample_data.starting_with(candidates, argument.value)
        return Completion(values=values, total=total, has_more=total > len(values))
