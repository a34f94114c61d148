"""Server specs from client configuration files.

Two shapes exist in the wild: `{"mcpServers": {name: entry}}` (Claude
Desktop, Claude Code, Cursor, Windsurf) and `{"servers": {name: entry}}`
(VS Code, which also has `inputs` for prompted values).  An entry is either
stdio (`command`, `args`, `env`, `cwd`) or remote (`url`, `headers`, and a
`type`/`transport` of `http`, `streamable-http`, `sse`; `oauth` settings).  `${VAR}` and
`${env:VAR}` are expanded from the environment.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any

from .spec import ServerSpec

__all__ = ["ConfigError", "load_config", "server_names", "servers_in", "spec_from_entry", "spec_from_file"]

_VAR = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")

_TRANSPORT_ALIASES = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamablehttp": "http",
    "streamable_http": "http",
    "sse": "sse",
}

_SECRET_HINT = re.compile(r"(?i)(token|secret|key|password|passwd|auth|credential|cookie)")


class ConfigError(ValueError):
    """A configuration file or entry that cannot be used, with the reason."""


_INPUT = re.compile(r"\$\{input:([A-Za-z0-9_.-]+)\}")


def input_variable(input_id: str) -> str:
    """The environment variable that answers VS Code's `${input:ID}` prompt."""
    return "INSPECTOR_INPUT_" + re.sub(r"[^A-Z0-9]+", "_", input_id.upper()).strip("_")


def expand(value: str, environ: Mapping[str, str], missing: list[str]) -> str:
    # VS Code prompts for `${input:ID}` values; a one-shot tool reads them
    # from INSPECTOR_INPUT_<ID> instead, and `${workspaceFolder}` is here.
    value = value.replace("${workspaceFolder}", os.getcwd())

    def answer(match: re.Match[str]) -> str:
        name = input_variable(match.group(1))
        if name in environ:
            return environ[name]
        missing.append(name)
        return ""

    value = _INPUT.sub(answer, value)

    def substitute(match: re.Match[str]) -> str:
        name, fallback = match.group(1), match.group(2)
        if name in environ:
            return environ[name]
        if fallback is not None:
            return fallback
        missing.append(name)
        return ""

    return _VAR.sub(substitute, value)


def load_config(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from exc
    try:
        data = json.loads(text)
    except ValueError:
        # VS Code's files allow comments and trailing commas.
        try:
            data = json.loads(_strip_jsonc(text))
        except ValueError as exc:
            raise ConfigError(f"{path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be an object")
    return data


def _strip_jsonc(text: str) -> str:
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
            continue
        if ch == '"':
            in_string = True
            out.append(ch)
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(ch)
            i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


def _servers(data: dict[str, Any]) -> dict[str, Any]:
    for key in ("mcpServers", "servers", "mcp_servers"):
        section = data.get(key)
        if isinstance(section, dict):
            return section
    # VS Code user settings nest it: {"mcp": {"servers": {...}}}
    nested = data.get("mcp")
    if isinstance(nested, dict) and isinstance(nested.get("servers"), dict):
        return nested["servers"]
    return {}


def server_names(data: dict[str, Any]) -> list[str]:
    return list(_servers(data))


def servers_in(data: dict[str, Any]) -> dict[str, Any]:
    """The name -> entry map of a config file, whichever shape it has."""
    return _servers(data)


def _string_map(value: Any, what: str, name: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"server {name!r}: {what} must be an object")
    return {str(k): str(v) for k, v in value.items() if v is not None}


def _auth_settings(entry: dict[str, Any], headers: dict[str, str], x: Any) -> Any:
    """OAuth settings of a remote entry (`oauth`: clientId, clientSecret, clientMetadataUrl,
    callbackPort, timeout, browser, enabled); an Authorization header turns OAuth off."""
    from .auth.config import AuthConfig

    raw = entry.get("oauth") if entry.get("oauth") is not None else entry.get("auth")
    if isinstance(raw, dict):
        raw = {k: x(v) if isinstance(v, str) else v for k, v in raw.items()}
    config = AuthConfig.from_entry(raw)
    if any(key.lower() == "authorization" for key in headers):
        config.oauth = False
    return config


def spec_from_entry(name: str, entry: Any, environ: Mapping[str, str] | None = None) -> ServerSpec:
    environ = os.environ if environ is None else environ
    if not isinstance(entry, dict):
        raise ConfigError(f"server {name!r}: the entry must be an object")
    missing: list[str] = []

    def x(value: str) -> str:
        return expand(value, environ, missing)

    kind = str(entry.get("type") or entry.get("transport") or "").lower()
    url = entry.get("url") or entry.get("serverUrl")
    command = entry.get("command")
    spec = ServerSpec(name=name)
    if url is not None or kind in ("http", "sse", "streamable-http", "streamablehttp", "streamable_http"):
        if not isinstance(url, str) or not url:
            raise ConfigError(f"server {name!r}: a remote entry needs a url")
        spec.url = x(url)
        spec.transport = _TRANSPORT_ALIASES.get(kind, "auto") if kind else "auto"
        spec.headers = {k: x(v) for k, v in _string_map(entry.get("headers"), "headers", name).items()}
        spec.secret_names = {k for k in spec.headers if _SECRET_HINT.search(k)}
        spec.auth = _auth_settings(entry, spec.headers, x)
    elif command is not None:
        if not isinstance(command, str) or not command:
            raise ConfigError(f"server {name!r}: command must be a non-empty string")
        args = entry.get("args") or []
        if not isinstance(args, list):
            raise ConfigError(f"server {name!r}: args must be an array")
        spec.transport = "stdio"
        spec.command = x(command)
        spec.args = [x(str(a)) for a in args]
        spec.env = {k: x(v) for k, v in _string_map(entry.get("env"), "env", name).items()}
        spec.secret_names = {k for k in spec.env if _SECRET_HINT.search(k)}
        cwd = entry.get("cwd")
        if cwd is not None:
            spec.cwd = os.path.expanduser(x(str(cwd)))
    else:
        raise ConfigError(f"server {name!r}: needs either a command (stdio) or a url (HTTP)")
    era = entry.get("era")
    if isinstance(era, str):
        spec.era = era
    version = entry.get("protocolVersion")
    if isinstance(version, str):
        spec.protocol_version = version
    if missing:
        spec.secret_names.update(missing)
        raise ConfigError(f"server {name!r}: environment variable(s) not set: {', '.join(sorted(set(missing)))}")
    return spec


def spec_from_file(path: str, name: str | None, environ: Mapping[str, str] | None = None) -> ServerSpec:
    data = load_config(path)
    servers = _servers(data)
    if not servers:
        raise ConfigError(f"{path}: no servers found (expected an 'mcpServers' or 'servers' object)")
    if name is None:
        if len(servers) != 1:
            raise ConfigError(f"{path} defines {len(servers)} servers; pick one with --server: {', '.join(servers)}")
        name = next(iter(servers))
    if name not in servers:
        raise ConfigError(f"{path}: no server named {name!r}; known: {', '.join(servers)}")
    return spec_from_entry(name, servers[name], environ)
