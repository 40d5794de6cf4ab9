"""Signing in to an MCP server that needs it (OAuth 2.1), with the MCP SDK's client auth.

The SDK's `OAuthClientProvider` (an httpx auth) does the protocol: it finds the server's
authorization server (protected resource metadata, then the authorization server's metadata),
registers SeqDesk there as a client when it has no registration yet, builds the sign-in address
with a fresh `state` and PKCE challenge, checks the `state` (and the issuer) that come back,
exchanges the code for tokens and refreshes them when they expire. This module gives it:

- `StoredTokens`: its storage, in the secret store (`gui.mcp.secrets`), never in the settings
  file; it also remembers when the access token expires, so a token found at the next start is
  refreshed before it is used instead of being refused;
- `connection_auth`: the provider a connection uses in the background. It sends the tokens and
  refreshes them, but never opens a browser by itself: when only a new sign-in would do, it raises
  `SignInNeeded`, and the server shows "needs you to sign in" until the person asks for it;
- the sign-ins a person starts (the Sign in button in Settings) are in `gui.mcp.sign_in`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl, ValidationError

from gui.core.errors import Refused
from gui.mcp.config import McpServerConfig
from gui.mcp.oauth_client import client_secret, pre_registered, secret_method
from gui.mcp.secrets import SecretStore, SecretStoreError, key

log = logging.getLogger(__name__)


class _FlowEndsAreStates(logging.Filter):
    """The SDK logs every end of its flow as an error, with a traceback. Here each one is a state
    said in words where the person sees it ("needs you to sign in", "cannot sign in: …"), so its
    record is kept at INFO: `SignInNeeded` without the traceback, the others with it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR and record.getMessage() == "OAuth flow error":
            record.levelno, record.levelname = logging.INFO, "INFO"
            if record.exc_info and isinstance(record.exc_info[1], SignInNeeded):
                record.exc_info, record.exc_text = None, None
        return True


logging.getLogger("mcp.client.auth.oauth2").addFilter(_FlowEndsAreStates())

_EXPIRED = 1.0  # an expiry long past (0 would read as "never expires" to the SDK)


class SignInNeeded(Refused):
    """The server wants a new sign-in in the browser: the person has to ask for it."""


class StoredTokens:
    """The SDK's `TokenStorage` for one server, in the secret store.

    `redirect_uri`: the callback address of this sign-in; a registration made for another address
    (the app ran on another port then) is not offered, so the provider registers again.
    `client_id`: the client the person made in the server's console; with it the provider never
    registers (`gui.mcp.oauth_client`)."""

    def __init__(self, secrets: SecretStore, server: str, redirect_uri: str | None = None,
                 client_id: str | None = None) -> None:
        self.secrets = secrets
        self.server = server
        self.redirect_uri = redirect_uri
        self.client_id = client_id
        self.expires_at: float | None = None

    async def _get(self, kind: str) -> Any:
        try:
            text = await anyio.to_thread.run_sync(self.secrets.get, key(self.server, kind))
            return json.loads(text) if text else None
        except (SecretStoreError, json.JSONDecodeError) as exc:
            log.warning("the sign-in of the MCP server %s cannot be read: %s", self.server, exc)
            return None

    async def _set(self, kind: str, value: Any) -> None:
        try:
            await anyio.to_thread.run_sync(self.secrets.set, key(self.server, kind), json.dumps(value))
        except SecretStoreError as exc:
            raise OAuthFlowError(f"the sign-in cannot be kept: {exc}") from None

    async def get_tokens(self) -> OAuthToken | None:
        data = await self._get("oauth-tokens")
        if not isinstance(data, dict):
            return None
        try:
            token = OAuthToken.model_validate(data.get("token"))
        except ValidationError:
            return None
        expires = data.get("expires_at")
        self.expires_at = float(expires) if isinstance(expires, int | float) else None
        return token

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.expires_at = time.time() + tokens.expires_in if tokens.expires_in else None
        await self._set("oauth-tokens", {"token": tokens.model_dump(mode="json"), "expires_at": self.expires_at})

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        data = await self._get("oauth-client")
        if self.client_id:
            kept = data.get("redirect_uris") if isinstance(data, dict) else None
            redirect = self.redirect_uri or (str(kept[0]) if isinstance(kept, list) and kept else None)
            method = data.get("token_endpoint_auth_method") if isinstance(data, dict) else None
            try:
                secret = await anyio.to_thread.run_sync(client_secret, self.secrets, self.server)
            except SecretStoreError as exc:
                raise OAuthFlowError(f"the Client secret cannot be read: {exc}") from None
            if method in ("client_secret_basic", "client_secret_post"):
                return pre_registered(self.client_id, secret, redirect, method)
            return pre_registered(self.client_id, secret, redirect)
        if data is None:
            return None
        try:
            info = OAuthClientInformationFull.model_validate(data)
        except ValidationError:
            return None
        registered = [str(u) for u in info.redirect_uris or []]
        if self.redirect_uri is not None and registered and self.redirect_uri not in registered:
            return None  # registered for another callback address: register again
        return info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        await self._set("oauth-client", client_info.model_dump(mode="json", exclude_none=True))

    def registered_redirect(self) -> str | None:
        """The callback address the kept registration was made for (None: no registration kept)."""
        try:
            data = json.loads(self.secrets.get(key(self.server, "oauth-client")) or "null")
        except (SecretStoreError, json.JSONDecodeError):
            return None
        uris = data.get("redirect_uris") if isinstance(data, dict) else None
        return str(uris[0]) if isinstance(uris, list) and uris else None

    def has_tokens(self) -> bool:
        try:
            return bool(self.secrets.get(key(self.server, "oauth-tokens")))
        except SecretStoreError:
            return False

    def forget_tokens(self) -> None:
        with contextlib.suppress(SecretStoreError):
            self.secrets.delete(key(self.server, "oauth-tokens"))

    def expire(self) -> bool:
        """Mark the access token as expired (the server refused it early), so the next connection
        refreshes it; False when there is no refresh token to do that with."""
        try:
            text = self.secrets.get(key(self.server, "oauth-tokens"))
            data = json.loads(text) if text else None
            if not isinstance(data, dict) or not (data.get("token") or {}).get("refresh_token"):
                return False
            if data.get("expires_at") == _EXPIRED:
                return False  # marked already: refreshing did not help
            data["expires_at"] = _EXPIRED
            self.secrets.set(key(self.server, "oauth-tokens"), json.dumps(data))
        except (SecretStoreError, json.JSONDecodeError):
            return False
        return True


