"""Exit codes of every face.

`MEANINGS` is the one list: `inspector --help` prints it and a test checks
the README's table against it, so the three cannot drift apart.
"""

from __future__ import annotations

__all__ = [
    "CANNOT_CONNECT",
    "CONFIRMATION_REFUSED",
    "DIFFERENCES",
    "EXPECTATIONS_FAILED",
    "INTERNAL",
    "INTERRUPTED",
    "LINT_FINDINGS",
    "LOAD_THRESHOLD",
    "MEANINGS",
    "OK",
    "OUTPUT_SCHEMA",
    "PROTOCOL_ERROR",
    "SKILL_DIGEST_MISMATCH",
    "SKILL_FRONTMATTER",
    "SKILL_SIZE_MISMATCH",
    "TIMEOUT",
    "TOOL_ERROR",
    "USAGE",
    "help_text",
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
# `inspector diff` found differences, `inspector replay` answers that differ,
# `inspector matrix` columns that differ, `inspector card` a card that differs from its server
DIFFERENCES = 9
OUTPUT_SCHEMA = 10  # `inspector call --strict`: structuredContent does not match the tool's outputSchema
EXPECTATIONS_FAILED = 11  # `inspector test`: a step's answer did not meet its expectations
LOAD_THRESHOLD = 12  # `inspector load`: the error rate or p99 went past --max-error-rate / --max-p99
# `inspector skills get --verify`: a skill failed verification (SEP-2640).
SKILL_DIGEST_MISMATCH = 21  # a file's bytes do not hash to the entry's digest
SKILL_SIZE_MISMATCH = 22  # a file's byte length differs from the entry's size
SKILL_FRONTMATTER = 23  # frontmatter missing, unparseable, incomplete, or unlike the entry's
INTERRUPTED = 130  # Ctrl-C

# Code -> the short meaning that opens its README row and its --help entry.
MEANINGS: dict[int, str] = {
    OK: "success",
    INTERNAL: "internal error",
    USAGE: "usage error",
    CANNOT_CONNECT: "cannot connect / server exited",
    PROTOCOL_ERROR: "protocol error",
    TOOL_ERROR: "tool returned isError",
    TIMEOUT: "timeout",
    CONFIRMATION_REFUSED: "confirmation refused",
    LINT_FINDINGS: "lint findings",
    DIFFERENCES: "differences found (diff, replay, matrix, card)",
    OUTPUT_SCHEMA: "structuredContent breaks the outputSchema (call --strict)",
    EXPECTATIONS_FAILED: "expectations failed (test)",
    LOAD_THRESHOLD: "load threshold broken (load)",
    SKILL_DIGEST_MISMATCH: "skill digest mismatch (skills)",
    SKILL_SIZE_MISMATCH: "skill size mismatch (skills)",
    SKILL_FRONTMATTER: "bad skill frontmatter (skills)",
    INTERRUPTED: "interrupted",
}


def help_text() -> str:
    """The `exit codes:` paragraph of `inspector --help`."""
    import textwrap

    # No-break spaces keep each "code meaning" pair on one line when wrapped.
    listed = ", ".join(f"{code} {meaning}".replace(" ", "\xa0") for code, meaning in MEANINGS.items())
    return textwrap.fill(f"exit codes: {listed}.", width=79).replace("\xa0", " ")
