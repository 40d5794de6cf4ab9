"""The people gate: on a team server, nothing answers someone who has not signed in.

It takes the place of the desktop's token gate (`gui.api.auth.TokenGate`) when the app has accounts
(`gui.core.people.Accounts`, on a team's PostgreSQL store), and covers the same ground: the API, the
pages, uploads and NiceGUI's socket. A request passes with a person's **personal token**
(`Authorization: Bearer sdp_…`) or the **session cookie** the sign-in pages set (HttpOnly,
SameSite=Strict, its id kept only as a digest); the gate puts the person (and the token's label) on
the request's scope for the routes' role checks (`gui.api.roles`) and for the record of who answered.

- A token of a removed person: **403** with a sentence. An unknown token: **401**, counted per address
  (`gui.api.limiter`): ten within a minute and that address's wrong tokens get **429** for a minute.
- A cookie request whose `Origin` is another origin: **403** (the request gate refuses others' sites too).
- Nobody signed in: **401** on the API and the socket, a redirect to `/login` for a page.

Open without a sign-in: the sign-in and invite pages, `/api/health`, the favicon, NiceGUI's static files.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from urllib.parse import quote

from fastapi.responses import RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from gui.api.auth import COOKIE, STATIC, client_of, is_machine, same_origin, too_many
from gui.api.limiter import FailureLimiter
from gui.api.request_gate import refuse
from gui.api.roles import PERSON_KEY, TOKEN_KEY
from gui.api.scope import cookie_of, headers_of
from gui.core.errors import SeqDeskError, Unavailable
from gui.core.people import Accounts, Person, PersonRemoved

INVITE_PREFIX = "/invite/"
OPEN_PATHS = frozenset({"/login", "/login/oidc", "/login/oidc/callback", "/logout", "/api/health", "/favicon.ico"})


class PeopleGate:
    def __init__(self, app: ASGIApp, *, accounts: Callable[[], Accounts], limiter: FailureLimiter,
                 ready: Callable[[], Awaitable[None]] | None = None) -> None:
        self.app = app
        self._accounts = accounts
        self.limiter = limiter
        self.ready = ready  # waits (bounded) while the store is still being opened at start-up

    async def accounts(self) -> Accounts:
        try:
            return self._accounts()
        except Unavailable:
            if self.ready is None:
                raise
        try:
            await self.ready()
        except RuntimeError:
            pass  # not open in time: the provider says so again, as a sentence
        return self._accounts()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        if STATIC.match(path):  # public library files: no look-up of who asks
            await self.app(scope, receive, send)
            return
        headers = headers_of(scope)
        is_open = path in OPEN_PATHS or path.startswith(INVITE_PREFIX)
        scheme, _space, given = headers.get("authorization", "").partition(" ")
        bearer = given.strip() if scheme.lower() == "bearer" and given.strip() else None
        cookie = cookie_of(headers, COOKIE)
        person: Person | None = None
        label: str | None = None
        if bearer is not None or cookie:
            try:
                accounts = await self.accounts()
                if bearer is not None:
                    left = self.limiter.locked(client_of(scope))
                    found = await accounts.token_person(bearer)
                    if found is None:
                        if left:  # a wrong token from a locked-out address: not counted again
                            await _refuse(scope, send, 429, too_many(left), retry_after=left)
                            return
                        self.limiter.failed(client_of(scope))
                        await _refuse(scope, send, 401, "the token in the Authorization header is not a personal "
                                                        "token of this SeqDesk (make one on your page, /me)")
                        return
                    person, label = found
                elif cookie:
                    person = await accounts.session_person(cookie)
            except PersonRemoved as exc:
                await _refuse(scope, send, exc.status, str(exc))
                return
            except Unavailable:
                if not is_open:
                    await _refuse(scope, send, 503, "SeqDesk is starting: try again in a moment")
                    return
            except SeqDeskError as exc:  # the database is unreachable: a sentence, never a traceback
                await _refuse(scope, send, exc.status, str(exc))
                return
        if person is not None:
            if bearer is None and not same_origin(headers, str(scope.get("scheme", "http"))):
                await _refuse(scope, send, 403, "cross-origin requests are refused: open SeqDesk itself")
                return
            scope[PERSON_KEY] = person
            if label is not None:
                scope[TOKEN_KEY] = label
            await self.app(scope, receive, send)
            return
        if is_open:
            await self.app(scope, receive, send)
        elif scope["type"] == "http" and scope.get("method") in ("GET", "HEAD") and not is_machine(path):
            query = scope.get("query_string", b"").decode("latin-1")
            back = path + (f"?{query}" if query else "")
            await RedirectResponse(f"/login?next={quote(back, safe='')}", status_code=303)(scope, receive, send)
        else:
            await _refuse(scope, send, 401, "sign in first: this SeqDesk is a team's (send 'Authorization: Bearer "
                                            "<personal token>', or sign in at /login)")


async def _refuse(scope: Scope, send: Send, status: int, detail: str, retry_after: float = 0) -> None:
    headers = []
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="SeqDesk"'))
    if retry_after:
        headers.append((b"retry-after", str(max(1, round(retry_after))).encode()))
    await refuse(scope, send, status, detail, headers)
