"""The private parts of the official SDK's OAuth client that inspector/core/auth
relies on, pinned: each name exists, is what the auth code takes it for
(a coroutine method, a method, an instance attribute), has the signature the
auth code calls or overrides it with, and is still used by the SDK the way the
auth code counts on.  An SDK upgrade that moves one fails here, naming it,
instead of breaking logins at run time.

A second test keeps the list honest: every private name of the SDK's
providers that appears in inspector/core/auth must be pinned here.
"""

from __future__ import annotations

import inspect
import re
from importlib.metadata import version
from pathlib import Path

import httpx2
import pytest
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
)
from mcp.client.auth.oauth2 import OAuthContext
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from inspector.core.auth.enterprise import ObservedEnterpriseProvider
from inspector.core.auth.grants import ObservedJwtBearerProvider

AUTH_CODE = Path(__file__).resolve().parent.parent / "inspector" / "core" / "auth"
SDK = f"mcp {version('mcp')}"
PROVIDERS = (OAuthClientProvider, ClientCredentialsOAuthProvider, PrivateKeyJWTOAuthProvider)

# name -> why the auth code needs it (shown when the pin breaks)
PINNED = {
    "_initialized": "ensure_loaded() loads the store itself and sets it so the SDK's _initialize is skipped",
    "_perform_authorization": "the jwt-bearer and enterprise providers override it to make their token request",
    "_get_token_endpoint": "the jwt-bearer and enterprise providers call it for the token request's URL",
    "_fixed_client_info": "ensure_loaded() takes the client-credentials providers' own client from it",
}


def broken(name: str, what: str) -> str:
    return f"{SDK}: {name} {what}; inspector relies on it: {PINNED[name]}"


class _Storage:
    async def get_tokens(self) -> OAuthToken | None:
        return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        return None

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        return None


def _providers() -> list[OAuthClientProvider]:
    metadata = OAuthClientMetadata(redirect_uris=None, grant_types=["client_credentials"])
    storage = _Storage()
    return [
        OAuthClientProvider(server_url="http://127.0.0.1:1/mcp", client_metadata=metadata, storage=storage),
        ClientCredentialsOAuthProvider(
            server_url="http://127.0.0.1:1/mcp", storage=storage, client_id="c", client_secret="s", issuer="http://x"
        ),
        PrivateKeyJWTOAuthProvider(
            server_url="http://127.0.0.1:1/mcp",
            storage=storage,
            client_id="c",
            assertion_provider=_assertion,
            issuer="http://x",
        ),
    ]


async def _assertion(audience: str) -> str:
    return "a.b.c"


def test_initialized_is_the_flag_that_gates_the_sdks_loading() -> None:
    for provider in _providers():
        assert hasattr(provider, "_initialized"), broken("_initialized", f"is gone from {type(provider).__name__}")
        assert provider._initialized is False, broken("_initialized", "is no longer a bool that starts False")
    source = inspect.getsource(OAuthClientProvider)
    gate = re.search(r"if not self\._initialized:\s*\n\s*await self\._initialize\(\)", source)
    assert gate, broken("_initialized", "no longer decides whether the flow calls _initialize()")


@pytest.mark.parametrize("provider_class", PROVIDERS, ids=lambda c: c.__name__)
def test_perform_authorization_is_the_coroutine_the_flow_awaits(provider_class: type) -> None:
    method = getattr(provider_class, "_perform_authorization", None)
    assert method is not None, broken("_perform_authorization", f"is gone from {provider_class.__name__}")
    assert inspect.iscoroutinefunction(method), broken("_perform_authorization", "is no longer a coroutine")
    parameters = list(inspect.signature(method).parameters)
    assert parameters == ["self"], broken("_perform_authorization", f"takes {parameters}, not (self)")
    assert inspect.signature(method).return_annotation in (httpx2.Request, "httpx2.Request"), broken(
        "_perform_authorization", "no longer returns the token request (httpx2.Request)"
    )
    assert "yield await self._perform_authorization()" in inspect.getsource(OAuthClientProvider), broken(
        "_perform_authorization", "is no longer what the SDK's flow awaits and sends as the token request"
    )


