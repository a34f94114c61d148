"""The `inspector` command line that repeats a call made in the TUI.

Secrets never appear in it: each secret value (see `secret_mask.secret_refs`)
becomes a reference to an environment variable (`"$GITHUB_TOKEN"`), for the
person to set before running it.  Everything else is a literal and is
single-quoted, so the shell expands nothing in it: `price=$PATH` stays
exactly that.  A word that mixes literal text and a secret quotes each part
on its own: `'message=token is '"$GITHUB_PAT"`.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from inspector.core.record.secret_mask import secret_refs
from inspector.core.servers.spec import ServerSpec

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["call_command", "quote_word", "server_options"]


# An OAuth setting's value and default -> the words that repeat it.
_Words = Callable[[Any, Any], list[str]]


def _given(flag: str) -> _Words:
    """The setting's value itself, when it has one."""
    return lambda value, _default: [flag, value] if value else []


def _by_variable(flag: str, variable: str) -> _Words:
    """A secret setting, named by the environment variable to set."""
    return lambda value, _default: [flag, variable] if value else []


def _changed(flag: str, text: Callable[[Any], str] = str) -> _Words:
    """The setting, when it is not the default."""
    return lambda value, default: [flag, text(value)] if value != default else []


def _switch(flag: str) -> _Words:
    return lambda value, _default: [flag] if value else []


# Each AuthConfig attribute and how it is written, in the order of the flags.
_AUTH_WORDS: tuple[tuple[str, _Words], ...] = (
    ("client_id", _given("--client-id")),
    ("client_secret", _by_variable("--client-secret-env", "MCP_CLIENT_SECRET")),
    ("client_metadata_url", _given("--client-metadata-url")),
    ("callback_port", _changed("--oauth-port")),
    ("timeout", _changed("--oauth-timeout", lambda timeout: f"{timeout:g}")),
    ("browser", _changed("--oauth-browser")),
    ("grant", _changed("--oauth-grant")),
    ("assertion", _by_variable("--assertion-env", "MCP_ASSERTION")),
    # The key's file is not known here, only its text: call_command names it by variable.
    ("client_key", _given("--client-key")),
    ("client_key_algorithm", _changed("--client-key-alg")),
    ("issuer", _given("--oauth-issuer")),
    ("allow_cross_origin", _switch("--allow-cross-origin-auth")),
    ("id_token", _by_variable("--id-token-env", "MCP_ID_TOKEN")),
    ("idp_issuer", _given("--idp-issuer")),
    ("idp_token_endpoint", _given("--idp-token-endpoint")),
    ("idp_client_id", _given("--idp-client-id")),
    ("idp_client_secret", _by_variable("--idp-client-secret-env", "MCP_IDP_CLIENT_SECRET")),
    ("dpop", _changed("--dpop")),
)


def _auth_options(spec: ServerSpec) -> list[str]:
    """The OAuth settings as flags; secret ones by environment variable."""
    config = spec.auth
    if config is None:
        return []
    from inspector.core.auth.config import AuthConfig

    default = AuthConfig()
    words: list[str] = []
    if spec.url and not config.oauth and not any(name.lower() == "authorization" for name in spec.headers):
        words.append("--no-oauth")
    for attribute, words_for in _AUTH_WORDS:
        words += words_for(getattr(config, attribute), getattr(default, attribute))
    return words


def _root_path(root: str) -> str | None:
    if not root.startswith("file:"):
        return root if "://" not in root else None
    parts = urlsplit(root)
    return str(Path(unquote(parts.path))) if parts.netloc in ("", "localhost") else None


def _root_options(roots: list[str] | None) -> list[str]:
    words: list[str] = []
    for root in roots or ():
        path = _root_path(root)
        if path is not None:
            words += ["--root", path]
    return words


def _remote_options(spec: ServerSpec) -> list[str]:
    if not spec.url:
        return []
    words = ["--url", spec.url]
    if spec.transport in ("http", "sse"):
        words += ["--transport", spec.transport]
    for name, value in spec.headers.items():
        words += ["--header", f"{name}: {value}"]
    return words + _auth_options(spec)


def _session_options(spec: ServerSpec) -> list[str]:
    """The era, revision and limits, where they are not the defaults."""
    default = ServerSpec()
    words: list[str] = []
    if spec.era != "auto":
        words += ["--era", spec.era]
    if spec.protocol_version:
        words += ["--protocol-version", spec.protocol_version]
    if spec.timeout is not None and spec.timeout != default.timeout:
        words += ["--timeout", f"{spec.timeout:g}"]
    if spec.max_message_size != default.max_message_size:
        words += ["--max-message-size", str(spec.max_message_size)]
    return words


def _stdio_options(spec: ServerSpec, command: str) -> list[str]:
    words: list[str] = []
    for name, value in spec.env.items():
        words += ["--env", f"{name}={value}"]
    if spec.cwd:
        words += ["--cwd", spec.cwd]
    if spec.inherit_env:
        words.append("--inherit-env")
    return [*words, "--", command, *spec.args]


def server_options(spec: ServerSpec, roots: list[str] | None = None) -> list[str]:
    """Words that select this server and its settings (quoting happens later).

    `roots`: the roots the client offers (paths or `file:` URIs).
    """
    words = _root_options(roots)
    if spec.name and spec.config_path:
        # The config file holds the rest (env, headers, OAuth settings).
        return [*words, "--config", spec.config_path, "--server", spec.name]
    words += _remote_options(spec) + _session_options(spec)
    if spec.is_demo or not spec.command:
        return words
    return words + _stdio_options(spec, spec.command)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def quote_word(word: str, refs: dict[str, str]) -> str:
    """One shell word: literal parts single-quoted, secrets as "$VARIABLE".

    `refs` maps each secret value to its variable, longest value first.
    """
    if not refs:
        return shlex.quote(word)
    pattern = re.compile("|".join(re.escape(value) for value in refs))
    parts: list[str] = []
    position = 0
    for match in pattern.finditer(word):
        if match.start() > position:
            parts.append(shlex.quote(word[position : match.start()]))
        name = refs[match.group(0)]
        parts.append(f'"${name}"' if _NAME.fullmatch(name) else "'***'")
        position = match.end()
    if position < len(word) or not parts:
        parts.append(shlex.quote(word[position:]))
    return "".join(parts)


def call_command(
    spec: ServerSpec,
    tool: str,
    arguments: JSONObject,
    schema: JSONObject | None,
    roots: list[str] | None = None,
) -> str:
    """The `inspector call …` line for this call (roots: the client's roots)."""
    from inspector.forms import format_assignments

    assignments = format_assignments(schema or {"type": "object"}, arguments)
    words = ["inspector", "call", tool, *assignments, "--yes", *server_options(spec, roots)]
    refs = secret_refs(spec)
    if spec.auth is not None and spec.auth.client_key:
        refs = {**refs, spec.auth.client_key: "MCP_CLIENT_KEY_FILE"}
        refs = dict(sorted(refs.items(), key=lambda item: len(item[0]), reverse=True))
    return " ".join(quote_word(word, refs) for word in words)
