"""Scenario client for the official MCP conformance suite.

The harness runs `python tests/conformance/client.py URL` with the scenario
name in MCP_CONFORMANCE_SCENARIO.  Every scenario is performed through the
inspector's own client core (not an SDK client), so a pass is evidence about
our code.  Exit code 0 when the scenario ran to its end.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from inspector.core.protocol.client import Client
from inspector.core.protocol.errors import InspectorError
from inspector.core.protocol.handlers import ClientHandlers
from inspector.core.protocol.server_requests import ServerRequest
from inspector.core.servers.spec import ServerSpec

# Request and login timeouts only a hang reaches: on a busy machine a
# scenario may be slow, and slowness is not what the scenarios test.  The
# harness's own per-scenario limit (tests/test_conformance.py) is longer.
HANG = 240.0


class ScenarioHandlers(ClientHandlers):
    """Answers a scenario server's requests the way a cooperative user would."""

    supports_url_elicitation = True

    async def list_roots(self, request: ServerRequest) -> list[dict[str, Any]]:
        return [{"uri": "file:///tmp/conformance", "name": "conformance"}]

    async def create_message(self, request: ServerRequest) -> dict[str, Any]:
        return {
            "role": "assistant",
            "content": {"type": "text", "text": "conformance reply"},
            "model": "conformance-client",
            "stopReason": "endTurn",
        }

    async def elicit(self, request: ServerRequest) -> dict[str, Any]:
        params = request.params if isinstance(request.params, dict) else {}
        if params.get("mode") == "url":
            return {"action": "accept"}
        from inspector.forms import apply_defaults

        schema = params.get("requestedSchema")
        content = apply_defaults(schema) if isinstance(schema, dict) else {}
        return {"action": "accept", "content": content}


