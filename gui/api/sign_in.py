"""The sign-in pages of a team server: name and password, the company's OpenID Connect sign-in, an
invite link's page (choose a password), and signing out here or everywhere.

Plain HTML forms (they work before any script, and with none), answered by the accounts
(`gui.core.people.Accounts`). The session cookie holds a random id the store keeps only as a digest;
it is HttpOnly, SameSite=Strict, and Secure over https. A form posted from another origin is refused.
Wrong passwords are slowed per name and per address (`gui.core.people.SignInThrottle`): the page then
says how long to wait.
"""

from __future__ import annotations

import html
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from gui.api.auth import COOKIE, client_of, form_of, safe_next, same_origin
from gui.api.roles import person_of
from gui.api.scope import cookie_of, headers_of
from gui.api.shared import ApiContext, Context
from gui.core.errors import SeqDeskError
from gui.core.people import SESSION_DAYS, Accounts, NoSuchPerson, SlowDown
from gui.i18n import _, html_lang

_STYLE = """
body{font-family:system-ui,sans-serif;background:#f5f5f7;display:flex;justify-content:center;padding-top:10vh;margin:0}
main{background:#fff;padding:2rem;border-radius:12px;box-shadow:0 2px 12px #0002;width:26rem;
max-width:calc(100vw - 1.5rem);box-sizing:border-box}
h1{font-size:1.3rem;margin:0 0 .5rem} p{color:#444;font-size:.95rem}
label{display:block;font-size:.9rem;margin-top:.6rem}
input[type=password],input[type=text]{width:100%;box-sizing:border-box;padding:.6rem;font-size:1rem;
margin:.3rem 0 .6rem}
button,.button{padding:.6rem 1.2rem;font-size:1rem;border:0;border-radius:6px;background:#1976d2;color:#fff;
text-decoration:none;display:inline-block;cursor:pointer}
.alt{background:#fff;color:#1976d2;border:1px solid #1976d2;margin-top:1rem}
.error{color:#b00020} hr{border:0;border-top:1px solid #ddd;margin:1.2rem 0}
"""


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    page = (f'<!doctype html><html lang="{html_lang()}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body><main>{body}</main></body></html>")
    return HTMLResponse(page, status_code=status, headers={"Cache-Control": "no-store"})


def _error(message: str) -> str:
    return f'<p class="error" role="alert">{html.escape(message)}</p>' if message else ""


def sign_in_page(api: ApiContext, next_path: str = "/", error: str = "", name: str = "", status: int = 200) -> Response:
    target = html.escape(safe_next(next_path), quote=True)
    oidc = ""
    if api.oidc is not None:
        oidc = (f'<hr><a class="button alt" data-testid="oidc-sign-in" href="/login/oidc?next='
                f'{html.escape(quote(safe_next(next_path), safe=""), quote=True)}">'
                f"{html.escape(_('Sign in with your company account'))}</a>")
    body = (f'<form method="post" action="/login" data-testid="sign-in-form"><h1>SeqDesk</h1>'
            f"<p>{html.escape(_('This is a team SeqDesk. Sign in with the name and password an admin gave you.'))}</p>"
            f"{_error(error)}"
            f'<label for="name">{html.escape(_("Name"))}</label>'
            f'<input id="name" name="name" type="text" autocomplete="username" autocapitalize="none" required '
            f'value="{html.escape(name, quote=True)}" autofocus>'
            f'<label for="password">{html.escape(_("Password"))}</label>'
            f'<input id="password" name="password" type="password" autocomplete="current-password" required>'
            f'<input type="hidden" name="next" value="{target}">'
            f'<button type="submit">{html.escape(_("Sign in"))}</button></form>{oidc}')
    return _page(_("SeqDesk: sign in"), body, status)


def _accounts(api: ApiContext) -> Accounts:
    assert api.people is not None  # these routes are there only on a team server
    return api.people()


def _with_session(target: str, session_id: str, request: Request) -> Response:
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(COOKIE, session_id, max_age=SESSION_DAYS * 86_400, httponly=True, samesite="strict",
                        path="/", secure=request.url.scheme == "https")
    return response


async def show_sign_in(request: Request, api: Context, next: str = "/") -> Response:
    if person_of(request.scope) is not None:
        return RedirectResponse(safe_next(next), status_code=303)
    return sign_in_page(api, next)


async def do_sign_in(request: Request, api: Context) -> Response:
    form = form_of(await request.body())
    target = safe_next(form.get("next"))
    name = str(form.get("name", ""))[:64]
    if not same_origin(headers_of(request.scope), request.url.scheme):
        return sign_in_page(api, target, _("Sign in from SeqDesk's own page."), name, status=403)
    try:
        session_id = await _accounts(api).sign_in(name, str(form.get("password", "")), client_of(request.scope))
    except SlowDown as exc:
        return sign_in_page(api, target, _("Too many wrong passwords for this name or from this address: wait "
                                           "{seconds} s and try again.").format(seconds=max(1, round(exc.retry_after))),
                            name, status=429)
    except SeqDeskError as exc:
        if exc.status != 401:
            return sign_in_page(api, target, str(exc), name, status=exc.status)
        return sign_in_page(api, target, _("That name and password do not match a person here."), name, status=401)
    return _with_session(target, session_id, request)


async def sign_out(request: Request, api: Context) -> Response:
    """End this device's session (GET or POST), and back to the sign-in page."""
    return await _end(request, api, everywhere=False)


async def sign_out_everywhere(request: Request, api: Context) -> Response:
    """End every session of the signed-in person, on every device."""
    if not same_origin(headers_of(request.scope), request.url.scheme):
        return sign_in_page(api, "/", _("Sign out from SeqDesk's own page."), status=403)
    return await _end(request, api, everywhere=True)


async def _end(request: Request, api: Context, *, everywhere: bool) -> Response:
    session_id = cookie_of(headers_of(request.scope), COOKIE)
    if session_id:
        await _accounts(api).sign_out(session_id, everywhere=everywhere)
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response


def _invite_form(code: str, name: str, error: str = "", status: int = 200) -> Response:
    body = (f'<form method="post" action="/invite/{html.escape(quote(code, safe=""), quote=True)}" '
            f'data-testid="invite-form"><h1>SeqDesk</h1>'
            f"<p>{html.escape(_('Welcome, {name}. Choose a password to sign in with from now on.').format(name=name))}"
            f"</p>{_error(error)}"
            f'<input type="text" name="name" value="{html.escape(name, quote=True)}" autocomplete="username" hidden>'
            f'<label for="password">{html.escape(_("New password (at least 10 characters)"))}</label>'
            f'<input id="password" name="password" type="password" autocomplete="new-password" minlength="10" required>'
            f'<label for="again">{html.escape(_("The same password again"))}</label>'
            f'<input id="again" name="again" type="password" autocomplete="new-password" required>'
            f'<button type="submit">{html.escape(_("Set password and sign in"))}</button></form>')
    return _page(_("SeqDesk: welcome"), body, status)


def _gone(message: str, status: int) -> Response:
    body = (f"<h1>SeqDesk</h1>{_error(message)}"
            f'<a class="button" href="/login">{html.escape(_("Go to sign-in"))}</a>')
    return _page(_("SeqDesk: invite"), body, status)


async def show_invite(code: str, api: Context) -> Response:
    try:
        person = await _accounts(api).invited(code)
    except SeqDeskError as exc:
        return _gone(str(exc), exc.status)
    return _invite_form(code, person.name)


async def accept_invite(code: str, request: Request, api: Context) -> Response:
    accounts = _accounts(api)
    try:
        person = await accounts.invited(code)
    except SeqDeskError as exc:
        return _gone(str(exc), exc.status)
    if not same_origin(headers_of(request.scope), request.url.scheme):
        return _invite_form(code, person.name, _("Set your password from SeqDesk's own page."), status=403)
    form = form_of(await request.body())
    password = str(form.get("password", ""))
    if password != str(form.get("again", "")):
        return _invite_form(code, person.name, _("The two passwords are not the same."), status=422)
    try:
        _person, session_id = await accounts.accept_invite(code, password)
    except SeqDeskError as exc:
        if exc.status == 410:
            return _gone(str(exc), exc.status)
        return _invite_form(code, person.name, str(exc), status=exc.status)
    return _with_session("/", session_id, request)


async def oidc_start(request: Request, api: Context, next: str = "/") -> Response:
    if api.oidc is None:
        return sign_in_page(api, next, _("This SeqDesk has no company sign-in: use your name and password."),
                            status=404)
    try:
        url = await api.oidc.start(str(request.url_for("oidc_finish")), safe_next(next))
    except SeqDeskError as exc:
        return sign_in_page(api, next, str(exc), status=exc.status)
    return RedirectResponse(url, status_code=303)


async def oidc_finish(request: Request, api: Context, code: str = "", state: str = "", error: str = "") -> Response:
    if api.oidc is None:
        return sign_in_page(api, "/", _("This SeqDesk has no company sign-in: use your name and password."),
                            status=404)
    if error or not code:
        return sign_in_page(api, "/", _("The company sign-in did not sign you in ({error}).").format(
            error=error or _("no code")), status=401)
    try:
        name, target = await api.oidc.finish(code, state)
        session_id = await _accounts(api).sign_in_as(name)
    except NoSuchPerson:
        return sign_in_page(api, "/", _("{name} signed in with the company account, but is not a person on this "
                                        "SeqDesk: ask an admin to add you.").format(name=name), status=403)
    except SeqDeskError as exc:
        return sign_in_page(api, "/", str(exc), status=exc.status)
    return _with_session(target, session_id, request)
