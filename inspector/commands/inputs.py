"""Asking a person on the terminal for VS Code `${input:ID}` values.

Scripts keep answering with `INSPECTOR_INPUT_<ID>` variables (the config
module reads those first); a person at a terminal is asked, with the
input's description and default, and a `password` input is read without
echo.  Without a terminal nobody is asked: the default, if any, is used.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import TextIO

from inspector.core.safetext import visible
from inspector.core.servers.client_configs import Asker, Input
from inspector.core.servers.from_args import spec_from_args
from inspector.core.servers.spec import ServerSpec

__all__ = ["ask_on_terminal", "spec_from_command_line", "terminal_asker"]


def spec_from_command_line(args: argparse.Namespace, server_command: list[str]) -> ServerSpec:
    """The server the options name, a person at the terminal asked for the inputs it needs."""
    return spec_from_args(args, server_command, terminal_asker())


def terminal_asker() -> Asker | None:
    """An asker when stdin and stderr are a terminal, else None."""
    if sys.stdin.isatty() and sys.stderr.isatty():
        return ask_on_terminal
    return None


def ask_on_terminal(item: Input, stdin: TextIO | None = None, stderr: TextIO | None = None) -> str | None:
    """Ask for one input; None at end of input (the default then applies)."""
    read = stdin if stdin is not None else sys.stdin
    write = stderr if stderr is not None else sys.stderr
    about = f": {visible(item.description, keep_newlines=False)}" if item.description else ""
    write.write(f"VS Code input {visible(item.id)!r}{about}  (scripts: set {item.variable})\n")
    for number, option in enumerate(item.options, 1):
        write.write(f"  {number}. {visible(option, keep_newlines=False)}\n")
    default = ""
    if item.default is not None:
        default = " [enter: the default]" if item.password else f" [{visible(item.default, keep_newlines=False)}]"
    prompt = f"{visible(item.id)}{default}: "
    try:
        if item.password and stdin is None:
            answer = getpass.getpass(prompt, stream=write)
        else:
            write.write(prompt)
            write.flush()
            line = read.readline()
            if not line:
                return None
            answer = line.rstrip("\n")
    except EOFError:
        return None
    if not answer:
        return item.default if item.default is not None else ""
    if item.options and answer.isdigit() and 1 <= int(answer) <= len(item.options):
        return item.options[int(answer) - 1]
    return answer
