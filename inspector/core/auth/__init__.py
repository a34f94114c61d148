"""Authorization for remote servers: static credentials, the OAuth 2.1 flow
(through the official SDK's OAuth client), token storage, and the auth log
the debugger shows.

Light on import: the command line builds `AuthConfig`s without loading the
SDK; the OAuth client itself is loaded when a server first asks for
authorization (or a token for it is stored).

What is where (callers import a name from the module that defines it):

- `AuthConfig` (config.py, on `ServerSpec.auth`): the settings (grants: the authorization
  code with a browser, client credentials, the jwt-bearer grant, and
  enterprise-managed authorization's ID-JAG exchange; DPoP-bound tokens).
- `OAuthSession` / `session_for(spec)` (session.py): one server's live state: `log`
  (an `AuthLog`), `login()`, `preflight()`, `logout()`, `status()`, `cancel()`.
- `AuthLog` / `AuthEvent` / `HttpExchange` (log.py): the step events a UI subscribes
  to, and `events_from_frames` to read them back from a traffic log.
- `TokenStore` / `MemoryTokenStore` / `default_store()` (store.py);
  `LoopbackListener` (loopback.py); `SecretSet` (oauth_secrets.py);
  `AuthError` (errors.py, a `ConnectError`), `LoginAborted` (cancelled, denied, timed out) and
  its `LoginTimedOut` (timed out).
"""
