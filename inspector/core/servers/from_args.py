"""A server named on the command line, as a ServerSpec.

What the options that name and reach a server (`-- COMMAND`, `--url`,
`--config`/`--server`, `--header`, `--env`, the authorization options, ...)
mean, whichever face parsed them: the command line, a visit to `inspector
serve`, a collection's default server.  The argparse set-up is the command
line's own (inspector.cli).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.core.auth.config import AuthConfig
    from inspector.core.servers.client_configs import Asker
    from inspector.core.servers.spec import ServerSpec

__all__ = ["UsageError", "spec_from_args", "split_server_command"]


class UsageError(Exception):
    """A command line that cannot be acted on."""


def split_server_command(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """The inspector's own arguments and the server command after the first `--`."""
    argv = list(argv)
    if "--" in argv:
        index = argv.index("--")
        return argv[:index], argv[index + 1 :]
    return argv, []


def pairs(values: Sequence[str] | None, sep: str, what: str) -> dict[str, str]:
    """`NAME=VALUE` (or `NAME: VALUE`, spaces stripped) arguments as a map; `UsageError` names *what* for a bad one."""
    out: dict[str, str] = {}
    for value in values or ():
        key, found, rest = value.partition(sep)
        if not found or not key.strip():
            raise UsageError(f"{what} must look like NAME{sep}VALUE, got {value!r}")
        out[key.strip()] = rest.strip() if sep == ":" else rest
    return out


def spec_from_args(args: argparse.Namespace, server_command: list[str], ask: Asker | None = None) -> ServerSpec:
    """The server *args* name (the demo server when they name none).

    *ask* answers a config entry's VS Code `${input:ID}` variables (the
    command line passes one that asks on the terminal); without it they come
    from `INSPECTOR_INPUT_<ID>` or their defaults."""
    spec = _named_server(args, server_command, ask)
    for apply in _SERVER_OPTIONS:
        apply(args, spec)
    return spec


def _named_server(args: argparse.Namespace, server_command: list[str], ask: Asker | None) -> ServerSpec:
    """The one server `-- COMMAND`, --url, --config or --server names."""
    from inspector.core.servers.spec import ServerSpec, demo_spec

    url = getattr(args, "url", None)
    config = getattr(args, "config", None)
    chosen = sum(bool(x) for x in (url, config, server_command))
    if chosen > 1:
        raise UsageError("name one server: `-- COMMAND`, --url or --config")
    if config:
        return _from_config_file(config, getattr(args, "server", None), ask)
    if url:
        return ServerSpec(transport="auto", url=url)
    if server_command:
        return ServerSpec(transport="stdio", command=server_command[0], args=server_command[1:])
    if getattr(args, "server", None):
        return _discovered(args.server, ask)
    return demo_spec()


def _from_config_file(config: str, server: str | None, ask: Asker | None) -> ServerSpec:
    from inspector.core.servers.client_configs import ConfigError, spec_from_file

    try:
        spec = spec_from_file(config, server, ask=ask)
    except ConfigError as exc:
        raise UsageError(input_hint(exc)) from exc
    spec.config_path = os.path.abspath(config)
    return spec


def _discovered(name: str, ask: Asker | None) -> ServerSpec:
    """The server *name* in the client config files found on this machine."""
    from inspector.core.servers.client_configs import ConfigError
    from inspector.core.servers.discovery import find_server

    found = find_server(name)
    if found is None:
        raise UsageError(f"no server named {name!r} in the config files found (see `inspector servers`)")
    try:
        return found.resolve(ask)
    except ConfigError as exc:
        raise UsageError(f"{name} in {found.path}: {input_hint(exc)}") from exc


def _apply_transport(args: argparse.Namespace, spec: ServerSpec) -> None:
    transport = getattr(args, "transport", None)
    if not transport:
        return
    if transport == "stdio" and not spec.command:
        raise UsageError("--transport stdio needs a server command after --")
    if transport in ("http", "sse") and not spec.url:
        raise UsageError(f"--transport {transport} needs --url")
    spec.transport = transport


def _apply_headers(args: argparse.Namespace, spec: ServerSpec) -> None:
    headers = pairs(getattr(args, "header", None), ":", "--header")
    if not headers:
        return
    from inspector.core.record.secret_mask import secret_header

    if not spec.url:
        raise UsageError("--header only applies to HTTP servers (--url)")
    spec.headers.update(headers)
    spec.secret_names.update(name for name in headers if secret_header(spec, name))


