"""Where the OAuth client keeps its tokens: the SDK's `TokenStorage` and `OAuthContext`,
over the inspector's token store and the auth clock.

One record per server; inside it one entry per issuer (tokens with their
absolute expiry, the client registration and how it was obtained, the
metadata discovery found).  Expiry follows the auth clock, not `time.time()`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcp.client.auth.oauth2 import OAuthContext
from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, OAuthToken, ProtectedResourceMetadata
from pydantic import ValidationError

from inspector.core.auth import clock

if TYPE_CHECKING:
    from inspector.core.auth.session import OAuthSession
    from inspector.forms.values import JSONObject

__all__ = ["InspectorOAuthContext", "RecordStorage", "choose_token_auth_method"]


def choose_token_auth_method(supported: list[str] | None) -> str:
    """For a client with a secret: client_secret_basic unless the server only lists client_secret_post.

    RFC 8414 §2: an absent list means client_secret_basic.
    """
    methods = supported or ["client_secret_basic"]
    if "client_secret_basic" in methods:
        return "client_secret_basic"
    if "client_secret_post" in methods:
        return "client_secret_post"
    return "client_secret_basic"


class InspectorOAuthContext(OAuthContext):
    """The SDK's `OAuthContext` with token expiry read from the auth clock, and a client secret's
    token endpoint authentication chosen from what the server supports."""

    # The SDK reads time.time() for these two; ours read the auth clock, so
    # that every expiry decision follows one clock.
    def update_token_expiry(self, token: OAuthToken) -> None:
        """Set the token's expiry from its ``expires_in``, on the auth clock."""
        self.token_expiry_time = None if token.expires_in is None else clock.now() + token.expires_in

    def is_token_valid(self) -> bool:
        """Whether an access token is held and not expired, on the auth clock."""
        tokens = self.current_tokens
        expiry = self.token_expiry_time
        return bool(tokens and tokens.access_token and (not expiry or clock.now() <= expiry))

    def prepare_token_auth(
        self, data: dict[str, str], headers: dict[str, str] | None = None
    ) -> tuple[dict[str, str], dict[str, str]]:
        """The SDK's token request authentication, after choosing the method for a client with a secret
        and none set (`choose_token_auth_method`)."""
        info = self.client_info
        if info is not None and info.token_endpoint_auth_method is None and info.client_secret:
            supported = self.oauth_metadata.token_endpoint_auth_methods_supported if self.oauth_metadata else None
            info.token_endpoint_auth_method = choose_token_auth_method(supported)
        return super().prepare_token_auth(data, headers)


