"""Reading a collection file (YAML 1.2) into `Collection`.

ruamel.yaml reads it in round-trip mode, so `--update` can write the file
back with its comments, order and quoting kept.  The values a step sends are
turned into plain JSON values first: ruamel's own scalar types (a boolean
that is an int subclass, say) must not reach the wire encoder.
"""

from __future__ import annotations

import datetime
import io
import os
from collections.abc import Mapping
from typing import Any

from inspector.collections.model import KINDS, LIST_KINDS, Collection, CollectionError, Expect, Step

__all__ = ["load_collection", "plain", "read_yaml_mapping", "yaml_round_trip"]

_EXPECT_KEYS = ("success", "isError", "error", "values", "exists", "text", "matches", "outputSchema", "maxMs")
_STEP_KEYS = frozenset({*KINDS, "name", "arguments", "expect", "save"})
_TOP_KEYS = frozenset({"name", "server", "steps"})


def yaml_round_trip() -> Any:
    """A ruamel.yaml reader and writer that keeps comments, order and quoting, and long strings on one line."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # long strings stay on one line when written back
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def plain(value: Any, where: str = "") -> Any:
    """`value` as plain JSON types (dict, list, str, int, float, bool, None)."""
    if value is None or type(value) in (str, int, float, bool):
        return value
    from ruamel.yaml.comments import TaggedScalar
    from ruamel.yaml.scalarbool import ScalarBoolean

    if isinstance(value, ScalarBoolean):
        # An anchored boolean: an int subclass that would go out as 0 or 1.
        return bool(value)
    if isinstance(value, TaggedScalar):
        if str(value.tag) == "tag:yaml.org,2002:str":
            return str(value.value)
        raise CollectionError(f"{where}: the tag {value.tag} means nothing here (only !!str)")
    if isinstance(value, Mapping):
        return _plain_mapping(value, where)
    if isinstance(value, list):
        return [plain(item, f"{where}[{n}]") for n, item in enumerate(value)]
    return _plain_scalar(value, where)


def _plain_mapping(value: Mapping[Any, Any], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise CollectionError(f"{where or 'a mapping'}: key {key!r} is not a string (quote it)")
        out[str(key)] = plain(item, f"{where}.{key}" if where else str(key))
    return out


def _plain_scalar(value: Any, where: str) -> Any:
    """A scalar of a subclass of str, int or float (ruamel's own) as that base type."""
    for base in (str, int, float):
        if isinstance(value, base):
            return base(value)
    if isinstance(value, datetime.date):
        raise CollectionError(f"{where}: an unquoted date or time; quote it to send a string")
    raise CollectionError(f"{where}: a value JSON cannot carry ({type(value).__name__})")


def read_yaml_mapping(path: str, error: type[Exception], what: str) -> tuple[str, Any]:
    """The text of the YAML file at `path` and its round-trip document, which
    must be a mapping (`what` is named if not); `error`, naming the file, if
    it cannot be read or parsed."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise error(f"{path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text ({exc.reason})") from exc
    from ruamel.yaml.error import YAMLError

    try:
        document = yaml_round_trip().load(io.StringIO(text))
    except YAMLError as exc:
        raise error(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(document, Mapping):
        raise error(f"{path}: {what} is a mapping with `steps:`")
    return text, document


def load_collection(path: str) -> Collection:
    """The collection in the file at `path`; `CollectionError` for one that cannot be read or makes no sense."""
    text, document = read_yaml_mapping(path, CollectionError, "a collection")
    unknown = sorted(str(key) for key in document if key not in _TOP_KEYS)
    if unknown:
        raise CollectionError(f"{path}: unknown key(s) {', '.join(unknown)} (known: name, server, steps)")
    raw_steps = document.get("steps")
    if not isinstance(raw_steps, list) or not raw_steps:
        raise CollectionError(f"{path}: `steps:` must be a list of at least one step")
    name = document.get("name")
    steps = [_step(n, raw, path) for n, raw in enumerate(raw_steps)]
    seen: set[str] = set()
    for step in steps:
        if step.name in seen:
            raise CollectionError(f"{path}: two steps are named {step.name!r}; names must be unique")
        seen.add(step.name)
    server = plain(document.get("server"), "server") if "server" in document else None
    title = str(name) if isinstance(name, str) else os.path.splitext(os.path.basename(path))[0]
    return Collection(path, title, steps, server=server, text=text, document=document)


def _step(index: int, raw: Any, path: str) -> Step:
    where = f"{path}: step {index + 1}"
    if not isinstance(raw, Mapping):
        raise CollectionError(f"{where}: a step is a mapping such as `call: TOOL`")
    unknown = sorted(str(key) for key in raw if key not in _STEP_KEYS)
    if unknown:
        raise CollectionError(f"{where}: unknown key(s) {', '.join(unknown)}")
    kinds = [kind for kind in KINDS if kind in raw]
    if len(kinds) != 1:
        raise CollectionError(f"{where}: name exactly one of {', '.join(KINDS)}")
    kind = kinds[0]
    target = _target(kind, raw[kind], where)
    arguments = plain(raw.get("arguments"), f"{where}.arguments") if "arguments" in raw else None
    if arguments is not None and (kind not in ("call", "get") or not isinstance(arguments, dict)):
        raise CollectionError(f"{where}: `arguments:` is a mapping, for `call` and `get` steps")
    name = raw.get("name")
    if name is not None and not isinstance(name, str):
        raise CollectionError(f"{where}: `name:` must be text")
    step = Step(index, name or "", kind, target, arguments)
    step.name = name or f"{index + 1}. {step.label}"
    step.expect = _expect(raw.get("expect"), where) if "expect" in raw else Expect()
    step.save = _save(raw, where)
    return step


def _target(kind: str, raw: Any, where: str) -> Any:
    """What a step of `kind` names: what to list, a name or URI, a raw message."""
    target = plain(raw, f"{where}.{kind}")
    if kind == "list" and target not in LIST_KINDS:
        raise CollectionError(f"{where}: list what? one of {', '.join(LIST_KINDS)}")
    if kind in ("call", "read", "get") and (not isinstance(target, str) or not target):
        raise CollectionError(f"{where}: `{kind}:` needs a name or URI")
    if kind == "raw" and not isinstance(target, (dict, str)):
        raise CollectionError(f"{where}: `raw:` is a JSON-RPC message: a mapping, or its JSON text")
    return target


def _save(raw: Mapping[Any, Any], where: str) -> dict[str, str]:
    """A step's `save:`, variable name to JMESPath expression (each compiled)."""
    save = plain(raw.get("save"), f"{where}.save") if "save" in raw else {}
    if not isinstance(save, dict) or not all(isinstance(v, str) for v in save.values()):
        raise CollectionError(f"{where}: `save:` maps names to JMESPath expressions")
    for variable, expression in save.items():
        _compile(expression, f"{where}.save.{variable}")
    return save


def _strings(value: Any, where: str) -> list[str]:
    items = value if isinstance(value, list) else [value]
    if not all(isinstance(item, str) for item in items):
        raise CollectionError(f"{where}: text, or a list of texts")
    return list(items)


def _compile(expression: str, where: str) -> None:
    import jmespath
    from jmespath.exceptions import JMESPathError

    try:
        jmespath.compile(expression)
    except JMESPathError as exc:
        raise CollectionError(f"{where}: not a JMESPath expression: {exc}") from exc


def _expect(raw: Any, where: str) -> Expect:
    where = f"{where}.expect"
    value = plain(raw, where)
    if not isinstance(value, dict):
        raise CollectionError(f"{where}: a mapping of expectations ({', '.join(_EXPECT_KEYS)})")
    unknown = sorted(key for key in value if key not in _EXPECT_KEYS)
    if unknown:
        raise CollectionError(
            f"{where}: unknown expectation(s) {', '.join(unknown)} (known: {', '.join(_EXPECT_KEYS)})"
        )
    expect = Expect(written=True)
    _expect_outcome(expect, value, where)
    values = value.get("values", {})
    if not isinstance(values, dict):
        raise CollectionError(f"{where}.values: a mapping of JMESPath expression to expected value")
    for expression in values:
        _compile(expression, f"{where}.values")
    expect.values = values
    expect.exists = _strings(value.get("exists", []), f"{where}.exists")
    for expression in expect.exists:
        _compile(expression, f"{where}.exists")
    expect.text = _strings(value.get("text", []), f"{where}.text")
    expect.matches = _strings(value.get("matches", []), f"{where}.matches")
    schema = value.get("outputSchema", False)
    if not isinstance(schema, bool):
        raise CollectionError(f"{where}.outputSchema: true or false")
    expect.output_schema = schema
    expect.max_ms = _budget(value.get("maxMs"), where)
    return expect


def _expect_outcome(expect: Expect, value: dict[str, Any], where: str) -> None:
    """How the step must end: `success`, `isError` or `error` (one of them at most)."""
    outcomes = [key for key in ("success", "isError", "error") if key in value]
    if len(outcomes) > 1:
        raise CollectionError(f"{where}: give one of success, isError, error")
    if "success" in value:
        if value["success"] is not True:
            raise CollectionError(f"{where}.success: only `true` (for anything else, expect isError or error)")
        expect.outcome = "success"
    if "isError" in value:
        if not isinstance(value["isError"], bool):
            raise CollectionError(f"{where}.isError: true or false")
        expect.outcome = "isError" if value["isError"] else "success"
    if "error" in value:
        code = value["error"]
        if code is True:
            expect.outcome = "error"
        elif isinstance(code, int) and not isinstance(code, bool):
            expect.outcome, expect.error_code = "error", code
        else:
            raise CollectionError(f"{where}.error: a JSON-RPC error code such as -32602 (or true: any error)")


def _budget(budget: Any, where: str) -> Any:
    """`maxMs`: None, or a positive number of milliseconds."""
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, (int, float)) or budget <= 0):
        raise CollectionError(f"{where}.maxMs: a positive number of milliseconds")
    return budget
