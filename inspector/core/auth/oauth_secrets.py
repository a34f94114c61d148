"""Secrets out of everything the auth debugger shows or records.

An OAuth flow moves secrets in request bodies (authorization codes, PKCE
verifiers, client secrets, refresh tokens), in response bodies (access and
refresh tokens, minted client secrets), in headers (`Authorization`, `DPoP`)
and in URLs (the code on the redirect).  Each exchange is masked where it is
recorded, and every secret value seen is also remembered in a `SecretSet`, so
a recording can scrub the same value wherever else it turns up.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = [
    "MASK",
    "SECRET_FIELDS",
    "SecretSet",
    "mask_body",
    "mask_json",
    "mask_pairs",
    "mask_text",
    "mask_url",
]

MASK = "***"
MIN_SECRET_LENGTH = 4

# OAuth parameters and JSON members whose values are secrets.
SECRET_FIELDS = frozenset(
    {
        "access_token",
        "refresh_token",
        "id_token",
        "code",
        "code_verifier",
        "client_secret",
        "assertion",
        "client_assertion",
        "subject_token",
        "actor_token",
        "registration_access_token",
        "device_code",
        "password",
        # RFC 7009 revocation and RFC 7662 introspection name the token just `token`.
        "token",
    }
)


class SecretSet:
    """Secret values seen so far; grows during a session, never shrinks.

    `version` changes whenever a value is added, so a masker built from the
    set can rebuild its pattern only when it must.
    """

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._values: set[str] = set()
        self._lock = threading.Lock()
        self.version = 0
        self.update(values)

    def add(self, value: Any) -> None:
        """Remember `value`, when it is a string long enough to be a secret."""
        if isinstance(value, str) and len(value) >= MIN_SECRET_LENGTH and value not in self._values:
            with self._lock:
                self._values.add(value)
                self.version += 1

    def update(self, values: Iterable[Any]) -> None:
        """Remember each of `values` (see `add`)."""
        for value in values:
            self.add(value)

    def values(self) -> list[str]:
        """The secrets, longest first (so that a secret containing a shorter one is masked whole)."""
        with self._lock:
            return sorted(self._values, key=len, reverse=True)

    def __contains__(self, value: object) -> bool:
        return value in self._values

    def __len__(self) -> int:
        return len(self._values)

    def scrub(self, text: str) -> str:
        """`text` with every known secret replaced."""
        for value in self.values():
            if value in text:
                text = text.replace(value, MASK)
        return text


def mask_pairs(pairs: Iterable[tuple[str, str]], secrets: SecretSet | None = None) -> list[tuple[str, str]]:
    """Key-value pairs with the values of secret fields masked (and remembered in `secrets`)."""
    out = []
    for key, value in pairs:
        if key in SECRET_FIELDS and value:
            if secrets is not None:
                secrets.add(value)
            out.append((key, MASK))
        else:
            out.append((key, value))
    return out


def mask_url(url: str, secrets: SecretSet | None = None) -> str:
    """The URL with secret query parameters masked (the code on a redirect)."""
    parts = urlsplit(url)
    if not parts.query:
        return url
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    if not any(key in SECRET_FIELDS for key, _ in pairs):
        return url
    return urlunsplit(parts._replace(query=urlencode(mask_pairs(pairs, secrets))))


def mask_json(value: Any, secrets: SecretSet | None = None) -> Any:
    """A JSON value with every secret member masked at any depth (their values remembered in `secrets`)."""
    if isinstance(value, dict):
        out: JSONObject = {}
        for key, item in value.items():
            if key in SECRET_FIELDS and isinstance(item, str) and item:
                if secrets is not None:
                    secrets.add(item)
                out[key] = MASK
            else:
                out[key] = mask_json(item, secrets)
        return out
    if isinstance(value, list):
        return [mask_json(item, secrets) for item in value]
    return value


def mask_body(body: bytes | str | None, content_type: str | None, secrets: SecretSet | None = None) -> str | None:
    """A request or response body as text that may be shown: secret fields masked.

    Form bodies and JSON bodies are parsed and their secret members masked;
    any other body is shown with the known secrets scrubbed out.
    """
    if body is None:
        return None
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else body
    if not text:
        return text
    kind = (content_type or "").split(";")[0].strip().lower()
    if kind == "application/x-www-form-urlencoded":
        pairs = parse_qsl(text, keep_blank_values=True)
        return urlencode(mask_pairs(pairs, secrets))
    if kind.endswith("json") or text.lstrip()[:1] in ("{", "["):
        try:
            parsed = json.loads(text)
        except ValueError:
            pass
        else:
            return json.dumps(mask_json(parsed, secrets), ensure_ascii=False)
    return secrets.scrub(text) if secrets is not None else text


def mask_text(text: str, secrets: SecretSet | None) -> str:
    """`text` with the known secrets scrubbed out (as is without a set)."""
    return secrets.scrub(text) if secrets is not None else text


def header_secrets(headers: Mapping[str, str], secrets: SecretSet) -> None:
    """Remember the credential parts of secret request headers."""
    for name, value in headers.items():
        if name.lower() in ("authorization", "dpop", "proxy-authorization"):
            scheme, _, credential = value.partition(" ")
            secrets.add(credential or scheme)