class RecordStorage:
    """The SDK's `TokenStorage`, over the inspector's token store.

    One record per server; inside it one entry per issuer (tokens with their
    absolute expiry, the client registration and how it was obtained).  A
    pre-registered client from the settings always wins over a stored one.
    """

    def __init__(self, session: OAuthSession) -> None:
        self.session = session
        # The provider's context, once it exists (to keep discovered metadata).
        self.context: OAuthContext | None = None
        self.issuer: str | None = None
        self.expires_at: float | None = None
        self.client_kind: str | None = None
        config = session.config
        self.preregistered: OAuthClientInformationFull | None = None
        if config.client_id:
            self.preregistered = OAuthClientInformationFull(
                client_id=config.client_id,
                client_secret=config.client_secret,
                redirect_uris=None,
                token_endpoint_auth_method=None if config.client_secret else "none",
            )

    def _load(self) -> JSONObject:
        store = self.session.store
        record = store.load(self.session.server_url) if store.has(self.session.server_url) else None
        if not isinstance(record, dict):
            record = {}
        if not isinstance(record.get("issuers"), dict):
            record["issuers"] = {}
        return record

    def _entry(self, record: JSONObject, issuer: str | None = None, create: bool = False) -> JSONObject | None:
        key = issuer or record.get("current_issuer")
        if not isinstance(key, str):
            return None
        entry = record["issuers"].get(key)
        if entry is None and create:
            entry = record["issuers"][key] = {}
        return entry if isinstance(entry, dict) else None

    def _save(self, record: JSONObject) -> None:
        self.session.store.save(self.session.server_url, record)

    async def get_tokens(self) -> OAuthToken | None:
        """The current issuer's stored token (None when none is stored, it does not parse, or it is
        DPoP-bound to an earlier session's key)."""
        record = self._load()
        entry = self._entry(record)
        token = entry.get("token") if entry else None
        if not isinstance(token, dict) or not token.get("access_token"):
            return None
        assert entry is not None
        bound_to = entry.get("dpop_jkt")
        try:
            # The SDK models bearer tokens only; how a bound token is presented is ours to decide.
            parsed = OAuthToken.model_validate({**token, "token_type": "Bearer"} if bound_to else token)
        except ValidationError:
            return None
        if bound_to is not None:
            state = self.session._dpop
            if state is None or state.key.thumbprint != bound_to:
                # The key it is bound to lived in an earlier session's memory only.
                self.session.log.emit(
                    "stored",
                    "info",
                    "the stored token is DPoP-bound to the key of an earlier session; it cannot be used, "
                    "a new login follows when the server asks",
                    data={"jkt": bound_to},
                )
                return None
            state.token_type = "DPoP"
        self.issuer = record.get("current_issuer")
        expires_at = entry.get("expires_at")
        self.expires_at = float(expires_at) if isinstance(expires_at, (int, float)) else None
        self.session.secrets.update([parsed.access_token, parsed.refresh_token])
        return parsed

    async def set_tokens(self, tokens: OAuthToken) -> None:
        """Store new tokens under the current issuer, with their absolute expiry, the key they are bound to
        and what discovery found, and log it."""
        issuer = self.session.current_issuer() or self.issuer or "unknown"
        record = self._load()
        entry = self._entry(record, issuer, create=True)
        assert entry is not None
        now = clock.now()
        entry["token"] = tokens.model_dump(mode="json", exclude_none=True)
        entry["obtained_at"] = int(now)
        entry["expires_at"] = now + tokens.expires_in if tokens.expires_in else None
        entry["scope"] = tokens.scope
        state = self.session._dpop
        if state is not None and state.bound:
            # Saved as issued, with the thumbprint of the key it is bound to (cnf.jkt).
            entry["token"]["token_type"] = "DPoP"
            entry["dpop_jkt"] = state.key.thumbprint
        else:
            entry.pop("dpop_jkt", None)
        # What discovery found, so a later run can refresh before any new challenge.
        context = self.context
        if context is not None and context.oauth_metadata is not None:
            entry["server_metadata"] = context.oauth_metadata.model_dump(mode="json", exclude_none=True)
        if context is not None and context.protected_resource_metadata is not None:
            record["resource_metadata"] = context.protected_resource_metadata.model_dump(mode="json", exclude_none=True)
        record["current_issuer"] = issuer
        self.issuer = issuer
        self.expires_at = entry["expires_at"]
        self.session.secrets.update([tokens.access_token, tokens.refresh_token])
        self._save(record)
        expiry = f", expires in {tokens.expires_in} s" if tokens.expires_in else ""
        self.session.log.emit(
            "stored",
            "ok",
            f"token saved ({self.session.store.backend}) for issuer {issuer}{expiry}",
            data={"issuer": issuer, "scope": tokens.scope, "refresh_token": bool(tokens.refresh_token)},
        )

    def discovered(self) -> tuple[OAuthMetadata | None, ProtectedResourceMetadata | None]:
        """The metadata stored with the current issuer's tokens (None when absent or stale)."""
        record = self._load()
        entry = self._entry(record)
        server = entry.get("server_metadata") if entry else None
        resource = record.get("resource_metadata")
        try:
            oauth = OAuthMetadata.model_validate(server) if isinstance(server, dict) else None
            prm = ProtectedResourceMetadata.model_validate(resource) if isinstance(resource, dict) else None
        except ValidationError:
            return None, None
        return oauth, prm

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        """The client: the pre-registered one from the settings, else the current issuer's stored registration."""
        if self.preregistered is not None:
            self.client_kind = "pre-registered"
            return self.preregistered
        record = self._load()
        entry = self._entry(record)
        client = entry.get("client") if entry else None
        if not isinstance(client, dict):
            return None
        try:
            info = OAuthClientInformationFull.model_validate(client)
        except ValidationError:
            return None
        assert entry is not None
        self.client_kind = entry.get("client_kind") if isinstance(entry.get("client_kind"), str) else "dynamic"
        self.session.secrets.add(info.client_secret)
        return info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        """Store a new registration under its issuer, dropping that issuer's tokens
        (the pre-registered client is not stored)."""
        if self.preregistered is not None and client_info.client_id == self.preregistered.client_id:
            return
        issuer = client_info.issuer or self.session.current_issuer() or "unknown"
        kind = "cimd" if client_info.client_id == self.session.config.client_metadata_url else "dynamic"
        self.client_kind = kind
        record = self._load()
        entry = self._entry(record, issuer, create=True)
        assert entry is not None
        entry["client"] = client_info.model_dump(mode="json", exclude_none=True)
        entry["client_kind"] = kind
        # A new registration invalidates tokens minted for an older one.
        entry.pop("token", None)
        record["current_issuer"] = issuer
        self.session.secrets.add(client_info.client_secret)
        self._save(record)

    def forget_tokens(self) -> None:
        """Drop the current issuer's stored token and its expiry."""
        record = self._load()
        entry = self._entry(record)
        if entry is not None and "token" in entry:
            entry.pop("token", None)
            entry.pop("expires_at", None)
            self._save(record)
        self.expires_at = None