class TokenProvider(OAuthClientProvider):
    """The SDK's provider, also knowing when a stored token expires (the SDK only learns that from
    a token it has just received: one read back at start-up would otherwise count as fresh)."""

    def __init__(self, server_url: str, metadata: OAuthClientMetadata, *, storage: StoredTokens,
                 redirect_handler: Callable[[str], Awaitable[None]],
                 callback_handler: Callable[[], Awaitable[AuthorizationCodeResult]]) -> None:
        super().__init__(server_url, metadata, storage, redirect_handler=redirect_handler,
                         callback_handler=callback_handler)
        self._stored = storage

    async def _initialize(self) -> None:
        await super()._initialize()
        if self.context.current_tokens is not None:
            self.context.token_expiry_time = self._stored.expires_at

    async def _exchange_token_authorization_code(self, auth_code: str, code_verifier: str) -> httpx2.Request:
        await self._fit_secret_method()
        return await super()._exchange_token_authorization_code(auth_code, code_verifier)

    async def _refresh_token(self) -> httpx2.Request:
        await self._fit_secret_method()
        return await super()._refresh_token()

    async def _fit_secret_method(self) -> None:
        """A Client secret the person gave goes by HTTP Basic or in the body, as the authorization
        server's metadata says; the choice is kept for refreshes made before its metadata is read."""
        info, metadata = self.context.client_info, self.context.oauth_metadata
        if info is None or not info.client_secret or not self._stored.client_id or metadata is None:
            return
        method = secret_method(metadata.token_endpoint_auth_methods_supported)
        if method != info.token_endpoint_auth_method:
            self.context.client_info = info.model_copy(update={"token_endpoint_auth_method": method})
            await self._stored.set_client_info(info.model_copy(update={"token_endpoint_auth_method": method,
                                                                       "client_secret": None}))


def client_metadata(redirect_uri: str | None, scope: str | None = None) -> OAuthClientMetadata:
    """SeqDesk as an OAuth client; `scope`: those granted before, kept when a step-up asks for more."""
    return OAuthClientMetadata(client_name="SeqDesk", redirect_uris=[AnyUrl(redirect_uri)] if redirect_uri else None,
                               grant_types=["authorization_code", "refresh_token"], response_types=["code"],
                               token_endpoint_auth_method="none", scope=scope)


def connection_auth(secrets: SecretStore, config: McpServerConfig,
                    on_sign_in_needed: Callable[[], None]) -> httpx2.Auth | None:
    """The background provider for a server that was signed in to (None when it never was): it
    sends and refreshes the tokens and raises `SignInNeeded` where a browser would be needed."""
    storage = StoredTokens(secrets, config.name, client_id=config.oauth_client_id)
    registered = storage.registered_redirect()
    if registered is None or not storage.has_tokens():
        return None  # never signed in (or its registration is gone): a 401 then says "sign in"

    async def no_browser(_url: str) -> None:
        on_sign_in_needed()
        raise SignInNeeded(f"{config.name} needs you to sign in again")

    async def no_callback() -> AuthorizationCodeResult:  # never reached: no_browser raised
        raise SignInNeeded(f"{config.name} needs you to sign in again")

    return TokenProvider(str(config.url), client_metadata(registered), storage=storage, redirect_handler=no_browser,
                     callback_handler=no_callback)