def _placeholder(schema: Any) -> Any:
    """A plausible argument value for a schema (used by the generic scenario)."""
    if not isinstance(schema, dict):
        return None
    if "default" in schema:
        return schema["default"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    return {
        "string": "test",
        "integer": 1,
        "number": 1,
        "boolean": True,
        "array": [],
        "object": {},
    }.get(str(kind))


def _arguments_for(tool: dict[str, Any]) -> dict[str, Any]:
    schema = tool.get("inputSchema") or {}
    properties = schema.get("properties") or {}
    required = schema.get("required") or []
    return {name: _placeholder(properties.get(name)) for name in required if name in properties}


def _context() -> dict[str, Any]:
    try:
        context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    except ValueError:
        return {}
    return context if isinstance(context, dict) else {}


async def list_and_call_all(client: Client) -> None:
    """Call the tools the harness names in its context, or else every tool."""
    tools = await client.list_all("tools")
    planned = _context().get("toolCalls")
    if isinstance(planned, list) and planned:
        for call in planned:
            await client.call_tool(call["name"], call.get("arguments") or {})
        return
    for item in tools.items:
        if item.ok:
            await client.call_tool(item.key, _arguments_for(item.data))


async def echo_schema(client: Client) -> None:
    """Send the focal tool's inputSchema back verbatim, to show nothing was lost."""
    tools = await client.list_all("tools")
    echo = tools.find("json_schema_echo")
    focal = next((item for item in tools.items if item.key != "json_schema_echo"), None)
    if echo is None or focal is None:
        await list_and_call_all(client)
        return
    await client.call_tool("json_schema_echo", {"schema": focal.data["inputSchema"]})


async def initialize_only(client: Client) -> None:
    await client.list_all("tools")


async def tools_call(client: Client) -> None:
    tools = await client.list_all("tools")
    names = tools.names()
    if "add_numbers" in names:
        await client.call_tool("add_numbers", {"a": 5, "b": 3})
    else:
        await list_and_call_all(client)


async def list_skills_only(client: Client) -> None:
    """List the skills and stop: listing must not fetch a single file."""
    from inspector.core.extensions.skills import list_skills

    await list_skills(client)


async def load_listed_skills(client: Client) -> None:
    """List, load each skill (its SKILL.md, verified), then read its other files.

    A skill whose SKILL.md fails verification is rejected: none of its other
    files is read.  The harness sees the rejection as the absent read.
    """
    from inspector.core.extensions.skills import list_skills, load_skill, read_skill_file

    listing = await list_skills(client)
    for entry in listing.entries:
        if not entry.loadable:
            print(f"skill {entry.uri}: not loaded: {'; '.join(map(str, entry.problems))}", file=sys.stderr)
            continue
        loaded = await load_skill(client, entry)
        if not loaded.verified:
            print(f"skill {entry.uri}: rejected: {'; '.join(map(str, loaded.problems))}", file=sys.stderr)
            continue
        for uri in entry.files()[1:]:
            read = await read_skill_file(client, entry, uri)
            for problem in read.problems:
                print(f"skill {entry.uri}: {problem}", file=sys.stderr)


SCENARIOS: dict[str, Callable[[Client], Awaitable[None]]] = {
    # SEP-2640 skills: a host lists without fetching, and verifies what it loads.
    "sep-2640-client-no-prefetch": list_skills_only,
    "sep-2640-client-verify-digest": load_listed_skills,
    "sep-2640-client-verify-size": load_listed_skills,
    "sep-2640-client-verify-frontmatter": load_listed_skills,
    "initialize": initialize_only,
    "tools_call": tools_call,
    "elicitation-sep1034-client-defaults": list_and_call_all,
    "sse-retry": list_and_call_all,
    "json-schema-2020-12-preservation": echo_schema,
    # The scenario checks that listing a tool whose schema has a network
    # `$ref` fetches nothing; its server answers nothing but tools/list.
    "json-schema-ref-no-deref": initialize_only,
}


# The harness's authorization servers accept this URL as a Client ID Metadata
# Document client id (it need not resolve).
CIMD_URL = "https://conformance-test.local/client-metadata.json"


def auth_config() -> Any:
    """Authorization for auth/* scenarios: the inspector's OAuth client, driven headlessly.

    The harness's authorization servers approve at once, so the headless user
    agent follows the authorization URL's redirect to our loopback listener;
    pre-registered credentials come from the harness context; tokens live in
    memory only (nothing is written to the user's token store).
    """
    from inspector.core.auth.config import AuthConfig
    from inspector.core.auth.store import MemoryTokenStore

    context = _context()

    def text(key: str) -> str | None:
        value = context.get(key)
        return value if isinstance(value, str) and value else None

    config = AuthConfig(
        client_id=text("client_id"),
        client_secret=text("client_secret"),
        client_metadata_url=CIMD_URL,
        issuer=text("issuer"),
        browser="headless",
        timeout=HANG,
        store=MemoryTokenStore(),
    )
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    if scenario == "auth/wif-jwt-bearer":
        # Workload identity federation: the workload's JWT is the grant (RFC 7523).
        config.grant = "jwt_bearer"
        config.assertion = text("valid_jwt")
    if scenario in ("auth/enterprise-managed-authorization", "auth/cross-app-access-complete-flow"):
        # SEP-990: the ID token from the enterprise IdP is exchanged there for an ID-JAG,
        # the jwt-bearer grant at the MCP authorization server.
        config.grant = "enterprise"
        config.id_token = text("idp_id_token")
        config.idp_issuer = text("idp_issuer")
        config.idp_token_endpoint = text("idp_token_endpoint")
        config.idp_client_id = text("idp_client_id")
    if "client-credentials" in scenario:
        # SEP-1046: a machine client, with a secret or a key for private_key_jwt.
        config.grant = "client_credentials"
        config.client_key = text("private_key_pem")
        config.client_key_algorithm = text("signing_algorithm") or "ES256"
    return config


async def run(url: str, scenario: str) -> int:
    spec = ServerSpec(transport="http", url=url, timeout=HANG)
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION")
    if version:
        spec.protocol_version = version
    if scenario.startswith("auth/"):
        spec.auth = auth_config()
    client = Client(spec, handlers=ScenarioHandlers())
    action = SCENARIOS.get(scenario, list_and_call_all)
    try:
        await client.connect()
        await action(client)
    except InspectorError as exc:
        print(f"scenario {scenario}: {exc}", file=sys.stderr)
        return 1
    finally:
        await client.close()
        if os.environ.get("CONFORMANCE_CLIENT_TRACE"):
            for frame in client.traffic:
                print(
                    json.dumps({"kind": frame.kind, "note": frame.note, "raw": frame.text()[:300]}),
                    file=sys.stderr,
                )
        elif scenario.startswith("auth/"):
            # The auth debugger's account of the flow, for the harness's stderr capture.
            for frame in client.traffic:
                if frame.kind == "auth":
                    print(frame.note, file=sys.stderr)
    return 0


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: client.py URL (scenario in MCP_CONFORMANCE_SCENARIO)", file=sys.stderr)
        return 2
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    return asyncio.run(run(sys.argv[-1], scenario))


if __name__ == "__main__":
    sys.exit(main())
