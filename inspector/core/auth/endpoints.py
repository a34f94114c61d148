"""Where an authorization flow may send the person and their credentials.

The MCP spec's Communication Security section: every authorization server
endpoint MUST be served over HTTPS.  Plain http is accepted on loopback only
(127.0.0.0/8, ::1, localhost), where nothing crosses a network: local
development and test servers.  An endpoint on another origin than the
issuer is legal, but it is where the person's login or the client's
credentials go; the person is shown it before the browser opens.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

__all__ = ["ENDPOINT_NAMES", "insecure", "is_loopback", "origin", "other_origins"]

ENDPOINT_NAMES = {
    "authorization_endpoint": "authorization endpoint",
    "token_endpoint": "token endpoint",
    "registration_endpoint": "registration endpoint",
}
_DEFAULT_PORTS = {"http": 80, "https": 443}


def is_loopback(host: str | None) -> bool:
    """Whether `host` is a loopback address or a ``localhost`` name."""
    if not host:
        return False
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def insecure(url: str) -> str | None:
    """Why `url` may not be used for authorization (None: it may)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "https":
        return None
    if scheme == "http" and is_loopback(parts.hostname):
        return None
    if scheme == "http":
        return "plain http on a host that is not loopback (the MCP spec requires HTTPS for authorization servers)"
    return f"scheme {scheme or '(none)'!r} (the MCP spec requires HTTPS for authorization servers)"


def origin(url: str) -> str:
    """scheme://host[:port], the default port left out (RFC 6454 in spirit)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None or port == _DEFAULT_PORTS.get(scheme):
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def other_origins(issuer: str, endpoints: dict[str, str | None]) -> list[tuple[str, str]]:
    """(what, url) for each endpoint whose origin is not the issuer's."""
    home = origin(issuer)
    return [(name, url) for name, url in endpoints.items() if url and origin(url) != home]
