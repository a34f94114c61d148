"""The raw stdio loop of our line-per-message test servers (apps_server,
skills_server): read a JSON-RPC message per line, log the methods asked
(and their params) to a file so a test sees what was asked and when,
and answer each request by its id with what `answer` returns.

A server imports it from its own folder (run as a script, or through
runpy.run_path from a README test's wrapper):

    def main() -> int:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from line_loop import serve

        return serve(answer, sys.argv[1] if len(sys.argv) > 1 else None)
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["Answer", "send", "serve"]

# A request's method and params -> {"result": ...} or {"error": ...}, or None
# to leave the request unanswered.
Answer = Callable[[str, dict[str, Any]], dict[str, Any] | None]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def serve(answer: Answer, log_path: str | None = None) -> int:
    """Answer requests from stdin until it ends; lines that are not JSON are skipped."""
    log = open(log_path, "a") if log_path else None  # noqa: SIM115
    try:
        for line in sys.stdin:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if not isinstance(message, dict):
                continue
            method = message.get("method")
            if log is not None and isinstance(method, str):
                log.write(json.dumps({"method": method, "params": message.get("params")}) + "\n")
                log.flush()
            if "id" not in message:
                continue
            params = message.get("params")
            reply = answer(str(method), params if isinstance(params, dict) else {})
            if reply is not None:
                send({"id": message["id"], **reply})
    finally:
        if log is not None:
            log.close()
    return 0