def _apply_env(args: argparse.Namespace, spec: ServerSpec) -> None:
    env = pairs(getattr(args, "env", None), "=", "--env")
    if not env:
        return
    if spec.url:
        raise UsageError("--env only applies to stdio servers")
    spec.env.update(env)


def _apply_cwd(args: argparse.Namespace, spec: ServerSpec) -> None:
    cwd = getattr(args, "cwd", None)
    if not cwd:
        return
    if not os.path.isdir(cwd):
        raise UsageError(f"--cwd {cwd}: no such directory")
    spec.cwd = cwd


def _apply_flags(args: argparse.Namespace, spec: ServerSpec) -> None:
    """The options taken as given: --inherit-env, --era, --advertise-apps."""
    for name in ("inherit_env", "era", "advertise_apps"):
        value = getattr(args, name, None)
        if value:
            setattr(spec, name, value)


def _apply_protocol_version(args: argparse.Namespace, spec: ServerSpec) -> None:
    version = getattr(args, "protocol_version", None)
    if not version:
        return
    from inspector.core.protocol.versions import KNOWN_VERSIONS

    if version not in KNOWN_VERSIONS:
        raise UsageError(f"unknown protocol version {version!r}; known: {', '.join(KNOWN_VERSIONS)}")
    spec.protocol_version = version


def _apply_timeout(args: argparse.Namespace, spec: ServerSpec) -> None:
    timeout = getattr(args, "timeout", None)
    if timeout is None:
        return
    if timeout <= 0:
        raise UsageError("--timeout must be positive")
    spec.timeout = timeout


def _apply_max_message_size(args: argparse.Namespace, spec: ServerSpec) -> None:
    max_size = getattr(args, "max_message_size", None)
    if max_size is None:
        return
    from inspector.core.servers.spec import parse_size

    try:
        spec.max_message_size = parse_size(max_size)
    except ValueError as exc:
        raise UsageError(f"--max-message-size: {exc}") from exc


def input_hint(exc: Exception) -> str:
    """The error's text, with how to answer the VS Code inputs it lacks when it names some."""
    inputs = getattr(exc, "inputs", None)
    if not inputs:
        return str(exc)
    asked = ", ".join(item.id for item in inputs)
    return f"{exc} (VS Code inputs {asked}: run on a terminal to be asked, or set those variables)"


# The authorization flags (argparse's names), in the order --help lists them.
_AUTH_FLAGS = (
    "bearer",
    "bearer_env",
    "no_oauth",
    "client_id",
    "client_secret",
    "client_secret_env",
    "client_metadata_url",
    "oauth_port",
    "oauth_timeout",
    "oauth_browser",
    "oauth_grant",
    "client_key",
    "client_key_alg",
    "oauth_issuer",
    "assertion_env",
    "allow_cross_origin_auth",
    "no_revoke",
    "dpop",
    "id_token_env",
    "idp_issuer",
    "idp_token_endpoint",
    "idp_client_id",
    "idp_client_secret_env",
)


def apply_auth_options(args: argparse.Namespace, spec: ServerSpec) -> None:
    """Static credentials and OAuth settings from the flags, over a config entry's."""
    # A flag left at its default (None, or False for a switch) is not given;
    # a number 0 is given (`--oauth-port 0`), though it equals False.
    given = {
        name: value for name in _AUTH_FLAGS if (value := getattr(args, name, None)) is not None and value is not False
    }
    if not spec.url:
        if given:
            flags = ", ".join("--" + name.replace("_", "-") for name in given)
            raise UsageError(f"{flags}: only for remote (HTTP) servers")
        return
    from inspector.core.auth.config import AuthConfig

    config = spec.auth if spec.auth is not None else AuthConfig()
    spec.auth = config
    _apply_bearer(given, spec, config)
    _apply_client(given, config)
    for flag, attribute, value_of in _AUTH_SETTINGS:
        if flag in given:
            setattr(config, attribute, value_of(given[flag]))
    _check_grant(config)


def _one_of(given: dict[str, Any], plain: str, env: str) -> Any:
    """The value of --PLAIN, or of the variable --PLAIN-ENV names (not both)."""
    value = given.get(plain)
    if env in given:
        if value:
            raise UsageError(f"give {_flag(plain)} or {_flag(env)}, not both")
        value = from_env(given[env], _flag(env))
    return value


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _apply_bearer(given: dict[str, Any], spec: ServerSpec, config: AuthConfig) -> None:
    bearer = _one_of(given, "bearer", "bearer_env")
    if bearer:
        spec.headers["Authorization"] = f"Bearer {bearer}"
        spec.secret_names.add("Authorization")
    if any(name.lower() == "authorization" for name in spec.headers) or given.get("no_oauth"):
        config.oauth = False


