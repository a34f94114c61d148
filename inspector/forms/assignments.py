"""``key=value`` arguments for the scripting CLI (``inspector call TOOL count=3 name=foo``).

Each argument goes through the same form model as the TUI, so text converts
the way the schema says:

``key=text``     text converted for the field: ``count=3`` is 3 for an integer
                 and "3" for a string; ``flag=yes`` is true; ``tags=["a"]`` is
                 JSON for an array or object; ``note=null`` is null where nullable
``key:=json``    the value as raw JSON, whatever the field (like httpie)
``flag``         a boolean field alone means true
``a.b.c=…``      a path into nested objects; ``items[0].qty=2`` into arrays;
                 ``tags[]=x`` appends; ``meta["x.y"]=…`` quotes a key

Keys the schema does not declare are allowed when ``additionalProperties``
allows them: converted with the ``additionalProperties`` schema when it is
one, else read as JSON when the text parses (``n=3`` → 3, ``s=abc`` → "abc").
Every bad argument is reported, together, in one `AssignmentError`.

Only what is given goes in: schema defaults stay out unless asked for
(``with_defaults``).  A path through a ``oneOf`` / ``anyOf`` takes the
alternative that every argument under it fits (``transport.mode=car`` picks
the variant whose ``mode`` is the const "car"); when several fit equally, the
current one (else the first) is kept and a note says so.  ``lenient`` (the
CLI's ``--no-validate``) sends what does not fit as written: text a field
cannot convert stays a string, and keys the schema forbids are kept.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from inspector.forms.builder import build_detached, build_form
from inspector.forms.choice_nodes import NullableNode, UnionNode
from inspector.forms.container_nodes import ArrayNode, ObjectNode
from inspector.forms.errors import AssignmentError, AssignmentProblem, FormValueError
from inspector.forms.leaf_nodes import BooleanNode, RawJsonNode, StringNode
from inspector.forms.node_base import FormNode
from inspector.forms.paths import APPEND, PathToken, format_path, parse_path
from inspector.forms.schema_regex import PatternNotChecked, pattern_search
from inspector.forms.text_conversion import infer_json
from inspector.forms.values import (
    UNSET,
    JSONObject,
    JSONValue,
    Schema,
    Unset,
    json_type_name,
    parse_json_text,
)

__all__ = ["apply_assignments", "parse_assignments", "split_assignment"]


class _Problem(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def split_assignment(text: str) -> tuple[str, str | None, str]:
    """Split ``key=value`` / ``key:=json`` / ``flag`` into (key, operator, value).

    The operator is ``"="``, ``":="`` or None for a bare key.  An ``=`` inside
    ``[...]`` (a quoted key) does not split.
    """
    for i in _outside_brackets(text):
        if text.startswith(":=", i):
            return text[:i], ":=", text[i + 2 :]
        if text[i] == "=":
            return text[:i], "=", text[i + 1 :]
    return text, None, ""


def _outside_brackets(text: str) -> Iterator[int]:
    """The indexes of *text*'s characters that are outside ``[...]`` (where a quoted key may hold anything)."""
    depth = 0
    quoted = False
    i = 0
    while i < len(text):
        ch = text[i]
        if quoted:
            if ch == "\\":
                i += 2
                continue
            quoted = ch != '"'
        elif ch == '"' and depth > 0:
            quoted = True
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        elif depth == 0:
            yield i
        i += 1


def parse_assignments(
    schema: Schema,
    assignments: Sequence[str],
    *,
    prefill_defaults: bool = False,
    base: JSONObject | None = None,
    with_defaults: bool = False,
    lenient: bool = False,
    notes: list[str] | None = None,
) -> JSONObject:
    """Tool arguments from ``key=value`` strings, converted through *schema*'s form.

    Starts from the form's initial state (no defaults, see `build_form`) or
    from *base*, applies the assignments in order and returns the object;
    *with_defaults* then fills every field still empty that has a default.
    Does not validate the result (call `validate_value` for that).  Raises
    `AssignmentError` listing every bad argument.  *lenient* and *notes*: see
    `apply_assignments`.
    """
    form = build_form(schema, prefill_defaults=prefill_defaults)
    if base is not None:
        form.load_value(base)
    apply_assignments(form, assignments, lenient=lenient, notes=notes)
    _leave_out_untouched(form)
    if with_defaults:
        form.fill_defaults()
    value = form.to_value()
    if value is UNSET:
        return {}
    if not isinstance(value, dict):
        raise AssignmentError(
            [AssignmentProblem("", f"the arguments must be a JSON object, but the form holds {json_type_name(value)}")]
        )
    return value


