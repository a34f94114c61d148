"""How a remote server is authorized: the settings a face collects (flags,
config files) and hands to the core on `ServerSpec.auth`.

Static credentials (`--bearer`, an `Authorization` header) are plain headers
and need nothing here; they switch the OAuth flow off, because a person who
gave a credential wants that one used.  Everything else is for the OAuth 2.1
authorization-code flow that starts when the server answers 401 (or 403
`insufficient_scope`).

This module stays import-light: the command line builds these before it
knows whether a connection will ever need the flow.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.core.auth.session import OAuthSession
    from inspector.core.auth.store import TokenStore
    from inspector.forms.values import JSONObject

__all__ = [
    "BROWSER_MODES",
    "DEFAULT_LOGIN_TIMEOUT",
    "DPOP_MODES",
    "GRANTS",
    "AuthConfig",
    "Opener",
    "config_dir",
]

# system: open the system browser when there is one, and print the URL;
# print: only print the URL (SSH, or a browser on another machine), with the
# `ssh -L` port-forward that brings the redirect back to the loopback listener;
# handoff: print as above, and also take the URL the browser ended on, pasted
# on standard input (command line only: the TUI owns its terminal);
# headless: the inspector fetches the URL itself and follows the redirects
# (for authorization servers that approve without a person: tests, CI).
BROWSER_MODES = ("system", "print", "handoff", "headless")
GRANTS = ("authorization_code", "client_credentials", "jwt_bearer", "enterprise")
# auto: DPoP when the authorization server advertises it (dpop_signing_alg_values_supported)
# or the MCP server challenges with the DPoP scheme; on: always; off: never (bearer tokens).
DPOP_MODES = ("auto", "on", "off")
DEFAULT_LOGIN_TIMEOUT = 300.0

# Opens an authorization URL, in whatever sense fits: a browser tab, a
# printed line, an HTTP client following redirects.
Opener = Callable[[str], Awaitable[None]]


def config_dir(environ: dict[str, str] | None = None) -> Path:
    """Where the inspector keeps its own files.

    `INSPECTOR_CONFIG_DIR` wins (tests use it for isolation), then
    `$XDG_CONFIG_HOME/inspector`, then `~/.config/inspector`.
    """
    env = os.environ if environ is None else environ
    explicit = env.get("INSPECTOR_CONFIG_DIR")
    if explicit:
        return Path(explicit)
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "inspector"


# What a config file's value is turned into; _IGNORED: a value of the wrong
# kind, which leaves the default.
_IGNORED: Any = object()


def _text(value: Any) -> Any:
    return value if isinstance(value, str) and value else _IGNORED


def _switch(value: Any) -> Any:
    return value if isinstance(value, bool) else _IGNORED


def _port(value: Any) -> Any:
    return value if isinstance(value, int) and 0 <= value < 65536 else _IGNORED


def _login_timeout(value: Any) -> Any:
    return float(value) if isinstance(value, (int, float)) and value > 0 else _IGNORED


def _one_of(choices: tuple[str, ...]) -> Callable[[Any], Any]:
    return lambda value: value if value in choices else _IGNORED


def _dpop(value: Any) -> Any:
    if isinstance(value, bool):
        return "on" if value else "off"
    return value if value in DPOP_MODES else _IGNORED


def _key_file(value: Any) -> Any:
    """The private key's text, read from the file the entry names."""
    return Path(value).expanduser().read_text(encoding="utf-8") if isinstance(value, str) and value else _IGNORED


# Each AuthConfig attribute a config entry's `oauth` object sets, the keys
# that may spell it (the first one present and not null wins), and how its
# value is taken.
_ENTRY_KEYS: tuple[tuple[str, tuple[str, ...], Callable[[Any], Any]], ...] = (
    ("oauth", ("enabled",), _switch),
    ("client_id", ("clientId", "client_id"), _text),
    ("client_secret", ("clientSecret", "client_secret"), _text),
    ("client_metadata_url", ("clientMetadataUrl", "client_metadata_url"), _text),
    ("id_token", ("idToken", "id_token"), _text),
    ("idp_issuer", ("idpIssuer", "idp_issuer"), _text),
    ("idp_token_endpoint", ("idpTokenEndpoint", "idp_token_endpoint"), _text),
    ("idp_client_id", ("idpClientId", "idp_client_id"), _text),
    ("idp_client_secret", ("idpClientSecret", "idp_client_secret"), _text),
    ("callback_port", ("callbackPort", "callback_port", "redirectPort"), _port),
    ("timeout", ("timeout", "loginTimeout"), _login_timeout),
    ("browser", ("browser",), _one_of(BROWSER_MODES)),
    ("grant", ("grant", "grantType", "grant_type"), _one_of(GRANTS)),
    ("allow_cross_origin", ("allowCrossOrigin", "allow_cross_origin"), _switch),
    ("revoke", ("revoke",), _switch),
    ("dpop", ("dpop",), _dpop),
    ("issuer", ("issuer",), _text),
    ("client_key", ("clientKeyFile", "client_key_file"), _key_file),
    ("client_key_algorithm", ("clientKeyAlgorithm", "client_key_algorithm"), _text),
)


