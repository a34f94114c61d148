"""Reading a `WWW-Authenticate` header (RFC 9110 §11.6.1, RFC 6750 §3)."""

from __future__ import annotations

import re

__all__ = ["parse_www_authenticate"]

_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_PARAM = re.compile(rf'\s*({_TOKEN})\s*=\s*(?:"((?:[^"\\]|\\.)*)"|({_TOKEN}))\s*(?:,|$)')
_SCHEME = re.compile(rf"\s*({_TOKEN})(?=\s|$|,)")


def parse_www_authenticate(value: str | None, scheme: str = "Bearer") -> dict[str, str]:
    """The parameters of the challenge of `scheme` (Bearer unless asked), the scheme under `scheme`.

    Only one challenge is read (the one of `scheme` when there is one, else the first), and only its
    auth-params; a value the grammar does not allow yields what could be read before it.
    """
    if not value:
        return {}
    chosen = re.search(rf"(?:^|,)\s*({re.escape(scheme)})(?=\s|$|,)", value, re.IGNORECASE)
    if chosen is not None:
        value = value[chosen.start(1) :]
    out: dict[str, str] = {}
    match = _SCHEME.match(value)
    if not match:
        return out
    out["scheme"] = match.group(1)
    rest = value[match.end() :]
    position = 0
    while position < len(rest):
        param = _PARAM.match(rest, position)
        if not param:
            break
        name = param.group(1).lower()
        quoted, plain = param.group(2), param.group(3)
        text = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else plain or ""
        out.setdefault(name, text)
        position = param.end()
        # A second challenge starts with a bare scheme token: stop there.
        if _SCHEME.match(rest, position) and not _PARAM.match(rest, position):
            break
    return out
