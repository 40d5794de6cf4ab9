"""The MCP servers over the API: `GET /api/mcp/servers`, `GET /api/mcp/servers/{name}` and
`PATCH /api/mcp/servers/{name}`, which changes a server's sign-in client.

A server's answer never holds a secret: its headers by name only, a program's environment by name
only, and `oauth_client_secret_set` (true/false) instead of the Client secret. PATCH takes
`oauth_client_id` (text, or null to clear it and the secret with it) and `oauth_client_secret`
(write-only: text, or null to clear it); a field left out stays as it is. Changing either one
forgets the server's sign-in (its registration and tokens) and reconnects it, so it asks for a new
sign-in. A paired phone may read the list but not change it (that is for the computer).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, NamedTuple, cast
from urllib.parse import urlsplit, urlunsplit

from fastapi import Request
from fastapi.responses import Response
from pydantic import ValidationError

from gui.api.body import json_response, read_json
from gui.api.notifications import from_phone
from gui.api.shared import ApiContext, Context, pydantic_detail
from gui.core.errors import Internal, Invalid, NotFound, Refused
from gui.mcp.config import McpConfigError, McpServerConfig, McpSettingsStore, client_text_problem
from gui.mcp.manager import McpManager
from gui.mcp.oauth_client import UNCHANGED, Unchanged, change_sign_in_client, has_client_secret
from gui.mcp.secrets import SecretStoreError


class McpAccess(NamedTuple):
    """What the routes change: the server list, the connections (None: none started), and how the
    pages hear of a change (`Engine.settings_changed`)."""

    store: McpSettingsStore
    manager: McpManager | None
    settings_changed: Callable[..., None]


_EXPECT = '{"oauth_client_id": "…", "oauth_client_secret": "…"} (either may be left out, or null to clear it)'
_FIELDS = ("oauth_client_id", "oauth_client_secret")
RECONNECT_WAIT = 2.0  # s a change waits for the old connection to end


def server_json(config: McpServerConfig, secret_set: bool) -> dict[str, Any]:
    """A server as the API shows it: no secret in it. Whoever holds the API (an agent too) learns
    which servers there are, not what only Settings shows: a program's arguments (an API key is
    often one) and a web address's user, password, query and fragment are left out."""
    body: dict[str, Any] = {"name": config.name, "transport": config.transport, "trusted": config.trusted,
                            "enabled": config.enabled, "protocol": config.protocol}
    if config.transport == "http":
        body |= {"url": bare_url(str(config.url)), "headers": sorted(config.headers),
                 "oauth_client_id": config.oauth_client_id, "oauth_client_secret_set": secret_set}
    else:
        body |= {"command": config.command, "env": sorted(config.env)}
    return body


def bare_url(url: str) -> str:
    """`url` without the parts that can carry a credential (user and password, query, fragment)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port is not None else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def client_field(body: dict[str, Any], field: str) -> str | None | Unchanged:
    """One field of a PATCH: text (trimmed), None (clear it) or UNCHANGED (left out); Invalid naming
    the field when it cannot be used."""
    if field not in body:
        return UNCHANGED
    value = body[field]
    if value is None:
        return None
    if not isinstance(value, str):
        raise Invalid(f"{field} must be text, or null to clear it")
    value = value.strip()
    problem = client_text_problem(value)
    if problem is not None:
        raise Invalid(f"{field}: {problem}" + (" (send null to clear it)" if not value else ""))
    return value


async def _answer(store: McpSettingsStore, config: McpServerConfig) -> dict[str, Any]:
    secret_set = bool(config.oauth_client_id) and await asyncio.to_thread(has_client_secret, store.secrets, config.name)
    return server_json(config, secret_set)


async def _find(store: McpSettingsStore, name: str) -> McpServerConfig:
    found = next((c for c in await store.list() if c.name == name), None)
    if found is None:
        raise NotFound(f"there is no MCP server named {name!r}")
    return found


def _access(api: ApiContext) -> McpAccess:
    return cast(McpAccess, api.mcp())


async def list_servers(api: Context) -> Response:
    store = _access(api).store
    return json_response([await _answer(store, c) for c in await store.list()])


async def get_server(name: str, api: Context) -> Response:
    store = _access(api).store
    return json_response(await _answer(store, await _find(store, name)))


async def patch_server(name: str, request: Request, api: Context) -> Response:
    if from_phone(request):
        raise Refused("MCP servers are changed on the computer SeqDesk runs on")
    body = await read_json(request, expect=_EXPECT)
    if not isinstance(body, dict):
        raise Invalid(f"the body must be {_EXPECT}")
    unknown = sorted(str(k) for k in body if k not in _FIELDS)
    if unknown:
        raise Invalid(f"{', '.join(unknown)}: not a field that can be changed here (only {' and '.join(_FIELDS)})")
    client_id, secret = client_field(body, "oauth_client_id"), client_field(body, "oauth_client_secret")
    store, manager, settings_changed = _access(api)
    config = await _find(store, name)
    if config.transport != "http" and (client_id or secret):
        raise Invalid(f"oauth_client_id: {name} is a program on this computer; a Client ID is for "
                      "signing in to a server at a web address")
    if isinstance(secret, str) and client_id is None or (
            isinstance(secret, str) and isinstance(client_id, Unchanged) and not config.oauth_client_id):
        raise Invalid("oauth_client_secret: a Client secret needs the oauth_client_id it belongs to")
    try:
        changed = await change_sign_in_client(store, name, client_id, secret)
    except LookupError:
        raise NotFound(f"there is no MCP server named {name!r}") from None
    except ValidationError as exc:
        raise Invalid(pydantic_detail(exc)) from None
    except ValueError as exc:  # McpConfigError is one too: it answers 422, as it always has here
        raise Invalid(str(exc)) from None
    except (McpConfigError, SecretStoreError) as exc:
        raise Internal(f"the sign-in client of {name} cannot be kept: {exc}") from None
    if changed is not None:
        if manager is not None:  # reconnects: it asks for a sign-in with the new client
            await manager.add(changed, wait=RECONNECT_WAIT)
        settings_changed("mcp_servers", client=name)
    return json_response(await _answer(store, changed or config))
