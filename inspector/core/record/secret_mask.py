"""Masking secrets out of the traffic log and out of recordings.

Which values are secret: every env value and header value a server spec
carries (they come from a client config file or from `--env`/`--header`,
and people put tokens there under any name), except the clearly harmless
ones (paths, locale, numbers, booleans, `Accept`-like headers); the
credential part of an `Authorization` header; the OAuth settings' own
secrets; values marked with `mark_secret` (VS Code `password` inputs); and
whatever the OAuth flow learns while the session runs (tokens).

HTTP transports already mask secret headers when they record them; what is
left is a secret value turning up elsewhere (a token passed as a command
argument, an env value echoed back by a tool).  Every known secret value is
replaced wherever it appears, in any frame.

`mask_traffic` installs the mask on a `TrafficLog`, so each frame is masked
once as it is added and every view of the log sees the same masked text.
It is kept cheap: a frame without secrets costs one substring search per
secret over its raw bytes and is not copied.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from inspector.core.record.traffic import Frame, TrafficLog, parse_raw
from inspector.core.servers.spec import ServerSpec

if TYPE_CHECKING:
    from inspector.core.auth.oauth_secrets import SecretSet
    from inspector.forms.values import JSONObject

__all__ = [
    "MASK",
    "SecretMask",
    "escaped_pattern",
    "is_secret_name",
    "mark_secret",
    "mask_traffic",
    "secret_header",
    "secret_mask",
    "secret_masker",
    "secret_refs",
    "secret_values",
]

MASK = "***"
_MASK_BYTES = MASK.encode()
_SECRET_NAME = re.compile(r"(?i)(token|secret|key|password|passwd|pat$|auth|credential|cookie)")
_MIN_SECRET_LENGTH = 4
# Values these carry are facts about the machine, not credentials; masking
# them would blot out paths all over a recording.
_HARMLESS_ENV = frozenset(
    {
        "PATH",
        "PYTHONPATH",
        "NODE_PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "TERM",
        "LANG",
        "LANGUAGE",
        "TZ",
        "PWD",
        "TMPDIR",
        "NODE_ENV",
        "PYTHONUNBUFFERED",
        "PYTHONIOENCODING",
        "DEBUG",
        "LOG_LEVEL",
    }
)
_HARMLESS_HEADERS = frozenset(
    {"accept", "content-type", "user-agent", "accept-language", "accept-encoding", "mcp-protocol-version"}
)
_HARMLESS_VALUE = re.compile(r"(?i)(true|false|yes|no|on|off|null|none|debug|info|warn|warning|error|[0-9.+-]+)")
_SHELL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def mark_secret(spec: ServerSpec, value: str, variable: str) -> None:
    """Treat `value` as a secret of this spec wherever it appears (a VS Code
    `password` input that ended up in the command's arguments, say);
    `variable` is the environment variable a copied command line names instead."""
    if value:
        spec.secret_values[value] = variable


def is_secret_name(name: str) -> bool:
    """Whether a variable's name says it holds a credential (`API_TOKEN`, `DB_PASSWORD`)."""
    return bool(_SECRET_NAME.search(name))


def _secret_name(spec: ServerSpec, name: str) -> bool:
    return name in spec.secret_names or bool(_SECRET_NAME.search(name))


def _harmless_env(name: str, value: str) -> bool:
    upper = name.upper()
    if upper in _HARMLESS_ENV or upper.startswith("LC_") or _HARMLESS_VALUE.fullmatch(value):
        return True
    # A folder or file on this machine is a fact, not a credential.
    return os.path.isabs(value) and os.path.exists(value)


def secret_refs(spec: ServerSpec) -> dict[str, str]:
    """Secret value -> the environment variable a command line may name
    instead of it, longest value first (so a whole header wins over its part)."""
    refs: dict[str, str] = {}
    found = (*spec.secret_values.items(), *_env_secrets(spec), *_header_secrets(spec), *_auth_secrets(spec))
    for value, name in found:
        if len(value) >= _MIN_SECRET_LENGTH and value not in refs:
            refs[value] = name
    return dict(sorted(refs.items(), key=lambda item: len(item[0]), reverse=True))


def _env_secrets(spec: ServerSpec) -> Iterator[tuple[str, str]]:
    for name, value in spec.env.items():
        if _secret_name(spec, name) or not _harmless_env(name, value):
            yield value, name if _SHELL_NAME.fullmatch(name) else _variable(name)


def _header_secrets(spec: ServerSpec) -> Iterator[tuple[str, str]]:
    for name, value in spec.headers.items():
        if secret_header(spec, name):
            yield value, _variable(name)
            # "Bearer abc" is a secret as a whole and as its credential part.
            scheme, _, credential = value.partition(" ")
            if credential and scheme.lower() in ("bearer", "basic", "token"):
                yield credential, _variable(name) + "_CREDENTIAL"


def _auth_secrets(spec: ServerSpec) -> Iterator[tuple[str, str]]:
    config = spec.auth
    if config is None:
        return
    for secret, name in (
        (config.client_secret, "MCP_CLIENT_SECRET"),
        (config.client_key, "MCP_CLIENT_KEY"),
        (config.assertion, "MCP_ASSERTION"),
    ):
        if secret:
            yield secret, name


def secret_header(spec: ServerSpec, name: str) -> bool:
    """Whether a header's value is a secret (all but the clearly harmless)."""
    return _secret_name(spec, name) or name.lower() not in _HARMLESS_HEADERS


def _variable(name: str) -> str:
    """A shell variable name for a header or an odd env key."""
    return re.sub(r"[^A-Z0-9]+", "_", name.upper()).strip("_") or "SECRET"


def secret_values(spec: ServerSpec) -> list[str]:
    """Every secret value the spec carries, longest first."""
    return list(secret_refs(spec))


# JSON's two-character escapes, by the character they stand for.
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _hex_unit(unit: int) -> str:
    """A `\\uXXXX` escape of one UTF-16 unit as a pattern, any hex case."""
    digits = "".join(f"[{d.lower()}{d.upper()}]" if d.isalpha() else d for d in f"{unit:04x}")
    return r"\\u" + digits


def _escaped_char(char: str) -> str:
    """Every way a JSON string may spell `char`, as a pattern."""
    code = ord(char)
    forms: list[str] = []
    if char not in ('"', "\\") and code >= 0x20:
        forms.append(re.escape(char))
    if char in _SHORT_ESCAPES:
        forms.append(re.escape(_SHORT_ESCAPES[char]))
    if code > 0xFFFF:
        high = 0xD800 + ((code - 0x10000) >> 10)
        low = 0xDC00 + ((code - 0x10000) & 0x3FF)
        forms.append(_hex_unit(high) + _hex_unit(low))
    else:
        forms.append(_hex_unit(code))
    return "(?:" + "|".join(forms) + ")"


def escaped_pattern(values: Iterable[str]) -> str:
    """A pattern matching each value however a JSON string spells it
    (`\\u0053\\u0045...`, `\\/`, any mix with plain characters)."""
    return "|".join("".join(_escaped_char(c) for c in value) for value in values)


class SecretMask:
    """Masks known secrets in frames (`__call__`) and in recorded lines (`record`).

    A frame is masked in its raw bytes and in its parsed message, so both
    the record and what the session acts on and hands to every caller (the
    CLI's output, the TUI's panes and dialogs) hold `***` instead of the
    secret.  The raw bytes are masked in place wherever the secret is
    spelled, escaped or not; only when that leaves text that does not parse
    to the masked message is the raw re-encoded from it, and the frame says so.

    The set may grow while the session runs (`learned`, the OAuth flow's
    secrets); the patterns are rebuilt only when its version changes.
    """

    def __init__(self, values: Iterable[str], learned: SecretSet | None = None) -> None:
        self._static = [v for v in values if len(v) >= _MIN_SECRET_LENGTH]
        self._learned = learned
        self._version: int | None = None
        self._needles: list[bytes] = []
        self._bytes: re.Pattern[bytes] | None = None
        self._escaped_bytes: re.Pattern[bytes] | None = None
        self._escaped_text: re.Pattern[str] | None = None
        self._text: re.Pattern[str] | None = None
        self._refresh()

    def _refresh(self) -> None:
        learned = self._learned
        version = learned.version if learned is not None else 0
        if version == self._version:
            return
        self._version = version
        every = sorted({*self._static, *(learned.values() if learned is not None else ())}, key=len, reverse=True)
        # A secret is looked for as it is, and as it looks inside a JSON
        # string (quotes and backslashes escaped, non-ASCII as \\u escapes).
        forms: dict[bytes, None] = {}
        for value in every:
            for form in (value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]):
                forms[form.encode("utf-8", errors="surrogatepass")] = None
        self._needles = sorted(forms, key=len, reverse=True)
        self._bytes = re.compile(b"|".join(re.escape(n) for n in self._needles)) if forms else None
        self._text = re.compile("|".join(re.escape(v) for v in every)) if every else None
        # Any other spelling needs an escape, so this slower pattern is only
        # tried on text that has one.
        escaped = escaped_pattern(every) if every else None
        self._escaped_text = re.compile(escaped) if escaped else None
        self._escaped_bytes = re.compile(escaped.encode("utf-8", errors="surrogatepass")) if escaped else None

    @property
    def empty(self) -> bool:
        """Whether there is no secret to mask yet (the learned ones may still come)."""
        self._refresh()
        return self._text is None

    def text(self, value: str) -> str:
        """`value` with every secret masked where it is spelled as is (escaped spellings: `raw_text`)."""
        pattern = self._text
        return pattern.sub(MASK, value) if pattern is not None else value

    def raw_text(self, value: str) -> str:
        """JSON text (or text that may hold JSON) with every spelling of a secret masked."""
        value = self.text(value)
        escaped = self._escaped_text
        if escaped is not None and "\\" in value:
            value = escaped.sub(MASK, value)
        return value

    def scrub(self, value: Any) -> Any:
        """A JSON-like value with every secret in its strings masked: a copy
        where something was masked, the same object where nothing was (meta
        dicts shared by many frames stay shared)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            items = [(self.text(k) if isinstance(k, str) else k, self.scrub(v)) for k, v in value.items()]
            if all(k is old_k and v is old_v for (k, v), (old_k, old_v) in zip(items, value.items(), strict=True)):
                return value
            return dict(items)
        if isinstance(value, list):
            scrubbed = [self.scrub(v) for v in value]
            if all(new is old for new, old in zip(scrubbed, value, strict=True)):
                return value
            return scrubbed
        return value

    def __call__(self, frame: Frame) -> None:
        # Called for every frame: the common case (no secret in it) is a
        # version check and one substring search per needle, nothing more.
        learned = self._learned
        if learned is not None and learned.version != self._version:
            self._refresh()
        raw = frame.raw
        if raw is not None:
            if self._needles and self._holds_secret(raw):
                self._mask_payload(frame, raw)
        elif self._needles:
            message = frame.message
            if message is not None:
                frame.message = self.scrub(message)
        if frame.note or frame.error or frame.meta or frame.has_problems:
            self._mask_details(frame)

    def _holds_secret(self, raw: bytes) -> bool:
        for needle in self._needles:
            if needle in raw:
                return True
        escaped = self._escaped_bytes
        return escaped is not None and (b"\\u" in raw or b"\\/" in raw) and escaped.search(raw) is not None

    def _mask_payload(self, frame: Frame, raw: bytes) -> None:
        assert self._bytes is not None
        masked = self._bytes.sub(_MASK_BYTES, raw)
        if self._escaped_bytes is not None and b"\\" in masked:
            masked = self._escaped_bytes.sub(_MASK_BYTES, masked)
        # The message the session acts on (the one it parsed, not a second parse).
        message = frame.message
        if message is None:
            frame.raw = masked
            return
        scrubbed = self.scrub(message)
        if parse_raw(masked) == scrubbed:
            frame.raw = masked
            frame.parsed_lazily(scrubbed)
            return
        # The secret sat where masking the text breaks the JSON (inside an
        # escape, across a string's end): the raw is rebuilt from the masked
        # message, and the frame says it is not the bytes as sent.
        encoded = _encode_bytes(scrubbed)
        if self._bytes.search(encoded) is None:
            frame.raw = encoded
            frame.parsed_lazily(scrubbed)
            frame.meta = {**(frame.meta or {}), "reencoded": True}
            note = "a secret was masked; the raw text is re-encoded from the parsed message, not the bytes as sent"
        else:
            # Even re-encoded the text spells the secret (it spans JSON syntax):
            # the raw stays masked in place, though it no longer parses.
            frame.raw = masked
            frame.message = scrubbed
            frame.meta = {**(frame.meta or {}), "masked_raw_invalid": True}
            note = "a secret was masked in the raw text, which no longer parses; the message is masked apart"
        frame.note = f"{frame.note}; {note}" if frame.note else note

    def _mask_details(self, frame: Frame) -> None:
        if self._text is None:
            return
        if frame.note:
            frame.note = self.raw_text(frame.note)
        if frame.error:
            frame.error = self.raw_text(frame.error)
        if frame.meta:
            frame.meta = self.scrub(frame.meta)
        if frame.problems:
            frame.problems[:] = [self.raw_text(p) for p in frame.problems]

    def record(self, record: JSONObject) -> JSONObject:
        """A recorded line's dict with every secret masked."""
        self._refresh()
        if self._text is None:
            return record
        masked: JSONObject = self.scrub(record)
        raw = masked.get("raw")
        if isinstance(raw, str):
            text = self.raw_text(raw)
            if text is not raw:
                masked = {**masked, "raw": text}
        return masked


_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _encode_bytes(value: Any) -> bytes:
    return _encode(value).encode("utf-8", errors="surrogatepass")


def _learned(spec: ServerSpec) -> SecretSet | None:
    if spec.auth is None or not spec.url:
        return None
    from inspector.core.auth.session import session_for

    session = session_for(spec)
    return session.secrets if session is not None else None


def secret_mask(spec: ServerSpec) -> SecretMask | None:
    """The mask for a spec's secrets (None when it has none and can learn none)."""
    learned = _learned(spec)
    values = secret_values(spec)
    if not values and learned is None:
        return None
    return SecretMask(values, learned)


def mask_traffic(traffic: TrafficLog, spec: ServerSpec) -> TrafficLog:
    """Mask every frame `traffic` gets from now on with the spec's secrets."""
    traffic.mask = secret_mask(spec)
    return traffic


def secret_masker(spec: ServerSpec) -> Callable[[JSONObject], JSONObject] | None:
    """A masker for recorded lines (for a log that is not masked itself)."""
    mask = secret_mask(spec)
    return mask.record if mask is not None else None
