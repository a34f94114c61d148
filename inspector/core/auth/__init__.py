"""Authorization for remote servers: static credentials, the OAuth 2.1 flow
(through the official SDK's OAuth client), token storage, and the auth log
the debugger shows.

Light on import: the command line builds `AuthConfig`s without loading the
SDK; the OAuth client itself is loaded when a server first asks for
authorization (or a token for it is stored).

Public surface:

- `AuthConfig` (on `ServerSpec.auth`): the settings (grants: the authorization
  code with a browser, client credentials, the jwt-bearer grant, and
  enterprise-managed authorization's ID-JAG exchange; DPoP-bound tokens).
- `OAuthSession` / `session_for(spec)`: one server's live state: `log`
  (an `AuthLog`), `login()`, `preflight()`, `logout()`, `status()`, `cancel()`.
- `AuthLog` / `AuthEvent` / `HttpExchange`: the step events a UI subscribes
  to, and `events_from_frames` to read them back from a traffic log.
- `TokenStore` / `MemoryTokenStore` / `default_store()`; `LoopbackListener`;
  `AuthError` (a `ConnectError`), `LoginAborted` (cancelled, denied, timed out) and
  its `LoginTimedOut` (timed out).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "AuthConfig",
    "AuthError",
    "AuthEvent",
    "AuthLog",
    "HttpExchange",
    "LoginAborted",
    "LoginTimedOut",
    "LoopbackListener",
    "MemoryTokenStore",
    "OAuthSession",
    "SecretSet",
    "TokenStore",
    "config_dir",
    "default_store",
    "events_from_frames",
    "http_auth",
    "session_for",
]

_HOMES = {
    "AuthConfig": "config",
    "config_dir": "config",
    "AuthError": "errors",
    "LoginAborted": "errors",
    "LoginTimedOut": "errors",
    "AuthEvent": "log",
    "AuthLog": "log",
    "HttpExchange": "log",
    "events_from_frames": "log",
    "LoopbackListener": "loopback",
    "SecretSet": "masking",
    "OAuthSession": "session",
    "http_auth": "session",
    "session_for": "session",
    "TokenStore": "store",
    "MemoryTokenStore": "store",
    "default_store": "store",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


if TYPE_CHECKING:
    from inspector.core.auth.config import AuthConfig, config_dir
    from inspector.core.auth.errors import AuthError, LoginAborted, LoginTimedOut
    from inspector.core.auth.log import AuthEvent, AuthLog, HttpExchange, events_from_frames
    from inspector.core.auth.loopback import LoopbackListener
    from inspector.core.auth.oauth_secrets import SecretSet
    from inspector.core.auth.session import OAuthSession, http_auth, session_for
    from inspector.core.auth.store import MemoryTokenStore, TokenStore, default_store