@pytest.mark.parametrize("ours", [ObservedJwtBearerProvider, ObservedEnterpriseProvider], ids=lambda c: c.__name__)
def test_our_overrides_match_the_sdks_signature(ours: type[OAuthClientProvider]) -> None:
    assert "_perform_authorization" in vars(ours), f"{ours.__name__} no longer overrides _perform_authorization"
    theirs = inspect.signature(OAuthClientProvider._perform_authorization)
    mine = inspect.signature(ours._perform_authorization)
    assert list(mine.parameters) == list(theirs.parameters), broken(
        "_perform_authorization", f"is {theirs}, {ours.__name__} overrides it as {mine}"
    )
    assert inspect.iscoroutinefunction(ours._perform_authorization)


@pytest.mark.parametrize("provider_class", PROVIDERS, ids=lambda c: c.__name__)
def test_get_token_endpoint_is_a_plain_method_returning_a_url(provider_class: type) -> None:
    method = getattr(provider_class, "_get_token_endpoint", None)
    assert method is not None, broken("_get_token_endpoint", f"is gone from {provider_class.__name__}")
    assert callable(method) and not inspect.iscoroutinefunction(method), broken(
        "_get_token_endpoint", "is no longer a plain (not async) method"
    )
    signature = inspect.signature(method)
    assert list(signature.parameters) == ["self"], broken(
        "_get_token_endpoint", f"takes {list(signature.parameters)}, not (self)"
    )
    assert signature.return_annotation in (str, "str"), broken("_get_token_endpoint", "no longer returns a str")


def test_get_token_endpoint_answers_the_discovered_token_endpoint() -> None:
    provider = _providers()[0]
    from mcp.shared.auth import OAuthMetadata

    provider.context.oauth_metadata = OAuthMetadata.model_validate(
        {
            "issuer": "http://127.0.0.1:1/auth",
            "authorization_endpoint": "http://127.0.0.1:1/auth/authorize",
            "token_endpoint": "http://127.0.0.1:1/auth/token-here",
        }
    )
    assert provider._get_token_endpoint() == "http://127.0.0.1:1/auth/token-here", broken(
        "_get_token_endpoint", "no longer answers the token endpoint of the authorization server metadata"
    )


def test_fixed_client_info_holds_the_client_credentials_client() -> None:
    for provider in _providers()[1:]:
        name = type(provider).__name__
        info = getattr(provider, "_fixed_client_info", None)
        assert isinstance(info, OAuthClientInformationFull), broken(
            "_fixed_client_info", f"is no longer {name}'s OAuthClientInformationFull"
        )
        assert info.client_id == "c", broken("_fixed_client_info", f"no longer holds {name}'s client id")
        initialize = inspect.getsource(type(provider)._initialize)
        assert "self._fixed_client_info" in initialize, broken(
            "_fixed_client_info", f"is no longer the client {name}._initialize installs"
        )


def test_the_context_is_a_dataclass_copied_field_by_field() -> None:
    """Not private, but the auth code rebuilds it from its init fields (provider.py _setup)."""
    from dataclasses import fields, is_dataclass

    assert is_dataclass(OAuthContext), f"{SDK}: OAuthContext is no longer a dataclass (provider.py _setup copies it)"
    assert {"server_url", "client_metadata", "storage"} <= {f.name for f in fields(OAuthContext) if f.init}


def test_every_private_sdk_name_the_auth_code_uses_is_pinned() -> None:
    sdk_names: set[str] = set()
    for cls in (*PROVIDERS, OAuthContext):
        sdk_names |= {n for n in dir(cls) if n.startswith("_") and not n.startswith("__")}
        sdk_names |= set(re.findall(r"self\.(_[a-z]\w*)", inspect.getsource(cls)))
    used: set[str] = set()
    for path in AUTH_CODE.glob("*.py"):
        text = path.read_text()
        used |= {name for name in sdk_names if re.search(rf"(\.|def ){re.escape(name)}\b", text)}
    unpinned = used - set(PINNED)
    assert not unpinned, f"inspector/core/auth uses private names of the {SDK} OAuth client not pinned here: {unpinned}"
    stale = set(PINNED) - used
    assert not stale, f"pinned but no longer used by inspector/core/auth (drop them): {stale}"
