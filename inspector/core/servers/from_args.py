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
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from inspector.core.servers.client_configs import Asker
    from inspector.core.servers.spec import ServerSpec

__all__ = ["UsageError", "spec_from_args", "split_server_command"]


class UsageError(Exception):
    """A command line that cannot be acted on."""


def split_server_command(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    argv = list(argv)
    if "--" in argv:
        index = argv.index("--")
        return argv[:index], argv[index + 1 :]
    return argv, []


def pairs(values: Sequence[str] | None, sep: str, what: str) -> dict[str, str]:
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
    from inspector.core.servers.client_configs import ConfigError, spec_from_file
    from inspector.core.servers.spec import ServerSpec, demo_spec

    url = getattr(args, "url", None)
    config = getattr(args, "config", None)
    chosen = sum(bool(x) for x in (url, config, server_command))
    if chosen > 1:
        raise UsageError("name one server: `-- COMMAND`, --url or --config")
    if config:
        try:
            spec = spec_from_file(config, getattr(args, "server", None), ask=ask)
        except ConfigError as exc:
            raise UsageError(input_hint(exc)) from exc
        spec.config_path = os.path.abspath(config)
    elif url:
        spec = ServerSpec(transport="auto", url=url)
    elif server_command:
        spec = ServerSpec(transport="stdio", command=server_command[0], args=server_command[1:])
    elif getattr(args, "server", None):
        from inspector.core.servers.discovery import find_server

        found = find_server(args.server)
        if found is None:
            raise UsageError(f"no server named {args.server!r} in the config files found (see `inspector servers`)")
        try:
            spec = found.resolve(ask)
        except ConfigError as exc:
            raise UsageError(f"{args.server} in {found.path}: {input_hint(exc)}") from exc
    else:
        spec = demo_spec()
    transport = getattr(args, "transport", None)
    if transport:
        if transport == "stdio" and not spec.command:
            raise UsageError("--transport stdio needs a server command after --")
        if transport in ("http", "sse") and not spec.url:
            raise UsageError(f"--transport {transport} needs --url")
        spec.transport = transport
    headers = pairs(getattr(args, "header", None), ":", "--header")
    if headers:
        from inspector.core.record.secret_mask import secret_header

        if not spec.url:
            raise UsageError("--header only applies to HTTP servers (--url)")
        spec.headers.update(headers)
        spec.secret_names.update(name for name in headers if secret_header(spec, name))
    apply_auth_options(args, spec)
    env = pairs(getattr(args, "env", None), "=", "--env")
    if env:
        if spec.url:
            raise UsageError("--env only applies to stdio servers")
        spec.env.update(env)
    cwd = getattr(args, "cwd", None)
    if cwd:
        if not os.path.isdir(cwd):
            raise UsageError(f"--cwd {cwd}: no such directory")
        spec.cwd = cwd
    if getattr(args, "inherit_env", None):
        spec.inherit_env = True
    version = getattr(args, "protocol_version", None)
    if version:
        from inspector.core.protocol.versions import KNOWN_VERSIONS

        if version not in KNOWN_VERSIONS:
            raise UsageError(f"unknown protocol version {version!r}; known: {', '.join(KNOWN_VERSIONS)}")
        spec.protocol_version = version
    era = getattr(args, "era", None)
    if era:
        spec.era = era
    if getattr(args, "advertise_apps", None):
        spec.advertise_apps = True
    timeout = getattr(args, "timeout", None)
    if timeout is not None:
        if timeout <= 0:
            raise UsageError("--timeout must be positive")
        spec.timeout = timeout
    max_size = getattr(args, "max_message_size", None)
    if max_size is not None:
        from inspector.core.servers.spec import parse_size

        try:
            spec.max_message_size = parse_size(max_size)
        except ValueError as exc:
            raise UsageError(f"--max-message-size: {exc}") from exc
    return spec


def input_hint(exc: Exception) -> str:
    inputs = getattr(exc, "inputs", None)
    if not inputs:
        return str(exc)
    asked = ", ".join(item.id for item in inputs)
    return f"{exc} (VS Code inputs {asked}: run on a terminal to be asked, or set those variables)"


def apply_auth_options(args: argparse.Namespace, spec: ServerSpec) -> None:
    """Static credentials and OAuth settings from the flags, over a config entry's."""
    names = (
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
    given = {name: getattr(args, name) for name in names if getattr(args, name, None) not in (None, False)}
    if not spec.url:
        if given:
            flags = ", ".join("--" + name.replace("_", "-") for name in given)
            raise UsageError(f"{flags}: only for remote (HTTP) servers")
        return
    from inspector.core.auth.config import AuthConfig

    config = spec.auth if spec.auth is not None else AuthConfig()
    spec.auth = config
    bearer = given.get("bearer")
    if "bearer_env" in given:
        if bearer:
            raise UsageError("give --bearer or --bearer-env, not both")
        bearer = from_env(given["bearer_env"], "--bearer-env")
    if bearer:
        spec.headers["Authorization"] = f"Bearer {bearer}"
        spec.secret_names.add("Authorization")
    if any(name.lower() == "authorization" for name in spec.headers) or given.get("no_oauth"):
        config.oauth = False
    if "client_id" in given:
        config.client_id = given["client_id"]
    secret = given.get("client_secret")
    if "client_secret_env" in given:
        if secret:
            raise UsageError("give --client-secret or --client-secret-env, not both")
        secret = from_env(given["client_secret_env"], "--client-secret-env")
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
    port = given.get("oauth_port")
    if port is not None:
        if not 0 <= port < 65536:
            raise UsageError("--oauth-port must be 0..65535 (0: any free port)")
        config.callback_port = port
    timeout = given.get("oauth_timeout")
    if timeout is not None:
        if timeout <= 0:
            raise UsageError("--oauth-timeout must be positive")
        config.timeout = timeout
    if "oauth_browser" in given:
        config.browser = given["oauth_browser"]
    if "oauth_grant" in given:
        config.grant = given["oauth_grant"]
    if "client_key" in given:
        try:
            with open(given["client_key"], encoding="utf-8") as handle:
                config.client_key = handle.read()
        except OSError as exc:
            raise UsageError(f"--client-key {given['client_key']}: {exc.strerror or exc}") from exc
    if "client_key_alg" in given:
        config.client_key_algorithm = given["client_key_alg"]
    if "oauth_issuer" in given:
        config.issuer = given["oauth_issuer"]
    if given.get("allow_cross_origin_auth"):
        config.allow_cross_origin = True
    if given.get("no_revoke"):
        config.revoke = False
    if "dpop" in given:
        config.dpop = given["dpop"]
    if "assertion_env" in given:
        config.assertion = from_env(given["assertion_env"], "--assertion-env")
    if "id_token_env" in given:
        config.id_token = from_env(given["id_token_env"], "--id-token-env")
    if "idp_client_secret_env" in given:
        config.idp_client_secret = from_env(given["idp_client_secret_env"], "--idp-client-secret-env")
    for name in ("idp_issuer", "idp_token_endpoint", "idp_client_id"):
        if name in given:
            setattr(config, name, given[name])
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


def from_env(name: str, flag: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise UsageError(f"{flag} {name}: the environment variable is not set")
    return value
