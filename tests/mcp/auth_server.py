"""Test MCP servers over streamable HTTP on 127.0.0.1 that do not let everybody in.

    python auth_server.py oauth PORT [--token-seconds N] [--consent]
        The SDK's own server-side auth: an authorization server (metadata, dynamic client
        registration, /authorize, /token with refresh) and the resource server (protected resource
        metadata, bearer-gated /mcp) on one port. /authorize consents at once (a 302 back to the
        client with a code), or with --consent shows a page with an "Allow" button first. Access
        tokens live N s (default 3600). Tool: `whoami` (the client id and scopes of the token).
    python auth_server.py oauth PORT --step-up [--withhold-extra]
        The same, and its tool `secret` needs the scope `extra` besides `mcp`: called with a token
        without it, the server answers 403 `insufficient_scope` asking for "mcp extra" (a step-up in
        the middle of a session). Any registered client may ask for `extra`; with --withhold-extra
        the sign-in never grants it (a server that asks for a scope it does not give).
    python auth_server.py oauth PORT --no-registration CLIENT_ID [SECRET]
        The same, but it lets no client register itself (no registration endpoint): it knows only
        the client CLIENT_ID, made "in its console", which may sign in from any loopback callback;
        with SECRET the token endpoint wants that secret (client_secret_post), else none. (The
        NiceGUI test client's callback, on the host `test`, counts as loopback here.)
    python auth_server.py header PORT NAME VALUE
        No OAuth: /mcp needs the header NAME with VALUE, else 401. Tool: `whoami`.
    python auth_server.py refuse PORT
        Answers every request with 401 (`WWW-Authenticate: Bearer`) and offers no sign-in.

Every mode counts what it was asked at GET /stats (never behind auth), so a test can see that a
client stopped trying, refreshed a token, or registered once. In oauth mode, POST
/forget-access-tokens makes the server refuse every access token it gave (refresh tokens stay good).
"""

from __future__ import annotations

import html
import itertools
import json
import math
import secrets
import sys
import time
from collections import Counter
from typing import Any
from urllib.parse import urlencode

import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.auth import InvalidRedirectUriError, OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl, AnyUrl
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

STATS: Counter[str] = Counter()
NO_REBIND = TransportSecuritySettings(enable_dns_rebinding_protection=False)


class ConsoleClient(OAuthClientInformationFull):
    """A client made in the server's console: it may come back to any callback on loopback
    (RFC 8252 section 7.3), as the consoles of real servers let a desktop app do, and to the
    NiceGUI test client's own address (`http://test`); to nothing else."""

    def validate_redirect_uri(self, redirect_uri: AnyUrl | None) -> AnyUrl:
        if redirect_uri is None or redirect_uri.host not in ("127.0.0.1", "localhost", "test"):
            raise InvalidRedirectUriError(f"Redirect URI '{redirect_uri}' is not on loopback")
        return redirect_uri


