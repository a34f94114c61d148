"""Build and run the demo server: `build_server()` and the `main()` entry point.

`python -m inspector.demo` speaks stdio; `--http PORT` serves Streamable HTTP at
http://127.0.0.1:PORT/mcp and `--sse PORT` the legacy HTTP+SSE transport at /sse. Both protocol
eras are served on every transport: handshake clients (2024-11-05 to 2025-11-25) and stateless
2026-07-28 clients. Only protocol messages ever reach stdout; diagnostics go to stderr.
"""

from __future__ import annotations

import argparse
import gc
import inspect
import logging
import sys
import warnings
from collections.abc import Iterable
from typing import Any, TypeVar

import anyio
from mcp.server.caching import CacheHint
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import INVALID_PARAMS, GetPromptResult, InputRequiredResult
from mcp_types import Prompt as MCPPrompt
from mcp_types import Resource as MCPResource
from mcp_types import Tool as MCPTool
from pydantic import AnyUrl

from inspector import __version__
from inspector.demo import media
from inspector.demo.client_request_tools import register_client_request_tools
from inspector.demo.completions import register_completions
from inspector.demo.form_tools import form_tools
from inspector.demo.notification_tools import register_notification_tools
from inspector.demo.notifications import install_handshake_extras
from inspector.demo.prompts import register_prompts
from inspector.demo.resources import register_resources
from inspector.demo.state import EXTRA_RESOURCE, DemoState
from inspector.demo.tools import register_tools

logger = logging.getLogger("inspector.demo")

NAME = "inspector-demo"
INSTRUCTIONS = """\
inspector-demo is a playground that exercises every feature of the Model Context Protocol.
Nothing it does is real: no tool touches the network or the file system.

Good places to start:
- read the resource demo://readme;
- call register_user or plan_trip to see large generated forms;
- call media_gallery for text, image, audio, resource links and embedded resources;
- call long_running_task and cancel it, or log_every_level to fill the log;
- subscribe to demo://notes, then call append_note;
- call toggle_extras and watch the tool, prompt and resource lists change;
- sample_llm, elicit_profile, elicit_url and list_roots ask the client for something.
"""


class DemoServer(MCPServer[Any]):
    """MCPServer with one addition: the bonus resource is only listed and readable while
    `toggle_extras` has it switched on. MCPServer can add resources at runtime but not remove
    them, so the resource stays registered and is hidden instead."""

    def __init__(self, state: DemoState, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.demo_state = state

    def _hidden(self, uri: str) -> bool:
        return uri == EXTRA_RESOURCE and "resource" not in self.demo_state.extras

    async def list_resources(self) -> list[MCPResource]:
        """The resources, the bonus one only while switched on; descriptions without their docstring indentation."""
        listed = [resource for resource in await super().list_resources() if not self._hidden(str(resource.uri))]
        return _clean_descriptions(listed)

    async def list_tools(self) -> list[MCPTool]:
        """The tools, descriptions without their docstring indentation."""
        return _clean_descriptions(await super().list_tools())

    async def list_prompts(self) -> list[MCPPrompt]:
        """The prompts, descriptions without their docstring indentation."""
        return _clean_descriptions(await super().list_prompts())

    async def read_resource(
        self, uri: AnyUrl | str, context: Context[Any, Any] | None = None
    ) -> Iterable[ReadResourceContents] | InputRequiredResult:
        """Read a resource; the bonus one is unknown while switched off."""
        if self._hidden(str(uri)):
            raise ResourceNotFoundError(f"Unknown resource: {uri}")
        return await super().read_resource(uri, context)

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context[Any, Any] | None = None
    ) -> GetPromptResult | InputRequiredResult:
        """Get a prompt; an unknown prompt or a missing required argument is -32602 (invalid params)."""
        # The spec names -32602 (invalid params) for an unknown prompt and for a
        # missing required argument; MCPServer answers both as a generic error.
        known = {prompt.name: prompt for prompt in await self.list_prompts()}
        prompt = known.get(name)
        if prompt is None:
            raise MCPError(INVALID_PARAMS, f"Unknown prompt: {name}")
        missing = [arg.name for arg in prompt.arguments or [] if arg.required and arg.name not in (arguments or {})]
        if missing:
            raise MCPError(INVALID_PARAMS, f"Missing required argument(s) of {name}: {', '.join(missing)}")
        return await super().get_prompt(name, arguments, context)


