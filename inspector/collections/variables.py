"""`${env:NAME}` and `${NAME}` in a step's values.

`${env:NAME}` is an environment variable (`${env:NAME:-text}` gives `text`
when it is not set); `${NAME}` a value an earlier step saved
(`save: {NAME: JMESPath}`).  A string that is exactly one reference
becomes the referenced value with its JSON type (a saved number stays a
number); a reference inside longer text is replaced by its text (JSON text
for a value that is not a string).  `$${` writes a literal `${`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["VariableError", "env_references", "substitute"]

_REFERENCE = re.compile(r"\$(\$?)\{(env:)?([A-Za-z_][A-Za-z0-9_.-]*)(?::-([^}]*))?\}")


class VariableError(Exception):
    """A reference to a variable that has no value."""


def _lookup(match: re.Match[str], env: Mapping[str, str], saved: Mapping[str, Any]) -> Any:
    is_env, name, default = bool(match.group(2)), match.group(3), match.group(4)
    if default is not None and not is_env:
        raise VariableError(f"{match.group(0)}: a default (:-) is for environment variables only")
    if is_env:
        if name not in env:
            if default is not None:
                return default
            raise VariableError(f"${{env:{name}}}: the environment variable is not set")
        return env[name]
    if name not in saved:
        raise VariableError(f"${{{name}}}: no earlier step saved {name!r}")
    return saved[name]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def substitute(value: Any, env: Mapping[str, str], saved: Mapping[str, Any]) -> Any:
    """`value` with every reference in its strings (keys too) replaced."""
    if isinstance(value, str):
        whole = _REFERENCE.fullmatch(value)
        if whole is not None and not whole.group(1):
            return _lookup(whole, env, saved)

        def replace(match: re.Match[str]) -> str:
            if match.group(1):
                return match.group(0)[1:]
            return _text(_lookup(match, env, saved))

        return _REFERENCE.sub(replace, value)
    if isinstance(value, dict):
        return {_text(substitute(k, env, saved)): substitute(v, env, saved) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(item, env, saved) for item in value]
    return value


def env_references(value: Any) -> set[str]:
    """The environment variables `value` refers to (to mask their values as secrets)."""
    found: set[str] = set()
    if isinstance(value, str):
        found.update(m.group(3) for m in _REFERENCE.finditer(value) if m.group(2) and not m.group(1))
    elif isinstance(value, dict):
        for key, item in value.items():
            found |= env_references(key) | env_references(item)
    elif isinstance(value, list):
        for item in value:
            found |= env_references(item)
    return found