class Provider:
    """An authorization server held in dicts (the SDK's `OAuthAuthorizationServerProvider`)."""

    def __init__(self, base: str, token_seconds: int, consent: bool, step_up: bool = False,
                 withhold_extra: bool = False) -> None:
        self.base = base
        self.token_seconds = token_seconds
        self.consent = consent
        self.step_up = step_up  # any client may ask for `extra` too
        self.withhold_extra = withhold_extra  # asked for or not, `extra` is never granted
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.waiting: dict[str, AuthorizationCode] = {}  # --consent: codes not allowed yet

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        STATS["register"] += 1
        assert client_info.client_id is not None
        if self.step_up:
            client_info.scope = "mcp extra"
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        STATS["authorize"] += 1
        assert client.client_id is not None
        scopes = [s for s in params.scopes or ["mcp"] if not (self.withhold_extra and s == "extra")]
        if self.step_up:
            STATS[f"authorize:{' '.join(sorted(scopes))}"] += 1
        code = AuthorizationCode(code=f"code_{secrets.token_hex(16)}", client_id=client.client_id,
                                 scopes=scopes, expires_at=time.time() + 300,
                                 code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
                                 redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
                                 resource=params.resource)
        if self.consent:
            ticket = secrets.token_urlsafe(16)
            self.waiting[ticket] = code
            return f"{self.base}/consent?" + urlencode({"ticket": ticket, "state": params.state or ""})
        self.codes[code.code] = code
        return construct_redirect_uri(str(params.redirect_uri), code=code.code, state=params.state)

    def allow(self, ticket: str, state: str) -> str | None:
        code = self.waiting.pop(ticket, None)
        if code is None:
            return None
        self.codes[code.code] = code
        return construct_redirect_uri(str(code.redirect_uri), code=code.code, state=state or None)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        return self.codes.get(code)

    def _tokens(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access = f"access_{secrets.token_hex(16)}"
        refresh = f"refresh_{secrets.token_hex(16)}"
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes,
                                          expires_at=math.ceil(time.time() + self.token_seconds), resource=resource)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(access_token=access, token_type="Bearer", expires_in=self.token_seconds,
                          scope=" ".join(scopes), refresh_token=refresh)

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          code: AuthorizationCode) -> OAuthToken:
        STATS["token:authorization_code"] += 1
        del self.codes[code.code]
        return self._tokens(code.client_id, code.scopes, code.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            STATS["refused-token"] += 1
            return None
        return found

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        found = self.refresh.get(refresh_token)
        return found if found is not None and found.client_id == client.client_id else None

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        STATS["token:refresh_token"] += 1
        del self.refresh[refresh_token.token]
        return self._tokens(refresh_token.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)


def whoami_server(name: str, step_up: bool = False, **kwargs: Any) -> MCPServer:
    server = MCPServer(name, **kwargs)

    @server.tool(description="Who the server thinks is calling.")
    def whoami() -> str:
        token = get_access_token()
        return f"client {token.client_id} with {' '.join(token.scopes)}" if token else "a caller with the header"

    if step_up:
        @server.tool(description="A secret, for a token with the scope `extra`.")
        def secret() -> str:
            token = get_access_token()
            return f"the secret, for a token with {' '.join(token.scopes)}" if token else "no token"

    return server


class StepUp:
    """In front of /mcp: a call of the tool `secret` with a token that lacks the scope `extra` is
    answered 403 `insufficient_scope` (the SDK's own gate checks only the scopes every request needs)."""

    def __init__(self, app: ASGIApp, provider: Provider, base: str) -> None:
        self.app, self.provider, self.base = app, provider, base

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not scope["path"].startswith("/mcp"):
            await self.app(scope, receive, send)
            return
        chunks, more = [], True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        try:
            said = json.loads(body)
        except ValueError:
            said = None
        if isinstance(said, dict) and said.get("method") == "tools/call" and \
                (said.get("params") or {}).get("name") == "secret":
            bearer = dict(scope["headers"]).get(b"authorization", b"").decode().removeprefix("Bearer ")
            token = self.provider.access.get(bearer)
            if token is not None and "extra" not in token.scopes:
                STATS["step-up"] += 1
                challenge = (f'Bearer error="insufficient_scope", scope="mcp extra", '
                             f'resource_metadata="{self.base}/.well-known/oauth-protected-resource/mcp"')
                await JSONResponse({"error": "insufficient_scope"}, status_code=403,
                                   headers={"WWW-Authenticate": challenge})(scope, receive, send)
                return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def stats(_request: Request) -> Response:
    return JSONResponse(dict(STATS))


def oauth_app(port: int, token_seconds: int, consent: bool, console: list[str] | None = None,
              step_up: bool = False, withhold_extra: bool = False) -> ASGIApp:
    base = f"http://127.0.0.1:{port}"
    provider = Provider(base, token_seconds, consent, step_up, withhold_extra)
    if console:  # --no-registration CLIENT_ID [SECRET]
        secret = console[1] if len(console) > 1 else None
        provider.clients[console[0]] = ConsoleClient(
            client_id=console[0], client_secret=secret, redirect_uris=[AnyUrl("http://127.0.0.1/oauth/callback")],
            token_endpoint_auth_method="client_secret_post" if secret else "none", scope="mcp",
            grant_types=["authorization_code", "refresh_token"], response_types=["code"])
    settings = AuthSettings(issuer_url=AnyHttpUrl(base), resource_server_url=AnyHttpUrl(f"{base}/mcp"),
                            required_scopes=["mcp"], validate_token_resource=False,
                            client_registration_options=ClientRegistrationOptions(
                                enabled=not console, valid_scopes=["mcp", "extra"] if step_up else ["mcp"],
                                default_scopes=["mcp"]))
    server = whoami_server("oauth-test", step_up, auth=settings, auth_server_provider=provider)
    server.custom_route("/stats", methods=["GET"])(stats)

    async def consent_page(request: Request) -> Response:
        ticket = request.query_params.get("ticket", "")
        state = request.query_params.get("state", "")
        return HTMLResponse(
            "<!doctype html><title>Test sign-in</title><h1>Let SeqDesk use the test server?</h1>"
            "<form method=post action=/consent>"
            f"<input type=hidden name=ticket value=\"{html.escape(ticket)}\">"
            f"<input type=hidden name=state value=\"{html.escape(state)}\">"
            "<button type=submit id=allow>Allow</button></form>")

    async def consent_post(request: Request) -> Response:
        form = await request.form()
        target = provider.allow(str(form.get("ticket", "")), str(form.get("state", "")))
        if target is None:
            return HTMLResponse("unknown ticket", status_code=400)
        return RedirectResponse(target, status_code=302)

    async def forget_access_tokens(_request: Request) -> Response:  # the server takes every token back
        provider.access.clear()
        return JSONResponse({"forgotten": True})

    server.custom_route("/forget-access-tokens", methods=["POST"])(forget_access_tokens)
    server.custom_route("/consent", methods=["GET"])(consent_page)
    server.custom_route("/consent", methods=["POST"])(consent_post)
    app = server.streamable_http_app(transport_security=NO_REBIND)
    return StepUp(app, provider, base) if step_up else app


class NeedsHeader:
    def __init__(self, app: ASGIApp, name: str, value: str) -> None:
        self.app, self.name, self.value = app, name.lower().encode(), value.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/mcp"):
            STATS["mcp"] += 1
            if dict(scope["headers"]).get(self.name) != self.value:
                STATS["refused"] += 1
                await JSONResponse({"error": "missing or wrong header"}, status_code=401)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def header_app(name: str, value: str) -> ASGIApp:
    app = whoami_server("header-test").streamable_http_app(transport_security=NO_REBIND)
    app.add_route("/stats", stats, methods=["GET"])
    return NeedsHeader(app, name, value)


def refuse_app() -> Starlette:
    async def refuse(_request: Request) -> Response:
        STATS["mcp"] += 1
        return JSONResponse({"error": "unauthorized"}, status_code=401, headers={"WWW-Authenticate": "Bearer"})

    return Starlette(routes=[Route("/stats", stats, methods=["GET"]),
                             Route("/{path:path}", refuse, methods=["GET", "POST", "DELETE"])])


def main(argv: list[str]) -> None:
    mode, port = argv[0], int(argv[1])
    app: ASGIApp
    if mode == "oauth":
        seconds = int(argv[argv.index("--token-seconds") + 1]) if "--token-seconds" in argv else 3600
        console = None
        if "--no-registration" in argv:
            rest = argv[argv.index("--no-registration") + 1:]
            console = list(itertools.takewhile(lambda a: not a.startswith("--"), rest))[:2]
            if not console:
                raise SystemExit("--no-registration needs a CLIENT_ID")
        app = oauth_app(port, seconds, "--consent" in argv, console, "--step-up" in argv, "--withhold-extra" in argv)
    elif mode == "header":
        app = header_app(argv[2], argv[3])
    elif mode == "refuse":
        app = refuse_app()
    else:
        raise SystemExit(f"unknown mode {mode!r}: oauth, header or refuse")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="info", timeout_graceful_shutdown=1)


if __name__ == "__main__":
    main(sys.argv[1:])
