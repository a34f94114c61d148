"""Which servers the TUI opens: one, as every command names it, or several
(`--server` repeated, `--config FILE` with more than one entry and no
`--server`, or several marked in `--pick`).  The scripting commands stay
one server each: a repeated `--server` is refused there (inspector.cli.main)."""

from __future__ import annotations

import argparse
import copy
from collections.abc import Callable
from typing import Any

from inspector.core.servers.spec import ServerSpec

__all__ = ["ServerNames", "several_named", "tui_specs"]


class ServerNames(argparse.Action):
    """`--server NAME`, repeatable: `server` keeps the last (what every
    command reads), `servers` every one (what the TUI reads)."""

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option_string: Any = None) -> None:
        setattr(namespace, "server", values)  # noqa: B010
        names = list(getattr(namespace, "servers", None) or [])
        setattr(namespace, "servers", [*names, values])  # noqa: B010


def several_named(args: argparse.Namespace) -> bool:
    """Whether the command line names more than one server (`--server` repeated)."""
    return len(getattr(args, "servers", None) or []) > 1


def tui_specs(
    args: argparse.Namespace,
    server_command: list[str],
    spec_from_args: Callable[[argparse.Namespace, list[str]], ServerSpec],
) -> list[ServerSpec]:
    """A spec per server the command line names, in its order; each with
    the options given (--env, --header, --timeout, …) as for one server."""
    names = list(getattr(args, "servers", None) or [])
    config = getattr(args, "config", None)
    if config and not names:
        from inspector.core.servers.client_configs import ConfigError, names_in_file

        try:
            names = names_in_file(config)
        except ConfigError:
            names = []  # spec_from_args says what is wrong with the file
        if len(names) < 2:
            names = []
    if len(names) < 2:
        return [spec_from_args(args, server_command)]
    specs = []
    for name in names:
        one = copy.copy(args)
        one.server = name
        specs.append(spec_from_args(one, server_command))
    return specs
