"""Reading a walkthrough file (YAML 1.2, the collections' family) into `Walkthrough`.

The file is read with the collections' round-trip loader, so the same YAML
rules hold (`yes` is text, an unquoted date is refused), and the values to
type go through the same `plain` conversion.  Errors name the file and the
line of the step (ruamel keeps each node's position).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Container, Mapping
from typing import Any

from inspector.collections.model import CollectionError
from inspector.collections.reading import plain, read_yaml_mapping
from inspector.walkthrough.model import (
    ACTIONS,
    CONFIRM_ANSWERS,
    SELECTS,
    WAIT_FOR_KEY,
    WalkStep,
    Walkthrough,
    WalkthroughError,
)

__all__ = ["load_walkthrough"]

_TOP_KEYS = ("name", "server", "pause", "steps")
_STEP_KEYS = frozenset({*ACTIONS, "arguments", "caption", "pause", "confirm"})


def load_walkthrough(path: str) -> Walkthrough:
    """The walkthrough in the file at `path`; `WalkthroughError` for one that cannot be read or makes no sense."""
    document = read_yaml_mapping(path, WalkthroughError, "a walkthrough")[1]
    _refuse_unknown_keys(
        document, _TOP_KEYS, lambda first: f"{path}:{_line_of_key(document, first)}", f"known: {', '.join(_TOP_KEYS)}"
    )
    raw_steps = document.get("steps")
    if not isinstance(raw_steps, list) or not raw_steps:
        raise WalkthroughError(f"{path}: `steps:` must be a list of at least one step")
    pause = (
        _pause(document["pause"], f"{path}:{_line_of_key(document, 'pause')}: pause") if "pause" in document else 2.0
    )
    assert pause is not None
    name = document.get("name")
    try:
        server = plain(document.get("server"), "server") if "server" in document else None
    except CollectionError as exc:
        raise WalkthroughError(f"{path}: {exc}") from exc
    steps = [_step(n, raw, path, _line_of_item(raw_steps, n)) for n, raw in enumerate(raw_steps)]
    title = str(name) if isinstance(name, str) else os.path.splitext(os.path.basename(path))[0]
    return Walkthrough(path, title, steps, server=server, pause=pause)


def _refuse_unknown_keys(
    mapping: Mapping[Any, Any], known: Container[str], where: Callable[[str], str], hint: str
) -> None:
    """WalkthroughError if `mapping` has a key not `known`; `where` places the first of them."""
    unknown = sorted(str(key) for key in mapping if key not in known)
    if unknown:
        raise WalkthroughError(f"{where(unknown[0])}: unknown key(s) {', '.join(unknown)} ({hint})")


def _line_of_item(sequence: Any, index: int) -> int:
    """The 1-based line where item `index` of a round-trip sequence starts (0: unknown)."""
    try:
        return int(sequence.lc.item(index)[0]) + 1
    except (AttributeError, KeyError, IndexError, TypeError):
        return 0


def _line_of_key(mapping: Any, key: str) -> int:
    try:
        return int(mapping.lc.key(key)[0]) + 1
    except (AttributeError, KeyError, IndexError, TypeError):
        return 0


def _pause(value: Any, where: str) -> float | str | None:
    if value == WAIT_FOR_KEY:
        return WAIT_FOR_KEY
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise WalkthroughError(f"{where}: seconds (0 or more), or `key` to wait for the presenter's key")
    return float(value)


def _step(index: int, raw: Any, path: str, line: int) -> WalkStep:
    where = f"{path}:{line}: step {index + 1}" if line else f"{path}: step {index + 1}"
    if not isinstance(raw, Mapping):
        raise WalkthroughError(f"{where}: a step is a mapping such as `call: TOOL` or `caption: TEXT`")
    _refuse_unknown_keys(
        raw,
        _STEP_KEYS,
        lambda _first: where,
        f"a step has one of {', '.join(ACTIONS)}, and caption, pause, arguments, confirm",
    )
    actions = [action for action in ACTIONS if action in raw]
    if len(actions) > 1:
        raise WalkthroughError(f"{where}: one action per step, not {' and '.join(actions)}")
    action = actions[0] if actions else None
    try:
        values = {str(key): plain(raw[key], f"{key}") for key in raw}
    except CollectionError as exc:
        raise WalkthroughError(f"{where}: {exc}") from exc
    caption = values.get("caption", "")
    if not isinstance(caption, str):
        raise WalkthroughError(f"{where}: `caption:` must be text")
    if action is None and not caption:
        raise WalkthroughError(f"{where}: nothing to do: give an action ({', '.join(ACTIONS)}) or a caption")
    target = _target(action, values, where)
    arguments = _arguments(action, values, where)
    confirm = _confirm(action, values, where)
    pause = _pause(values["pause"], f"{where}: pause") if "pause" in values else None
    return WalkStep(
        index,
        line,
        action,
        target,
        arguments=arguments,
        caption=caption,
        pause=pause,
        confirm=confirm,
    )


def _target(action: str | None, values: dict[str, Any], where: str) -> Any:
    """What the step's action names: an item, the values to fill, the method whose request is shown."""
    target = values.get(action) if action is not None else None
    if action in (*SELECTS, "call", "read", "get") and (not isinstance(target, str) or not target):
        raise WalkthroughError(f"{where}: `{action}:` needs a name or URI")
    if action == "fill" and (not isinstance(target, dict) or not target):
        raise WalkthroughError(f"{where}: `fill:` maps field names to the values to type")
    if action == "traffic":
        if target is True or target is None:
            target = "last"
        if not isinstance(target, str) or not target:
            raise WalkthroughError(f"{where}: `traffic:` is a method (tools/call), or `last` for the last request")
    return target


def _arguments(action: str | None, values: dict[str, Any], where: str) -> Any:
    """A `call` or `get` step's arguments (a prompt's are text), or None."""
    arguments = values.get("arguments")
    if "arguments" in values and (action not in ("call", "get") or not isinstance(arguments, dict)):
        raise WalkthroughError(f"{where}: `arguments:` is a mapping, for `call` and `get` steps")
    if action == "get" and arguments and not all(isinstance(v, str) for v in arguments.values()):
        raise WalkthroughError(f"{where}: a prompt's arguments are text (quote numbers)")
    return arguments


def _confirm(action: str | None, values: dict[str, Any], where: str) -> Any:
    """How a `call` step answers its confirmation (yes, no, trust), or None: by hand."""
    confirm = values.get("confirm")
    if "confirm" not in values:
        return confirm
    if action != "call":
        raise WalkthroughError(f"{where}: `confirm:` answers a call's confirmation: only in a `call` step")
    if confirm is True:
        confirm = "yes"
    elif confirm is False:
        confirm = "no"
    if confirm not in CONFIRM_ANSWERS:
        raise WalkthroughError(f"{where}: `confirm:` is yes, no or trust (leave it out to answer by hand)")
    return confirm