_Described = TypeVar("_Described", MCPTool, MCPPrompt, MCPResource)


def _clean_descriptions(items: list[_Described]) -> list[_Described]:
    """Descriptions come from docstrings: without their source indentation."""
    return [
        item.model_copy(update={"description": inspect.cleandoc(item.description)}) if item.description else item
        for item in items
    ]


def build_server() -> MCPServer[Any]:
    """A fresh demo server with its own state; nothing is started."""
    state = DemoState()
    server = DemoServer(
        state,
        name=NAME,
        title="Inspector Demo Server",
        description="Every MCP feature in one small server, for trying out an inspector.",
        instructions=INSTRUCTIONS,
        website_url="https://modelcontextprotocol.io",
        icons=media.server_icons(),
        version=__version__,
        tools=form_tools(),
        log_level="WARNING",
        # Stateless-era caching hints, so an inspector can show ttlMs/cacheScope
        # and serve a quick second look from its cache.
        cache_hints={
            "server/discover": CacheHint(ttl_ms=300_000, scope="public"),
            "tools/list": CacheHint(ttl_ms=30_000, scope="public"),
            "prompts/list": CacheHint(ttl_ms=30_000, scope="public"),
            "resources/list": CacheHint(ttl_ms=10_000, scope="public"),
            "resources/templates/list": CacheHint(ttl_ms=30_000, scope="public"),
            "resources/read": CacheHint(ttl_ms=5_000, scope="private"),
        },
    )
    register_tools(server)
    register_notification_tools(server, state)
    register_client_request_tools(server)
    register_resources(server, state)
    register_prompts(server)
    register_completions(server)
    install_handshake_extras(server, state)
    return server


async def _serve_http(server: MCPServer[Any], host: str, port: int, legacy_sse: bool) -> None:
    import uvicorn

    if legacy_sse:
        app = server.sse_app(host=host)
        where = f"http://{host}:{port}/sse"
    else:
        app = server.streamable_http_app(streamable_http_path="/mcp", host=host)
        where = f"http://{host}:{port}/mcp"
    # log_config=None keeps uvicorn off stdout (its access log goes there by default) and routes
    # its records through the stderr handler configured in main().
    config = uvicorn.Config(app, host=host, port=port, log_config=None, access_log=False, lifespan="on")
    logger.info("%s %s starting, MCP endpoint %s", NAME, __version__, where)
    await uvicorn.Server(config).serve()


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="inspector demo-server",
        description="Run the embedded MCP demo server (stdio unless --http or --sse is given).",
    )
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP at /mcp on PORT")
    transport.add_argument("--sse", type=int, metavar="PORT", help="serve legacy HTTP+SSE at /sse on PORT")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind for --http/--sse (default 127.0.0.1)")
    parser.add_argument(
        "--log-level",
        default="INFO",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="level of the diagnostics written to stderr (default INFO)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the demo server over stdio, or Streamable HTTP (--http) or legacy HTTP+SSE (--sse) on a port."""
    args = _parse(argv)
    # Configured before the server is built so MCPServer's own logging set-up finds a handler and
    # leaves it alone: plain lines on stderr, nothing ever on stdout.
    logging.basicConfig(
        stream=sys.stderr, level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # Roots, sampling and logging are deprecated from 2026-07-28 yet fully supported; the demo
    # uses them deliberately, so the warnings would only be noise on stderr.
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
    server = build_server()
    # What is built by now (the SDK's and pydantic's models, this server)
    # lives as long as the process: out of the collector's sight, neither
    # later collections nor the one at exit walk it again, which made the
    # server take most of a second to exit after its stdin closed.
    gc.freeze()
    try:
        if args.http is not None:
            anyio.run(_serve_http, server, args.host, args.http, False)
        elif args.sse is not None:
            anyio.run(_serve_http, server, args.host, args.sse, True)
        else:
            anyio.run(server.run_stdio_async)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