def _leave_out_untouched(form: FormNode) -> None:
    """A required object or array nobody gave starts present in a form (to be
    filled in); on the command line it is not sent: validation says it is missing."""
    for node in list(form.walk()):
        if isinstance(node, ObjectNode | ArrayNode) and node.parent is not None and not node.touched:
            node.present = False


def apply_assignments(
    form: FormNode, assignments: Sequence[str], *, lenient: bool = False, notes: list[str] | None = None
) -> None:
    """Apply ``key=value`` strings to an existing form; raises `AssignmentError` with every problem.

    *lenient*: a value its field cannot convert is kept as written (a
    string, or the JSON after ``:=``) and undeclared keys are kept even where
    the schema forbids them, for testing how a server handles bad input.
    *notes* collects what a person should know (which ``oneOf`` alternative
    was chosen when several fit).
    """
    problems: list[AssignmentProblem] = []
    parsed: list[tuple[str, str | None, str, list[PathToken] | AssignmentProblem]] = []
    for text in assignments:
        key, op, raw = split_assignment(text)
        tokens: list[PathToken] | AssignmentProblem
        if not key:
            tokens = AssignmentProblem(text, f"expected key=value, got {text!r}")
        else:
            try:
                tokens = parse_path(key)
            except ValueError as exc:
                tokens = AssignmentProblem(key, str(exc))
        parsed.append((key, op, raw, tokens))
    run = _Run([(tokens, op, raw) for _, op, raw, tokens in parsed if isinstance(tokens, list)], lenient, notes)
    for key, op, raw, tokens in parsed:
        if isinstance(tokens, AssignmentProblem):
            problems.append(tokens)
            continue
        try:
            _apply(form, tokens, op, raw, run)
        except _Problem as exc:
            problems.append(AssignmentProblem(key, exc.message))
        except FormValueError as exc:
            problems.append(AssignmentProblem(key, exc.message))
    if problems:
        raise AssignmentError(problems)


_Assignment = tuple[list[PathToken], str | None, str]


class _Run:
    """One `apply_assignments` call: every argument (to choose alternatives
    by all of them), the mode, and the alternatives chosen so far."""

    def __init__(self, items: list[_Assignment], lenient: bool, notes: list[str] | None) -> None:
        self.items = items
        self.lenient = lenient
        self.notes = notes
        self.chosen: dict[int, int] = {}

    def variant_for(self, union: UnionNode, prefix: list[PathToken]) -> int:
        """The alternative of *union* that the arguments under *prefix* fit best."""
        decided = self.chosen.get(id(union))
        if decided is not None:
            return decided
        group = [(tokens[len(prefix) :], op, raw) for tokens, op, raw in self.items if _under(tokens, prefix)]
        scores = {variant.index: _fit(union, variant.index, group) for variant in union.variants}
        best = min(scores.values())
        fitting = [index for index, score in scores.items() if score == best]
        choice = union.selected if union.selected in fitting else fitting[0]
        if len(fitting) > 1 and best[0] == 0 and group and self.notes is not None:
            titles = ", ".join(union.variants[i].title for i in fitting)
            self.notes.append(
                f"{_where(prefix)}: the arguments fit {len(fitting)} alternatives ({titles}); "
                f"chose {union.variants[choice].title!r}"
            )
        self.chosen[id(union)] = choice
        return choice


def _under(tokens: list[PathToken], prefix: list[PathToken]) -> bool:
    if len(tokens) <= len(prefix):
        return False
    return all(a.value is not APPEND and a.value == b.value for a, b in zip(tokens, prefix, strict=False))


def _fit(union: UnionNode, index: int, group: list[_Assignment]) -> tuple[int, int]:
    """How badly *group* fits alternative *index*: (arguments refused, keys it does not declare)."""
    variant = union.variants[index]
    scratch = build_detached(variant.schema, root_schema=union.context.schema, path=union.path, scope=variant.scope)
    trial = _Run(group, lenient=False, notes=None)
    refused = undeclared = 0
    for tokens, op, raw in group:
        inner = scratch
        while isinstance(inner, NullableNode):
            inner = inner.inner
        declared = not isinstance(inner, ObjectNode) or _match_field(inner, tokens, 0)[0] is not None
        if isinstance(tokens[0].value, str) and not declared:
            undeclared += 1
        try:
            _apply(scratch, tokens, op, raw, trial)
        except (_Problem, FormValueError):
            refused += 1
    return refused, undeclared


