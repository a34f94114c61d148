"""Exit codes of every face, documented in the README."""

from __future__ import annotations

__all__ = [
    "CANNOT_CONNECT",
    "CONFIRMATION_REFUSED",
    "DIFFERENCES",
    "INTERNAL",
    "INTERRUPTED",
    "LINT_FINDINGS",
    "OK",
    "PROTOCOL_ERROR",
    "TIMEOUT",
    "TOOL_ERROR",
    "USAGE",
]

OK = 0
INTERNAL = 1  # a bug in the inspector itself
USAGE = 2  # bad command line, unknown tool, arguments that fail the input schema
CANNOT_CONNECT = 3  # the server could not be started or reached, or it went away
PROTOCOL_ERROR = 4  # a JSON-RPC error response, or an answer the protocol does not allow
TOOL_ERROR = 5  # the tool ran and returned isError: true
TIMEOUT = 6  # no answer within --timeout
CONFIRMATION_REFUSED = 7  # the person said no, or there was no terminal to ask and no --yes
LINT_FINDINGS = 8  # `inspector lint` found errors (or warnings with --strict)
DIFFERENCES = 9  # `inspector diff` found differences
INTERRUPTED = 130  # Ctrl-C
