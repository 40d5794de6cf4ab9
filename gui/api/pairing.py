"""The pairing gate and routes: a phone on the network gets in only once it is paired.

Who can send what, and what stops them:
- a neighbour on the network reaches the network listener: every request from an address that is
  not this computer needs a paired phone's cookie (or the app's token, when it has one), except
  the pairing page and the public assets. Wrong pairing codes count against the same limiter as
  wrong tokens (10 a minute per address);
- another web page the phone visits: the cookie is HttpOnly and SameSite=Strict, and the request
  gate (outside this one) refuses a foreign `Origin`, so a page elsewhere can neither read the
  app nor post to it;
- a replayed or shared link: a pairing code works once, for two minutes; opening the link only
  shows a button, and the POST that pairs burns the code and redirects to the inbox, so the
  address bar never keeps it. Scanners and link previews that fetch the link burn nothing;
- a paired phone is not the computer: it cannot turn phone access on or off, make pairing codes,
  forget phones, or change where notifications go.

Routes: `GET/POST /pair/{code}`, and for the computer `GET/PUT /api/phone`,
`POST /api/phone/pairing` (a link and its QR code), `DELETE /api/phone/phones/{phone_id}`.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from gui.api.auth import (
    AUTH_SCOPE_KEY,
    DEVICE_SCOPE_KEY,
    OPEN_PATHS,
    PAIR_PREFIX,
    client_of,
    too_many_words,
)
from gui.api.body import dumps, json_response, read_json
from gui.api.scope import cookie_of, headers_of
from gui.api.shared import Context
from gui.core.errors import Conflict, Invalid, NotFound, Refused
from gui.i18n import _, html_lang
from gui.serving import is_loopback

if TYPE_CHECKING:
    from gui.phone import PhoneAccess

PUBLIC = OPEN_PATHS - {"/login"}  # no token form on the phones' listener: a neighbour could only guess
PHONE_COOKIE = "seqdesk_phone"
PHONE_COOKIE_DAYS = 180
_STATIC = re.compile(r"^/_nicegui/[0-9][^/]*/(static|libraries|components|resources|esm)/|^/seqdesk-assets/")


class PairingGate:
    """In front of the token gate, behind the request gate: recognises paired phones."""

    def __init__(self, app: ASGIApp, *, phone: PhoneAccess, token: str | None) -> None:
        self.app = app
        self.phone = phone
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or is_loopback(client_of(scope)):
            await self.app(scope, receive, send)  # the computer itself: as without phones
            return
        headers = headers_of(scope)
        found = self.phone.recognise(cookie_of(headers, PHONE_COOKIE))
        if found is not None:
            scope[DEVICE_SCOPE_KEY] = found.phone_id
            scope[AUTH_SCOPE_KEY] = True
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        if path.startswith(PAIR_PREFIX) or path in PUBLIC or _STATIC.match(path):
            await self.app(scope, receive, send)  # open pages
            return
        # On the phones' listener only a paired phone (or a program with the token in its header)
        # gets in: no login form there, so the token is never typed into a phone's address bar.
        # Elsewhere (an app started with --host and a token) the token gate decides, as before.
        on_phone_listener = self.phone.listens_at(scope.get("server"))
        if self.token is not None and (not on_phone_listener or "authorization" in headers):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": "this phone is not paired"})
            return
        if scope.get("method") in ("GET", "HEAD") and not path.startswith(("/api/", "/_nicegui")):
            await _page(not_paired_body(), 401)(scope, receive, send)
            return
        body = dumps({"detail": "this phone is not paired with SeqDesk: pair it from Settings on the computer"})
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body.encode())).encode())]})
        await send({"type": "http.response.body", "body": body.encode()})


_STYLE = """<style>
body{font-family:system-ui,sans-serif;background:#f5f5f7;margin:0;padding:10vh 16px;display:flex;justify-content:center}
main{background:#fff;padding:24px;border-radius:12px;box-shadow:0 2px 12px #0002;max-width:26rem;width:100%}
h1{font-size:1.3rem;margin:0 0 .6rem} p{color:#444;line-height:1.45}
button{min-height:48px;width:100%;font-size:1.05rem;border:0;border-radius:8px;background:#5898d4;color:#fff}
@media (prefers-color-scheme: dark){body{background:#121212} main{background:#1d1d1d;color:#eee} p{color:#ccc}}
</style>"""
_HEAD = ('<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
         '<meta name="viewport" content="width=device-width, initial-scale=1">'
         '<meta name="referrer" content="same-origin">'
         '<title>{title}</title>' + _STYLE + '</head><body><main>{body}</main></body></html>')
_RETRY = ("<script>try{if(!sessionStorage.getItem('seqdesk.retried')){sessionStorage.setItem("
          "'seqdesk.retried','1');location.reload()}}catch(e){}</script>")


def _text(title: str, text: str) -> str:
    return f"<h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>"


def pair_body(action: str) -> str:
    """The page a phone opens from the QR code (in the app's language, as are the others here)."""
    return (_text(_("Use SeqDesk on this phone?"),
                  _("This phone will be able to see the requests of the SeqDesk on your computer and answer "
                    "them, until you forget it in Settings on the computer."))
            + f'<form method="post" action="{action}"><button type="submit" data-testid="pair-confirm">'
            + html.escape(_("Pair this phone")) + "</button></form>")


def gone_body() -> str:
    return _text(_("This pairing code does not work any more"),
                 _("A code works once, for two minutes. On the computer, open SeqDesk's Settings, “Use on your "
                   "phone”, and choose “Pair a phone” for a new one."))


def not_paired_body() -> str:
    # a link opened from another app may arrive without the SameSite=Strict cookie: one reload from
    # this page (same site) sends it, if this phone has one
    return _text(_("This phone is not paired"),
                 _("To use SeqDesk here, open Settings on the computer SeqDesk runs on, “Use on your phone”, "
                   "choose “Pair a phone” and scan the code with this phone.")) + _RETRY


def _page(body: str, status: int = 200, title: str = "SeqDesk") -> HTMLResponse:
    page = (_HEAD.replace("{title}", html.escape(title)).replace("{lang}", html_lang())
            .replace("{body}", body))
    return HTMLResponse(page, status_code=status,
                        headers={"Cache-Control": "no-store", "Referrer-Policy": "same-origin"})


async def show_pairing(code: str, api: Context) -> Response:
    if not api.phone().codes.check(code):
        return _page(gone_body(), 410)
    return _page(pair_body(html.escape(PAIR_PREFIX + code, quote=True)), title=_("Pair with SeqDesk"))


async def pair(code: str, request: Request, api: Context) -> Response:
    """Wrong codes count against the limiter of wrong tokens (`api.limiter`)."""
    client = client_of(request.scope)
    left = api.limiter.locked(client)
    if left:
        return _page(_text(_("Wait a moment"), too_many_words(left)), 429)
    cookie = api.phone().pair(code, request.headers.get("user-agent", ""))
    if cookie is None:
        api.limiter.failed(client)
        return _page(gone_body(), 410)
    response = RedirectResponse("/inbox", status_code=303)
    response.set_cookie(PHONE_COOKIE, cookie, max_age=PHONE_COOKIE_DAYS * 86400, httponly=True,
                        samesite="strict", path="/", secure=request.url.scheme == "https")
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "same-origin"
    return response


def _computer_only(request: Request) -> None:
    if request.scope.get(DEVICE_SCOPE_KEY):
        raise Refused("phone access is managed on the computer SeqDesk runs on, not from a phone")


async def phone_state(request: Request, api: Context) -> Response:
    _computer_only(request)
    return json_response(api.phone().public())


async def phone_switch(request: Request, api: Context) -> Response:
    """`{"on": true}` opens SeqDesk to phones on this network (served by `api.asgi_app()`, the whole
    app with its gates); `{"on": false}` closes it."""
    _computer_only(request)
    body = await read_json(request, expect='{"on": true}')
    if not isinstance(body, dict) or not isinstance(body.get("on"), bool):
        raise Invalid('say {"on": true} or {"on": false}')
    access = api.phone()
    if body["on"]:
        problem = await access.turn_on(api.asgi_app())
        if problem:
            raise Conflict(problem)
    else:
        await access.turn_off()
    return json_response(access.public())


async def new_pairing(request: Request, api: Context) -> Response:
    _computer_only(request)
    access = api.phone()
    if not access.on:
        raise Conflict("turn phone access on first (PUT /api/phone with {\"on\": true})")
    link, seconds = access.pairing_link()
    return json_response({"link": link, "seconds": seconds, "qr_svg": qr_svg(link)})


async def forget(phone_id: str, request: Request, api: Context) -> Response:
    _computer_only(request)
    if not api.phone().forget(phone_id):
        raise NotFound(f"there is no paired phone {phone_id}")
    return json_response({"forgotten": phone_id})


def qr_svg(link: str, *, dark: str = "#000", light: str = "#fff") -> str:
    """The link as a QR code (SVG data URI) that a phone's camera reads."""
    import segno

    return str(segno.make(link, error="m").svg_data_uri(scale=6, border=3, dark=dark, light=light))
