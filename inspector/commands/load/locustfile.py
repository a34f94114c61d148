"""An MCP user class for Locust, driven by a collection file.

    locust -f "$(python -m inspector.commands.load.locustfile)" --collection checks.yaml --host http://HOST/mcp ...

Every Locust process (a single one, a master, its workers on any machine)
loads this file and the same collection; each simulated user opens its own
session with our client core and runs the collection's steps in order, one
step per Locust task, again and again.  Each MCP request is reported to
Locust with `request_type` = the JSON-RPC method, `name` = the tool's name
(the prompt's, the URI, the list kind), its response time, and an exception
when the step failed its expectations (with no `expect:`, a step expects
success).  The server is `--host` (a URL), else the collection's `server:`
when it is a URL.  Run as a script, this module prints its own path for
`locust -f`; Locust loads the file by its path, outside any package, hence
the absolute imports.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from typing import Any, NoReturn

from locust import User, events, task
from locust.exception import StopUser

from inspector.collections import Collection, CollectionRunner, load_collection
from inspector.collections.running import StepResult
from inspector.commands.load.bridge import AsyncioThread
from inspector.commands.load.plan import failure_text, request_name, step_method
from inspector.core.servers.spec import ServerSpec

__all__ = ["McpUser", "StepFailed"]


# Locust logs at INFO; one line per HTTP request from httpx2 would drown its own.
logging.getLogger("httpx2").setLevel(logging.WARNING)


class StepFailed(Exception):
    """A step whose answer did not meet its expectations (Locust counts it as a failure)."""


# Locust leaves add_listener() unannotated; it returns the handler as it is.
@events.init_command_line_parser.add_listener  # type: ignore[untyped-decorator]
def _options(parser: Any) -> None:
    # include_in_web_ui and env_var let a master hand the setting to its workers.
    parser.add_argument(
        "--collection",
        default=os.environ.get("INSPECTOR_COLLECTION", ""),
        env_var="INSPECTOR_COLLECTION",
        help="the inspector collection file whose steps each user runs in order",
    )


def _server(collection: Collection, host: str | None) -> ServerSpec:
    from inspector.commands.testing import collection_spec

    if host:
        return ServerSpec(transport="auto", url=host)
    if collection.server is not None:
        return collection_spec(collection, argparse.Namespace())
    return ServerSpec(transport="stdio")


def _size(result: StepResult) -> int:
    document = result.answer.result if result.answer.error is None else result.answer.error
    try:
        return len(json.dumps(document, ensure_ascii=False))
    except (TypeError, ValueError):
        return 0


class McpUser(User):
    """One MCP session per simulated user."""

    def on_start(self) -> None:
        path = getattr(self.environment.parsed_options, "collection", "") or os.environ.get("INSPECTOR_COLLECTION")
        if not isinstance(path, str) or not path:
            self._stop("no collection: pass --collection FILE (or set INSPECTOR_COLLECTION)")
        self.collection = load_collection(path)
        # A worker learns the host from its master's spawn message, after the class was made.
        self.spec = _server(self.collection, self.host or self.environment.host)
        if not self.spec.url:
            # gevent's patched subprocess cannot start a child from the loop's thread.
            self._stop("Locust runs against a remote server: give --host URL or a collection `server:` URL")
        self.bridge = AsyncioThread.shared()
        self.position = 0
        self.client_context: Any = None
        self.runner: CollectionRunner | None = None
        self.bridge.run(self._connect())

    def _stop(self, reason: str) -> NoReturn:
        # StopUser itself is silent: say why first.
        logging.getLogger(__name__).error("inspector: %s", reason)
        raise StopUser(reason)

    async def _connect(self) -> None:
        from inspector.commands.answers import CliHandlers
        from inspector.commands.runner import connected

        context = connected(self.spec, argparse.Namespace(), handlers=CliHandlers(False))
        client = await context.__aenter__()
        # Only a session that opened is closed by on_stop.
        self.client_context = context
        self.runner = CollectionRunner(client, self.collection)

    @task
    def next_step(self) -> None:
        """Run the collection's next step (round robin) and report it to Locust as a request."""
        runner = self.runner
        if runner is None:
            raise StopUser("not connected")
        step = self.collection.steps[self.position % len(self.collection.steps)]
        self.position += 1
        started = time.time()
        result = self.bridge.run(runner.run_step(step))
        failed = failure_text(result)
        self.environment.events.request.fire(
            request_type=step_method(step),
            name=request_name(step),
            start_time=started,
            response_time=result.answer.elapsed_ms,
            response_length=_size(result),
            response=result.answer.result,
            context={"step": step.label},
            exception=StepFailed(failed) if failed is not None else None,
            url=self.spec.label(),
        )

    def on_stop(self) -> None:
        context, self.client_context = self.client_context, None
        if context is not None:
            self.bridge.run(context.__aexit__(None, None, None))


if __name__ == "__main__":
    print(os.path.abspath(__file__))
    sys.exit(0)
