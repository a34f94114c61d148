"""The command line: the argument parser (`parser`, `options`) and the entry point (`main`).

What the server options mean is `inspector.core.servers.from_args`; the
faces themselves are `inspector.tui`, `inspector.commands` and
`inspector.walkthrough`.
"""

from inspector.cli.main import main

__all__ = ["main"]