def _apply_client(given: dict[str, Any], config: AuthConfig) -> None:
    """The client's identity: --client-id, its secret, its metadata document's URL."""
    if "client_id" in given:
        config.client_id = given["client_id"]
    secret = _one_of(given, "client_secret", "client_secret_env")
    if secret:
        config.client_secret = secret
    if config.client_secret and not config.client_id:
        raise UsageError("a client secret needs its --client-id")
    url = given.get("client_metadata_url")
    if url:
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        if parts.scheme != "https" or parts.path in ("", "/"):
            raise UsageError("--client-metadata-url must be an https URL with a path (the document's own URL)")
        config.client_metadata_url = url


def _port(port: int) -> int:
    if not 0 <= port < 65536:
        raise UsageError("--oauth-port must be 0..65535 (0: any free port)")
    return port


def _login_timeout(timeout: float) -> float:
    if timeout <= 0:
        raise UsageError("--oauth-timeout must be positive")
    return timeout


def _key_file(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as exc:
        raise UsageError(f"--client-key {path}: {exc.strerror or exc}") from exc


def _as_given(value: Any) -> Any:
    return value


def _env_value(flag: str) -> Callable[[str], str]:
    return lambda name: from_env(name, flag)


# flag -> the AuthConfig attribute it sets, and how the flag's value becomes
# the attribute's (checked, read from a file or from the environment); in
# this order, so the first wrong flag is the one reported.
_AUTH_SETTINGS: tuple[tuple[str, str, Callable[[Any], Any]], ...] = (
    ("oauth_port", "callback_port", _port),
    ("oauth_timeout", "timeout", _login_timeout),
    ("oauth_browser", "browser", _as_given),
    ("oauth_grant", "grant", _as_given),
    ("client_key", "client_key", _key_file),
    ("client_key_alg", "client_key_algorithm", _as_given),
    ("oauth_issuer", "issuer", _as_given),
    ("allow_cross_origin_auth", "allow_cross_origin", lambda _given: True),
    ("no_revoke", "revoke", lambda _given: False),
    ("dpop", "dpop", _as_given),
    ("assertion_env", "assertion", _env_value("--assertion-env")),
    ("id_token_env", "id_token", _env_value("--id-token-env")),
    ("idp_client_secret_env", "idp_client_secret", _env_value("--idp-client-secret-env")),
    ("idp_issuer", "idp_issuer", _as_given),
    ("idp_token_endpoint", "idp_token_endpoint", _as_given),
    ("idp_client_id", "idp_client_id", _as_given),
)


def _check_grant(config: AuthConfig) -> None:
    """The grant chosen has what it needs."""
    if config.grant == "enterprise":
        missing = [
            flag
            for flag, present in (
                ("--id-token-env VAR", config.id_token),
                ("--idp-issuer or --idp-token-endpoint", config.idp_issuer or config.idp_token_endpoint),
                ("--client-id", config.client_id),
            )
            if not present
        ]
        if missing:
            raise UsageError(f"--oauth-grant enterprise needs {', '.join(missing)}")
    if config.grant == "jwt_bearer" and not config.assertion:
        raise UsageError("--oauth-grant jwt_bearer needs the workload JWT: --assertion-env VAR")
    if config.grant == "client_credentials" and not (config.client_id and (config.client_secret or config.client_key)):
        raise UsageError("--oauth-grant client_credentials needs --client-id and a --client-secret or --client-key")


# What the options after the server's name do to its spec, in this order
# (the first wrong option is the one reported).
_SERVER_OPTIONS: tuple[Callable[[argparse.Namespace, ServerSpec], None], ...] = (
    _apply_transport,
    _apply_headers,
    apply_auth_options,
    _apply_env,
    _apply_cwd,
    _apply_flags,
    _apply_protocol_version,
    _apply_timeout,
    _apply_max_message_size,
)


def from_env(name: str, flag: str) -> str:
    """The environment variable *name* that *flag* points at; `UsageError` when it is unset or empty."""
    value = os.environ.get(name)
    if not value:
        raise UsageError(f"{flag} {name}: the environment variable is not set")
    return value
