"""The token gate: with a token, nothing in the app answers a stranger.

SeqDesk runs shell commands, so a port reachable without a credential is a remote shell. When the
app is started with a token, `TokenGate` (a plain ASGI middleware, so it also covers NiceGUI's
pages, its uploads and its socket.io endpoint) lets a request through only when it carries
`Authorization: Bearer <token>` or the session cookie that `/login` sets. The cookie holds an HMAC
of the token, never the token, is HttpOnly and SameSite=Strict; because "same site" includes other
ports of the same host, a cookie-authenticated request whose `Origin` is another origin is refused
too. Everything is compared with `hmac.compare_digest`.

Wrong tokens are limited per client address (`gui.api.limiter`): one that gives a wrong token 10 times within a minute,
at the login form or in an `Authorization` header, gets **429** for every wrong token during the next
minute, without the token being counted again. Only failures count, and the right token always
passes, locked or not: every program on this computer shares the address 127.0.0.1, so a lock-out
that refused the right token too would let any of them lock the CLI and `seqdesk mcp` out. What keeps
a guesser out is the token itself (at least 16 characters wherever one is given, `gui.serving.token_problem`).

Open without a credential: `/login`, `/api/health` (which then says only that the app is up), the
favicon and NiceGUI's versioned static assets (public library code). Strangers get 401 on the API
and on anything that is not a page load, a redirect to `/login` on pages, and a closed socket on
websockets.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import re
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from gui.api.limiter import FailureLimiter
from gui.api.request_gate import refuse
from gui.api.scope import cookie_of, headers_of
from gui.api.shared import Context
from gui.i18n import _, html_lang

COOKIE = "seqdesk_session"
AUTH_SCOPE_KEY = "seqdesk.authenticated"
DEVICE_SCOPE_KEY = "seqdesk.device"  # set by the pairing gate (`gui.api.pairing`) for a paired phone
PAIR_PREFIX = "/pair/"  # the pairing page: open, it checks its one-time code itself
OPEN_PATHS = frozenset({"/login", "/api/health", "/favicon.ico"})
STATIC = re.compile(r"^/_nicegui/[0-9][^/]*/(static|libraries|components|resources|esm)/")
_SESSION_MESSAGE = b"seqdesk session v1"


def client_of(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def too_many(left: float) -> str:
    return (f"too many wrong tokens from this address: wait {max(1, round(left))} s before trying again")


def too_many_words(left: float) -> str:
    """`too_many` as a sentence for a person, in the app's language (the API's JSON keeps English)."""
    return _("Too many wrong tokens from this address: wait {seconds} s before trying again.").format(
        seconds=max(1, round(left)))


def session_value(token: str) -> str:
    """What the cookie holds: stable for one token, useless for recovering it."""
    return hmac.new(token.encode("utf-8"), _SESSION_MESSAGE, hashlib.sha256).hexdigest()


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode("utf-8", "replace"))


def _host_of(url_or_host: str, scheme: str) -> str:
    host = url_or_host.lower()
    default = ":443" if scheme in ("https", "wss") else ":80"
    return host[: -len(default)] if host.endswith(default) else host


def same_origin(headers: dict[str, str], scheme: str) -> bool:
    """No `Origin` (not a cross-origin capable request), or one naming this very host."""
    origin = headers.get("origin")
    if origin is None:
        return True
    parts = urlsplit(origin)
    if not parts.netloc:
        return False  # "null": a sandboxed frame or a file
    return _host_of(parts.netloc, parts.scheme) == _host_of(headers.get("host", ""), scheme)


def safe_next(target: str | None) -> str:
    """Where to go after logging in: a path on this app, never another site."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