# -- resolving a path to a node ----------------------------------------------


@dataclass
class _JsonSlot:
    """A place inside a raw JSON value (a raw node, or an object's extras)."""

    node: FormNode
    tokens: list[PathToken]
    owner: ObjectNode | None = None


def _where(done: list[PathToken]) -> str:
    path = tuple(t.value for t in done if isinstance(t.value, str | int))
    return format_path(path) or "the arguments"


def _unwrap(node: FormNode, done: list[PathToken], run: _Run) -> FormNode:
    while True:
        if isinstance(node, NullableNode):
            node.is_null = False
            node = node.inner
        elif isinstance(node, UnionNode) and node.variants and not node.is_raw:
            node.selected = run.variant_for(node, done)
            node = node.selected_node
        else:
            return node


def _match_field(node: ObjectNode, tokens: list[PathToken], start: int) -> tuple[str | None, int]:
    """The longest dotted run of tokens from *start* naming a field (``a.b`` may be one key)."""
    best: tuple[str | None, int] = (None, 0)
    parts: list[str] = []
    for j in range(start, len(tokens)):
        value = tokens[j].value
        if not isinstance(value, str) or (j > start and not tokens[j].bare):
            break
        parts.append(value)
        candidate = ".".join(parts)
        if candidate in node.fields:
            best = (candidate, j - start + 1)
        if not tokens[j].bare:
            break
    return best


def _resolve(root: FormNode, tokens: list[PathToken], run: _Run) -> FormNode | _JsonSlot:
    node = root
    i = 0
    while i < len(tokens):
        node = _unwrap(node, tokens[:i], run)
        if isinstance(node, RawJsonNode) or node.is_raw:
            return _JsonSlot(node, tokens[i:])
        if isinstance(node, ObjectNode):
            key, used = _field_at(node, tokens, i)
            if key is None:
                return _JsonSlot(node.extras, tokens[i:], owner=node)
            node = node.fields[key]
            i += used
        elif isinstance(node, ArrayNode):
            node = _item_at(node, tokens, i)
            i += 1
        else:
            raise _Problem(f"{_where(tokens[:i])} is a {node.kind} field and has no {_where([tokens[i]])!r}")
    return node


def _field_at(node: ObjectNode, tokens: list[PathToken], i: int) -> tuple[str | None, int]:
    """The field of *node* that the tokens from *i* name, and how many tokens its name takes."""
    if not isinstance(tokens[i].value, str):
        raise _Problem(f"{_where(tokens[:i])} is an object; use .key, not an index")
    return _match_field(node, tokens, i)


def _item_at(node: ArrayNode, tokens: list[PathToken], i: int) -> FormNode:
    """The item of *node* that token *i* names: an existing one, or one added at the end."""
    index = tokens[i].value
    if index is APPEND:
        return node.add()
    if not isinstance(index, int):
        raise _Problem(f"{_where(tokens[:i])} is an array; use [N] or []")
    if index < len(node.items):
        return node.items[index]
    if index == len(node.items):
        return node.add()
    raise _Problem(f"index {index} is past the end of {_where(tokens[:i])} ({len(node.items)} items; use [] to append)")


# -- applying -------------------------------------------------------------------


def _json_arg(raw: str) -> JSONValue:
    try:
        return parse_json_text(raw)
    except ValueError as exc:
        raise _Problem(str(exc)) from None


def _apply(form: FormNode, tokens: list[PathToken], op: str | None, raw: str, run: _Run) -> None:
    target = _resolve(form, tokens, run)
    if isinstance(target, _JsonSlot):
        _apply_json(target, op, raw, run)
        return
    if op == ":=":
        target.load_value(_json_arg(raw))
    elif op == "=":
        try:
            target.set_text(raw)
        except FormValueError as exc:
            if run.lenient:
                target.load_value(raw)
            elif isinstance(target, ArrayNode):
                raise _Problem(f"{exc.message}; or add items one by one with KEY[]=VALUE") from None
            else:
                raise
    else:
        inner = target
        while isinstance(inner, NullableNode):
            inner = inner.inner
        if not isinstance(inner, BooleanNode) and not run.lenient:
            raise _Problem("needs a value (key=VALUE); only a boolean field can be given alone")
        target.load_value(True)


