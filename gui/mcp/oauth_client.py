"""A sign-in client made for SeqDesk in a server's own console (a pre-registered OAuth client).

Many authorization servers (GitHub, Google, a company's sign-in) do not let a program register
itself: the person makes a client there and gives SeqDesk its Client ID, and sometimes a Client
secret. The id is a setting (`McpServerConfig.oauth_client_id`, in the settings file); the secret
is kept only in the secret store, beside the tokens (`<server>/oauth-client-secret`), never in the
settings file, never in an answer of the API, never in a log. Changing or clearing either one
forgets the registration and the tokens kept for the server: they belong to the old client.

`pre_registered` is what `StoredTokens.get_client_info` gives the SDK when an id is set, so the
SDK signs in with it instead of registering; the secret goes by HTTP Basic or in the form body as
the authorization server's metadata says (`secret_method`), and that choice is kept with the
registration for the refreshes that follow. `change_sign_in_client` is the one way Settings and
the HTTP API change them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import AnyUrl

from gui.i18n import _
from gui.mcp.config import McpServerConfig, McpSettingsStore, check_client_text
from gui.mcp.secrets import SecretStore, SecretStoreError, key

if TYPE_CHECKING:  # the MCP SDK (~1 s to import) is loaded by what signs in, not by the settings pages
    from mcp.shared.auth import OAuthClientInformationFull

CLIENT_SECRET = "oauth-client-secret"
_SIGN_IN_KINDS = ("oauth-client", "oauth-tokens")


SecretMethod = Literal["client_secret_basic", "client_secret_post"]


def pre_registered(client_id: str, secret: str | None, redirect_uri: str | None,
                   method: SecretMethod = "client_secret_post") -> OAuthClientInformationFull:
    """The client the person made in the server's console, for the SDK (no registration). `method`:
    how the secret goes to the token endpoint, once the server's metadata said (`secret_method`)."""
    from mcp.shared.auth import OAuthClientInformationFull

    return OAuthClientInformationFull(
        client_id=client_id, client_secret=secret or None,
        redirect_uris=[AnyUrl(redirect_uri)] if redirect_uri else None,
        token_endpoint_auth_method=method if secret else "none",
        grant_types=["authorization_code", "refresh_token"], response_types=["code"], client_name="SeqDesk")


def secret_method(supported: Sequence[str] | None) -> SecretMethod:
    """How a Client secret goes to the token endpoint, as the authorization server's metadata
    (`token_endpoint_auth_methods_supported`) says: in the form body when it lists that, else by
    HTTP Basic (what it lists instead, and RFC 8414's default when it lists nothing)."""
    return "client_secret_post" if "client_secret_post" in (supported or []) else "client_secret_basic"


def client_secret(secrets: SecretStore, server: str) -> str | None:
    """The Client secret kept for `server` (None: none is set)."""
    return secrets.get(key(server, CLIENT_SECRET)) or None


def has_client_secret(secrets: SecretStore, server: str) -> bool:
    try:
        return client_secret(secrets, server) is not None
    except SecretStoreError:
        return False


def forget_sign_in(secrets: SecretStore, server: str) -> None:
    """The registration and tokens kept for `server` (its sign-in client changed)."""
    for kind in _SIGN_IN_KINDS:
        with contextlib.suppress(SecretStoreError):
            secrets.delete(key(server, kind))


def set_client_secret(secrets: SecretStore, server: str, secret: str | None) -> bool:
    """Keep (a text) or clear (None) the Client secret of `server`; True when it changed, and then
    the registration and tokens are forgotten. `ValueError` (in words, naming the field) for a
    secret that is empty, too long or has control characters; `SecretStoreError` when it cannot
    be kept."""
    value = None if secret is None else check_client_text(secret, "oauth_client_secret")
    if value == client_secret(secrets, server):
        return False
    if value is None:
        secrets.delete(key(server, CLIENT_SECRET))
    else:
        secrets.set(key(server, CLIENT_SECRET), value)
    forget_sign_in(secrets, server)
    return True


class Unchanged:
    """A field of `change_sign_in_client` left as it is."""


UNCHANGED = Unchanged()


async def change_sign_in_client(store: McpSettingsStore, name: str, client_id: str | None | Unchanged = UNCHANGED,
                                secret: str | None | Unchanged = UNCHANGED) -> McpServerConfig | None:
    """Set or clear (None) the Client ID and Client secret of the server `name`; without a Client ID
    no secret is kept. The server's new config when anything changed (reconnect it then), None when
    nothing did. `LookupError`: no such server; `ValueError` (a pydantic `ValidationError` too):
    a value that cannot be used, in words; `McpConfigError`, `SecretStoreError`: it cannot be kept."""
    config = next((c for c in await store.list() if c.name == name), None)
    if config is None:
        raise LookupError(_("there is no MCP server named {name}").format(name=name))
    new_id = config.oauth_client_id if isinstance(client_id, Unchanged) else client_id
    new_secret = None if isinstance(secret, Unchanged) else secret
    if new_secret is not None:
        new_secret = check_client_text(new_secret, "oauth_client_secret")
        if new_id is None:
            raise ValueError(_("A Client secret needs the Client ID it belongs to."))
    changed = McpServerConfig.model_validate({**config.model_dump(exclude={"headers"}),
                                              "headers": config.header_values(), "oauth_client_id": new_id})
    secret_changed = False
    if new_id is None or not isinstance(secret, Unchanged):
        secret_changed = await asyncio.to_thread(set_client_secret, store.secrets, name, new_secret)
    if changed.oauth_client_id == config.oauth_client_id:
        return changed if secret_changed else None
    await store.save(changed)  # forgets the registration and tokens of the old client
    return changed
