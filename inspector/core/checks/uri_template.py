"""The RFC 6570 URI-template grammar: is a resource template well formed?

`template_errors` says why a ``uriTemplate`` is not a valid URI template
(literals, ``{expressions}``, operators and variable names, RFC 6570
section 2).  Lint reports each reason as ``template-invalid``, and asks
for completions only on a template this grammar accepts.
"""

from __future__ import annotations

import re

from inspector.forms.values import short_json

__all__ = ["template_errors"]


# RFC 6570, section 2: literals, expressions, operators, variable specs.
_LITERAL_BAD = set(" \"'<>\\^`{|}")
_OPERATORS = set("+#./;?&")
_RESERVED_OPERATORS = set("=,!@|")
_VARCHAR = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})"
_VARSPEC = re.compile(rf"{_VARCHAR}+(?:\.{_VARCHAR}+)*(?::[1-9][0-9]{{0,3}}|\*)?")


def template_errors(template: str) -> list[str]:
    """Why `template` is not a valid RFC 6570 URI template ([] when it is)."""
    errors: list[str] = []
    i = 0
    n = len(template)
    while i < n:
        ch = template[i]
        if ch == "{":
            end = template.find("}", i + 1)
            nested = template.find("{", i + 1)
            if end == -1 or (nested != -1 and nested < end):
                errors.append(f"unclosed expression at position {i}")
                if end == -1:
                    break
                i = nested
                continue
            errors.extend(_expression_errors(template[i + 1 : end], i))
            i = end + 1
            continue
        if ch == "}":
            errors.append(f"'}}' without '{{' at position {i}")
        elif ch == "%":
            if not re.fullmatch(r"%[0-9A-Fa-f]{2}", template[i : i + 3]):
                errors.append(f"'%' not followed by two hex digits at position {i}")
            else:
                i += 3
                continue
        elif ch in _LITERAL_BAD or ord(ch) < 0x20 or ord(ch) == 0x7F:
            errors.append(f"character {short_json(ch)} is not allowed outside an expression (position {i})")
        i += 1
    return errors


def _expression_errors(body: str, at: int) -> list[str]:
    if not body:
        return [f"empty expression '{{}}' at position {at}"]
    if body[0] in _RESERVED_OPERATORS:
        return [f"operator {short_json(body[0])} is reserved for future extensions (position {at})"]
    if body[0] in _OPERATORS:
        body = body[1:]
    errors = []
    for spec in body.split(","):
        if not _VARSPEC.fullmatch(spec):
            errors.append(f"{short_json(spec)} is not a valid variable name (position {at})")
    return errors
