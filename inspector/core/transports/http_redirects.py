"""Redirects an HTTP client of the inspector meets: where one points, and one to
another origin refused when the request carries the person's headers or
credentials (they were given for the first origin, not for the second)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

import httpx2

from inspector.core.protocol.errors import RedirectRefused

__all__ = ["origin_text", "redirect_guard", "redirect_refused", "redirect_target"]


def redirect_target(response: httpx2.Response) -> httpx2.URL | None:
    """Where a redirect points (None: not a redirect, or a Location httpx
    itself reports as malformed)."""
    if not response.has_redirect_location:
        return None
    try:
        return response.request.url.join(response.headers["location"])
    except (httpx2.InvalidURL, KeyError):
        return None


def redirect_refused(source: httpx2.URL, target: httpx2.URL) -> RedirectRefused:
    """The error for a redirect from `source` to another origin, saying what was withheld and what to do."""
    source_origin, target_origin = origin_text(source), origin_text(target)
    message = (
        f"{source} redirected to {target}, on another origin ({source_origin} → {target_origin}); "
        f"not followed, so that headers and credentials given for {source_origin} are not sent to "
        f"{target_origin}. If you trust it, connect to {target} directly"
    )
    return RedirectRefused(message, source=str(source), target=str(target))


def redirect_guard(header_names: Iterable[str]) -> Callable[[httpx2.Response], Awaitable[None]]:
    """A response hook for other HTTP clients that send the person's headers
    (the login probe): a redirect to another origin of a request carrying
    one of them, or Authorization or a cookie, is refused."""
    names = {name.lower() for name in header_names} | {"authorization", "cookie"}

    async def guard(response: httpx2.Response) -> None:
        target = redirect_target(response)
        if target is None or target.origin == response.request.url.origin:
            return
        if any(name.lower() in names for name in response.request.headers):
            raise redirect_refused(response.request.url, target)

    return guard


def origin_text(url: httpx2.URL) -> str:
    """The URL's origin as written: scheme, host, and the port when it is not the scheme's default."""
    origin = url.origin
    default = {"http": 80, "https": 443}.get(origin.scheme)
    port = f":{origin.port}" if origin.port is not None and origin.port != default else ""
    return f"{origin.scheme}://{origin.host}{port}"