def _unknown_message(owner: ObjectNode, key: str, where: str) -> str:
    known = list(owner.fields)
    hint = difflib.get_close_matches(key, known, n=1)
    text = f"unknown property {key!r}" + (f" of {where}" if owner.path else "")
    if hint:
        text += f" (did you mean {hint[0]!r}?)"
    if known:
        shown = ", ".join(known[:12]) + (", …" if len(known) > 12 else "")
        text += f"; known: {shown}"
    return text


def _apply_json(slot: _JsonSlot, op: str | None, raw: str, run: _Run) -> None:
    value = _slot_value(_scratch_for(slot, run), op, raw, run)
    current = slot.node.to_value()
    try:
        updated = _set_in(current, slot.tokens, value)
    except ValueError as exc:
        raise _Problem(str(exc)) from None
    slot.node.load_value(updated)


def _scratch_for(slot: _JsonSlot, run: _Run) -> FormNode | None:
    """A node to convert the text for *slot*, where a schema describes its one key; else None."""
    first = slot.tokens[0].value
    if slot.owner is not None:
        assert isinstance(first, str)
        if not slot.owner.allows_additional and not run.lenient:
            raise _Problem(_unknown_message(slot.owner, first, format_path(slot.owner.path)))
        return slot.owner.additional_node(first) if len(slot.tokens) == 1 else None
    if len(slot.tokens) == 1 and isinstance(first, str):
        return _map_value_node(slot.node, first)
    return None


def _slot_value(scratch: FormNode | None, op: str | None, raw: str, run: _Run) -> JSONValue:
    """The value an argument gives a place in raw JSON: converted by *scratch* when there is one."""
    if op == ":=":
        return _json_arg(raw)
    if op == "=":
        return infer_json(raw) if scratch is None else _converted(scratch, raw, run)
    if scratch is not None and not isinstance(scratch, BooleanNode) and not run.lenient:
        raise _Problem("needs a value (key=VALUE); only a boolean field can be given alone")
    return True


def _converted(scratch: FormNode, raw: str, run: _Run) -> JSONValue:
    try:
        converted = scratch.convert_text(raw)
    except FormValueError:
        if not run.lenient:
            raise
        converted = raw
    value = "" if converted is UNSET and isinstance(scratch, StringNode) else converted
    if value is UNSET:
        raise _Problem("needs a value")
    return value


def _map_value_node(node: FormNode, key: str) -> FormNode | None:
    """For a free-form map shown as raw JSON: a node for *key*'s value, from
    ``patternProperties`` or ``additionalProperties``, when they give a schema."""
    schema = node.schema
    patterns = schema.get("patternProperties")
    sub: Any = None
    if isinstance(patterns, dict):
        for pattern, candidate in patterns.items():
            try:
                if isinstance(pattern, str) and pattern_search(pattern, key):
                    sub = candidate
                    break
            except PatternNotChecked:
                continue
    if sub is None:
        sub = schema.get("additionalProperties")
    if not isinstance(sub, dict) or not sub:
        return None
    return build_detached(sub, root_schema=node.context.schema, path=(*node.path, key))


def _set_in(current: JSONValue | Unset, tokens: list[PathToken], value: JSONValue) -> JSONValue:
    if not tokens:
        return value
    token, rest = tokens[0].value, tokens[1:]
    if isinstance(token, str):
        if current is UNSET:
            current = {}
        if not isinstance(current, dict):
            raise ValueError(f"cannot set key {token!r} in a {json_type_name(current)}")
        out = dict(current)
        out[token] = _set_in(out.get(token, UNSET), rest, value)
        return out
    if current is UNSET:
        current = []
    if not isinstance(current, list):
        raise ValueError(f"cannot index a {json_type_name(current)}")
    items = list(current)
    if token is APPEND or token == len(items):
        items.append(_set_in(UNSET, rest, value))
    elif isinstance(token, int) and token < len(items):
        items[token] = _set_in(items[token], rest, value)
    else:
        raise ValueError(f"index {token} is past the end ({len(items)} items; use [] to append)")
    return items
