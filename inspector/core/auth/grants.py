"""The OAuth clients, one per grant: each one of the SDK's providers (or the SDK's
hook for a grant it lacks), observed through `ObservedProvider`, and the choice
among them that the session's settings make."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import httpx2
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthClientInformationFull, OAuthClientMetadata
from pydantic import AnyUrl

from inspector.core.auth.provider import ObservedProvider
from inspector.core.auth.token_storage import RecordStorage

if TYPE_CHECKING:
    from inspector.core.auth.session import OAuthSession

__all__ = [
    "ObservedClientCredentialsProvider",
    "ObservedJwtBearerProvider",
    "ObservedOAuthProvider",
    "ObservedPrivateKeyJWTProvider",
    "provider_for",
]

CLIENT_NAME = "inspector (MCP terminal inspector)"
PLACEHOLDER_REDIRECT = "http://127.0.0.1/callback"


class ObservedOAuthProvider(ObservedProvider):
    """The authorization-code grant with PKCE: a person approves in a browser."""

    uses_browser = True

    def __init__(self, session: OAuthSession) -> None:
        config = session.config
        storage = RecordStorage(session)
        metadata = OAuthClientMetadata(
            client_name=CLIENT_NAME,
            redirect_uris=[AnyUrl(PLACEHOLDER_REDIRECT)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        )
        super().__init__(
            server_url=session.server_url,
            client_metadata=metadata,
            storage=storage,
            redirect_handler=self._open_authorization,
            callback_handler=self._await_callback,
            client_metadata_url=config.client_metadata_url,
        )
        self._setup(session, storage)


class ObservedClientCredentialsProvider(ObservedProvider, ClientCredentialsOAuthProvider):
    """The client credentials grant (SEP-1046) with a client secret: no person involved."""

    def __init__(self, session: OAuthSession) -> None:
        config = session.config
        storage = RecordStorage(session)
        with warnings.catch_warnings():
            # Without an issuer the SDK warns that discovery picks the server; the auth log says so.
            warnings.simplefilter("ignore")
            super().__init__(
                server_url=session.server_url,
                storage=storage,
                client_id=config.client_id or "",
                client_secret=config.client_secret or "",
                token_endpoint_auth_method=(
                    "client_secret_post" if config.token_auth_method == "client_secret_post" else "client_secret_basic"
                ),
                issuer=config.issuer,
            )
        self._setup(session, storage)


class ObservedPrivateKeyJWTProvider(ObservedProvider, PrivateKeyJWTOAuthProvider):
    """The client credentials grant authenticated with a signed JWT (private_key_jwt, RFC 7523)."""

    def __init__(self, session: OAuthSession) -> None:
        config = session.config
        storage = RecordStorage(session)
        signer = SignedJWTParameters(
            issuer=config.client_id or "",
            subject=config.client_id or "",
            signing_key=config.client_key or "",
            signing_algorithm=config.client_key_algorithm,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            super().__init__(
                server_url=session.server_url,
                storage=storage,
                client_id=config.client_id or "",
                assertion_provider=signer.create_assertion_provider(),
                issuer=config.issuer,
            )
        self._setup(session, storage)


class ObservedJwtBearerProvider(ObservedProvider):
    """The RFC 7523 jwt-bearer grant with a workload identity JWT (workload identity federation).

    The SDK's providers meet their grants at the same hook (`_perform_authorization`):
    discovery, the resource indicator, storage and the challenges stay the SDK's.
    """

    def __init__(self, session: OAuthSession) -> None:
        config = session.config
        storage = RecordStorage(session)
        metadata = OAuthClientMetadata(
            redirect_uris=None, grant_types=[JWT_BEARER_GRANT_TYPE], token_endpoint_auth_method="none"
        )
        super().__init__(server_url=session.server_url, client_metadata=metadata, storage=storage)
        self._fixed_client_info = OAuthClientInformationFull(
            client_id=config.client_id or "",
            redirect_uris=None,
            grant_types=[JWT_BEARER_GRANT_TYPE],
            token_endpoint_auth_method="none",
        )
        self._setup(session, storage)

    async def _perform_authorization(self) -> httpx2.Request:
        config = self.session.config
        data = {"grant_type": JWT_BEARER_GRANT_TYPE, "assertion": config.assertion or ""}
        if config.client_id:
            data["client_id"] = config.client_id
        if self.context.should_include_resource_param(self.context.protocol_version):
            data["resource"] = self.context.get_resource_url()
        if self.context.client_metadata.scope:
            data["scope"] = self.context.client_metadata.scope
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        return httpx2.Request("POST", self._get_token_endpoint(), data=data, headers=headers)


def provider_for(session: OAuthSession) -> ObservedProvider:
    """The OAuth client the session's settings ask for."""
    config = session.config
    if config.grant == "enterprise":
        from inspector.core.auth.enterprise import ObservedEnterpriseProvider

        return ObservedEnterpriseProvider(session)
    if config.grant == "jwt_bearer":
        return ObservedJwtBearerProvider(session)
    if config.grant == "client_credentials":
        if config.client_key:
            return ObservedPrivateKeyJWTProvider(session)
        return ObservedClientCredentialsProvider(session)
    return ObservedOAuthProvider(session)