class TokenGate:
    def __init__(self, app: ASGIApp, *, token: str, limiter: FailureLimiter | None = None,
                 pages: bool = True) -> None:
        self.app = app
        self.token = token
        self.session = session_value(token)
        self.limiter = limiter or FailureLimiter()
        self.pages = pages  # False: no login redirects (the MCP endpoint has no pages)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = headers_of(scope)
        path = str(scope.get("path", ""))
        how = "phone" if scope.get(DEVICE_SCOPE_KEY) else self._credential(headers)  # the right token first
        if how in ("cookie", "phone") and not same_origin(headers, str(scope.get("scheme", "http"))):
            await self._refuse(scope, send, 403, "cross-origin requests are refused: open SeqDesk itself")
            return
        scope[AUTH_SCOPE_KEY] = how is not None
        if how is not None or path in OPEN_PATHS or path.startswith(PAIR_PREFIX) or STATIC.match(path):
            await self.app(scope, receive, send)  # the login form checks its own token (`do_login`)
            return
        if "authorization" in headers:
            client = client_of(scope)
            left = self.limiter.locked(client)
            if left:  # a wrong token from a locked-out address: not counted again, and no hint
                await self._refuse(scope, send, 429, too_many(left), retry_after=left)
                return
            self.limiter.failed(client)
            await self._refuse(scope, send, 401, "the token in the Authorization header is not right")
        elif (self.pages and scope["type"] == "http" and scope.get("method") in ("GET", "HEAD")
              and not is_machine(path)):
            query = scope.get("query_string", b"").decode("latin-1")
            back = path + (f"?{query}" if query else "")
            await RedirectResponse(f"/login?next={quote(back, safe='')}", status_code=303)(scope, receive, send)
        else:
            await self._refuse(scope, send, 401, "this SeqDesk needs a token: send 'Authorization: Bearer "
                                                 "<token>', or log in at /login")

    def _credential(self, headers: dict[str, str]) -> str | None:
        scheme, _space, given = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and _same(given.strip(), self.token):
            return "bearer"
        cookie = cookie_of(headers, COOKIE)
        if cookie is not None and _same(cookie, self.session):
            return "cookie"
        return None

    async def _refuse(self, scope: Scope, send: Send, status: int, detail: str, retry_after: float = 0) -> None:
        headers = []
        if status == 401:
            headers.append((b"www-authenticate", b'Bearer realm="SeqDesk"'))
        if retry_after:
            headers.append((b"retry-after", str(max(1, round(retry_after))).encode()))
        await refuse(scope, send, status, detail, headers)


def is_machine(path: str) -> bool:
    return path.startswith(("/api/", "/_nicegui_ws/", "/_nicegui/"))


_PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body{{font-family:system-ui,sans-serif;background:#f5f5f7;display:flex;justify-content:center;padding-top:12vh;margin:0}}
form{{background:#fff;padding:2rem;border-radius:12px;box-shadow:0 2px 12px #0002;width:22rem}}
h1{{font-size:1.3rem;margin:0 0 .5rem}} p{{color:#555;font-size:.9rem}}
input[type=password]{{width:100%;box-sizing:border-box;padding:.6rem;font-size:1rem;margin:.5rem 0 1rem}}
button{{padding:.6rem 1.2rem;font-size:1rem;border:0;border-radius:6px;background:#1976d2;color:#fff}}
.error{{color:#b00020}}
</style></head><body>
<form method="post" action="/login" data-testid="login-form">
<h1>SeqDesk</h1>
<p>{intro}</p>
{error}
<label for="token">{token}</label>
<input id="token" name="token" type="password" autocomplete="current-password" autofocus required>
<input type="hidden" name="next" value="{next}">
<button type="submit">{log_in}</button>
</form></body></html>"""


def login_page(next_path: str, error: str = "", status: int = 200) -> HTMLResponse:
    message = f'<p class="error" role="alert">{html.escape(error)}</p>' if error else ""
    page = _PAGE.format(error=message, next=html.escape(safe_next(next_path), quote=True), lang=html_lang(),
                        title=html.escape(_("SeqDesk: log in")),
                        intro=html.escape(_("This SeqDesk is protected. Enter the token it was started with.")),
                        token=html.escape(_("Token")), log_in=html.escape(_("Log in")))
    return HTMLResponse(page, status_code=status, headers={"Cache-Control": "no-store"})


async def show_login(next: str = "/") -> Response:
    return login_page(next)


async def do_login(request: Request, api: Context) -> Response:
    """The form's answer: the session cookie and back to `next`; wrong tokens count against `api.limiter`."""
    token = api.token
    assert token is not None  # the login routes are there only when the app has a token
    if not same_origin(dict(request.headers), request.url.scheme):
        return login_page("/", _("Log in from SeqDesk's own page."), status=403)
    form = form_of(await request.body())
    target = safe_next(form.get("next"))
    if not _same(form.get("token", ""), token):  # the right token passes even from a locked-out address
        client = client_of(request.scope)
        left = api.limiter.locked(client)
        if left:
            return login_page(target, too_many_words(left), status=429)
        api.limiter.failed(client)
        return login_page(target, _("That token is not right."), status=401)
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(COOKIE, session_value(token), httponly=True, samesite="strict", path="/",
                        secure=request.url.scheme == "https")
    return response


async def logout() -> Response:
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response


def form_of(body: bytes) -> dict[str, Any]:
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=20)
    except (UnicodeDecodeError, ValueError):
        return {}
    return {k: v[0] for k, v in fields.items() if v}
