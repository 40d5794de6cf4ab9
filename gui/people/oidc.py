"""Signing in with the company's OpenID Connect provider (authorization code flow with PKCE, authlib).

`start` gives the provider's address to send the browser to, and keeps what the answer must match
(state, nonce, PKCE verifier) for `PENDING_SECONDS`; `finish` trades the code for tokens, checks the ID
token (signature against the provider's keys, issuer, audience, expiry, nonce) and gives the person's
name: the claim `claim` (default `preferred_username`), lower case, the part before any `@`. Whether
that name is a person on this SeqDesk is for the accounts to say: the provider proves who someone is,
an admin says what they may do.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from authlib.integrations.httpx_client import AsyncOAuth2Client
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from gui.core.errors import NotSignedIn

PENDING_SECONDS = 600
SCOPES = "openid profile email"


class OidcFailed(NotSignedIn):
    """The provider's answer could not be used (the sentence says why)."""

    code = "oidc-failed"


@dataclass(frozen=True)
class OidcConfig:
    issuer: str
    client_id: str
    client_secret: str
    claim: str = "preferred_username"


@dataclass
class _Pending:
    nonce: str
    verifier: str
    next_path: str
    redirect_uri: str
    at: float


@dataclass
class OidcSignIn:
    config: OidcConfig
    _metadata: dict[str, Any] | None = None
    _pending: dict[str, _Pending] = field(default_factory=dict)

    async def _meta(self) -> dict[str, Any]:
        if self._metadata is None:
            url = self.config.issuer.rstrip("/") + "/.well-known/openid-configuration"
            try:
                async with httpx.AsyncClient(timeout=10) as client:
                    answer = await client.get(url)
                    answer.raise_for_status()
                    self._metadata = answer.json()
            except (httpx.HTTPError, ValueError) as exc:
                raise OidcFailed(f"the sign-in provider {self.config.issuer} cannot be reached ({exc})") from None
        return self._metadata

    def _client(self, redirect_uri: str) -> AsyncOAuth2Client:
        return AsyncOAuth2Client(client_id=self.config.client_id, client_secret=self.config.client_secret,
                                 scope=SCOPES, redirect_uri=redirect_uri, code_challenge_method="S256", timeout=10)

    async def start(self, redirect_uri: str, next_path: str) -> str:
        """The provider's address to send the browser to."""
        meta = await self._meta()
        now = time.monotonic()
        self._pending = {k: v for k, v in self._pending.items() if now - v.at < PENDING_SECONDS}
        state, nonce, verifier = (secrets.token_urlsafe(24) for _ in range(3))
        self._pending[state] = _Pending(nonce, verifier, next_path, redirect_uri, now)
        async with self._client(redirect_uri) as client:
            url, _state = client.create_authorization_url(
                meta["authorization_endpoint"], state=state, nonce=nonce,
                code_challenge=create_s256_code_challenge(verifier), code_challenge_method="S256")
        return str(url)

    async def finish(self, code: str, state: str) -> tuple[str, str]:
        """(the person's name, where to go next) from the provider's answer; OidcFailed."""
        pending = self._pending.pop(state, None)
        if pending is None or time.monotonic() - pending.at >= PENDING_SECONDS:
            raise OidcFailed("this sign-in was not started here, or took too long: sign in again")
        meta = await self._meta()
        try:
            async with self._client(pending.redirect_uri) as client:
                token = await client.fetch_token(meta["token_endpoint"], code=code, code_verifier=pending.verifier,
                                                 grant_type="authorization_code")
            async with httpx.AsyncClient(timeout=10) as plain:
                keys = (await plain.get(meta["jwks_uri"])).json()
        except Exception as exc:  # noqa: BLE001 - authlib raises several kinds: one sentence for them all
            raise OidcFailed(f"the sign-in provider did not give a token ({exc})") from None
        id_token = token.get("id_token")
        if not isinstance(id_token, str):
            raise OidcFailed("the sign-in provider gave no ID token")
        try:
            decoded = jwt.decode(id_token, KeySet.import_key_set(keys))
            jwt.JWTClaimsRegistry(iss={"essential": True, "value": meta.get("issuer", self.config.issuer)},
                                  aud={"essential": True, "value": self.config.client_id},
                                  nonce={"essential": True, "value": pending.nonce},
                                  exp={"essential": True}).validate(decoded.claims)
        except (JoseError, ValueError) as exc:
            raise OidcFailed(f"the sign-in provider's ID token is not valid ({exc})") from None
        claims = decoded.claims
        value = claims.get(self.config.claim)
        if not isinstance(value, str) or not value:
            raise OidcFailed(f"the sign-in provider did not say the person's {self.config.claim}")
        return value.strip().lower().split("@", 1)[0], pending.next_path
