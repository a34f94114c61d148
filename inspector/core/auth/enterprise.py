"""Enterprise-managed authorization (SEP-990, the ext-auth profile of the
Identity Assertion JWT Authorization Grant): no browser, no registration.

The MCP server's authorization server is discovered as usual (protected
resource metadata, then its RFC 8414 metadata).  Then, in place of the
authorization-code grant:

1. token exchange (RFC 8693) at the enterprise IdP: the person's ID token as
   `subject_token`, asking for an ID-JAG (`requested_token_type
   ...:id-jag`) whose `audience` is the authorization server's issuer and
   whose `resource` is the MCP server's resource identifier;
2. the ID-JAG as the `assertion` of the jwt-bearer grant (RFC 7523) at the
   authorization server, authenticated as the pre-registered client.

The IdP's requests are sent and logged here (`token-exchange` steps); the
jwt-bearer request goes back to the SDK's flow like any token request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx2
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthClientInformationFull, OAuthClientMetadata

from inspector.core.auth.errors import AuthError
from inspector.core.auth.flow_state import response_json
from inspector.core.auth.log import HttpExchange
from inspector.core.auth.provider import ObservedProvider
from inspector.core.auth.token_storage import RecordStorage

if TYPE_CHECKING:
    from inspector.core.auth.session import OAuthSession
    from inspector.forms.values import JSONObject

__all__ = ["ID_JAG", "TOKEN_EXCHANGE", "ObservedEnterpriseProvider"]

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
# Claims of an ID-JAG worth showing; the assertion itself is a secret (SEP-990 §7.4.2).
_SHOWN_CLAIMS = ("iss", "sub", "aud", "resource", "client_id", "scope", "exp", "iat")


class ObservedEnterpriseProvider(ObservedProvider):
    """The ID-JAG flow: token exchange at the IdP, then the jwt-bearer grant."""

    def __init__(self, session: OAuthSession) -> None:
        config = session.config
        storage = RecordStorage(session)
        metadata = OAuthClientMetadata(redirect_uris=None, grant_types=[JWT_BEARER_GRANT_TYPE])
        super().__init__(server_url=session.server_url, client_metadata=metadata, storage=storage)
        # The client registered with the MCP authorization server; its auth method follows that
        # server's metadata (InspectorOAuthContext.prepare_token_auth) when it has a secret.
        self._fixed_client_info = OAuthClientInformationFull(
            client_id=config.client_id or "",
            client_secret=config.client_secret,
            redirect_uris=None,
            grant_types=[JWT_BEARER_GRANT_TYPE],
            token_endpoint_auth_method=None if config.client_secret else "none",
        )
        self._setup(session, storage)

    async def _perform_authorization(self) -> httpx2.Request:
        metadata = self.context.oauth_metadata
        if metadata is None:
            raise AuthError(
                "no authorization server metadata: the ID-JAG's audience (the server's issuer) is unknown",
                step="server-metadata",
            )
        audience = str(metadata.issuer)
        resource = self.context.get_resource_url()
        id_jag = await self._exchange(audience, resource)
        data = {"grant_type": JWT_BEARER_GRANT_TYPE, "assertion": id_jag}
        if self.context.should_include_resource_param(self.context.protocol_version):
            data["resource"] = resource
        if self.context.client_metadata.scope:
            data["scope"] = self.context.client_metadata.scope
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        data, headers = self.context.prepare_token_auth(data, headers)
        return httpx2.Request("POST", self._get_token_endpoint(), data=data, headers=headers)

    # -- the enterprise IdP ----------------------------------------------------------------

    async def _exchange(self, audience: str, resource: str) -> str:
        """RFC 8693 token exchange of the ID token for an ID-JAG; the ID-JAG."""
        config = self.session.config
        flow = self._flow
        if flow is None:
            raise AuthError("the token exchange runs only inside an authorization flow", step="token-exchange")
        flow.step = "token-exchange"
        if not config.id_token:
            raise AuthError("no ID token from the identity provider (--id-token-env)", step="token-exchange")
        endpoint = config.idp_token_endpoint or await self._idp_token_endpoint()
        self._require_https("token-exchange", endpoint, flow)
        data = {
            "grant_type": TOKEN_EXCHANGE,
            "requested_token_type": ID_JAG,
            "audience": audience,
            "resource": resource,
            "subject_token": config.id_token,
            "subject_token_type": ID_TOKEN,
        }
        if self.context.client_metadata.scope:
            data["scope"] = self.context.client_metadata.scope
        if config.idp_client_id:
            data["client_id"] = config.idp_client_id
        if config.idp_client_secret:
            data["client_secret"] = config.idp_client_secret
        request = httpx2.Request(
            "POST", endpoint, data=data, headers={"Content-Type": "application/x-www-form-urlencoded"}
        )
        response = await self._fetch(request, flow)
        exchange = HttpExchange.capture(request, response, self.log.secrets)
        body = response_json(response)
        if response.status_code != 200 or not isinstance(body, dict):
            error = body.get("error") if isinstance(body, dict) else None
            flow.failed_logged = True
            message = f"token exchange refused by the identity provider: {error or f'HTTP {response.status_code}'}"
            self.log.emit("token-exchange", "failed", message, http=exchange)
            raise AuthError(message, step="token-exchange")
        id_jag = body.get("access_token")
        issued = body.get("issued_token_type")
        if not isinstance(id_jag, str) or not id_jag or issued != ID_JAG:
            flow.failed_logged = True
            message = f"the identity provider's answer holds no ID-JAG (issued_token_type {issued!r})"
            self.log.emit("token-exchange", "failed", message, http=exchange)
            raise AuthError(message, step="token-exchange")
        self.session.secrets.add(id_jag)
        claims = _claims(id_jag)
        self.log.emit(
            "token-exchange",
            "ok",
            f"ID-JAG issued by the identity provider for audience {audience}, resource {resource}",
            detail=", ".join(f"{k}: {claims[k]}" for k in _SHOWN_CLAIMS if k in claims) or None,
            http=HttpExchange.capture(request, response, self.log.secrets),
            data={"audience": audience, "resource": resource, "claims": claims},
        )
        flow.step = "token"
        return id_jag

    async def _idp_token_endpoint(self) -> str:
        """The IdP's token endpoint from its metadata (OpenID Connect discovery, then RFC 8414)."""
        issuer = (self.session.config.idp_issuer or "").rstrip("/")
        flow = self._flow
        if not issuer or flow is None:
            raise AuthError(
                "enterprise authorization needs the identity provider: --idp-issuer or --idp-token-endpoint",
                step="token-exchange",
            )
        parts = urlsplit(issuer)
        origin = f"{parts.scheme}://{parts.netloc}"
        for url in (
            f"{issuer}/.well-known/openid-configuration",
            f"{origin}/.well-known/oauth-authorization-server{parts.path}",
        ):
            self._require_https("token-exchange", url, flow)
            request = httpx2.Request("GET", url, headers={"Accept": "application/json"})
            response = await self._fetch(request, flow)
            exchange = HttpExchange.capture(request, response, self.log.secrets)
            body = response_json(response)
            if response.status_code != 200 or not isinstance(body, dict):
                self.log.emit("token-exchange", "info", f"no identity provider metadata at {url}", http=exchange)
                continue
            if str(body.get("issuer", "")).rstrip("/") != issuer:
                message = f"the identity provider metadata at {url} names issuer {body.get('issuer')!r}, not {issuer}"
                flow.failed_logged = True
                self.log.emit("token-exchange", "failed", message, http=exchange)
                raise AuthError(message, step="token-exchange")
            endpoint = body.get("token_endpoint")
            if isinstance(endpoint, str) and endpoint:
                self.log.emit(
                    "token-exchange",
                    "ok",
                    f"identity provider metadata: token endpoint {endpoint}",
                    http=exchange,
                    data={"grant_types_supported": body.get("grant_types_supported")},
                )
                return endpoint
        raise AuthError(f"no token endpoint found for the identity provider {issuer}", step="token-exchange")


def _claims(token: str) -> JSONObject:
    """The payload of a JWT, unverified (the authorization server verifies it): for showing."""
    import jwt

    try:
        payload = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        return {}
    return {k: payload[k] for k in _SHOWN_CLAIMS if k in payload} if isinstance(payload, dict) else {}
