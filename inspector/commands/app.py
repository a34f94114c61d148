"""`inspector app TOOL [key=value ...] [--open]`: preview the MCP App a tool declares.

Reads the tool's `ui://` resource (only now: listing never fetches it),
serves it on a loopback address behind a random token, prints the URL and
opens the browser only with `--open`.  Then it plays the app's host: the
tool is called with the arguments given (after the usual confirmation, or
`--yes`; `--no-call` serves the bare template) and the view gets them as
`ui/notifications/tool-input` and the answer as `tool-result`.  A
`tools/call` the app asks for is put to the person on the terminal (refused
when nobody can answer: no terminal, or `--yes`) unless `--allow-app-calls`;
`resources/read` goes through.  Every message between app and host is
printed and goes into the traffic log (so `--record` keeps it), until Ctrl-C.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from inspector import __version__
from inspector.commands import exitcodes
from inspector.commands.call import given_arguments
from inspector.commands.confirm import ask_confirmation, ask_confirmation_async, confirmation_text
from inspector.commands.runner import CommandContext, CommandFailed
from inspector.core.extensions.app_bridge import AppBridge
from inspector.core.extensions.app_browser import open_in_browser
from inspector.core.extensions.apps import AppDocument, app_document, content_security_policy, tool_ui
from inspector.core.protocol.errors import InspectorError, JsonRpcError
from inspector.core.protocol.items import Item
from inspector.core.safetext import safe_json, visible

__all__ = ["run_app"]


async def run_app(ctx: CommandContext) -> int:
    """`inspector app TOOL`: serve the tool's MCP App and print its messages until Ctrl-C; returns the exit code."""
    args = ctx.args
    listing = await ctx.client.list_all("tools")
    tool = listing.find(args.tool)
    if tool is None:
        raise CommandFailed(exitcodes.USAGE, f"no tool named {visible(args.tool)!r}")
    ui = tool_ui(tool.data)
    if ui is None or ui.resource_uri is None:
        raise CommandFailed(exitcodes.USAGE, f"the tool {visible(tool.key)!r} declares no UI resource (_meta.ui)")
    arguments = _arguments(ctx, tool)
    result = await ctx.client.read_resource(ui.resource_uri)
    try:
        document = app_document(ui.resource_uri, result)
    except ValueError as exc:
        raise CommandFailed(exitcodes.PROTOCOL_ERROR, f"{ui.resource_uri}: {exc}") from exc
    for problem in ui.problems + document.problems:
        print(f"inspector: app: {visible(problem)}", file=sys.stderr)
    if arguments is not None and not args.yes:
        await _confirm(tool, arguments)
    # The web server is imported only by a preview, never by other commands.
    from inspector.core.extensions.app_host import AppHost

    host_side = _HostSide(ctx)
    bridge = AppBridge(
        ctx.client,
        tool.data,
        host_version=__version__,
        find_tool=listing.find,
        confirm=host_side.confirm,
        ui_meta=document.ui_meta,
        show=host_side.show,
        notify=host_side.notify,
    )
    host = AppHost(document, bridge)
    url = await host.start()
    try:
        _announce(ctx, document, url)
        if args.open:
            why_not = await open_in_browser(url)
            if why_not is not None:
                print(f"inspector: {why_not}", file=sys.stderr)
        if arguments is not None:
            await _call(ctx, bridge, tool, arguments)
        # Serves until Ctrl-C (or the server connection's end ends the command).
        await asyncio.Event().wait()
    finally:
        await bridge.close()
        await host.close()
    return exitcodes.OK


def _arguments(ctx: CommandContext, tool: Item) -> dict[str, Any] | None:
    """The call's arguments as `inspector call` builds them; None with --no-call."""
    args = ctx.args
    if args.no_call:
        if args.assignments or args.args_json is not None:
            raise CommandFailed(exitcodes.USAGE, "--no-call takes no arguments (nothing is called)")
        return None
    return given_arguments(tool, args)


async def _confirm(tool: Item, arguments: dict[str, Any]) -> None:
    """The preview's own call, asked on the terminal; CommandFailed when nobody can answer, or the answer is no."""
    if not _at_terminal():
        raise CommandFailed(
            exitcodes.CONFIRMATION_REFUSED,
            "refusing to call a tool without confirmation: no terminal to ask on (pass --yes, or --no-call)",
        )
    if not await ask_confirmation(tool, arguments):
        raise CommandFailed(exitcodes.CONFIRMATION_REFUSED, "call not confirmed")


async def _call(ctx: CommandContext, bridge: AppBridge, tool: Item, arguments: dict[str, Any]) -> None:
    """The call the app renders: its input to the view, then its result (or why there is none)."""
    await bridge.new_call(arguments)
    try:
        result = await ctx.client.call_tool(tool.key, arguments)
    except JsonRpcError as exc:
        print(
            f"inspector: {visible(tool.key)}: the server answered with an error: {visible(str(exc))}", file=sys.stderr
        )
        await bridge.set_cancelled(f"the server answered with an error: {exc.message} (code {exc.code})")
        return
    except InspectorError as exc:
        print(f"inspector: {visible(tool.key)}: {visible(str(exc))}", file=sys.stderr)
        await bridge.set_cancelled(str(exc))
        return
    await bridge.set_result(result)


def _at_terminal() -> bool:
    return sys.stdin.isatty() and sys.stderr.isatty()


def _announce(ctx: CommandContext, document: AppDocument, url: str) -> None:
    policy = content_security_policy(document.ui_meta)
    if ctx.out.json:
        ctx.out.json_value({"url": url, "resourceUri": document.uri, "csp": policy, "ui": document.ui_meta})
        return
    ctx.out.line(f"preview of {document.uri}: {url}")
    # The extension asks hosts to keep CSP configurations reviewable.
    ctx.out.line(f"content security policy: {policy}")
    ctx.out.line("serving on 127.0.0.1 only; Ctrl-C stops it")
    ctx.out.stream.flush()


class _HostSide:
    """The person's side of the bridge on a terminal: every message printed,
    the app's tool calls asked about, the app's words shown inert."""

    def __init__(self, ctx: CommandContext) -> None:
        self.ctx = ctx

    def show(self, direction: str, message: Any, raw: str) -> None:
        out = self.ctx.out
        if out.json:
            out.json_value(
                {"direction": direction, "message": message}
                if message is not None
                else {"direction": direction, "raw": raw}
            )
        else:
            out.line(f"{direction}: {safe_json(message) if message is not None else visible(raw)}")
        out.stream.flush()

    def notify(self, text: str) -> None:
        print(f"inspector: app: {visible(text)}", file=sys.stderr)

    async def confirm(self, tool: Item, arguments: dict[str, Any]) -> bool:
        args = self.ctx.args
        name = visible(tool.key)
        if args.allow_app_calls:
            print(f"inspector: app: calling {name} for the app (--allow-app-calls)", file=sys.stderr)
            return True
        if args.yes or not _at_terminal():
            why = "--yes answers only the preview's own call" if args.yes else "no terminal to ask on"
            print(
                f"inspector: app: refused the app's call of {name} ({why}; --allow-app-calls lets it through)",
                file=sys.stderr,
            )
            return False
        text = "The MCP App asks the host to call a tool.\n" + confirmation_text(tool, arguments)
        return await ask_confirmation_async(text)