@dataclass
class AuthConfig:
    """Authorization settings for one remote server.

    oauth: start the OAuth flow when the server asks for authorization
        (False with static credentials, or `--no-oauth`).
    client_id / client_secret: a pre-registered client (used before Client ID
        Metadata Documents and dynamic registration, as the spec orders them).
    client_metadata_url: an HTTPS URL where this client's metadata document is
        hosted; used as the client id when the authorization server supports
        Client ID Metadata Documents.
    callback_port: the loopback redirect listener's port (0: any free port).
    timeout: the login's own deadline (`--oauth-timeout`), in seconds: from
        the flow's first request (discovery's first) to the token.  The
        MCP request that needed the login starts its clock (`--timeout`)
        only when it is sent with the token.
    browser: one of BROWSER_MODES.
    allow_cross_origin: use authorization, token and registration endpoints
        on another origin than the issuer without asking (`confirm`); with
        neither, such endpoints are refused.
    revoke: on logout and on a new login, revoke the tokens given up at the
        authorization server's `revocation_endpoint` (RFC 7009).
    """

    oauth: bool = True
    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None
    callback_port: int = 0
    timeout: float = DEFAULT_LOGIN_TIMEOUT
    browser: str = "system"
    # The grant: authorization_code (a person approves in a browser),
    # client_credentials (SEP-1046: a machine client with a secret, or with a
    # private key for private_key_jwt), or jwt_bearer (RFC 7523: a workload
    # identity JWT as the grant, `assertion`).
    grant: str = "authorization_code"
    client_key: str | None = None
    assertion: str | None = None
    client_key_algorithm: str = "ES256"
    token_auth_method: str | None = None
    # The issuer the pre-configured client belongs to (its credentials go nowhere else).
    issuer: str | None = None
    allow_cross_origin: bool = False
    # Revoke the tokens a logout or a new login gives up (RFC 7009); `--no-revoke` turns it off.
    revoke: bool = True
    # DPoP-bound tokens (SEP-1932, RFC 9449): one of DPOP_MODES.
    dpop: str = "auto"
    # Enterprise-managed authorization (SEP-990, grant "enterprise"): the person's ID token
    # from the enterprise identity provider is exchanged there (RFC 8693) for an ID-JAG,
    # which is the jwt-bearer grant (RFC 7523) at the MCP server's authorization server.
    # The IdP's token endpoint is given, or found from its issuer's metadata.
    id_token: str | None = None
    idp_issuer: str | None = None
    idp_token_endpoint: str | None = None
    idp_client_id: str | None = None
    idp_client_secret: str | None = None
    # Runtime collaborators, never read from a file.  `opener` replaces the
    # browser (a UI may show the URL its own way); `notify` receives the
    # lines a person must read (the URL to open); `store` replaces the token
    # store chosen from the environment.
    opener: Opener | None = field(default=None, repr=False, compare=False)
    notify: Callable[[str], None] | None = field(default=None, repr=False, compare=False)
    store: TokenStore | None = field(default=None, repr=False, compare=False)
    # In the handoff mode: the next line the person pastes (None when no more
    # will come); the command line reads standard input.  None: only the
    # loopback listener brings the redirect back.
    paste: Callable[[], Awaitable[str | None]] | None = field(default=None, repr=False, compare=False)
    # Asks the person whether to go on (True) with endpoints on other origins
    # than the issuer; given the text to show.  None: nobody to ask.
    confirm: Callable[[str], Awaitable[bool]] | None = field(default=None, repr=False, compare=False)
    # The live OAuth session, shared by every connection made with this
    # spec (reconnects keep their tokens and their auth log).
    session: OAuthSession | None = field(default=None, repr=False, compare=False)

    def secrets(self) -> list[str]:
        """The secret values the settings hold (client secret and key, assertions, ID token), to be masked."""
        kept = (self.client_secret, self.client_key, self.assertion, self.id_token, self.idp_client_secret)
        return [s for s in kept if s]

    def describe(self) -> JSONObject:
        """The settings as they may be shown: no secret values."""
        return {
            "oauth": self.oauth,
            "client_id": self.client_id,
            "client_secret": "***" if self.client_secret else None,
            "client_metadata_url": self.client_metadata_url,
            "callback_port": self.callback_port,
            "timeout": self.timeout,
            "browser": self.browser,
            "grant": self.grant,
            "client_key": "***" if self.client_key else None,
            "issuer": self.issuer,
            "allow_cross_origin": self.allow_cross_origin,
            "revoke": self.revoke,
            "dpop": self.dpop,
            "id_token": "***" if self.id_token else None,
            "idp_issuer": self.idp_issuer,
            "idp_token_endpoint": self.idp_token_endpoint,
            "idp_client_id": self.idp_client_id,
            "idp_client_secret": "***" if self.idp_client_secret else None,
        }

    @classmethod
    def from_entry(cls, entry: Any) -> AuthConfig:
        """Settings from a config file entry's `oauth` object (camelCase or snake_case keys)."""
        config = cls()
        if not isinstance(entry, dict):
            return config
        for attribute, names, take in _ENTRY_KEYS:
            value = next((entry[name] for name in names if entry.get(name) is not None), None)
            if value is None:
                continue
            taken = take(value)
            if taken is not _IGNORED:
                setattr(config, attribute, taken)
        return config
