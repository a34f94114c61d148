"""The `inspector` command line that repeats a call made in the TUI.

Secrets never appear in it: each secret value (see `recording.secret_refs`)
becomes a reference to an environment variable (`"$GITHUB_TOKEN"`), for the
person to set before running it.  Everything else is a literal and is
single-quoted, so the shell expands nothing in it: `price=$PATH` stays
exactly that.  A word that mixes literal text and a secret quotes each part
on its own: `'message=token is '"$GITHUB_PAT"`.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from inspector.core.record.secret_mask import secret_refs
from inspector.core.servers.spec import ServerSpec

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["call_command", "quote_word", "server_options"]


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
    if config.client_id:
        words += ["--client-id", config.client_id]
    if config.client_secret:
        words += ["--client-secret-env", "MCP_CLIENT_SECRET"]
    if config.client_metadata_url:
        words += ["--client-metadata-url", config.client_metadata_url]
    if config.callback_port != default.callback_port:
        words += ["--oauth-port", str(config.callback_port)]
    if config.timeout != default.timeout:
        words += ["--oauth-timeout", f"{config.timeout:g}"]
    if config.browser != default.browser:
        words += ["--oauth-browser", config.browser]
    if config.grant != default.grant:
        words += ["--oauth-grant", config.grant]
    if config.assertion:
        words += ["--assertion-env", "MCP_ASSERTION"]
    if config.client_key:
        # The key's file is not known here, only its text: name it by variable.
        words += ["--client-key", config.client_key]
    if config.client_key_algorithm != default.client_key_algorithm:
        words += ["--client-key-alg", config.client_key_algorithm]
    if config.issuer:
        words += ["--oauth-issuer", config.issuer]
    if config.allow_cross_origin:
        words.append("--allow-cross-origin-auth")
    if config.id_token:
        words += ["--id-token-env", "MCP_ID_TOKEN"]
    for flag, value in (
        ("--idp-issuer", config.idp_issuer),
        ("--idp-token-endpoint", config.idp_token_endpoint),
        ("--idp-client-id", config.idp_client_id),
    ):
        if value:
            words += [flag, value]
    if config.idp_client_secret:
        words += ["--idp-client-secret-env", "MCP_IDP_CLIENT_SECRET"]
    if config.dpop != default.dpop:
        words += ["--dpop", config.dpop]
    return words


def _root_path(root: str) -> str | None:
    if not root.startswith("file:"):
        return root if "://" not in root else None
    parts = urlsplit(root)
    return str(Path(unquote(parts.path))) if parts.netloc in ("", "localhost") else None


def server_options(spec: ServerSpec, roots: list[str] | None = None) -> list[str]:
    """Words that select this server and its settings (quoting happens later).

    `roots`: the roots the client offers (paths or `file:` URIs).
    """
    words: list[str] = []
    for root in roots or ():
        path = _root_path(root)
        if path is not None:
            words += ["--root", path]
    if spec.name and spec.config_path:
        # The config file holds the rest (env, headers, OAuth settings).
        return [*words, "--config", spec.config_path, "--server", spec.name]
    if spec.url:
        words += ["--url", spec.url]
        if spec.transport in ("http", "sse"):
            words += ["--transport", spec.transport]
        for name, value in spec.headers.items():
            words += ["--header", f"{name}: {value}"]
        words += _auth_options(spec)
    if spec.era != "auto":
        words += ["--era", spec.era]
    if spec.protocol_version:
        words += ["--protocol-version", spec.protocol_version]
    if spec.timeout is not None and spec.timeout != ServerSpec().timeout:
        words += ["--timeout", f"{spec.timeout:g}"]
    if spec.max_message_size != ServerSpec().max_message_size:
        words += ["--max-message-size", str(spec.max_message_size)]
    if spec.is_demo or not spec.command:
        return words
    for name, value in spec.env.items():
        words += ["--env", f"{name}={value}"]
    if spec.cwd:
        words += ["--cwd", spec.cwd]
    if spec.inherit_env:
        words.append("--inherit-env")
    return [*words, "--", spec.command, *spec.args]


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
