"""The MCP servers over the API, through the engine's operations (`gui.core.door.mcp_servers`):

- `GET /api/mcp/servers`, `GET /api/mcp/servers/{name}`: the servers, never a secret (below);
- `POST /api/mcp/servers`: add one, written as `McpServerSpec` (`{"name": "time", "command": "uvx",
  "args": ["mcp-server-time"]}`, or `"transport": "http"` with a `url`); 201 with the server;
- `PATCH /api/mcp/servers/{name}`: change `trusted`, `side_by_side`, `enabled`, `protocol`, `headers` (the whole set:
  `{"X-Api-Key": "…"}`, null keeps a kept value), `oauth_client_id` and `oauth_client_secret`
  (write-only; null clears either); a field left out stays as it is. Changing the sign-in client
  forgets the server's sign-in (its registration and tokens), so it asks for a new one;
- `DELETE /api/mcp/servers/{name}`: 204, or 404;
- `POST /api/mcp/servers/{name}/sign-in` (`{}`, or `{"callback": …}` naming this app's own return
  address): `{"url": …}`, the sign-in page to open in the person's browser (null: no sign-in needed);
- `POST /api/mcp/servers/{name}/retry` (`{}`): `{"retried": true}` when it tries to connect now.

A server's answer never holds a secret: its headers by name only, a program's environment by name
only, `oauth_client_secret_set` instead of the Client secret. Whoever holds the API (an agent too)
learns which servers there are, not what only Settings shows: a program's arguments (an API key is
often one) and a web address's user, password, query and fragment are left out.

Who can send a write, and what runs if they do. Adding a program server runs its command, and a
trusted server's "read-only" tools run without asking: that is a person's choice, never a
program's. So:
- a page of another site (in the person's browser) is refused by the request gate (its Origin), and
  every write needs a JSON body, which no form or simple request can send;
- a paired phone is refused every write (403): servers are changed on the computer;
- a program holding the API (an agent, a script, `RemoteEngine`) may add a server, but it is kept
  turned off and untrusted: only a person turns it on, or trusts its tools, in Settings, where what
  it runs is shown (the command, its folder, its environment by name). Asking here to turn a server
  on or to trust it is refused (403).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import Request
from fastapi.responses import Response
from pydantic import ValidationError

from gui.api.body import json_response, read_json
from gui.api.notifications import from_phone
from gui.api.shared import EngineFrom, EngineProvider, pydantic_detail
from gui.core.door import (
    McpServerChange,
    McpServerNotFound,
    McpServerSpec,
    McpServerView,
    SignInFailed,
)
from gui.core.errors import Invalid, Refused
from gui.mcp.config import CALLBACK_PATH, bare_url, client_text_problem

_CLIENT = ("oauth_client_id", "oauth_client_secret")
_FIELDS = ("trusted", "side_by_side", "enabled", "protocol", "headers", *_CLIENT)
_EXPECT = '{"trusted": false, "headers": {"X-Api-Key": "…"}, "oauth_client_id": "…"} (any of ' + \
          ", ".join(_FIELDS) + "; null clears the sign-in client's)"
_ADD = '{"name": "time", "command": "uvx", "args": ["mcp-server-time"]}, or {"name": …, "transport": "http", "url": …}'
ON_THE_COMPUTER = "MCP servers are changed on the computer SeqDesk runs on"
A_PERSON = ("turning a server on, or trusting its tools, is for a person, in SeqDesk's Settings on the computer "
            "(where the command it runs is shown): a server added through the API is kept off and untrusted")


def server_json(view: McpServerView) -> dict[str, Any]:
    """A server as the API shows it: no secret, no program arguments, no credential in an address."""
    body: dict[str, Any] = {"name": view.name, "transport": view.transport, "trusted": view.trusted,
                            "side_by_side": view.side_by_side, "enabled": view.enabled, "protocol": view.protocol}
    if view.transport == "http":
        body |= {"url": bare_url(str(view.url)), "headers": sorted(view.headers),
                 "oauth_client_id": view.oauth_client_id, "oauth_client_secret_set": view.oauth_client_secret_set}
    else:
        body |= {"command": view.command, "env": sorted(view.env)}
    return body


def client_field(body: dict[str, Any], field: str) -> str | None:
    """One sign-in client field of a PATCH (given): text (trimmed) or None (clear it); Invalid naming
    the field when it cannot be used."""
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


def computer_only(request: Request) -> None:
    if from_phone(request):
        raise Refused(ON_THE_COMPUTER)


@contextmanager
def answered(name: str | None = None) -> Iterator[None]:
    """The door's refusals in the API's sentences (their statuses come from `gui.wire.errors`)."""
    try:
        yield
    except McpServerNotFound:
        raise McpServerNotFound(f"there is no MCP server named {name!r}") from None
    except SignInFailed as exc:
        raise SignInFailed(f"cannot sign in to {name}: {exc}") from None


async def find(engine: EngineProvider, name: str) -> McpServerView:
    with answered(name):
        found = (await engine().list_mcp_servers()).get(name)
    if found is None:
        raise McpServerNotFound(f"there is no MCP server named {name!r}")
    return found


async def body_of(request: Request, expect: str) -> dict[str, Any]:
    body = await read_json(request, expect=expect)
    if not isinstance(body, dict):
        raise Invalid(f"the body must be {expect}")
    return body


async def list_servers(engine: EngineFrom) -> Response:
    with answered():
        listing = await engine().list_mcp_servers()
    return json_response([server_json(s) for s in listing.servers])


async def get_server(name: str, engine: EngineFrom) -> Response:
    return json_response(server_json(await find(engine, name)))


async def add_server(request: Request, engine: EngineFrom) -> Response:
    computer_only(request)
    body = await body_of(request, _ADD)
    if body.get("enabled") is True or body.get("trusted") is True:
        raise Refused(A_PERSON)
    try:
        spec = McpServerSpec.model_validate({**body, "enabled": False, "trusted": False})
    except ValidationError as exc:
        raise Invalid(pydantic_detail(exc)) from None
    with answered(spec.name):
        view = await engine().add_mcp_server(spec)
    return json_response(server_json(view), 201)


async def patch_server(name: str, request: Request, engine: EngineFrom) -> Response:
    computer_only(request)
    body = await body_of(request, _EXPECT)
    unknown = sorted(str(k) for k in body if k not in _FIELDS)
    if unknown:
        raise Invalid(f"{', '.join(unknown)}: not a field that can be changed here (only "
                      f"{', '.join(_FIELDS)})")
    given = {**body, **{field: client_field(body, field) for field in _CLIENT if field in body}}
    server = await find(engine, name)
    if (given.get("enabled") is True and not server.enabled) or (given.get("trusted") is True
                                                                 and not server.trusted):
        raise Refused(A_PERSON)
    if server.transport != "http" and (given.get("oauth_client_id") or given.get("oauth_client_secret")):
        raise Invalid(f"oauth_client_id: {name} is a program on this computer; a Client ID is for "
                      "signing in to a server at a web address")
    client_id = given["oauth_client_id"] if "oauth_client_id" in given else server.oauth_client_id
    if isinstance(given.get("oauth_client_secret"), str) and not client_id:
        raise Invalid("oauth_client_secret: a Client secret needs the oauth_client_id it belongs to")
    try:
        change = McpServerChange.model_validate(given)
    except ValidationError as exc:
        raise Invalid(pydantic_detail(exc)) from None
    with answered(name):
        view = await engine().update_mcp_server(name, change)
    return json_response(server_json(view))


async def delete_server(name: str, request: Request, engine: EngineFrom) -> Response:
    computer_only(request)
    with answered(name):
        removed = await engine().remove_mcp_server(name)
    if not removed:
        raise McpServerNotFound(f"there is no MCP server named {name!r}")
    return Response(status_code=204)


async def sign_in(name: str, request: Request, engine: EngineFrom) -> Response:
    computer_only(request)
    body = await body_of(request, '{} (or {"callback": "<this app>/oauth/callback"})')
    own = str(request.base_url).rstrip("/") + CALLBACK_PATH
    if body.get("callback", own) != own:
        raise Invalid(f"callback: the browser comes back to this app, at {own}")
    with answered(name):
        url = await engine().sign_in_mcp_server(name, own)
    return json_response({"url": url})


async def retry(name: str, request: Request, engine: EngineFrom) -> Response:
    computer_only(request)
    await body_of(request, "{}")
    with answered(name):
        retried = await engine().retry_mcp_server(name)
    return json_response({"retried": retried})
